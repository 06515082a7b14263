/**
 * Argument and temporary declarations: the spec constructors `globalArg`, `valueArg`,
 * `temporary`, and the string forms `"a: float32[n, n]"`, `"n: int32"`, `"a, b: float32[n]"`,
 * `"a"` (position only) and `"..."` (infer the rest).
 */
import { LoomError } from "../errors.js";
import { parseDtype, type Dtype } from "../ir/dtype.js";
import { c, type Expr } from "../ir/expr.js";
import type { AddressSpace } from "../ir/kernel.js";
import { parseDimTags } from "../ir/layout.js";
import { parseExpr } from "./expr.js";
import { lowerExpr } from "./lower.js";
import { failIn, parseExprRaw, type Fail } from "./syntax.js";

/** A global array argument; undefined dtype/shape are inferred (or left for run time). */
export interface ArrayArgSpec {
  readonly kind: "array";
  readonly name: string;
  readonly dtype: Dtype | undefined;
  readonly shape: readonly Expr[] | undefined;
  readonly order: "C" | "F";
  readonly dimTags: string | undefined;
  readonly isOutput: boolean | undefined;
}
export interface ValueArgSpec {
  readonly kind: "value";
  readonly name: string;
  readonly dtype: Dtype | undefined;
}
export interface TemporarySpec {
  readonly kind: "temporary";
  readonly name: string;
  readonly dtype: Dtype;
  readonly shape: readonly Expr[];
  readonly addressSpace: AddressSpace;
}
/** What `globalArg`, `valueArg` and `temporary` return, for the `args` list of `makeKernel`. */
export type ArgSpec = ArrayArgSpec | ValueArgSpec | TemporarySpec;

/** An entry of the args list once strings are read: a spec, a bare name, or "infer the rest". */
export type ArgEntry = ArgSpec | { readonly kind: "name"; readonly name: string } | { readonly kind: "rest" };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkName(name: string, what: string): string {
  if (typeof name !== "string" || !NAME.test(name)) throw new LoomError(`${what}: "${String(name)}" is not a valid name`);
  return name;
}

function dtypeOf(d: Dtype | string | undefined): Dtype | undefined {
  return d === undefined ? undefined : parseDtype(d);
}

/** Shape entries as expressions: `shapeExprs([16, "n+1"], "a")` is `[c(16), n + 1]`; numbers must be non-negative integers. */
export function shapeExprs(shape: readonly (string | number | Expr)[], what: string): Expr[] {
  return shape.map((s) => {
    if (typeof s === "number") {
      if (!Number.isInteger(s) || s < 0) throw new LoomError(`${what}: shape entry ${s} is not a non-negative integer`);
      return c(s);
    }
    if (typeof s === "string") return parseExpr(s);
    if (s && typeof s === "object" && "kind" in s) return s;
    throw new LoomError(`${what}: shape entries are numbers, strings or expressions; got ${JSON.stringify(s)}`);
  });
}

/**
 * A global array argument: `globalArg("a", "float32", ["n", "n"])`, or with layout
 * `globalArg("a", "float32", [3, "M", 4], { dimTags: "N1,N0,N2" })`.
 */
export function globalArg(
  name: string,
  dtype?: Dtype,
  shape?: (string | number)[],
  opts: { order?: "C" | "F"; dimTags?: string; isOutput?: boolean } = {},
): ArgSpec {
  const what = `globalArg ${name}`;
  checkName(name, "globalArg");
  const order = opts.order ?? "C";
  if (order !== "C" && order !== "F") throw new LoomError(`${what}: order must be "C" or "F"; got ${JSON.stringify(order)}`);
  const shapeE = shape === undefined ? undefined : shapeExprs(shape, what);
  // Check the tags now when the number of axes is known; they are resolved when the kernel is built.
  if (opts.dimTags !== undefined && shapeE !== undefined) parseDimTags(opts.dimTags, shapeE.length);
  return { kind: "array", name, dtype: dtypeOf(dtype), shape: shapeE, order, dimTags: opts.dimTags, isOutput: opts.isOutput };
}

/** A scalar argument: `valueArg("n", "int32")`. */
export function valueArg(name: string, dtype?: Dtype): ArgSpec {
  checkName(name, "valueArg");
  return { kind: "value", name, dtype: dtypeOf(dtype) };
}

