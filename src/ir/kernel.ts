/**
 * The kernel record: domains, instructions, arguments, temporaries, substitution rules, iname
 * tags and assumptions. Immutable: build one with `kernelRecord`, change it with `withKernel`.
 */
import { LoomError, TransformError } from "../errors.js";
import { universe, type BasicSet } from "../poly/index.js";
import { arrayDomainParam, arrayDomainParamAdvice, arrayDomainParamProblem } from "./domain-params.js";
import type { Dtype } from "./dtype.js";
import type { Expr } from "./expr.js";
import { defaultDimTags, type DimTag } from "./layout.js";
import type { Instruction } from "./insn.js";
import type { InameTag } from "./tags.js";

export const TARGET_NAMES = [
  "c", "openmp", "opencl", "cuda", "hip", "sycl", "metal", "ispc", "okl", "alpaka", "cucl", "js", "wgsl",
] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export type AddressSpace = "private" | "local" | "global";

/** A global array argument. `dtype`/`shape` undefined mean "not known yet" (loopy's auto). */
export interface ArrayArg {
  readonly kind: "array";
  readonly name: string;
  readonly dtype: Dtype | undefined;
  readonly shape: readonly Expr[] | undefined;
  readonly order: "C" | "F";
  /** Explicit axis tags; undefined means the default of `order`. */
  readonly dimTags: readonly DimTag[] | undefined;
  readonly isInput: boolean;
  readonly isOutput: boolean;
}

/** A scalar argument (a parameter of the domains, or a value used in expressions). */
export interface ValueArg {
  readonly kind: "value";
  readonly name: string;
  readonly dtype: Dtype | undefined;
}

export type KernelArg = ArrayArg | ValueArg;

/** A variable that lives only while the kernel runs. Shape [] is a scalar. */
export interface Temporary {
  readonly name: string;
  readonly dtype: Dtype | undefined;
  readonly shape: readonly Expr[];
  /** "auto": decided at scheduling (local when written across work-items, else private). */
  readonly addressSpace: AddressSpace | "auto";
  readonly order: "C" | "F";
  readonly dimTags: readonly DimTag[] | undefined;
}

/** `name(params) := expr`, expanded where it is called. */
export interface SubstitutionRule {
  readonly name: string;
  readonly params: readonly string[];
  readonly expr: Expr;
}

export interface Kernel {
  readonly name: string;
  /** The domain forest: a domain whose parameters are inames of another is nested in it. */
  readonly domains: readonly BasicSet[];
  readonly instructions: readonly Instruction[];
  readonly args: readonly KernelArg[];
  readonly temporaries: readonly Temporary[];
  readonly substitutions: readonly SubstitutionRule[];
  /** Tags of tagged inames; an absent iname is a sequential loop. */
  readonly inameTags: Readonly<Record<string, InameTag>>;
  /** Constraints on the parameters, a set with no dimensions. */
  readonly assumptions: BasicSet;
  /** Preferred loop orders, outer first (`prioritizeLoops`). */
  readonly loopPriority: readonly (readonly string[])[];
  readonly target: TargetName | undefined;
  /**
   * loopy's slab increments per iname (`splitIname(…, {slabs: [0, 1]})`): the first and last
   * iterations of the loop are generated as separate blocks so the main block needs no guard.
   */
  readonly inameSlabs?: Readonly<Record<string, readonly [number, number]>>;
  /**
   * How GPU targets (OpenCL, CUDA) name the device kernels: "loom" (default) `name`, `name_0`,
   * `name_1`, …; "occa" `_occa_name_0`, `_occa_name_1`, … as OCCA's launchers expect. Kernels
   * imported from OKL say "occa"; `generateCode(k, t, {kernelNames})` overrides it.
   */
  readonly deviceKernelNames?: DeviceKernelNaming;
  /**
   * What an imported OKL kernel's attributes say beyond the IR (`@restrict` arguments,
   * `@max_inner_dims`, `@simd_length`): a field of the kernel so that transformations keep it
   * (`withKernel` copies it). Read with `oklKernelOptions(k)` (src/okl); no printer shows it.
   */
  readonly oklOptions?: OklKernelOptions;
}

/** The OKL attributes of a kernel with no IR counterpart (see `Kernel.oklOptions`). */
export interface OklKernelOptions {
  readonly restrict: readonly string[];
  readonly maxInnerDims?: readonly number[];
  readonly simdLength?: number;
  /**
   * Pointer arguments to structs whose fields mix types (`bcData *bc` with `int` and `double`
   * fields): the kernel takes one array per field instead, and this is C's layout of the struct, so
   * host code can split C's bytes into those arrays and join them back (src/okl/struct-args.ts).
   */
  readonly structArgs?: readonly OklStructArg[];
  /**
   * Value arguments the host computes from the others before the launch (`run` fills them in;
   * passing one is an ExecutionError): an @outer loop's trip count that is not affine in the value
   * arguments (`eo < (entries + size - 1) / size`), so the domain stays affine in it and it sizes
   * the grid as OCCA's host does (src/run/derived-args.ts).
   */
  readonly derivedArgs?: readonly OklDerivedArg[];
  /**
   * Where instructions (by id), loops (by iname) and local variables (by temporary) come from in the
   * OKL source, as "line:column": later passes name them in their messages (the CPU lowering's
   * refusals), since the IR itself has no source positions.
   */
  readonly places?: Readonly<Record<string, string>>;
}

