/**
 * SYCL 2020: each device kernel is a host function that submits it to a queue —
 * `q.submit([&](sycl::handler &h) { …; h.parallel_for(sycl::nd_range<3>(…), [=](sycl::nd_item<3> it) { … }); })`
 * — with local temporaries as `sycl::local_accessor`s made in the command group, barriers as
 * `sycl::group_barrier`, atomics as `sycl::atomic_ref` at the work-group or device scope. SYCL's
 * last dimension varies fastest (DPC++'s order): loopy's axis 0 is dimension 2.
 */
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { Schedule } from "../../src/schedule/index.js";
import type { AtomicStore, Stmt } from "../ast.js";
import type { LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { noAtomic } from "./atomics.js";
import { CFamilyTarget, CUDA_TYPES, type KernelParts } from "./cfamily.js";
import { hostFunction, slowestFirst } from "./host-launch.js";

/** The names the SYCL printer writes besides the user's (reserved in the sycl dialect). */
const ITEM = "loopy_item";
const HANDLER = "loopy_cgh";
const QUEUE = "loopy_queue";

const FETCH: Readonly<Partial<Record<AtomicOp, string>>> = {
  "+": "fetch_add", "-": "fetch_sub", "&": "fetch_and", "|": "fetch_or", "^": "fetch_xor", min: "fetch_min", max: "fetch_max", "=": "exchange",
};
const INTEGER: readonly Dtype[] = ["int32", "uint32", "int64", "uint64"];

/**
 * One atomic update: `sycl::atomic_ref` on the cell, at the work-group scope in local memory and
 * the device scope in global memory. SYCL 2020's atomic_ref takes 32- and 64-bit integers and
 * floats; the bitwise updates only integers.
 */
function syclAtomic(a: AtomicStore, target: string, value: string, d: Dtype, typeName: string): string {
  const float = d === "float32" || d === "float64";
  if (!INTEGER.includes(d) && !float) throw noAtomic("sycl", a.op, d, "atomics (sycl::atomic_ref) on 32- and 64-bit integers and floats");
  if (float && ["&", "|", "^"].includes(a.op)) throw noAtomic("sycl", a.op, d, "bitwise atomics on integers only");
  const [scope, space] = a.space === "local" ? ["work_group", "local_space"] : ["device", "global_space"];
  const ref = `sycl::atomic_ref<${typeName}, sycl::memory_order::relaxed, sycl::memory_scope::${scope}, sycl::access::address_space::${space}>(${target})`;
  return `${ref}.${FETCH[a.op]!}(${value})`;
}

/** The submitting function: local accessors in the command group, the rest in the kernel lambda. */
function kernelFunction(k: KernelParts): string {
  const p = k.printer;
  const shared = k.decls.filter((s): s is Stmt & { k: "decl" } => s.k === "decl" && s.space === "local");
  const privates = k.decls.filter((s) => !(s.k === "decl" && s.space === "local"));
  const accessors: string[] = [];
  const aliases: string[] = [];
  for (const s of shared) {
    const ty = k.typeName(s.dtype);
    if (s.size !== undefined) {
      accessors.push(`sycl::local_accessor<${ty}, 1> ${s.name}(sycl::range<1>(${s.size}), ${HANDLER});`);
    } else {
      // A local scalar is element 0 of a one-element accessor, referred to by its name in the kernel.
      const acc = k.names.fresh(`${s.name}_local`);
      accessors.push(`sycl::local_accessor<${ty}, 1> ${acc}(sycl::range<1>(1), ${HANDLER});`);
      aliases.push(`${ty} &${s.name} = ${acc}[0];`);
    }
  }
  const local = slowestFirst(k.localSize);
  const paren = (x: string) => (/^\w+$/.test(x) ? x : `(${x})`);
  const global = slowestFirst(k.groupSize).map((g, n) => (local[n] === "1" ? g : g === "1" ? local[n]! : `${paren(g)} * ${paren(local[n]!)}`));
  const range = `sycl::nd_range<3>(sycl::range<3>(${global.join(", ")}), sycl::range<3>(${local.join(", ")}))`;
  const body = [...aliases.map((a) => ({ k: "raw", text: a }) as Stmt), ...privates, ...(privates.length + aliases.length > 0 ? [{ k: "raw", text: "" } as Stmt] : []), ...k.body];
  const lambda = p.stmt({ k: "block", body }, "    ").map((l) => l.trimEnd());
  return [
    `sycl::event ${k.name}(${[`sycl::queue &${QUEUE}`, ...k.params].join(", ")})`,
    "{",
    `  return ${QUEUE}.submit([&](sycl::handler &${HANDLER})`,
    "  {",
    ...accessors.map((a) => `    ${a}`),
    `    ${HANDLER}.parallel_for(${range}, [=](sycl::nd_item<3> ${ITEM})`,
    ...lambda.slice(0, -1),
    `${lambda.at(-1)!});`,
    "  });",
    "}",
  ].join("\n");
}

export const syclTarget = new CFamilyTarget({
  name: "sycl", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: { ...CUDA_TYPES, float16: "sycl::half" },
  includes: ["#include <sycl/sycl.hpp>", "#include <cmath>"],
  helperQualifier: "inline",
  hw: (tag, axis) => `((int) ${ITEM}.${tag === "g" ? "get_group" : "get_local_id"}(${2 - axis}))`,
  // group_barrier orders the work-group's local and global memory (its fence scope is the group).
  barrier: (comment) => `sycl::group_barrier(${ITEM}.get_group()) /* ${comment} */;`,
  kernelHead: () => "",
  math: "suffix", intMinMaxBuiltin: false, int64Suffix: "LL",
  atomic: (a, target, value, d) => syclAtomic(a, target, value, d, CUDA_TYPES[d]!),
  trapClaim: (cell) => syclAtomic({ op: "+", space: "global" }, cell, "1u", "uint32", CUDA_TYPES.uint32!),
  kernelFunction,
});

/** The host function: each device kernel submitted in order, waited for (a launch sees the previous one's writes). */
export function syclHostCode(s: Schedule, code: GeneratedCode, lowered: readonly LoweredKernel[], names: NameAllocator): string {
  return hostFunction(s, code, lowered, names, "sycl", {
    head: (params, name) => `void ${name}(${[`sycl::queue &${QUEUE}`, ...params].join(", ")})`,
    param: (a, name) => `${syclTarget.typeName(a.dtype)} ${a.kind === "value" ? "" : a.written ? "*" : "const *"}${name}`,
    launch: (info) => [`${info.name}(${[QUEUE, ...info.args].join(", ")}).wait();`],
  });
}
