/**
 * The expression AST: a small closed set of readonly nodes with a `kind` field, and one generic
 * mapper. Substitution, renaming and collection are a few lines on top of `mapExpr`/`walkExpr`.
 */
import { assertNever } from "../errors.js";
import type { Dtype } from "./dtype.js";

/** C's bitwise operators on integers: `&`, `|`, `^` and the shifts `<<`, `>>` (arithmetic on signed values). */
export type BitwiseOp = "&" | "|" | "^" | "<<" | ">>";
export type ArithOp = "+" | "-" | "*" | "/" | "//" | "%" | "**" | BitwiseOp;
export type CompareOp = "<" | "<=" | ">" | ">=" | "==" | "!=";
export type LogicalOp = "and" | "or";
export type ReductionOp = "sum" | "product" | "max" | "min";
/**
 * A use tag, loopy's `name$tag` (`h$one(i)`, `a$x[i, k]`): it marks a use so that a transformation
 * can select it (precompute of "h$one", addPrefetch of "a$x"), and means nothing else: a tagged
 * read is a read. Absent on untagged uses.
 */
export interface UseTag { readonly tag?: string }
/** A variable: iname, argument, temporary or parameter. */
export interface Var extends UseTag { readonly kind: "var"; readonly name: string }
/**
 * A numeric literal. With `dtype` it is explicitly typed (`2.0f`); without, it is implicitly
 * typed and adapts to its context, like a Python constant in loopy; `isFloat` records `2.0` vs `2`.
 */
export interface Const { readonly kind: "const"; readonly value: number; readonly dtype?: Dtype; readonly isFloat: boolean }
/** `+ - * / // % **`: `/` truncates on integers (C), `//` floors and `%` takes the sign of the divisor (Python, loopy). */
export interface Arith { readonly kind: "arith"; readonly op: ArithOp; readonly left: Expr; readonly right: Expr }
export interface Neg { readonly kind: "neg"; readonly operand: Expr }
/** `~x`: bitwise complement of an integer. */
export interface BitNot { readonly kind: "bitnot"; readonly operand: Expr }
export interface Not { readonly kind: "not"; readonly operand: Expr }
export interface Compare { readonly kind: "compare"; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
export interface Logical { readonly kind: "logical"; readonly op: LogicalOp; readonly left: Expr; readonly right: Expr }
/** `if(cond, then, else)`: only the chosen branch is evaluated. */
export interface IfExpr { readonly kind: "if"; readonly cond: Expr; readonly then: Expr; readonly else: Expr }
/** A call of a math function or a substitution rule. */
export interface Call extends UseTag { readonly kind: "call"; readonly fn: string; readonly args: readonly Expr[] }
/** `a[i, j]`: one index per array axis. */
export interface Subscript extends UseTag { readonly kind: "subscript"; readonly array: string; readonly indices: readonly Expr[] }
/** `a[[8*i + j]]`: an index into the array's flat storage. */
export interface LinearSubscript extends UseTag { readonly kind: "linear"; readonly array: string; readonly index: Expr }
/** `sum(k, e)`, `max((k, l), e)`: reduction of `body` over the points of `inames`. */
export interface Reduce { readonly kind: "reduce"; readonly op: ReductionOp; readonly inames: readonly string[]; readonly body: Expr }
export interface Cast { readonly kind: "cast"; readonly dtype: Dtype; readonly value: Expr }

export type Expr =
  | Var | Const | Arith | Neg | BitNot | Not | Compare | Logical | IfExpr | Call | Subscript | LinearSubscript | Reduce | Cast;

// ---- constructors -------------------------------------------------------------------------

export const v = (name: string): Var => ({ kind: "var", name });
/** An implicitly typed literal (`2`, `2.0`), or an explicitly typed one when `dtype` is given. */
export function c(value: number, dtype?: Dtype, isFloat = !Number.isInteger(value)): Const {
  return dtype === undefined ? { kind: "const", value, isFloat } : { kind: "const", value, dtype, isFloat };
}
const BITWISE: ReadonlySet<string> = new Set<BitwiseOp>(["&", "|", "^", "<<", ">>"]);
/** Whether `op` is one of C's bitwise operators (integers only): `isBitwiseOp("<<")` is true. */
export const isBitwiseOp = (op: string): op is BitwiseOp => BITWISE.has(op);
/** Shifts: the result has the left operand's type; the right operand is only a count. */
export const isShiftOp = (op: string): op is "<<" | ">>" => op === "<<" || op === ">>";

export const arith = (op: ArithOp, left: Expr, right: Expr): Arith => ({ kind: "arith", op, left, right });
export const sub = (array: string, ...indices: Expr[]): Subscript => ({ kind: "subscript", array, indices });

// ---- traversal ----------------------------------------------------------------------------

/** The direct children of `e`, in evaluation order. */
export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case "var": case "const": return [];
    case "arith": case "compare": case "logical": return [e.left, e.right];
    case "neg": case "bitnot": case "not": return [e.operand];
    case "if": return [e.cond, e.then, e.else];
    case "call": return e.args;
    case "subscript": return e.indices;
    case "linear": return [e.index];
    case "reduce": return [e.body];
    case "cast": return [e.value];
    default: return assertNever(e, "expression");
  }
}

