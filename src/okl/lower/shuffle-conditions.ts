/**
 * Whether a condition around a warp shuffle (warp-shuffles.ts) holds alike for every lane of each
 * sub-group of `width` consecutive work-items: CUDA's result is undefined where only some lanes of
 * a sub-group reach a shuffle of a full mask, so a condition that may differ between them is
 * refused. A proof, not a pattern: the condition is evaluated for every work-item of the group
 * (linear index t = x + Dx*(y + Dy*z) over 0 … L-1), each subexpression to one of
 *
 *   - its exact value at each t (constants, the @inner indices, C's integer arithmetic on them, the
 *     private scalars whose last assignment, made by every work-item reaching the call, gives such a
 *     value: `w = t >> 5;`),
 *   - "uniform": one value for the whole group (value arguments, block indices, what uniform.ts
 *     proves uniform), or for each aligned block of `width` lanes (an operator of operands that are),
 *   - "varying": anything else (memory written, private values per work-item, floats, unsigned
 *     or narrow integers, an integer past 32 bits): not proven.
 *
 *   - "aligned": an integer constant on each block whose value is known modulo a power of two M
 *     (`32*n`, `64*n - 32` with n an integer argument: 0 and 32 modulo 64), whatever C's
 *     wrap-around does to it (M divides 2^32).
 *
 * The condition passes when it is uniform, or exact and constant on each block (`t / 32 == 0`,
 * `t < 64` for width 32, `w == 0` with w the @inner(1) index over warps of 32 lanes). A lane index
 * x compared with an aligned value M*u + r holds alike on a block where floor((x - r) / M) is one
 * number there (`x < M*u + r` is `floor((x - r) / M) < u`): `t < 32*n` passes for width 32, `t < n`
 * and `t < 16*n` do not.
 *
 *   divergence(parse("t < 4"), facts, 8)    // 'it differs between lanes 3 and 4 of one sub-group'
 *   divergence(parse("t < 16"), facts, 8)   // undefined: uniform over each sub-group
 */
import { exprEquals, insnStores, walkExpr, type Expr, type Instruction } from "../../ir/index.js";

/** What judging a condition needs to know of the kernel at the shuffle. */
export interface LaneFacts {
  /** The @inner axis and extent D of a work-item index over the whole axis (0 … D-1), else undefined. */
  readonly laneAxis: (iname: string) => { readonly axis: number; readonly extent: number } | undefined;
  /** The loops around the call, outermost first. */
  readonly within: readonly string[];
  /** The conditions around the call (as `ctx.preds`). */
  readonly preds: readonly Expr[];
  /** Whether the iname is a loop that is neither a work-item nor a block index (a sequential loop). */
  readonly sequential: (iname: string) => boolean;
  readonly privateScalar: (name: string) => boolean;
  /** The dtype of a temporary or a value argument, where known. */
  readonly dtypeOf: (name: string) => string | undefined;
  /** The instructions so far, in program order. */
  readonly insns: readonly Instruction[];
  /** Whether `e` has one value for all the work-items of the group here (uniform.ts). */
  readonly uniform: (e: Expr) => boolean;
}

/**
 * A signed integer at each lane (`exact`: C's arithmetic on it is JavaScript's within 32 bits), an
 * integer constant on each block of lanes known modulo `mod` (a power of two: `rem` in 0 … mod - 1),
 * a value constant on each block of lanes ("uniform"), or one not proven to be ("varying").
 */
type Exact = { readonly at: readonly number[] };
type Aligned = { readonly mod: number; readonly rem: number };
type Val = Exact | Aligned | "uniform" | "varying";
const isExact = (v: Val): v is Exact => typeof v === "object" && "at" in v;
const isAligned = (v: Val): v is Aligned => typeof v === "object" && "mod" in v;
/** The largest modulus kept (a power of two; a congruence modulo M holds modulo each divisor of M). */
const MAX_MOD = 2 ** 30;
function aligned(mod: number, rem: number): Aligned {
  const m = Math.min(mod, MAX_MOD);
  return { mod: m, rem: ((rem % m) + m) % m };
}
/** The largest power of two dividing the nonzero integer `c` (within 2^30). */
const twos = (c: number): number => {
  let p = 1;
  while (p < MAX_MOD && Number.isInteger(c / (2 * p))) p *= 2;
  return p;
};

