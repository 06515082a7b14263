/**
 * Index expressions as piecewise quasi-affine functions, for exact reasoning on integer sets.
 * Transformations write subscripts like `if(io < (n - 2)%2, io*((n - 2)//2 + 1), …)` (chunkIname)
 * or `i//4` (splitArrayAxis): with the parameters bound to values, each is a list of pieces, each
 * an affine form valid under affine conditions, where every floor division by a constant is a
 * fresh variable `q` with `c*q <= e <= c*q + c - 1`.
 */
import type { Expr } from "../ir/index.js";
import { aff, affAdd, affIsConstant, affScale, affSub, type Aff } from "../poly/index.js";

/** `aff >= 0`, or `aff = 0` when `eq`. */
export interface QaCondition {
  readonly aff: Aff;
  readonly eq: boolean;
}

/** One piece: `value` where every condition holds. */
export interface QaPiece {
  readonly value: Aff;
  readonly conds: readonly QaCondition[];
}

/** Fresh variables made for floor divisions: their defining conditions are in the pieces. */
export interface QaContext {
  /** Whether a name is an index variable (an iname); other names must be bound in `values`. */
  readonly isIndexVar: (name: string) => boolean;
  readonly values: Readonly<Record<string, number>>;
  /** Names of the fresh floor variables, in order of creation (filled in). */
  readonly fresh: string[];
  /** The prefix of fresh names; must not clash with any name of the kernel. */
  readonly prefix: string;
  /**
   * The range of a value read from memory or a scalar the kernel computes (a read of an index
   * array whose contents are known), else undefined: such a value becomes a fresh variable between
   * `min` and `max`, one per `key` (equal keys: the same value).
   */
  readonly range?: (e: Expr) => QaRange | undefined;
  /** What a scalar the kernel computes holds where it is read, as an expression (used before `range`). */
  readonly define?: (e: Expr) => Expr | undefined;
}

/** A value known only to lie in `min … max`; reads of equal `key` are one value. */
export interface QaRange {
  readonly min: number;
  readonly max: number;
  readonly key: string;
}

/** The fresh variable of each ranged value, per context. */
const rangedNames = new WeakMap<QaContext, Map<string, string>>();

/** The piece of a ranged value: its fresh variable, between its ends. */
function rangedPiece(r: QaRange, ctx: QaContext): QaPiece[] {
  let names = rangedNames.get(ctx);
  if (!names) rangedNames.set(ctx, (names = new Map()));
  let q = names.get(r.key);
  if (q === undefined) {
    q = `${ctx.prefix}${ctx.fresh.length}`;
    ctx.fresh.push(q);
    names.set(r.key, q);
  }
  const v = aff({ [q]: 1 });
  return [{ value: v, conds: [{ aff: affSub(v, aff({}, r.min)), eq: false }, { aff: affSub(aff({}, r.max), v), eq: false }] }];
}

/** Thrown (internally) when an expression is not piecewise quasi-affine. */
class NotQuasiAffine extends Error {}

const MAX_PIECES = 256;

/**
 * The pieces of `e`, or undefined when it is not piecewise quasi-affine in the index variables
 * once the bound names are replaced by their values.
 * `quasiAffinePieces(parseExpr("i//4"), ctx)` is one piece `q0` with `4*q0 <= i <= 4*q0 + 3`.
 */
export function quasiAffinePieces(e: Expr, ctx: QaContext): QaPiece[] | undefined {
  try {
    return pieces(e, ctx);
  } catch (err) {
    if (err instanceof NotQuasiAffine) return undefined;
    throw err;
  }
}

/**
 * The conditions under which `e` (a boolean expression) holds, as a disjunction of conjunctions
 * of affine conditions; undefined when it is not expressible.
 * `conditionDnf(parseExpr("i < 3 or i > 5"), ctx)` has two conjunctions.
 */
export function conditionDnf(e: Expr, ctx: QaContext, positive = true): QaCondition[][] | undefined {
  try {
    return dnf(e, ctx, positive);
  } catch (err) {
    if (err instanceof NotQuasiAffine) return undefined;
    throw err;
  }
}

/** `conds` without the constant true ones; undefined when a constant one is false. */
function prune(conds: readonly QaCondition[]): QaCondition[] | undefined {
  const out: QaCondition[] = [];
  for (const c of conds) {
    if (!affIsConstant(c.aff)) out.push(c);
    else if (c.eq ? c.aff.constant !== 0 : c.aff.constant < 0) return undefined;
  }
  return out;
}

/** Pieces with their conditions pruned; those that can never hold dropped. */
function live(ps: readonly QaPiece[]): QaPiece[] {
  const out: QaPiece[] = [];
  for (const p of ps) {
    const conds = prune(p.conds);
    if (conds) out.push({ value: p.value, conds });
  }
  if (out.length > MAX_PIECES) throw new NotQuasiAffine();
  return out;
}