/** `e` with its children replaced by `kids` (same length and order as `children(e)`). */
function withChildren(e: Expr, kids: readonly Expr[]): Expr {
  switch (e.kind) {
    case "var": case "const": return e;
    case "arith": case "compare": case "logical": return { ...e, left: kids[0]!, right: kids[1]! };
    case "neg": case "bitnot": case "not": return { ...e, operand: kids[0]! };
    case "if": return { ...e, cond: kids[0]!, then: kids[1]!, else: kids[2]! };
    case "call": return { ...e, args: kids };
    case "subscript": return { ...e, indices: kids };
    case "linear": return { ...e, index: kids[0]! };
    case "reduce": return { ...e, body: kids[0]! };
    case "cast": return { ...e, value: kids[0]! };
    default: return assertNever(e, "expression");
  }
}

/**
 * Rebuild `e` bottom-up where `f` says so. `f` is asked first about each node (pre-order): a
 * returned expression replaces the node (and is not visited further); `undefined` means "recurse".
 * Unchanged subtrees are returned as the same objects.
 *
 *   mapExpr(e, (n) => n.kind === "var" && n.name === "i" ? v("j") : undefined)
 */
export function mapExpr(e: Expr, f: (node: Expr) => Expr | undefined): Expr {
  const replaced = f(e);
  if (replaced !== undefined) return replaced;
  switch (e.kind) {
    case "var": case "const": return e;
    // The common nodes without an array of children (big kernels map every expression).
    case "arith": case "compare": case "logical": {
      const left = mapExpr(e.left, f);
      const right = mapExpr(e.right, f);
      return left === e.left && right === e.right ? e : { ...e, left, right };
    }
    case "neg": case "bitnot": case "not": {
      const operand = mapExpr(e.operand, f);
      return operand === e.operand ? e : { ...e, operand };
    }
    default: break;
  }
  const kids = children(e);
  if (kids.length === 0) return e;
  let changed = false;
  // (Indexed: a subscript's indices and a call's arguments are frozen arrays, and V8's map() over those is slow.)
  const mapped: Expr[] = [];
  for (let j = 0; j < kids.length; j++) {
    const m = mapExpr(kids[j]!, f);
    if (m !== kids[j]) changed = true;
    mapped.push(m);
  }
  return changed ? withChildren(e, mapped) : e;
}

