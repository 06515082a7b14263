/**
 * boda's CUCL (shared/reference/CUCL.md): one source that is OpenCL C after `CUCL_OPENCL_PRELUDE`
 * and CUDA C++ after `CUCL_CUDA_PRELUDE` (cucl-prelude.ts), in the fully instantiated form
 * (CUCL.md §6a.1 (i)): `CUCL_GLOBAL_KERNEL`, `GASQ` pointers, `LOCSHAR_MEM` arrays, `BARRIER_SYNC`,
 * and one parameter per line annotated `// CUCL IN|OUT|INOUT dim:dim…` with the array's dimensions
 * named (outermost first) after its shape.
 *
 * CUCL launches are 1-D. A kernel's group and local axes are linearized through named dimensions as
 * boda's `IX` declarations do (§4.3), axis 0 fastest:
 *
 *   // CUCL IX GRP_ID_1D work use_dims=g1:g0
 *   int32_t const GRP_ID_1D_g0 = (int32_t) GRP_ID_1D % ((n + 15) / 16);
 *   int32_t const GRP_ID_1D_g1 = (int32_t) GRP_ID_1D / ((n + 15) / 16);
 *
 * and the launch is `∏ group sizes` groups of `∏ local sizes` work-items (`kernels[].globalSize`
 * and `localSize` have one entry). Atomics are no part of CUCL: each is CUDA's and OpenCL's
 * spelling under `#if CUCL_BACKEND_IX == 1`.
 */
import type { Dtype } from "../../src/ir/index.js";
import { findTemporary, type Expr } from "../../src/ir/index.js";
import type { Schedule } from "../../src/schedule/index.js";
import type { Stmt } from "../ast.js";
import type { Printer } from "../printer.js";
import type { LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { CFamilyTarget, type CDialect, type KernelParts } from "./cfamily.js";
import { cudaTarget } from "./cuda.js";
import { openclTarget } from "./opencl.js";

export { CUCL_CUDA_PRELUDE, CUCL_OPENCL_PRELUDE, CUCL_PRELUDES } from "./cucl-prelude.js";

/** The types both preludes define (boda's `uint32_t`, `int32_t`, `uint8_t`, and Loom's additions). */
const CUCL_TYPES: Readonly<Partial<Record<Dtype, string>>> = {
  float32: "float", float64: "double", int8: "int8_t", int16: "int16_t", int32: "int32_t", int64: "int64_t",
  uint8: "uint8_t", uint16: "uint16_t", uint32: "uint32_t", uint64: "uint64_t", bool: "uint8_t",
};

const ID_1D = { g: "GRP_ID_1D", l: "LOC_ID_1D" } as const;

/** The printed name of hardware axis `axis` of `tag`: `GRP_ID_1D_g0`, as boda names `%(GRP_ID_1D_<dim>)`. */
const hwName = (tag: "g" | "l", axis: number): string => `${ID_1D[tag]}_${tag}${axis}`;

/** `s` as an operand of `*`, `/` and `%`. */
const operand = (s: string): string => (/^[A-Za-z0-9_]+$/.test(s) ? s : `(${s})`);

/**
 * The declarations of the ids of `tag`'s axes from the 1-D id (CUCL.md §4.3: dimension i is
 * `(ix / stride_i) % size_i`, the outermost never wrapped), after their `// CUCL IX` line.
 */
function linearized(tag: "g" | "l", sizes: readonly string[]): string[] {
  if (sizes.length === 0) return [];
  const ix = ID_1D[tag];
  const dims = sizes.map((_, axis) => `${tag}${axis}`).reverse();
  const out = [`// CUCL IX ${ix} work use_dims=${dims.join(":")}`];
  let stride: string[] = [];
  sizes.forEach((size, axis) => {
    let v = `(int32_t) ${ix}`;
    if (stride.length > 0) v = `${v} / ${stride.length === 1 ? operand(stride[0]!) : `(${stride.map(operand).join(" * ")})`}`;
    if (axis < sizes.length - 1) v = `${stride.length > 0 ? `(${v})` : v} % ${operand(size)}`;
    out.push(`int32_t const ${hwName(tag, axis)} = ${v};`);
    stride = [...stride, size];
  });
  return out;
}

/** The arrays `stmts` read (loads, and the targets of atomic updates). */
function readArrays(x: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(x)) for (const y of x) readArrays(y, out);
  else if (x !== null && typeof x === "object") {
    const n = x as { k?: string; array?: string; atomic?: unknown };
    if ((n.k === "load" || (n.k === "assign" && n.atomic)) && n.array !== undefined) out.add(n.array);
    for (const v of Object.values(x)) if (v !== null && typeof v === "object") readArrays(v, out);
  }
  return out;
}

/** Named dimensions of an array's shape, outermost first: a parameter's name, else `d<axis>`. */
function dimNames(shape: readonly Expr[], order: "C" | "F", names: NameAllocator): string[] {
  const outer = order === "F" ? [...shape].reverse() : shape;
  const seen = new Set<string>();
  return outer.map((e, axis) => {
    let n = e.kind === "var" ? names.user(e.name) : `d${axis}`;
    if (seen.has(n)) n = `${n}_${axis}`;
    seen.add(n);
    return n;
  });
}