/** Conjunctions with their conditions pruned; those that can never hold dropped. */
function liveDnf(ds: readonly QaCondition[][]): QaCondition[][] {
  const out: QaCondition[][] = [];
  for (const d of ds) {
    const conds = prune(d);
    if (conds) out.push(conds);
  }
  if (out.length > MAX_PIECES) throw new NotQuasiAffine();
  return out;
}

function constPiece(v: number): QaPiece[] {
  return [{ value: aff({}, v), conds: [] }];
}

function cross(a: readonly QaPiece[], b: readonly QaPiece[], f: (x: Aff, y: Aff) => Aff): QaPiece[] {
  const out: QaPiece[] = [];
  for (const x of a) for (const y of b) out.push({ value: f(x.value, y.value), conds: [...x.conds, ...y.conds] });
  return live(out);
}

function constantOf(ps: readonly QaPiece[]): number | undefined {
  if (ps.length !== 1 || ps[0]!.conds.length > 0 || !affIsConstant(ps[0]!.value)) return undefined;
  return ps[0]!.value.constant;
}

function pieces(e: Expr, ctx: QaContext): QaPiece[] {
  switch (e.kind) {
    case "const":
      if (!Number.isInteger(e.value)) throw new NotQuasiAffine();
      return constPiece(e.value);
    case "var": {
      const v = ctx.values[e.name];
      // A float value (a float argument's 2.5) is no integer coefficient: not quasi-affine.
      if (v !== undefined && !Number.isInteger(v)) throw new NotQuasiAffine();
      if (v !== undefined) return constPiece(v);
      if (ctx.isIndexVar(e.name)) return [{ value: aff({ [e.name]: 1 }), conds: [] }];
      const d = ctx.define?.(e);
      if (d) return pieces(d, ctx);
      const r = ctx.range?.(e);
      if (r) return rangedPiece(r, ctx);
      throw new NotQuasiAffine();
    }
    case "subscript": case "linear": {
      const r = ctx.range?.(e);
      if (r) return rangedPiece(r, ctx);
      throw new NotQuasiAffine();
    }
    case "neg":
      return pieces(e.operand, ctx).map((p) => ({ ...p, value: affScale(p.value, -1) }));
    case "cast":
      if (!/^u?int/.test(e.dtype)) throw new NotQuasiAffine();
      return pieces(e.value, ctx);
    case "arith": {
      const l = pieces(e.left, ctx);
      const r = pieces(e.right, ctx);
      switch (e.op) {
        case "+": return cross(l, r, affAdd);
        case "-": return cross(l, r, affSub);
        case "*": {
          const cl = constantOf(l);
          const cr = constantOf(r);
          if (cr !== undefined) return l.map((p) => ({ ...p, value: affScale(p.value, cr) }));
          if (cl !== undefined) return r.map((p) => ({ ...p, value: affScale(p.value, cl) }));
          throw new NotQuasiAffine();
        }
        case "//": case "%": case "/": {
          const c = constantOf(r);
          if (c === undefined || c === 0) throw new NotQuasiAffine();
          return l.flatMap((p) => divide(p, c, e.op as "//" | "%" | "/", ctx));
        }
        default:
          throw new NotQuasiAffine();
      }
    }
    case "if": {
      const yes = dnf(e.cond, ctx, true);
      const no = dnf(e.cond, ctx, false);
      const then = pieces(e.then, ctx);
      const other = pieces(e.else, ctx);
      return live([
        ...yes.flatMap((cs) => then.map((p) => ({ value: p.value, conds: [...cs, ...p.conds] }))),
        ...no.flatMap((cs) => other.map((p) => ({ value: p.value, conds: [...cs, ...p.conds] }))),
      ]);
    }
    case "call": {
      if ((e.fn !== "min" && e.fn !== "max") || e.args.length === 0) throw new NotQuasiAffine();
      let acc = pieces(e.args[0]!, ctx);
      for (const a of e.args.slice(1)) {
        const next = pieces(a, ctx);
        const out: QaPiece[] = [];
        for (const x of acc) {
          for (const y of next) {
            // min: x where x <= y, else y (y < x); max mirrored.
            const xFirst = e.fn === "min" ? affSub(y.value, x.value) : affSub(x.value, y.value);
            const conds = [...x.conds, ...y.conds];
            out.push({ value: x.value, conds: [...conds, { aff: xFirst, eq: false }] });
            out.push({ value: y.value, conds: [...conds, { aff: affAdd(affScale(xFirst, -1), aff({}, -1)), eq: false }] });
          }
        }
        acc = live(out);
      }
      return acc;
    }
    default:
      throw new NotQuasiAffine();
  }
}

