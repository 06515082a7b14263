/**
 * A kernel as JSON, for a job on a tuning queue: `kernelToJSON` writes the kernel record's fields
 * (non-finite numbers and -0 as `{ "$number": "Infinity" }`), `kernelFromJSON` reads them back
 * through a checker of every field's shape, so a job is data: anything that is not a kernel of
 * this version of Loom (an unknown field, a wrong kind, a string where a number goes) is a
 * `JobRefused` naming where, and nothing of it is evaluated. Names stay strings here; the code
 * generators check and rename them (codegen/names.ts).
 *
 *   const k2 = kernelFromJSON(JSON.parse(JSON.stringify(kernelToJSON(k))));  // show(k2) === show(k)
 */
import { LoomError } from "../../errors.js";
import {
  DTYPES, kernelRecord, TARGET_NAMES, type BlockStmt, type DimTag, type Dtype, type Expr, type InameTag, type Instruction, type Kernel,
  type KernelArg, type NoSync, type OklKernelOptions, type OklDerivedArg, type OklStructArg, type SubstitutionRule, type Temporary,
} from "../../ir/index.js";
import type { BasicSet, Constraint } from "../../poly/index.js";

/** A job whose kernel or pipeline is not data this worker can read: refused, never retried. */
export class JobRefused extends LoomError {}

type Check<T = unknown> = (x: unknown, where: string) => T;

function refuse(where: string, what: string, x: unknown): never {
  let shown: string;
  try {
    shown = (JSON.stringify(x) ?? String(x)).slice(0, 60);
  } catch {
    shown = typeof x;
  }
  throw new JobRefused(`${where} must be ${what}; got ${shown}`);
}

const str: Check<string> = (x, w) => (typeof x === "string" ? x : refuse(w, "a string", x));
const bool: Check<boolean> = (x, w) => (typeof x === "boolean" ? x : refuse(w, "true or false", x));
const SPECIAL: Readonly<Record<string, number>> = { Infinity: Infinity, "-Infinity": -Infinity, NaN: NaN, "-0": -0 };
const num: Check<number> = (x, w) => {
  if (typeof x === "number" && Number.isFinite(x)) return x;
  const s = x !== null && typeof x === "object" && !Array.isArray(x) && Object.keys(x).length === 1 ? (x as { $number?: unknown }).$number : undefined;
  return typeof s === "string" && s in SPECIAL ? SPECIAL[s]! : refuse(w, "a number", x);
};
const int: Check<number> = (x, w) => (Number.isInteger(x) ? (x as number) : refuse(w, "an integer", x));
const oneOf = <T extends string>(values: readonly T[]): Check<T> => (x, w) =>
  (values as readonly unknown[]).includes(x) ? (x as T) : refuse(w, `one of ${values.join(", ")}`, x);
const arr = <T>(c: Check<T>): Check<T[]> => (x, w) => (Array.isArray(x) ? x.map((y, i) => c(y, `${w}[${i}]`)) : refuse(w, "an array", x));
const opt = <T>(c: Check<T>): Check<T | undefined> => (x, w) => (x === undefined ? undefined : c(x, w));
const dtype: Check<Dtype> = oneOf(DTYPES);

function plain(x: unknown, w: string): Record<string, unknown> {
  return x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : refuse(w, "an object", x);
}

/**
 * A check per field of `T` (its `kind` aside): the compiler demands one for every field, so a
 * field added to the IR cannot be forgotten here.
 */
type Fields<T> = { readonly [K in Exclude<keyof T, "kind">]-?: Check };
/** The fields of every kind of a union told apart by `kind`. */
type Variants<U extends { readonly kind: string }> = { readonly [K in U["kind"]]: Fields<Extract<U, { readonly kind: K }>> };

/** An object of exactly these fields (absent ones read as undefined); an unknown field is refused. */
function obj<T>(fields: Fields<T>): Check<Record<string, unknown>> {
  return (x, w) => {
    const o = plain(x, w);
    const extra = Object.keys(o).find((f) => !(f in fields));
    if (extra !== undefined) throw new JobRefused(`${w} has an unknown field "${extra}"; its fields are ${Object.keys(fields).join(", ")}`);
    const out: Record<string, unknown> = {};
    for (const [f, c] of Object.entries(fields) as [string, Check][]) {
      const v = c(o[f], `${w}.${f}`);
      if (v !== undefined) out[f] = v;
    }
    return out;
  };
}

/** One of several objects told apart by their `kind`. */
function kinds<U extends { readonly kind: string }>(variants: Variants<U>): Check<Record<string, unknown>> {
  const checks = Object.fromEntries(Object.entries(variants).map(([k, fields]) => [k, obj<{ kind: string }>({ kind: str, ...(fields as object) } as Fields<{ kind: string }>)]));
  return (x, w) => {
    const kind = plain(x, w).kind;
    const c = typeof kind === "string" && Object.hasOwn(checks, kind) ? checks[kind] : undefined;
    return c ? c(x, w) : refuse(`${w}.kind`, `one of ${Object.keys(variants).join(", ")}`, kind);
  };
}

/** A map from names to values of one shape. */
function record<T>(c: Check<T>): Check<Record<string, T>> {
  return (x, w) => Object.fromEntries(Object.entries(plain(x, w)).map(([k, v]) => [k, c(v, `${w}.${k}`)]));
}

