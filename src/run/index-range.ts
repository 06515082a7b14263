/**
 * The native backends' check of index arithmetic: generated C, OpenCL and CUDA compute loop
 * bounds, loop counters, guards, subscripts and hardware ids in 32-bit `int` (golden code keeps
 * `int` for ordinary sizes), where the interpreter's index arithmetic is exact. Before native
 * code runs, every index expression of the lowered kernels is bounded by interval arithmetic over
 * the loop ranges with this run's parameter values; a value that can leave int32 refuses the run
 * with an ExecutionError naming the parameters and the expression (issue 16, point 8).
 *
 * What is bounded: every `idx` node (exact index arithmetic), every loop's bounds and its counter
 * one past its upper bound, every subscript, and the launch's group and local sizes. Values the
 * analysis cannot bound (loads, scalars a statement assigns, a block's own locals) are left out
 * of the proof: the expressions built from them are not checked.
 */
import { ExecutionError } from "../errors.js";
import type { Ex, Stmt } from "../../codegen/ast.js";
import type { LoweredKernel } from "../../codegen/lower.js";
import { VEC_LOOP_MARK } from "../../codegen/lower/vec-opencl.js";
import { affineMax, affineMin, hwName, type Range, type SymBound } from "./index-affine.js";
import { INT_MAX, INT_MIN } from "./bounds-interval.js";



/**
 * What is known in a scope of a kernel body: variables with their ranges (names a statement assigns
 * are unknown), and loop counters and values with their bounds as written (index-affine.ts), at
 * their nesting depth.
 */
interface Env {
  readonly ranges: Map<string, Range>;
  readonly sym: Map<string, SymBound>;
  readonly depth: number;
}

/** A scope inside `env` (one level deeper). */
const inside = (env: Env): Env => ({ ranges: new Map(env.ranges), sym: new Map(env.sym), depth: env.depth + 1 });

/** The first value found leaving int32. */
interface Overflow {
  readonly what: string;
  readonly expr: Ex;
  readonly range: Range;
}

class Found extends Error {
  constructor(readonly o: Overflow) {
    super("index overflow");
  }
}

const corners = (a: Range, b: Range, f: (x: number, y: number) => number): Range => {
  const v = [f(a[0], b[0]), f(a[0], b[1]), f(a[1], b[0]), f(a[1], b[1])];
  return [Math.min(...v), Math.max(...v)];
};

function note(what: string, e: Ex, r: Range | undefined): void {
  if (r && (r[0] < INT_MIN || r[1] > INT_MAX)) throw new Found({ what, expr: e, range: r });
}

/** In `env`: inside a loop over a `vec` iname (a name no C identifier has). */
const VEC = "vec:";

/** Whether `e` is int32 arithmetic the targets compute wrapping (in uint32 in C, i32 in WGSL): a sum, difference, product or negation. */
const wraps = (e: Ex): boolean => e.k === "neg" ? e.dtype === "int32" : e.k === "bin" && e.dtype === "int32" && (e.op === "+" || e.op === "-" || e.op === "*");

/**
 * The range of `e` in `env` (undefined: unknown), checking every index node inside it. `index`:
 * `e` is a subscript or bound, whose int32 arithmetic is index arithmetic too (values of
 * instructions keep their own int32 meaning, wrapping as the interpreter wraps). `inner`: `e` is
 * an operand of wrapping int32 arithmetic (`wraps`), which needs only its whole value in int32,
 * computed modulo 2**32 (`(m + i) - m` is `i` for m near the limit): `e` is not checked if it wraps
 * too, except in a loop over a `vec` iname, whose subscripts OpenCL prints as plain int sums (vload).
 */
