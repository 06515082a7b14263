/**
 * alpaka 1.x: each device kernel is a functor —
 * `struct k { template<typename TAcc> ALPAKA_FN_ACC void operator()(TAcc const& acc, …) const { … } };`
 * — whose group and local ids are `alpaka::getIdx<Grid, Blocks>` and `getIdx<Block, Threads>`
 * (alpaka's index 0 is the slowest axis: loopy's axis 0 is index 2 of the 3-dimensional
 * accelerator), local temporaries `alpaka::declareSharedVar` with an id of their own, barriers
 * `alpaka::syncBlockThreads`, atomics `alpaka::atomicOp` at the `Blocks` level in shared memory and
 * the `Grids` level in global memory. `ilp` inames are alpaka's element level: each is one element
 * axis (at most 3, the first the fastest), a loop per thread over its
 * `getWorkDiv<Thread, Elems>` elements (codegen/lower/elements.ts). The host code launches the
 * kernels with `WorkDivMembers` (blocks, threads, elements) and `exec`.
 */
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { Schedule } from "../../src/schedule/index.js";
import type { AtomicStore, Stmt } from "../ast.js";
import type { LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { noAtomic } from "./atomics.js";
import { elementAxes } from "../lower/elements.js";
import { CFamilyTarget, CUDA_TYPES, type KernelParts } from "./cfamily.js";
import { hostFunction, slowestFirst } from "./host-launch.js";

/** The accelerator parameter, its block and thread indices, the host's queue and vector type (reserved in the alpaka dialect). */
const ACC = "loopy_acc";
const BLOCK = "loopy_block";
const THREAD = "loopy_thread";
const QUEUE = "loopy_queue";
const VEC = "loopy_vec";

const FUNCTION: Readonly<Record<AtomicOp, string>> = {
  "+": "atomicAdd", "-": "atomicSub", "&": "atomicAnd", "|": "atomicOr", "^": "atomicXor", min: "atomicMin", max: "atomicMax", "=": "atomicExch",
};
const INTEGER: readonly Dtype[] = ["int32", "uint32", "int64", "uint64"];

/**
 * One atomic update, at the level of the hierarchy that shares the cell: `hierarchy::Blocks` for
 * shared memory (the threads of one block), `hierarchy::Grids` for global memory. alpaka's atomics
 * take integers and floats; the bitwise ones integers only.
 */
function alpakaAtomic(a: AtomicStore, target: string, value: string, d: Dtype): string {
  const float = d === "float32" || d === "float64";
  if (!INTEGER.includes(d) && !float) throw noAtomic("alpaka", a.op, d, "atomics on 32- and 64-bit integers and floats");
  if (float && ["&", "|", "^"].includes(a.op)) throw noAtomic("alpaka", a.op, d, "bitwise atomics on integers only");
  const level = a.space === "local" ? "Blocks" : "Grids";
  // alpaka deduces the cell's type from both the pointer and the value: the value is cast to it.
  return `(void) alpaka::${FUNCTION[a.op]}(${ACC}, &${target}, static_cast<${CUDA_TYPES[d]!}>(${value}), alpaka::hierarchy::${level}{})`;
}

/** The functor: shared temporaries declared with ids counting up, private ones and the body after. */
function kernelFunction(k: KernelParts): string {
  const p = k.printer;
  let id = 0;
  const body = [...k.decls, ...(k.decls.length > 0 ? [{ k: "raw", text: "" } as Stmt] : []), ...k.body].map((s): Stmt => {
    if (s.k !== "decl" || s.space !== "local") return s;
    const ty = `${k.typeName(s.dtype)}${s.size !== undefined ? `[${s.size}]` : ""}`;
    return { k: "raw", text: `auto &${s.name} = alpaka::declareSharedVar<${ty}, ${id++}>(${ACC});` };
  });
  const ids = [
    `[[maybe_unused]] auto const ${BLOCK} = alpaka::getIdx<alpaka::Grid, alpaka::Blocks>(${ACC});`,
    `[[maybe_unused]] auto const ${THREAD} = alpaka::getIdx<alpaka::Block, alpaka::Threads>(${ACC});`,
  ].map((text): Stmt => ({ k: "raw", text }));
  body.unshift(...ids);
  return [
    `struct ${k.name}`,
    "{",
    "  template<typename TAcc>",
    `  ALPAKA_FN_ACC void operator()(${["TAcc const &" + ACC, ...k.params].join(", ")}) const`,
    ...p.stmt({ k: "block", body }, "  ").map((l) => l.trimEnd()),
    "};",
  ].join("\n");
}

export const alpakaTarget = new CFamilyTarget({
  name: "alpaka", cpu: false,
  lowerOptions: {
    hwAxes: true, atomics: "native", unrollHint: () => "ALPAKA_UNROLL()",
    // ilp inames are the element level: a loop over the thread's elements along index 2 - axis.
    ilpElements: { target: "alpaka", count: (axis) => `static_cast<int>(alpaka::getWorkDiv<alpaka::Thread, alpaka::Elems>(${ACC})[${2 - axis}])` },
  },
  types: CUDA_TYPES,
  includes: ["#include <alpaka/alpaka.hpp>", "#include <cmath>"],
  helperQualifier: "ALPAKA_FN_HOST_ACC inline",
  // alpaka's index 0 is the slowest axis: loopy's axis 0 (the fastest) is index 2.
  hw: (tag, axis) => `((int) ${tag === "g" ? BLOCK : THREAD}[${2 - axis}])`,
  // syncBlockThreads orders the block's shared and global memory, as __syncthreads does.
  barrier: (comment) => `alpaka::syncBlockThreads(${ACC}) /* ${comment} */;`,
  kernelHead: () => "",
  math: "suffix", intMinMaxBuiltin: false, int64Suffix: "LL",
  atomic: alpakaAtomic,
  kernelFunction,
});

/**
 * The host function: per launch a 3-dimensional `WorkDivMembers` (blocks, threads, and elements
 * per thread: each `ilp` iname's constant extent along its element axis, 1 elsewhere) and
 * `alpaka::exec` on the queue.
 */
export function alpakaHostCode(s: Schedule, code: GeneratedCode, lowered: readonly LoweredKernel[], names: NameAllocator): string {
  const vec = (sizes: readonly string[]) => `${VEC}(${slowestFirst(sizes).map((x) => (/^\d+$/.test(x) ? `${x}u` : `static_cast<std::size_t>(${x})`)).join(", ")})`;
  const elems: string[] = [];
  for (const e of elementAxes(s.kernel, "alpaka")) elems[e.axis] = String(e.extent);
  return hostFunction(s, code, lowered, names, "alpaka", {
    head: (params, name) => `template<typename TAcc, typename TQueue>\nvoid ${name}(${[`TQueue &${QUEUE}`, ...params].join(", ")})`,
    param: (a, name) => `${alpakaTarget.typeName(a.dtype)} ${a.kind === "value" ? "" : a.written ? "*" : "const *"}${name}`,
    launch: (info) => [
      `alpaka::exec<TAcc>(${QUEUE}, alpaka::WorkDivMembers<alpaka::DimInt<3u>, std::size_t>(${vec(info.globalSize)}, ${vec(info.localSize)}, ${vec(elems)}),`,
      `  ${[`${info.name}{}`, ...info.args].join(", ")});`,
    ],
    prologue: [`using ${VEC} = alpaka::Vec<alpaka::DimInt<3u>, std::size_t>;`],
  });
}