const tag = { tag: opt(str) };
const expr: Check = (x, w) => exprCheck(x, w);
const exprs = arr(expr);
const binary = (ops: readonly string[]) => ({ op: oneOf(ops), left: expr, right: expr });
const exprCheck: Check = kinds<Expr>({
  var: { name: str, ...tag },
  const: { value: num, dtype: opt(dtype), isFloat: bool },
  arith: binary(["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"]),
  neg: { operand: expr },
  bitnot: { operand: expr },
  not: { operand: expr },
  compare: binary(["<", "<=", ">", ">=", "==", "!="]),
  logical: binary(["and", "or"]),
  if: { cond: expr, then: expr, else: expr },
  call: { fn: str, args: exprs, ...tag },
  subscript: { array: str, indices: exprs, ...tag },
  linear: { array: str, index: expr, ...tag },
  reduce: { op: oneOf(["sum", "product", "max", "min"]), inames: arr(str), body: expr },
  cast: { dtype, value: expr },
});

const stmts: Check = (x, w) => arr(stmtCheck)(x, w);
const stmtCheck: Check = kinds<BlockStmt>({
  decl: { name: str, dtype, init: opt(expr) },
  assign: { lhs: expr, rhs: expr },
  if: { cond: expr, then: stmts, else: stmts },
  while: { cond: expr, body: stmts },
  doWhile: { body: stmts, cond: expr },
  for: { init: stmts, cond: expr, step: stmts, body: stmts },
  break: {},
  continue: {},
  labeled: { label: str, body: stmts },
  exit: { label: str },
});

const insnBase = {
  id: str, withinInames: arr(str), dependsOn: arr(str), predicates: exprs,
  noSyncWith: arr(obj<NoSync>({ id: str, scope: oneOf(["local", "global", "any"]) })), priority: num,
  innerInames: opt(arr(str)), tags: arr(str), groups: arr(str), conflictsWithGroups: arr(str),
};
const space = oneOf(["local", "global"]);
const instruction = kinds<Instruction>({
  assign: { ...insnBase, lhs: expr, rhs: expr, atomicity: oneOf(["none", "update", "init"]) },
  barrier: { ...insnBase, scope: space, memKind: opt(space) },
  nop: insnBase,
  block: { ...insnBase, body: stmts },
});

const basicSet = obj<BasicSet>({
  params: arr(str), dims: arr(str), exists: arr(str),
  constraints: arr(obj<Constraint>({ eq: bool, coeffs: arr(int), constant: int })),
});
const dimTags = opt(arr(kinds<DimTag>({ nest: { level: int }, stride: { stride: expr }, sep: {}, vec: {} })));
const order = oneOf(["C", "F"]);
const arg = kinds<KernelArg>({
  array: { name: str, dtype: opt(dtype), shape: opt(exprs), order, dimTags, isInput: bool, isOutput: bool },
  value: { name: str, dtype: opt(dtype) },
});
const inameTag = kinds<InameTag>({
  for: {}, ord: {}, g: { axis: int }, l: { axis: int }, "l.auto": {}, unr: {}, unr_hint: { max: opt(int) }, ilp: {}, "ilp.seq": {}, vec: {},
});
const pair: Check<[number, number]> = (x, w) => (Array.isArray(x) && x.length === 2 ? [int(x[0], `${w}[0]`), int(x[1], `${w}[1]`)] : refuse(w, "a pair of integers", x));

const structArg = obj<OklStructArg>({
  arg: str, struct: str, size: int, align: int,
  fields: arr(obj<OklStructArg["fields"][number]>({ name: str, dtype, offset: int, argument: opt(str), elements: opt(arr(int)), dims: opt(arr(arr(int))) })),
});

const kernelCheck = obj<Kernel>({
  name: str,
  domains: arr(basicSet),
  instructions: arr(instruction),
  args: arr(arg),
  temporaries: arr(obj<Temporary>({ name: str, dtype: opt(dtype), shape: exprs, addressSpace: oneOf(["private", "local", "global", "auto"]), order, dimTags })),
  substitutions: arr(obj<SubstitutionRule>({ name: str, params: arr(str), expr })),
  inameTags: record(inameTag),
  assumptions: basicSet,
  loopPriority: arr(arr(str)),
  target: opt(oneOf(TARGET_NAMES)),
  inameSlabs: opt(record(pair)),
  deviceKernelNames: opt(oneOf(["loom", "occa"])),
  oklOptions: opt(obj<OklKernelOptions>({ restrict: arr(str), maxInnerDims: opt(arr(int)), simdLength: opt(int), structArgs: opt(arr(structArg)), derivedArgs: opt(arr(obj<OklDerivedArg>({ name: str, expr, what: str }))), places: opt(record(str)) })),
});

/** `k` as a JSON value (plain objects, arrays, strings, finite numbers, booleans). */
export function kernelToJSON(k: Kernel): unknown {
  const text = JSON.stringify(k, (_key, v: unknown) => {
    if (typeof v !== "number" || (Number.isFinite(v) && !Object.is(v, -0))) return v;
    return { $number: Object.is(v, -0) ? "-0" : String(v) };
  });
  return JSON.parse(text) as unknown;
}

/**
 * The kernel a `kernelToJSON` value describes; a `JobRefused` naming the first field that is not
 * what a kernel holds there (`where` prefixes it: "job.kernel.instructions[0].rhs.kind must be …").
 */
export function kernelFromJSON(x: unknown, where = "kernel"): Kernel {
  return kernelRecord(kernelCheck(x, where) as unknown as Kernel);
}
