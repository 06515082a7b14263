/** OpenCL C, as loopy writes it: `gid(N)`/`lid(N)` macros, `__local`, `reqd_work_group_size`. */
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { AtomicStore, BarrierMemory } from "../ast.js";
import type { Printer } from "../printer.js";
import { casLoop, floatCombine, noAtomic, type CasSpelling } from "./atomics.js";
import { CFamilyTarget, CL_TYPES, type CDialect } from "./cfamily.js";
import { openclVecLoops, VEC_LOOP_MARK } from "../lower/vec-opencl.js";

const FUNCTION: Readonly<Record<AtomicOp, string>> = {
  "+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor", min: "min", max: "max", "=": "xchg",
};

/** The extension each 64-bit integer atomic needs (`atom_add` is a base atomic, `atom_or` an extended one). */
const INT64_EXTENSION: Readonly<Record<AtomicOp, string>> = {
  "+": "cl_khr_int64_base_atomics", "-": "cl_khr_int64_base_atomics", "=": "cl_khr_int64_base_atomics",
  "&": "cl_khr_int64_extended_atomics", "|": "cl_khr_int64_extended_atomics", "^": "cl_khr_int64_extended_atomics",
  min: "cl_khr_int64_extended_atomics", max: "cl_khr_int64_extended_atomics",
};

/** Enable `ext` at the top of the device code (sorted before the helper functions). */
function enable(p: Printer, ext: string): void {
  p.helpers.add(`!${ext}|#pragma OPENCL EXTENSION ${ext} : enable`);
}

/**
 * The compare-and-swap spelling for floats: OpenCL 1.2 has atomic_cmpxchg on 32-bit integers (and
 * atom_cmpxchg on 64-bit ones with the extension), on a pointer whose address space is spelled out.
 */
function floatCas(d: "float32" | "float64", space: "global" | "local"): CasSpelling {
  const wide = d === "float64";
  const word = wide ? "unsigned long" : "unsigned int";
  return {
    pointee: `volatile __${space} ${word}`, word, valueType: wide ? "double" : "float", cas: wide ? "atom_cmpxchg" : "atomic_cmpxchg",
    toWord: (x) => `${wide ? "as_ulong" : "as_uint"}(${x})`, fromWord: (x) => `${wide ? "as_double" : "as_float"}(${x})`,
  };
}

/**
 * One atomic update in OpenCL C 1.2: `atomic_<op>` on 32-bit integers (and `atomic_xchg` on
 * float), `atom_<op>` on 64-bit integers under the cl_khr_int64 extension pragmas, other float
 * updates as a compare-and-swap loop on the bit pattern.
 */
function openclAtomic(a: AtomicStore, target: string, value: string, d: Dtype, p: Printer): string {
  const fn = FUNCTION[a.op];
  if (d === "int32" || d === "uint32" || (d === "float32" && a.op === "=")) return `atomic_${fn}(&${target}, ${value})`;
  if (d === "int64" || d === "uint64") {
    enable(p, INT64_EXTENSION[a.op]);
    return `atom_${fn}(&${target}, ${value})`;
  }
  if (d === "float32" || d === "float64") {
    if (d === "float64") enable(p, "cl_khr_int64_base_atomics");
    return casLoop(floatCas(d, a.space), target, value, floatCombine(a.op, (f) => `f${f}`));
  }
  throw noAtomic("opencl", a.op, d, "atomics on 32- and 64-bit integers and floats");
}

/** OpenCL's fence flags: a local fence alone does not order global memory between work-items. */
const FENCES: Readonly<Record<BarrierMemory, string>> = {
  local: "CLK_LOCAL_MEM_FENCE", global: "CLK_GLOBAL_MEM_FENCE", "local+global": "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE",
};

const dialect: CDialect = {
  name: "opencl", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", uniformLocalLoops: true, simdLoop: VEC_LOOP_MARK, unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: CL_TYPES,
  includes: ["#define lid(N) ((int) get_local_id(N))", "#define gid(N) ((int) get_group_id(N))"],
  helperQualifier: "inline",
  hw: (tag, axis) => `${tag === "g" ? "gid" : "lid"}(${axis})`,
  localQualifier: "__local",
  globalQualifier: "__global",
  barrier: (comment, memory) => `barrier(${FENCES[memory]}) /* ${comment} */;`,
  // A work-group size set at launch (a parametric @inner extent) has no required size to state.
  kernelHead: (l) => (l ? `__kernel void __attribute__ ((reqd_work_group_size(${[0, 1, 2].map((n) => l[n] ?? 1).join(", ")})))` : "__kernel void"),
  math: "overload", intMinMaxBuiltin: true, int64Suffix: "L",
  atomic: openclAtomic,
  trapClaim: (cell) => `atomic_inc(&${cell})`,
  // vec loops as vector types: vloadN/vstoreN, vector arithmetic, vector accumulators (lower/vec-opencl.ts).
  rewriteBody: (decls, body, c) => openclVecLoops(decls, body, c.printer, c.names, c.typeName),
};

export const openclTarget = new CFamilyTarget(dialect);