/** The kernel shapes by array name, for the `// CUCL` annotations. */
type Shapes = ReadonlyMap<string, { readonly shape: readonly Expr[]; readonly order: "C" | "F" }>;

function cuclKernel(k: KernelParts, shapes: Shapes): string {
  const read = readArrays([k.decls, k.body]);
  const last = k.params.length - 1;
  const params = k.params.map((decl, n) => {
    const a = k.args[n]!;
    const io = a.kind === "value" || !a.written ? "IN" : read.has(a.name) ? "INOUT" : "OUT";
    const s = shapes.get(a.name);
    const dims = a.kind === "value" ? ":" : s ? dimNames(s.shape, s.order, k.names).join(":") : a.name;
    return `  ${decl}${n === last ? " )" : ","} // CUCL ${io} ${dims}`;
  });
  const head = `CUCL_GLOBAL_KERNEL void ${k.name}(${params.length === 0 ? " void )" : `\n${params.join("\n")}`}`;
  const ids = [...linearized("g", k.groupSize), ...linearized("l", k.localSize)];
  const body: Stmt[] = [
    ...(ids.length > 0 ? [{ k: "raw", text: ids.join("\n") } as Stmt] : []),
    ...k.decls, ...(k.decls.length > 0 ? [{ k: "raw", text: "" } as Stmt] : []), ...k.body,
  ];
  return [head, ...k.printer.stmt({ k: "block", body }, "")].map((l) => l.trimEnd()).join("\n");
}

const DIALECT: CDialect = {
  name: "cucl", cpu: false,
  // Run on PoCL too: work-group-uniform loop bounds where a barrier sits in a loop (lower/uniform-loops.ts).
  lowerOptions: { hwAxes: true, atomics: "native", uniformLocalLoops: true, unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: CUCL_TYPES,
  includes: ["// CUCL: compile after CUCL_OPENCL_PRELUDE (OpenCL) or CUCL_CUDA_PRELUDE (CUDA)"],
  helperQualifier: "CUCL_DEVICE",
  hw: hwName,
  localQualifier: "LOCSHAR_MEM",
  globalQualifier: "GASQ",
  barrier: (comment, memory) => `${memory === "local" ? "BARRIER_SYNC" : "BARRIER_SYNC_GLOBAL"} /* ${comment} */;`,
  kernelHead: () => "CUCL_GLOBAL_KERNEL void",
  math: "overload", intMinMaxBuiltin: true, int64Suffix: "L",
  // boda's parser wants the `*` as a token of its own (CUCL.md §3).
  argDecl: (a, ty) => (a.kind === "value" ? `${ty} const ${a.name}` : `GASQ ${ty}${a.written ? "" : " const"} * const ${a.name}`),
  atomic: (a, target, value, d, p) => {
    // OpenCL's extension pragmas go to the top under `#if CUCL_BACKEND_IX == 2` (nvcc warns of unknown pragmas).
    const opencl = { helpers: { add: (h: string) => p.helpers.add(h.replace("|", "|#if CUCL_BACKEND_IX == 2\n") + "\n#endif") } } as unknown as Printer;
    return `/* atomic ${a.op === "=" ? "exchange" : a.op}: CUDA's or OpenCL's */\n#if CUCL_BACKEND_IX == 1\n${cudaTarget.d.atomic!(a, target, value, d, p)}\n` +
      `#else\n${openclTarget.d.atomic!(a, target, value, d, opencl)}\n#endif\n`;
  },
};

/** The shapes of the arrays and global temporaries `s`'s kernels take, by printed name. */
function shapesOf(s: Schedule | undefined, names: NameAllocator): Shapes {
  const out = new Map<string, { shape: readonly Expr[]; order: "C" | "F" }>();
  for (const a of s?.kernel.args ?? []) if (a.kind === "array" && a.shape) out.set(names.user(a.name), { shape: a.shape, order: a.order });
  for (const dk of s?.deviceKernels ?? []) {
    for (const name of dk.args) {
      const t = out.has(names.user(name)) ? undefined : findTemporary(s!.kernel, name);
      if (t) out.set(names.user(name), { shape: t.shape, order: t.order });
    }
  }
  return out;
}

/** The product of launch sizes as one C expression (`1` for none). */
function product(sizes: readonly string[]): string {
  if (sizes.length === 1) return sizes[0]!;
  const nums = sizes.filter((x) => /^\d+$/.test(x)).reduce((p, x) => p * Number(x), 1);
  const rest = sizes.filter((x) => !/^\d+$/.test(x)).map(operand);
  return [...(nums !== 1 || rest.length === 0 ? [String(nums)] : []), ...rest].join(" * ");
}

/** CUCL code for kernels lowered from `s` (whose shapes name the dimensions), with 1-D launch sizes. */
export function renderCucl(kernels: readonly LoweredKernel[], names: NameAllocator, s?: Schedule): GeneratedCode {
  const shapes = shapesOf(s, names);
  const code = new CFamilyTarget({ ...DIALECT, kernelFunction: (k) => cuclKernel(k, shapes) }).render(kernels, names);
  return { ...code, kernels: code.kernels.map((info) => ({ ...info, globalSize: [product(info.globalSize)], localSize: [product(info.localSize)] })) };
}

export const cuclTarget = new CFamilyTarget(DIALECT);