/** `p // c`, `p % c` (floor semantics, as the IR defines them) or `p / c` (integer: truncation). */
function divide(p: QaPiece, c: number, op: "//" | "%" | "/", ctx: QaContext): QaPiece[] {
  if (affIsConstant(p.value)) {
    const v = p.value.constant;
    const q = op === "/" ? Math.trunc(v / c) : Math.floor(v / c);
    return [{ value: aff({}, op === "%" ? v - c * q : q), conds: p.conds }];
  }
  const floorPiece = (value: Aff, conds: readonly QaCondition[]): QaPiece => {
    const q = `${ctx.prefix}${ctx.fresh.length}`;
    ctx.fresh.push(q);
    const qa = affScale(aff({ [q]: 1 }), c);
    const m = Math.abs(c);
    // value - c*q in [0, |c| - 1] (for c > 0: q = floor(value / c); for c < 0 likewise by sign).
    const rem = affSub(value, qa);
    const def: QaCondition[] = c > 0
      ? [{ aff: rem, eq: false }, { aff: affSub(aff({}, m - 1), rem), eq: false }]
      : [{ aff: affScale(rem, -1), eq: false }, { aff: affAdd(rem, aff({}, m - 1)), eq: false }];
    return { value: op === "%" ? rem : aff({ [q]: 1 }), conds: [...conds, ...def] };
  };
  if (op !== "/") return [floorPiece(p.value, p.conds)];
  // Truncation: floor where value >= 0, -floor(-value / c) where value < 0.
  const nonneg = floorPiece(p.value, [...p.conds, { aff: p.value, eq: false }]);
  const neg = floorPiece(affScale(p.value, -1), [...p.conds, { aff: affAdd(affScale(p.value, -1), aff({}, -1)), eq: false }]);
  return [nonneg, { value: affScale(neg.value, -1), conds: neg.conds }];
}

function dnf(e: Expr, ctx: QaContext, positive: boolean): QaCondition[][] {
  switch (e.kind) {
    case "not":
      return dnf(e.operand, ctx, !positive);
    case "logical": {
      const and = (e.op === "and") === positive;
      const l = dnf(e.left, ctx, positive);
      const r = dnf(e.right, ctx, positive);
      if (!and) return [...l, ...r];
      const out: QaCondition[][] = [];
      for (const x of l) for (const y of r) out.push([...x, ...y]);
      return liveDnf(out);
    }
    case "compare": {
      const l = pieces(e.left, ctx);
      const r = pieces(e.right, ctx);
      const op = positive ? e.op : ({ "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==" } as const)[e.op];
      const out: QaCondition[][] = [];
      for (const x of l) {
        for (const y of r) {
          const base = [...x.conds, ...y.conds];
          const d = affSub(x.value, y.value); // left - right
          const minus1 = (a: Aff) => affAdd(a, aff({}, -1));
          switch (op) {
            case "<": out.push([...base, { aff: minus1(affScale(d, -1)), eq: false }]); break;
            case "<=": out.push([...base, { aff: affScale(d, -1), eq: false }]); break;
            case ">": out.push([...base, { aff: minus1(d), eq: false }]); break;
            case ">=": out.push([...base, { aff: d, eq: false }]); break;
            case "==": out.push([...base, { aff: d, eq: true }]); break;
            case "!=":
              out.push([...base, { aff: minus1(d), eq: false }]);
              out.push([...base, { aff: minus1(affScale(d, -1)), eq: false }]);
              break;
          }
        }
      }
      return liveDnf(out);
    }
    case "arith":
      // C's `&` and `|` of comparisons (`if (i < n & j < n)`): on truth values 0 and 1 they are
      // `and` and `or`, so they read as those; any other operand is no truth value.
      if ((e.op === "&" || e.op === "|") && isTruthValue(e.left) && isTruthValue(e.right)) {
        return dnf({ kind: "logical", op: e.op === "&" ? "and" : "or", left: e.left, right: e.right }, ctx, positive);
      }
      throw new NotQuasiAffine();
    case "const":
      return (e.value !== 0) === positive ? [[]] : [];
    default:
      throw new NotQuasiAffine();
  }
}

/** Whether `e` is 0 or 1 whatever its operands: a comparison, `!`, `&&`/`||`, or `&`/`|` of such. */
function isTruthValue(e: Expr): boolean {
  if (e.kind === "compare" || e.kind === "logical" || e.kind === "not") return true;
  return e.kind === "arith" && (e.op === "&" || e.op === "|") && isTruthValue(e.left) && isTruthValue(e.right);
}