function rangeOf(e: Ex, env: Env, index = false, inner = false): Range | undefined {
  const checked = (d: string) => d === "idx" || (index && d === "int32" && !(inner && wraps(e) && !env.ranges.has(VEC)));
  switch (e.k) {
    case "var": return env.ranges.get(e.name);
    case "hw": return env.ranges.get(hwName(e));
    case "lit": {
      const r: Range = [e.value, e.value];
      if (checked(e.dtype)) note("an index constant", e, r);
      return r;
    }
    case "neg": {
      const r = rangeOf(e.e, env, index, wraps(e));
      const out: Range | undefined = r && [-r[1], -r[0]];
      if (checked(e.dtype)) note("an index", e, out);
      return out;
    }
    case "bitnot": rangeOf(e.e, env, index); return undefined;
    case "not": rangeOf(e.e, env, index); return [0, 1];
    case "call": e.args.forEach((a) => rangeOf(a, env, index)); return undefined;
    case "load": note("a subscript", e.index, rangeOf(e.index, env, true)); return undefined;
    case "cast": return rangeOf(e.e, env, index);
    case "cond": {
      rangeOf(e.c, env, index);
      const t = rangeOf(e.t, env, index);
      const f = rangeOf(e.f, env, index);
      return t && f ? [Math.min(t[0], f[0]), Math.max(t[1], f[1])] : undefined;
    }
    case "bin": {
      const l = rangeOf(e.l, env, index, wraps(e));
      const r = rangeOf(e.r, env, index, wraps(e));
      let out = l && r ? binRange(e.op, l, r) : undefined;
      if (checked(e.dtype)) {
        // Intervals past int32: the counters' bounds may say more (a partial sum of a subscript).
        if (out && (out[0] < INT_MIN || out[1] > INT_MAX)) out = tighter(e, out, env);
        note("an index", e, out);
      }
      return out;
    }
    default: return undefined;
  }
}

/** `r`, narrowed by the relational bounds of `e` (index-affine.ts) where they are tighter. */
function tighter(e: Ex, r: Range, env: Env): Range {
  const hi = r[1] > INT_MAX ? affineMax(e, env.sym, env.ranges) : undefined;
  const lo = r[0] < INT_MIN ? affineMin(e, env.sym, env.ranges) : undefined;
  return [lo !== undefined && lo > r[0] ? lo : r[0], hi !== undefined && hi < r[1] ? hi : r[1]];
}

function binRange(op: string, l: Range, r: Range): Range | undefined {
  switch (op) {
    case "+": return [l[0] + r[0], l[1] + r[1]];
    case "-": return [l[0] - r[1], l[1] - r[0]];
    case "*": return corners(l, r, (x, y) => x * y);
    case "min": return [Math.min(l[0], r[0]), Math.min(l[1], r[1])];
    case "max": return [Math.max(l[0], r[0]), Math.max(l[1], r[1])];
    case "/": case "//":
      // Floor and truncation are monotone in each operand where the divisor keeps its sign.
      if (r[0] > 0 || r[1] < 0) return corners(l, r, (x, y) => (op === "//" ? Math.floor(x / y) : Math.trunc(x / y)));
      return undefined;
    case "%":
      // Loopy's modulo takes the divisor's sign.
      return r[0] > 0 ? [0, r[1] - 1] : undefined;
    case "<": case "<=": case ">": case ">=": case "==": case "!=": case "&&": case "||": return [0, 1];
    default: return undefined;
  }
}

/** Names a statement of `body` assigns (their declared values do not bound them). */
function assignedNames(body: readonly Stmt[], out = new Set<string>()): Set<string> {
  const visit = (s: Stmt): void => {
    switch (s.k) {
      case "block": s.body.forEach(visit); break;
      case "for": visit(s.body); break;
      case "if": visit(s.then); if (s.else) visit(s.else); break;
      case "while": case "doWhile": visit(s.body); break;
      case "assign": if (s.name !== undefined) out.add(s.name); break;
      default: break;
    }
  };
  body.forEach(visit);
  return out;
}

function checkStmt(s: Stmt, env: Env, assigned: ReadonlySet<string>): void {
  switch (s.k) {
    case "block": {
      const inner = inside(env);
      for (const x of s.body) checkStmt(x, inner, assigned);
      return;
    }
    case "for": {
      const lo = rangeOf(s.lo, env, true);
      const hi = rangeOf(s.hi, env, true);
      note(`the lower bound of loop "${s.v}"`, s.lo, lo);
      note(`the upper bound of loop "${s.v}"`, s.hi, hi);
      const inner = inside(env);
      if (s.pragmas?.includes(VEC_LOOP_MARK)) inner.ranges.set(VEC, [0, 0]);
      if (lo && hi) {
        if (lo[0] > hi[1]) return; // never runs
        // `++v` runs once past the last iteration.
        note(`the counter of loop "${s.v}" (one past its upper bound)`, s.hi, [hi[0] + 1, hi[1] + 1]);
        inner.ranges.set(s.v, [lo[0], hi[1]]);
      } else inner.ranges.delete(s.v);
      if (assigned.has(s.v)) inner.sym.delete(s.v);
      else inner.sym.set(s.v, { depth: inner.depth, lo: s.lo, hi: s.hi });
      checkStmt(s.body, inner, assigned);
      return;
    }
    case "if":
      rangeOf(s.cond, env);
      checkStmt(s.then, inside(env), assigned);
      if (s.else) checkStmt(s.else, inside(env), assigned);
      return;
    case "while": case "doWhile":
      rangeOf(s.cond, env);
      checkStmt(s.body, inside(env), assigned);
      return;
    case "decl": {
      const r = s.init ? rangeOf(s.init, env) : undefined;
      const known = s.init !== undefined && s.size === undefined && !assigned.has(s.name);
      if (r && known) env.ranges.set(s.name, r);
      else env.ranges.delete(s.name);
      if (known) env.sym.set(s.name, { depth: env.depth, lo: s.init, hi: s.init });
      else env.sym.delete(s.name);
      return;
    }
    case "assign":
      if (s.index) note("a subscript", s.index, rangeOf(s.index, env, true));
      rangeOf(s.rhs, env);
      return;
    default: return;
  }
}