/** The types whose values are evaluated lane by lane. */
const EXACT = /^int(32|64)$/;

/** The most lanes evaluated one by one (CUDA's largest work-group is 1,024). */
const MAX_LANES = 4096;

/**
 * Why `cond` may differ between the lanes of one sub-group of `width` lanes (the group's `extent`
 * work-items numbered over the @inner axes of `facts.within`, @inner(0) fastest), or undefined where
 * it provably does not.
 */
export function divergence(cond: Expr, facts: LaneFacts, width: number, extent: number): string | undefined {
  if (width === 1) return undefined;
  if (extent > MAX_LANES) return `the work-group has ${extent} work-items, more than the ${MAX_LANES} Loom checks one by one`;
  // The lane coordinates: @inner(0) varies fastest.
  const byAxis = new Map<string, { axis: number; extent: number }>();
  for (const i of facts.within) {
    const a = facts.laneAxis(i);
    if (a) byAxis.set(`${a.axis} ${a.extent}`, a);
  }
  const axes = [...byAxis.values()].sort((a, b) => a.axis - b.axis);
  const strides = new Map<number, { stride: number; extent: number }>();
  let stride = 1;
  for (const a of axes) {
    strides.set(a.axis, { stride, extent: a.extent });
    stride *= a.extent;
  }
  const lanes = Array.from({ length: extent }, (_, t) => t);
  const coord = (axis: number, ext: number): Val | undefined => {
    const s = strides.get(axis);
    return s && s.extent === ext ? { at: lanes.map((t) => Math.floor(t / s.stride) % s.extent) } : undefined;
  };
  let why: string | undefined;
  const note = (x: string): "varying" => ((why ??= x), "varying");
  const blockConstant = (v: Val): boolean => v === "uniform" || isAligned(v) || (isExact(v) && v.at.every((x, t) => x === v.at[t - (t % width)]));
  /** The one value of an exact operand at every lane, else undefined. */
  const single = (v: Val): number | undefined => (isExact(v) && v.at.every((x) => x === v.at[0]) ? v.at[0] : undefined);
  /** An aligned value's sum, difference, product or shift with a constant or another aligned value; undefined for other operands. */
  const alignedArith = (op: string, a: Val, b: Val): Val | undefined => {
    const [ca, cb] = [single(a), single(b)];
    if (isAligned(a) && isAligned(b)) {
      const mod = Math.min(a.mod, b.mod);
      return op === "+" ? aligned(mod, a.rem + b.rem) : op === "-" ? aligned(mod, a.rem - b.rem) : undefined;
    }
    const [x, k] = isAligned(a) && cb !== undefined ? [a, cb] : isAligned(b) && ca !== undefined && op !== "<<" ? [b, ca] : [undefined, undefined];
    if (!x || k === undefined) return undefined;
    switch (op) {
      case "+": return aligned(x.mod, x.rem + k);
      case "-": return x === a ? aligned(x.mod, x.rem - k) : aligned(x.mod, k - x.rem);
      case "*": return k === 0 ? { at: lanes.map(() => 0) } : aligned(x.mod * twos(k), x.rem * k);
      case "<<": return k >= 0 && k <= 30 ? aligned(x.mod * 2 ** k, x.rem * 2 ** k) : undefined;
      default: return undefined;
    }
  };
  /**
   * A lane index compared with an aligned value: uniform where it holds alike on each block, else
   * why not; undefined for other operands.
   */
  const alignedCompare = (op: string, a: Val, b: Val): Val | undefined => {
    const flip: Record<string, string> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!=" };
    const [x, m, o] = isExact(a) && isAligned(b) ? [a, b, op] : isExact(b) && isAligned(a) ? [b, a, flip[op]!] : [undefined, undefined, op];
    if (!x || !m) return undefined;
    // x < M*u + r  ⟺  floor((x - r) / M) < u; x <= M*u + r  ⟺  x < M*u + r + 1; > and >= are their negations.
    const strict = o === "<" || o === ">=";
    const q = (t: number, r: number) => Math.floor((x.at[t]! - r) / m.mod);
    const same = (f: (t: number) => number | string): boolean => x.at.every((_, t) => f(t) === f(t - (t % width)));
    const ok = o === "==" || o === "!="
      ? same((t) => ((x.at[t]! - m.rem) % m.mod === 0 ? `on ${q(t, m.rem)}` : "off"))
      : same((t) => q(t, strict ? m.rem : m.rem + 1));
    return ok ? "uniform" : note(`a work-item index compared with a value known only at run time (Loom proves such a comparison uniform where that value is a multiple of the sub-group's width, as in \`t < ${width}*n\`)`);
  };
  /** A value that is not evaluated further: uniform where it is constant on each block. */
  const perBlock = (v: Val, what: string): Val => (blockConstant(v) ? "uniform" : note(what));

  const memo = new Map<string, Val>();
  /**
   * A private scalar's value where instruction `before` runs (the call: all so far): its last
   * assignment before that, made by every work-item that reaches the call (no condition the call
   * lacks), in the loops around the call or an @inner loop over the whole range of one of its axes,
   * in the same trip of each sequential loop around the call; its right-hand side's private scalars
   * as they were there.
   */
  const scalar = (name: string, before: number): Val => {
    const at = `${name} ${before}`;
    if (!memo.has(at)) memo.set(at, lastWrite(name, before));
    return memo.get(at)!;
  };
  const lastWrite = (name: string, before: number): Val => {
    let index = before - 1;
    while (index >= 0 && !insnStores(facts.insns[index]!).some((s) => s.kind === "var" && s.name === name)) index--;
    const w = facts.insns[index];
    if (!w || w.kind !== "assign" || w.atomicity !== "none") return note(`the private variable "${name}" (${w ? "not assigned by a plain assignment" : "never assigned before"})`);
    const loopsOk = w.withinInames.every((i) => facts.within.includes(i) || facts.laneAxis(i) !== undefined)
      && facts.within.filter(facts.sequential).every((i) => w.withinInames.includes(i));
    if (!loopsOk || !w.predicates.every((p) => facts.preds.some((q) => exprEquals(q, p)))) {
      return note(`the private variable "${name}" (its assignment is in other loops or under another condition)`);
    }
    const v = value(w.rhs, w.withinInames, index);
    // Assigned to a narrower, unsigned or float variable, an exact value may change: judged per block only.
    return typeof v === "string" || EXACT.test(facts.dtypeOf(name) ?? "") ? v : perBlock(v, `the private variable "${name}" of type ${facts.dtypeOf(name)}`);
  };
  /**
   * Whether uniform.ts may judge `e`, read before instruction `before`: it judges private scalars as
   * they are at the call, so only where `e` reads none or is read at the call.
   */
  const now = (e: Expr, before: number): boolean => {
    if (before === facts.insns.length) return true;
    let scalars = false;
    walkExpr(e, (n) => void (scalars ||= n.kind === "var" && facts.privateScalar(n.name)));
    return !scalars;
  };
  const value = (e: Expr, around: readonly string[], before = facts.insns.length): Val => {
    switch (e.kind) {
      case "const": return !e.isFloat && Number.isInteger(e.value) && EXACT.test(e.dtype ?? "int32") ? { at: lanes.map(() => e.value) } : "uniform";
      case "var": {
        const a = around.includes(e.name) ? facts.laneAxis(e.name) : undefined;
        if (a) return coord(a.axis, a.extent) ?? note(`the work-item index "${e.name}" (not one of the call's lanes)`);
        if (now(e, before) && facts.uniform(e)) return EXACT.test(facts.dtypeOf(e.name) ?? "") ? aligned(1, 0) : "uniform";
        if (facts.privateScalar(e.name)) return scalar(e.name, before);
        return note(`"${e.name}"`);
      }
      case "arith": {
        const [l, r] = [value(e.left, around, before), value(e.right, around, before)];
        return alignedArith(e.op, l, r) ?? combineVals([l, r], (x, y) => arith(e.op, x, y));
      }
      case "compare": {
        const [l, r] = [value(e.left, around, before), value(e.right, around, before)];
        return alignedCompare(e.op, l, r) ?? combineVals([l, r], (x, y) => (cmp(e.op, x, y) ? 1 : 0));
      }
      case "logical": return combine([e.left, e.right], around, before, (x, y) => ((e.op === "and" ? x !== 0 && y !== 0 : x !== 0 || y !== 0) ? 1 : 0));
      case "not": return combine([e.operand], around, before, (x) => (x === 0 ? 1 : 0));
      case "neg": {
        const v = value(e.operand, around, before);
        return isAligned(v) ? aligned(v.mod, -v.rem) : combineVals([v], (x) => -x);
      }
      case "bitnot": return combine([e.operand], around, before, (x) => ~x);
      case "if": return combine([e.cond, e.then, e.else], around, before, (x, y, z) => (x !== 0 ? y : z));
      case "cast": {
        const v = value(e.value, around, before);
        if (typeof v === "string" || EXACT.test(e.dtype)) return v;
        return e.dtype === "bool" && isExact(v) ? { at: v.at.map((x) => (x !== 0 ? 1 : 0)) } : perBlock(v, `a cast to ${e.dtype}`);
      }
      default: return now(e, before) && facts.uniform(e) ? "uniform" : note(`${e.kind === "subscript" || e.kind === "linear" ? `memory ("${e.array}")` : `a ${e.kind}`}`);
    }
  };
  /** `op` at each lane where every operand is exact; else uniform where every operand is per block. */
  const combine = (xs: readonly Expr[], around: readonly string[], before: number, op: (x: number, y: number, z: number) => number | undefined): Val =>
    combineVals(xs.map((x) => value(x, around, before)), op);
  const combineVals = (vs: readonly Val[], op: (x: number, y: number, z: number) => number | undefined): Val => {
    if (vs.every(isExact)) {
      const exact = vs as readonly Exact[];
      const at: number[] = [];
      for (const t of lanes) {
        const r = op(exact[0]!.at[t]!, exact[1]?.at[t] ?? 0, exact[2]?.at[t] ?? 0);
        // Integers past 32 bits (C's wrap-around), division by zero: not evaluated here.
        if (r === undefined || !Number.isInteger(r) || Math.abs(r) >= 2 ** 31) break;
        at.push(r);
      }
      if (at.length === lanes.length) return { at };
    }
    return vs.every(blockConstant) ? "uniform" : vs.includes("varying") ? "varying" : note("a work-item index combined with a value known only at run time (Loom evaluates a condition lane by lane where its other values are compile-time constants)");
  };
  const v = value(cond, facts.within);
  if (v === "uniform" || isAligned(v)) return undefined;
  if (v === "varying") return `Loom cannot prove it uniform over each sub-group: it depends on ${why ?? "values per work-item"}`;
  const t = v.at.findIndex((x, i) => (x !== 0) !== (v.at[i - (i % width)] !== 0));
  if (t < 0) return undefined;
  const first = t - (t % width);
  const [yes, no] = v.at[first] !== 0 ? [first, t] : [t, first];
  return `it holds for work-item ${yes} and not for work-item ${no}, both of the sub-group of work-items ${first} … ${first + width - 1} (numbered x + Dx*(y + Dy*z))`;
}

/**
 * The IR's integer arithmetic (src/ir/expr.ts: `/` truncates as C's, `//` floors, `%` takes the sign
 * of the divisor), undefined where it is not evaluated here (shifts of negative values).
 */
function arith(op: string, x: number, y: number): number | undefined {
  switch (op) {
    case "+": return x + y;
    case "-": return x - y;
    case "*": return x * y;
    case "/": return y === 0 ? undefined : Math.trunc(x / y);
    case "//": return y === 0 ? undefined : Math.floor(x / y);
    case "%": return y === 0 ? undefined : x - y * Math.floor(x / y);
    case "&": return x & y;
    case "|": return x | y;
    case "^": return x ^ y;
    case "<<": return x < 0 || y < 0 || y > 30 ? undefined : x * 2 ** y;
    case ">>": return x < 0 || y < 0 || y > 31 ? undefined : Math.floor(x / 2 ** y);
    default: return undefined;
  }
}

function cmp(op: string, x: number, y: number): boolean {
  switch (op) {
    case "<": return x < y;
    case "<=": return x <= y;
    case ">": return x > y;
    case ">=": return x >= y;
    case "==": return x === y;
    default: return x !== y;
  }
}