/** Visit every node of `e` in pre-order; returning `false` skips the node's children. */
export function walkExpr(e: Expr, visit: (node: Expr) => boolean | void): void {
  if (visit(e) === false) return;
  // A plain recursion over the children: no closure per node.
  switch (e.kind) {
    case "var": case "const": return;
    case "arith": case "compare": case "logical": walkExpr(e.left, visit); walkExpr(e.right, visit); return;
    case "neg": case "bitnot": case "not": walkExpr(e.operand, visit); return;
    case "if": walkExpr(e.cond, visit); walkExpr(e.then, visit); walkExpr(e.else, visit); return;
    // (Indexed: the arrays are frozen, and V8's for-of over frozen arrays allocates per element.)
    case "call": for (let j = 0; j < e.args.length; j++) walkExpr(e.args[j]!, visit); return;
    case "subscript": for (let j = 0; j < e.indices.length; j++) walkExpr(e.indices[j]!, visit); return;
    case "linear": walkExpr(e.index, visit); return;
    case "reduce": walkExpr(e.body, visit); return;
    case "cast": walkExpr(e.value, visit); return;
    default: return assertNever(e, "expression");
  }
}

/** Replace free occurrences of variables by expressions (reduction inames shadow them). */
export function substitute(e: Expr, values: ReadonlyMap<string, Expr>): Expr {
  if (values.size === 0) return e;
  return mapExpr(e, (n) => {
    if (n.kind === "var") return values.get(n.name) ?? n;
    if (n.kind === "reduce" && n.inames.some((i) => values.has(i))) {
      const inner = new Map(values);
      for (const i of n.inames) inner.delete(i);
      return { ...n, body: substitute(n.body, inner) };
    }
    return undefined;
  });
}

/** Rename variables, array names (subscripts) and reduction inames alike. */
export function renameVars(e: Expr, names: ReadonlyMap<string, string>): Expr {
  if (names.size === 0) return e;
  return mapExpr(e, (n) => {
    if (n.kind === "var" && names.has(n.name)) return { ...n, name: names.get(n.name)! };
    if ((n.kind === "subscript" || n.kind === "linear") && names.has(n.array)) return mapRenamedArray(n, names);
    if (n.kind === "reduce" && n.inames.some((i) => names.has(i))) {
      return { ...n, inames: n.inames.map((i) => names.get(i) ?? i), body: renameVars(n.body, names) };
    }
    return undefined;
  });
}

function mapRenamedArray(n: Subscript | LinearSubscript, names: ReadonlyMap<string, string>): Expr {
  const array = names.get(n.array)!;
  return n.kind === "subscript"
    ? { ...n, array, indices: n.indices.map((i) => renameVars(i, names)) }
    : { ...n, array, index: renameVars(n.index, names) };
}

/** Names of the variables `e` reads: free variables and subscripted arrays (reduction inames excluded). */
export function freeVariables(e: Expr, out: Set<string> = new Set()): Set<string> {
  if (e.kind === "var") return out.add(e.name);
  // Remembered per (frozen) expression, in the order of the walk: checks, device kernels and
  // lowering ask it of the same expressions many times per kernel.
  let names = Object.isFrozen(e) ? freeMemo.get(e) : undefined;
  if (names === undefined) {
    names = [...walkFreeVariables(e, new Set())];
    if (Object.isFrozen(e)) freeMemo.set(e, names);
  }
  for (let k = 0; k < names.length; k++) out.add(names[k]!);
  return out;
}

const freeMemo = new WeakMap<Expr, readonly string[]>();

/**
 * `freeVariables(e, out)` walked afresh, nothing remembered: for a pass that asks once per
 * expression of a big kernel (a memo entry per expression costs more than the walk, and the
 * collector traces every entry of a WeakMap).
 */
export function addFreeVariables(e: Expr, out: Set<string>): Set<string> {
  return walkFreeVariables(e, out);
}