/** A value argument computed exactly (integers, C's truncating division) from the other value arguments. */
export interface OklDerivedArg {
  readonly name: string;
  readonly expr: Expr;
  /** What it is, for messages (`the trip count of @outer loop "eo" (line 2)`). */
  readonly what: string;
}

/** C's layout (x86-64/aarch64 ABI: each scalar aligned to its size) of a struct passed as a pointer argument, split into field arrays. */
export interface OklStructArg {
  /** The OKL argument (`bc`). */
  readonly arg: string;
  readonly struct: string;
  /** `sizeof` and `_Alignof` of the struct in C. */
  readonly size: number;
  readonly align: number;
  /**
   * Every field in declaration order: its byte offset, and the kernel argument holding it
   * (undefined: the kernel never uses it). `name` is the field's path (`vals`, `n.x` in a nested
   * struct); an array field (or a field of an array of nested structs) has `elements`: each
   * element's byte offset, row-major, and its argument holds `elements.length` values per struct
   * (struct i's at i*length …). `dims`: the array dims of each segment of `name` as declared
   * (`double m[2][3]` is [[2, 3]]; `pts.x` of `struct { double x; } pts[4]` is [[4], []]).
   */
  readonly fields: readonly { readonly name: string; readonly dtype: Dtype; readonly offset: number; readonly argument: string | undefined; readonly elements?: readonly number[]; readonly dims?: readonly (readonly number[])[] }[];
}

export type DeviceKernelNaming = "loom" | "occa";

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === "object" && !Object.isFrozen(x)) freezeTree(x);
  return x;
}

/**
 * Freeze `x` (an object not frozen yet) and every object reachable from it that is not frozen
 * yet. Frozen subtrees (shared with the kernel a change was made to) are not walked again, and
 * children are tested before the call (most are strings, numbers or frozen already).
 */
function freezeTree(x: object): void {
  Object.freeze(x);
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const v: unknown = x[i];
      if (typeof v === "object" && v !== null && !Object.isFrozen(v)) freezeTree(v);
    }
  } else {
    const o = x as Record<string, unknown>;
    for (const key in o) {
      const v = o[key];
      if (typeof v === "object" && v !== null && !Object.isFrozen(v) && Object.hasOwn(o, key)) freezeTree(v);
    }
  }
}

// `String(k)` is `show(k)`: print.ts (which imports this module) registers the printer. The
// method is non-enumerable, so JSON, structured clones and deep equality see only the fields.
let kernelPrinter: ((k: Kernel) => string) | undefined;

/** Used once by print.ts: the printer behind every kernel's `toString()`. */
export function setKernelPrinter(printer: (k: Kernel) => string): void {
  kernelPrinter = printer;
}

function kernelToString(this: Kernel): string {
  return kernelPrinter ? kernelPrinter(this) : `[Kernel ${this.name}]`;
}

function withToString(k: Kernel): Kernel {
  Object.defineProperty(k, "toString", { value: kernelToString, enumerable: false });
  return k;
}

/** A frozen kernel from its fields; missing optional fields get their defaults. */
export function kernelRecord(
  fields: Pick<Kernel, "name" | "domains" | "instructions" | "args"> & Partial<Kernel>,
): Kernel {
  const k: Kernel = {
    temporaries: [], substitutions: [], inameTags: {}, loopPriority: [], target: undefined,
    assumptions: universe([], []),
    ...fields,
  };
  // A loop bound reads a scalar (domain-params.ts): refused before the kernel exists.
  const bad = arrayDomainParam(k);
  if (bad !== undefined) throw new LoomError(`${arrayDomainParamProblem(k.name, bad)}; ${arrayDomainParamAdvice(bad)}`);
  return deepFreeze(withToString(k));
}

/**
 * A new frozen kernel with `changes` applied; `k` is untouched. A change that leaves a domain
 * parameter naming a temporary array (domain-params.ts) is a TransformError, thrown before any
 * kernel is made: only changes to the domains or the temporaries are checked again.
 */
export function withKernel(k: Kernel, changes: Partial<Kernel>): Kernel {
  const next = { ...k, ...changes };
  if (changes.domains !== undefined || changes.temporaries !== undefined) {
    const bad = arrayDomainParam(next);
    if (bad !== undefined) {
      throw new TransformError(`${arrayDomainParamProblem(next.name, bad)}, after a change to the kernel's ${changes.domains !== undefined ? "domains" : "temporaries"}; ${arrayDomainParamAdvice(bad)}`);
    }
  }
  return deepFreeze(withToString(next));
}

// ---- lookups ------------------------------------------------------------------------------

