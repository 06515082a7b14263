/**
 * The Metal Shading Language: `kernel void` with each argument bound to `[[buffer(i)]]` (values as
 * `constant T &`), group and local ids from `[[threadgroup_position_in_grid]]` and
 * `[[thread_position_in_threadgroup]]`, `threadgroup` temporaries, `threadgroup_barrier`, and
 * `atomic_*_explicit` on the cell cast to an atomic type. Metal has no float64: such kernels are refused.
 */
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { Schedule } from "../../src/schedule/index.js";
import type { AtomicStore, BarrierMemory } from "../ast.js";
import type { LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { noAtomic } from "./atomics.js";
import { CFamilyTarget } from "./cfamily.js";
import { refuseMissingMath } from "./math-c99.js";
import { hostFunction } from "./host-launch.js";

/** The names of the position parameters (reserved in the metal dialect). */
const GROUP = "loopy_group";
const LOCAL = "loopy_local";
/** The host function's compute encoder and per-kernel pipeline parameters (reserved too). */
const ENCODER = "loopy_encoder";
const PIPELINE = "loopy_pipeline";
const XYZ = ["x", "y", "z"];

const FETCH: Readonly<Record<AtomicOp, string>> = {
  "+": "atomic_fetch_add_explicit", "-": "atomic_fetch_sub_explicit", "&": "atomic_fetch_and_explicit", "|": "atomic_fetch_or_explicit",
  "^": "atomic_fetch_xor_explicit", min: "atomic_fetch_min_explicit", max: "atomic_fetch_max_explicit", "=": "atomic_exchange_explicit",
};

/**
 * One atomic update: Metal's atomics act on `atomic_int`, `atomic_uint` (every update) and, from
 * MSL 3.0, `atomic_float` in device memory (add, subtract, exchange); the cell is cast to one.
 */
function metalAtomic(a: AtomicStore, target: string, value: string, d: Dtype): string {
  const space = a.space === "local" ? "threadgroup" : "device";
  const type = d === "int32" ? "atomic_int" : d === "uint32" ? "atomic_uint" : d === "float32" && a.space === "global" && ["+", "-", "="].includes(a.op) ? "atomic_float" : undefined;
  if (!type) throw noAtomic("metal", a.op, d, "atomics on int32 and uint32, and add, subtract and exchange of float32 in global (device) memory");
  return `${FETCH[a.op]}((${space} ${type} *) &${target}, ${value}, memory_order_relaxed)`;
}

const FLAGS: Readonly<Record<BarrierMemory, string>> = {
  local: "mem_flags::mem_threadgroup", global: "mem_flags::mem_device", "local+global": "mem_flags::mem_device | mem_flags::mem_threadgroup",
};

export const metalTarget = new CFamilyTarget({
  name: "metal", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll(${n})`) },
  // No double in Metal; bool as uchar, as the other targets store it.
  types: {
    float16: "half", float32: "float", int8: "char", int16: "short", int32: "int", int64: "long",
    uint8: "uchar", uint16: "ushort", uint32: "uint", uint64: "ulong", bool: "uchar",
  },
  includes: ["#include <metal_stdlib>", "using namespace metal;"],
  helperQualifier: "inline",
  hw: (tag, axis) => `((int) ${tag === "g" ? GROUP : LOCAL}.${XYZ[axis]})`,
  localQualifier: "threadgroup",
  globalQualifier: "device",
  barrier: (comment, memory) => `threadgroup_barrier(${FLAGS[memory]}) /* ${comment} */;`,
  kernelHead: () => "kernel void",
  math: "overload", intMinMaxBuiltin: true, int64Suffix: "L",
  atomic: metalAtomic,
  trapClaim: (cell) => metalAtomic({ op: "+", space: "global" }, cell, "1u", "uint32"),
  argDecl: (a, ty, n) => (a.kind === "value"
    ? `constant ${ty} &${a.name} [[buffer(${n})]]`
    : `device ${ty}${a.written ? "" : " const"} *${a.name} [[buffer(${n})]]`),
  call: (fn, t, args) => {
    refuseMissingMath("metal", fn);
    return fn === "abs" && (t === "int64" || t === "uint64") ? `abs(${args.join(", ")})` : undefined;
  },
  extraParams: [`uint3 ${GROUP} [[threadgroup_position_in_grid]]`, `uint3 ${LOCAL} [[thread_position_in_threadgroup]]`],
});

/**
 * The host function, in metal-cpp (Apple's C++ interface to Metal): per launch the kernel's
 * pipeline, its buffers and values at the indices of its `[[buffer(i)]]`, and
 * `dispatchThreadgroups(groups, threads per group)`. Dispatches on one compute encoder run in
 * order, each seeing the previous one's writes.
 */
export function metalHostCode(s: Schedule, code: GeneratedCode, lowered: readonly LoweredKernel[], names: NameAllocator): string {
  const size = (xs: readonly string[]) => `MTL::Size(${[0, 1, 2].map((n) => xs[n] ?? "1").join(", ")})`;
  const pipeline = (n: number) => `${PIPELINE}_${n}`;
  return hostFunction(s, code, lowered, names, "metal", {
    head: (params, name) => `void ${name}(${[`MTL::ComputeCommandEncoder *${ENCODER}`, ...code.kernels.map((_, n) => `MTL::ComputePipelineState *${pipeline(n)}`), ...params].join(", ")})`,
    param: (a, name) => (a.kind === "value" ? `${metalTarget.typeName(a.dtype)} ${name}` : `MTL::Buffer *${name}`),
    launch: (info, n) => {
      const kinds = lowered[n]!.args;
      return [
        `${ENCODER}->setComputePipelineState(${pipeline(n)});`,
        ...info.args.map((a, i) => (kinds[i]?.kind === "value" ? `${ENCODER}->setBytes(&${a}, sizeof(${a}), ${i});` : `${ENCODER}->setBuffer(${a}, 0, ${i});`)),
        `${ENCODER}->dispatchThreadgroups(${size(info.globalSize)}, ${size(info.localSize)});`,
      ];
    },
  });
}