/** A temporary declared up front: `temporary("buf", "float32", [16, 16], "local")`. */
export function temporary(name: string, dtype: Dtype, shape: (string | number)[], addressSpace: AddressSpace): ArgSpec {
  checkName(name, "temporary");
  if (!["private", "local", "global"].includes(addressSpace)) {
    throw new LoomError(`temporary ${name}: address space must be private, local or global; got ${JSON.stringify(addressSpace)}`);
  }
  const d = dtypeOf(dtype);
  if (d === undefined) throw new LoomError(`temporary ${name}: a dtype is required`);
  return { kind: "temporary", name, dtype: d, shape: shapeExprs(shape, `temporary ${name}`), addressSpace };
}

/**
 * Read one string of the args list: `"a, b: float32[n, n]"` gives two array specs, `"n: int32"`
 * a value spec, `"a"` a bare name, `"..."` the rest marker. Errors point into the string.
 */
export function parseArgString(text: string, index: number): ArgEntry[] {
  const what = `argument ${index}`;
  const fail = failIn(text, what);
  const trimmed = text.trim();
  if (trimmed === "...") return [{ kind: "rest" }];
  const colon = text.indexOf(":");
  const left = colon < 0 ? text : text.slice(0, colon);
  const names: string[] = [];
  let pos = 0;
  for (const part of left.split(",")) {
    const lead = part.length - part.trimStart().length;
    if (!NAME.test(part.trim())) fail(`expected an argument name, as in "a: float32[n]" or "n: int32"; got "${part.trim()}"`, pos + lead);
    names.push(part.trim());
    pos += part.length + 1;
  }
  if (colon < 0) return names.map((name) => ({ kind: "name", name }));
  const right = text.slice(colon + 1);
  const rightAt = colon + 1 + (right.length - right.trimStart().length);
  const m = /^([A-Za-z_][A-Za-z0-9_]*)?\s*(\[[^]*\])?$/.exec(right.trim());
  if (!m || (m[1] === undefined && m[2] === undefined)) {
    return fail(`expected a dtype and an optional shape after ":", as in "float32[n, n]" or "int32"`, rightAt);
  }
  let dtype: Dtype | undefined;
  if (m[1] !== undefined && m[1] !== "auto") {
    try {
      dtype = parseDtype(m[1]);
    } catch (e) {
      if (e instanceof LoomError) fail(e.message, rightAt);
      throw e;
    }
  }
  if (m[2] === undefined) return names.map((name) => ({ kind: "value", name, dtype }));
  const shapeAt = rightAt + right.trim().indexOf("[");
  const shape = parseShapeList(m[2], (d, off) => fail(d, shapeAt + off));
  return names.map((name) => ({ kind: "array", name, dtype, shape, order: "C", dimTags: undefined, isOutput: undefined }));
}

/** `[n, n+1]` → expressions; `[]` → a 0-dimensional shape. */
function parseShapeList(bracketed: string, fail: Fail): Expr[] {
  const inner = bracketed.slice(1, -1);
  if (inner.trim() === "") return [];
  // Parse as the argument list of a call, so commas separate entries as in the language.
  const shifted: Fail = (d, off) => fail(d, off - 1);
  const raw = parseExprRaw(`s(${inner})`, shifted);
  if (raw.k !== "call") return fail("expected a comma-separated list of shape expressions", 1);
  return raw.args.map((a) => lowerExpr(a, { fail: shifted }));
}

/** Read every entry of the args list (strings and specs), with checks for duplicates: `readArgList(["a, b: float32[n]", "..."])`. */
export function readArgList(args: readonly (ArgSpec | string)[]): ArgEntry[] {
  const out: ArgEntry[] = [];
  args.forEach((a, idx) => {
    if (typeof a === "string") out.push(...parseArgString(a, idx));
    else if (a && typeof a === "object" && (a.kind === "array" || a.kind === "value" || a.kind === "temporary")) out.push(a);
    else throw new LoomError(`argument ${idx}: expected a string or a spec from globalArg/valueArg/temporary; got ${JSON.stringify(a)}`);
  });
  const seen = new Set<string>();
  for (const e of out) {
    if (e.kind === "rest") continue;
    if (seen.has(e.name)) throw new LoomError(`argument "${e.name}" is declared twice in the args list`);
    seen.add(e.name);
  }
  return out;
}