/** Whether `iname` is mapped to a hardware axis (group or work-item, `l.auto` too), so it is not a loop. */
export function isHardwareIname(k: Kernel, iname: string): boolean {
  const t = k.inameTags[iname]?.kind;
  return t === "g" || t === "l" || t === "l.auto";
}

/** Every iname of the kernel, in domain order. */
export function allInames(k: Kernel): string[] {
  // Asked many times of each kernel by every pass: remembered per (frozen) domain list.
  const ds = k.domains;
  let names = inamesMemo.get(ds);
  if (names === undefined) {
    const out: string[] = [];
    for (let i = 0; i < ds.length; i++) {
      const dims = ds[i]!.dims;
      for (let j = 0; j < dims.length; j++) out.push(dims[j]!);
    }
    names = out;
    let frozen = Object.isFrozen(ds);
    // (Indexed: V8 takes a slow generic path for every(), some(), find() and for-of over frozen arrays.)
    for (let i = 0; frozen && i < ds.length; i++) frozen = Object.isFrozen(ds[i]) && Object.isFrozen(ds[i]!.dims);
    if (frozen) inamesMemo.set(ds, names);
  }
  return names.slice();
}

const inamesMemo = new WeakMap<readonly BasicSet[], readonly string[]>();

/** The index of the domain that defines `iname`, or -1. */
export function domainIndexOf(k: Kernel, iname: string): number {
  const ds = k.domains;
  for (let i = 0; i < ds.length; i++) if (ds[i]!.dims.includes(iname)) return i;
  return -1;
}

export function findArg(k: Kernel, name: string): KernelArg | undefined {
  return byName(k.args, name);
}
export function findTemporary(k: Kernel, name: string): Temporary | undefined {
  return byName(k.temporaries, name);
}

/**
 * Why instruction `insnId` may not name `name` without a subscript: it is an array argument or
 * temporary with axes, and which element it would mean is not defined (the interpreter, code
 * generation and the statistics refuse it alike); undefined for anything else, a 0-d array (its one
 * element) included.
 */
export function bareArrayProblem(k: Kernel, name: string, insnId: string): string | undefined {
  const arg = findArg(k, name);
  const rank = (arg ? (arg.kind === "array" ? arg : undefined) : findTemporary(k, name))?.shape?.length ?? 0;
  return rank > 0 ? `instruction "${insnId}" uses array "${name}" without a subscript; it has ${rank} axes` : undefined;
}

/** Lists longer than this are looked up through an index (a scan per lookup is quadratic in big kernels). */
const INDEX_FROM = 8;
const byNameMemo = new WeakMap<readonly { readonly name: string }[], ReadonlyMap<string, { readonly name: string }>>();

/** The first entry of `list` named `name`; a frozen long list is indexed once (first entry per name, as `find`). */
function byName<T extends { readonly name: string }>(list: readonly T[], name: string): T | undefined {
  if (list.length <= INDEX_FROM || !Object.isFrozen(list)) {
    for (let i = 0; i < list.length; i++) if (list[i]!.name === name) return list[i];
    return undefined;
  }
  let index = byNameMemo.get(list);
  if (index === undefined) {
    const m = new Map<string, T>();
    for (const x of list) if (!m.has(x.name)) m.set(x.name, x);
    byNameMemo.set(list, (index = m));
  }
  return index.get(name) as T | undefined;
}
export function findSubstitution(k: Kernel, name: string): SubstitutionRule | undefined {
  const subs = k.substitutions;
  for (let i = 0; i < subs.length; i++) if (subs[i]!.name === name) return subs[i];
  return undefined;
}

/** The axis tags an array really uses: explicit ones, or the default of its order. */
export function effectiveDimTags(a: ArrayArg | Temporary): readonly DimTag[] {
  const n = a.shape?.length ?? 0;
  return a.dimTags ?? defaultDimTags(n, a.order);
}

/** A name not in `taken`, built from `base` with loopy's suffixes (`base`, `base_0`, `base_1`, …). */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  return uniqueNameFrom(base, taken, 0);
}

function uniqueNameFrom(base: string, taken: ReadonlySet<string>, from: number): string {
  if (!taken.has(base)) return base;
  for (let k = from; ; k++) {
    const cand = `${base}_${k}`;
    if (!taken.has(cand)) return cand;
  }
}

/**
 * `uniqueName` for many names drawn into one growing set: each name returned is added to `taken`,
 * and the search for a base resumes after its last suffix (every earlier one is still taken), so
 * naming n instructions `insn`, `insn_0`, … costs n steps, not n²/2. The names are those of
 * `uniqueName` called in turn with the name added each time.
 *
 *   const fresh = uniqueNamer(new Set(["insn"])); fresh("insn") // "insn_0", then "insn_1"
 */
export function uniqueNamer(taken: Set<string>): (base: string) => string {
  const next = new Map<string, number>();
  return (base) => {
    const name = uniqueNameFrom(base, taken, next.get(base) ?? 0);
    if (name !== base) next.set(base, Number(name.slice(base.length + 1)) + 1);
    taken.add(name);
    return name;
  };
}