/** A short C-like rendering of an index expression, for messages. */
export function showIndex(e: Ex): string {
  switch (e.k) {
    case "var": return e.name;
    case "lit": return String(e.value);
    case "hw": return `${e.tag === "g" ? "gid" : "lid"}(${e.axis})`;
    case "neg": return `-(${showIndex(e.e)})`;
    case "cast": return showIndex(e.e);
    case "load": return `${e.array}[${showIndex(e.index)}]`;
    case "bin": return e.op === "min" || e.op === "max" ? `${e.op}(${showIndex(e.l)}, ${showIndex(e.r)})` : `(${showIndex(e.l)} ${e.op} ${showIndex(e.r)})`;
    default: return "…";
  }
}

/**
 * Throw an ExecutionError unless every index value of `kernel` stays in int32 when the value
 * arguments (and host loop inames) have `values`; hardware ids range over the launch's groups and
 * work-items (OpenCL, CUDA). Memoized per kernel object and values.
 *
 *   checkIndexRange(lowered, new Map([["n", 2 ** 31 - 2]]), "k")   // throws: (n + 2) leaves int32
 */
export function checkIndexRange(kernel: LoweredKernel, values: ReadonlyMap<string, number>, kernelName: string): void {
  const key = JSON.stringify([...values]);
  let seen = checkedRuns.get(kernel);
  if (seen?.has(key)) return;
  const env: Env = { ranges: new Map([...values].map(([n, v]) => [n, [v, v] as Range])), sym: new Map(), depth: 0 };
  try {
    // Hardware ids range over the launch; a launch of no groups or no work-items runs nothing.
    let runs = true;
    const sizes = (list: readonly (number | Ex)[], tag: "g" | "l") => list.forEach((x, axis) => {
      const r: Range | undefined = typeof x === "number" ? [x, x] : rangeOf(x, env, true);
      if (typeof x !== "number") note(`the ${tag === "g" ? "group count" : "work-group size"} of axis ${axis}`, x, r);
      if (r && r[1] <= 0) runs = false;
      if (r) env.ranges.set(`hw:${tag}${axis}`, [0, r[1] - 1]);
    });
    sizes(kernel.groupSize, "g");
    sizes(kernel.localSize, "l");
    const assigned = assignedNames([...kernel.decls, ...kernel.body]);
    if (runs) for (const s of [...kernel.decls, ...kernel.body]) checkStmt(s, env, assigned);
  } catch (e) {
    if (!(e instanceof Found)) throw e;
    const { what, expr, range } = e.o;
    const shown = [...values].map(([n, v]) => `${n}=${v}`).join(", ") || "these arguments";
    throw new ExecutionError(`native code of kernel "${kernelName}" computes indices in 32-bit int, but for ${shown} ${what}, ` +
      `${showIndex(expr)}, may reach ${range[1] > INT_MAX ? range[1] : range[0]}, outside int32 (${INT_MIN}…${INT_MAX}); native code was not run. ` +
      "Accepted: parameter values for which every loop bound, subscript and index stays within int32 " +
      `(${range[1] > INT_MAX ? "smaller" : "larger"} values of ${[...values.keys()].join(", ") || "the parameters"}); or run it on the interp or js backend, whose index arithmetic is exact`);
  }
  if (!seen) checkedRuns.set(kernel, (seen = new Set()));
  seen.add(key);
}

const checkedRuns = new WeakMap<LoweredKernel, Set<string>>();