/** The free variables of `n` added to `out` in pre-order, `bound` the reduction inames around it (a plain recursion: no closure per call). */
function walkFreeVariables(n: Expr, out: Set<string>, bound: string[] = []): Set<string> {
  switch (n.kind) {
    case "var":
      if (bound.length === 0 || !bound.includes(n.name)) out.add(n.name);
      return out;
    case "const": return out;
    case "subscript":
      out.add(n.array);
      for (let i = 0; i < n.indices.length; i++) walkFreeVariables(n.indices[i]!, out, bound);
      return out;
    case "linear":
      out.add(n.array);
      return walkFreeVariables(n.index, out, bound);
    case "reduce":
      bound.push(...n.inames);
      walkFreeVariables(n.body, out, bound);
      bound.splice(bound.length - n.inames.length, n.inames.length);
      return out;
    case "arith": case "compare": case "logical":
      walkFreeVariables(n.left, out, bound);
      return walkFreeVariables(n.right, out, bound);
    case "neg": case "bitnot": case "not": return walkFreeVariables(n.operand, out, bound);
    case "if":
      walkFreeVariables(n.cond, out, bound);
      walkFreeVariables(n.then, out, bound);
      return walkFreeVariables(n.else, out, bound);
    case "call":
      for (let i = 0; i < n.args.length; i++) walkFreeVariables(n.args[i]!, out, bound);
      return out;
    case "cast": return walkFreeVariables(n.value, out, bound);
    default: return assertNever(n, "expression");
  }
}

/**
 * Every reduction iname used in `e`, added to `out` in the order of a pre-order walk. Remembered
 * per (frozen) expression: scheduling, transformations and checks ask it of the same right-hand
 * sides many times per kernel, and most have no reduction at all.
 */
export function reductionInames(e: Expr, out: Set<string> = new Set()): Set<string> {
  if (e.kind === "var" || e.kind === "const") return out;
  let names = Object.isFrozen(e) ? reductionMemo.get(e) : undefined;
  if (names === undefined) {
    const found: string[] = [];
    walkExpr(e, (n) => {
      if (n.kind === "reduce") for (let i = 0; i < n.inames.length; i++) found.push(n.inames[i]!);
    });
    names = found.length === 0 ? NO_NAMES : found;
    if (Object.isFrozen(e)) reductionMemo.set(e, names);
  }
  for (let k = 0; k < names.length; k++) out.add(names[k]!);
  return out;
}

const NO_NAMES: readonly string[] = Object.freeze([]);
const reductionMemo = new WeakMap<Expr, readonly string[]>();

/** `n` with the use tag `tag` (none when undefined): `withTag(sub("a", v("i")), "x")` is `a$x[i]`. */
export function withTag<T extends Var | Call | Subscript | LinearSubscript>(n: T, tag: string | undefined): T {
  if (n.tag === tag) return n;
  if (tag !== undefined) return { ...n, tag };
  const { tag: _dropped, ...rest } = n;
  return rest as T;
}

/** Structural equality of meaning: use tags (`a$x[i]`) are ignored, as they are everywhere but in use selection. */
export function exprEquals(a: Expr, b: Expr): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "var": return a.name === (b as Var).name;
    case "const": {
      const o = b as Const;
      return a.value === o.value && a.dtype === o.dtype && a.isFloat === o.isFloat;
    }
    case "arith": case "compare": case "logical":
      if (a.op !== (b as typeof a).op) return false;
      break;
    case "subscript": case "linear":
      if (a.array !== (b as typeof a).array) return false;
      break;
    case "call":
      if (a.fn !== (b as Call).fn) return false;
      break;
    case "reduce": {
      const o = b as Reduce;
      if (a.op !== o.op || a.inames.join(",") !== o.inames.join(",")) return false;
      break;
    }
    case "cast":
      if (a.dtype !== (b as Cast).dtype) return false;
      break;
    case "neg": case "bitnot": case "not": case "if":
      break;
    default:
      return assertNever(a, "expression");
  }
  const ka = children(a);
  const kb = children(b);
  return ka.length === kb.length && ka.every((k, idx) => exprEquals(k, kb[idx]!));
}

/** The variable or array an assignment's left-hand side writes. */
export function assigneeName(lhs: Expr): string {
  switch (lhs.kind) {
    case "var": return lhs.name;
    case "subscript": case "linear": return lhs.array;
    default: throw new TypeError(`not an assignee: ${lhs.kind}`);
  }
}
