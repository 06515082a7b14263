/**
 * Guards: the domain constraints an instruction has and its context does not imply, hoisted to
 * the outermost point where their variables are known and gisted against what enclosing loops and
 * guards enforce (`n mod 16 = 0` drops remainder guards); existentials become exact conditions.
 */
import { CodegenError } from "../../src/errors.js";
import {
  addConstraints, aff, affAdd, affIsConstant, affScale, affSub, eliminateExact, factorOf, gist, intersect, isEmptyWith, universe,
  type Aff, type BasicSet,
} from "../../src/poly/index.js";
import { untieExistentials } from "../../src/poly/lattice.js";
import { eliminateExistentials, type ScheduleNode } from "../../src/schedule/index.js";
import { block, ilit, type Ex, type Stmt } from "../ast.js";
import type { KernelHost } from "./host.js";
import { inContext } from "./facts.js";
import { affEx, condOf, floorEx, foldRow, joinEx, rowKey, rowsOf, rowVars, type Row } from "./rows.js";
import { setOf, type Ctx, type LoopContext } from "./context.js";

export { inContext };

/** `GuardLowering.rowsOver`'s answer: the rows, and their keys once asked. */
type RowsOver = { rows: Row[]; keys?: Set<string> };

/** Guards of one device kernel's instructions. */
export class GuardLowering {
  /** The last domain and context `guarded` found needs no guard (sets are values: same objects, same answer). */
  private unguardedD: BasicSet | undefined;
  private unguardedCtx: LoopContext | undefined;

  constructor(private readonly h: KernelHost) {}

  /**
   * Wrap `make(ctx')` in an `if` for the domain constraints over `known` that every instruction
   * under `nodes` has and `ctx` does not imply: guards as far out as their variables allow.
   */
  withHoistedGuards(nodes: readonly ScheduleNode[], known: readonly string[], ctx: LoopContext, make: (c: LoopContext) => Stmt[]): Stmt[] {
    const ids = this.h.insnsUnder(nodes);
    if (ids.length === 0) return make(ctx);
    // A guard around a barrier must not depend on the local id (work-items would disagree on
    // reaching it); one over parameters, group ids and loops is the same for the whole group.
    const barrier = hasBarrier(nodes);
    // The rows every instruction's domain has: the first distinct domain's, narrowed by each other
    // (instructions share domain objects, one per iname list: each distinct one is looked at once).
    let common: Row[] | undefined;
    let first: BasicSet | undefined;
    for (const id of ids) {
      const d = this.h.insnDomain(this.h.insnOf(id));
      if (d === first) continue;
      if (common === undefined) {
        first = d;
        common = this.originalRowsOver(d, known, barrier);
        // The common rows are some of these: where the context implies each of them (cheap proofs,
        // remembered per row), no guard, whatever the other domains share with this one.
        if (allInContext(common, ctx)) return make(ctx);
      } else {
        const mine = this.originalRowKeys(d, known, barrier);
        common = common.filter((r) => mine.has(rowKey(r)));
      }
      if (common.length === 0) return make(ctx);
    }
    const rows = this.notImplied(common!, known, ctx);
    if (rows.length === 0) return make(ctx);
    const inner = ctx.with(known, rows);
    const body = make(inner);
    if (body.length === 0) return [];
    return [{ k: "if", cond: condOf(rows, this.h.subst), then: block(body) }];
  }

  /**
   * Rows of `d` (as written, no projection artifacts) whose variables are parameters or `known`;
   * `uniform`: only those over no `l`-tagged iname (a guard around a barrier). Remembered per
   * domain and list of known inames: the levels of a loop nest ask of the same domains again.
   */
  private originalRowsOver(d: BasicSet, known: readonly string[], uniform: boolean): Row[] {
    return this.rowsOver(d, known, uniform).rows;
  }

  /** The keys of `originalRowsOver(d, known, uniform)`. */
  private originalRowKeys(d: BasicSet, known: readonly string[], uniform: boolean): ReadonlySet<string> {
    const r = this.rowsOver(d, known, uniform);
    return (r.keys ??= new Set(r.rows.map(rowKey)));
  }

  /**
   * By the list of known inames (its identity: a loop's list is one array for its body's levels
   * and barrier runs, never changed), uniform or not, then by domain.
   */
  private readonly rowsOverMemo = [new WeakMap<readonly string[], Map<BasicSet, RowsOver>>(), new WeakMap<readonly string[], Map<BasicSet, RowsOver>>()];

  private rowsOver(d: BasicSet, known: readonly string[], uniform: boolean): RowsOver {
    const memo = this.rowsOverMemo[uniform ? 1 : 0]!;
    let byDomain = memo.get(known);
    if (byDomain === undefined) memo.set(known, (byDomain = new Map()));
    let hit = byDomain.get(d);
    if (hit !== undefined) return hit;
    const { rows } = rowsOf(d);
    const tags = this.h.k.inameTags;
    const out: Row[] = [];
    for (let j = 0; j < rows.length; j++) {
      // Each variable known, or a parameter of d that is not one of its dims.
      const terms = rows[j]!.aff.terms;
      let ok = true;
      for (const n in terms) {
        if (!(known.includes(n) || (!d.dims.includes(n) && d.params.includes(n)))) ok = false;
        else if (uniform && tags[n]?.kind === "l") ok = false;
        if (!ok) break;
      }
      if (ok) out.push(rows[j]!);
    }
    byDomain.set(d, (hit = { rows: out }));
    return hit;
  }

  /** The rows not implied by `ctx` (and each other). */
  private notImplied(rows: readonly Row[], known: readonly string[], ctx: LoopContext): readonly Row[] {
    return notImpliedRows(rows, known, ctx);
  }

  /** `make` under the guard of the constraints of `d` that `ctx` does not imply. */
  guarded(d: BasicSet, known: readonly string[], ctx: LoopContext, what: string, make: (c: LoopContext) => Stmt[]): Stmt[] {
    // Every row of d implied by one of the context's (the loops around it bound it): no guard, no
    // gist. The instructions of a loop share their domain and context: asked once for a run of them.
    if (d === this.unguardedD && ctx === this.unguardedCtx) return make(ctx);
    const own = rowsOf(d);
    if (!own.existential && allInContext(own.rows, ctx)) {
      this.unguardedD = d;
      this.unguardedCtx = ctx;
      return make(ctx);
    }
    const set = ctx.set;
    let g = gist(d, set);
    if (rowsOf(g).existential) {
      const flat = eliminateExistentials(g, set);
      if (flat) g = gist(flat, set);
    }
    let { rows } = rowsOf(g);
    let exConds: Ex[] = [];
    if (rowsOf(g).existential) {
      // What is left of the existentials becomes exact conditions: affine rows where a step is
      // exact, divisibility (`(i + 2) % 3 == 0`) and floor comparisons where it is not.
      const ex = this.existentialGuard(g, set, what);
      if (ex === false) return [];
      if (ex.rows.length > 0) {
        const have = new Set(rows.map(rowKey));
        const more = ex.rows.filter((r) => !have.has(rowKey(r)));
        if (more.length > 0) rows = rowsOf(gist(addConstraints(universe(g.params, g.dims), [...rows, ...more]), set)).rows;
      }
      exConds = ex.conds;
    }
    const live: Row[] = [];
    for (const r of rows) {
      const folded = foldRow(r, this.h.subst);
      if (folded === true) continue;
      if (folded === false) return [];
      live.push(r);
    }
    const inner = live.length > 0 ? ctx.with(known, live) : ctx;
    const body = make(inner);
    if ((live.length === 0 && exConds.length === 0) || body.length === 0) return body;
    const conds = live.length > 0 ? [condOf(live, this.h.subst), ...exConds] : exConds;
    const cond = joinEx("&&", conds, "idx");
    return [{ k: "if", cond, then: block(body) }];
  }

  /**
   * Exact conditions for the existentials of `g` (over its params and dims): affine rows, and
   * conditions an affine row cannot say, as ISL's code generation writes them. Existentials whose
   * Fourier–Motzkin step is exact are eliminated first; then each remaining existential `e` is
   * decided by its own rows: an equality `a·e + r = 0` is `r % a == 0` (and `e = -r/a` in its other
   * rows, exactly, scaled by `a`); bounds `a·e >= L`, `b·e <= U` admit an integer `e` exactly when
   * every pair does, `ceil(L/a) <= floor(U/b)`: an affine row when a or b is 1, `U % a <= U - L`
   * when a = b and U - L is a constant, else the floor comparison. false: no point at all.
   */
  private existentialGuard(g0: BasicSet, ctx: BasicSet, what: string): { rows: Row[]; conds: Ex[] } | false {
    let g = g0;
    for (let again = true; again && g.exists.length > 0;) {
      again = false;
      for (const e of g.exists) {
        const r = eliminateExact(g, [e]);
        if (r.exact) {
          g = r.set;
          again = true;
          break;
        }
      }
    }
    const names = [...g.params, ...g.dims];
    const np = names.length;
    const rows: Row[] = [];
    const conds: Ex[] = [];
    const per = new Map<number, { c: number; r: Aff; eq: boolean }[]>();
    for (const con of g.constraints) {
      const terms: Record<string, number> = {};
      names.forEach((n, k) => {
        if (con.coeffs[k] !== 0) terms[n] = con.coeffs[k]!;
      });
      const rest = aff(terms, con.constant);
      const ex: number[] = [];
      for (let k = np; k < con.coeffs.length; k++) if (con.coeffs[k] !== 0) ex.push(k);
      if (ex.length === 0) {
        rows.push({ aff: rest, eq: con.eq });
        continue;
      }
      if (ex.length > 1) {
        // Existentials tied together: a union of pieces that tie none (src/poly/lattice.ts), each
        // decided as below; the guard is the domain's own rows and the disjunction of the pieces.
        const pieces = untieExistentials(g, ctx);
        if (!pieces) throw new CodegenError(`kernel "${this.h.k.name}", instruction "${what}": its domain ties several unbounded existentials together in one constraint; code generation cannot guard that exactly`);
        const alts: Ex[] = [];
        for (const p of pieces) {
          const r = this.existentialGuard(p, ctx, what);
          if (r === false || r.rows.some((x) => affIsConstant(x.aff) && (x.eq ? x.aff.constant !== 0 : x.aff.constant < 0))) continue;
          const rs = r.rows.filter((x) => !affIsConstant(x.aff));
          const cs = rs.length > 0 ? [condOf(rs, this.h.subst), ...r.conds] : r.conds;
          if (cs.length === 0) return { rows: [...rowsOf(g).rows], conds: [] };
          alts.push(joinEx("&&", cs, "idx"));
        }
        if (alts.length === 0) return false;
        return { rows: [...rowsOf(g).rows], conds: [joinEx("||", alts, "idx")] };
      }
      const list = per.get(ex[0]!) ?? [];
      list.push({ c: con.coeffs[ex[0]!]!, r: rest, eq: con.eq });
      per.set(ex[0]!, list);
    }
    // The affine part of the domain within the context: pairs it already satisfies need no guard.
    let base: BasicSet | undefined;
    const implied = (a: Aff): boolean => {
      base ??= intersect(addConstraints(universe(g.params, g.dims), rows), ctx);
      if (base.exists.length > 0) return false;
      try {
        return isEmptyWith(base, affSub(aff({}, -1), a));
      } catch {
        return false;
      }
    };
    const idx = (op: "%" | "//" | "<=" | "==", l: Ex, r: Ex): Ex => ({ k: "bin", op, l, r, dtype: "idx" });
    for (const cs of per.values()) {
      const eq = cs.find((x) => x.eq);
      if (eq) {
        // a·e + r = 0 with a > 0: e = -r/a, an integer exactly when a divides r.
        const a = Math.abs(eq.c);
        const r = eq.c > 0 ? eq.r : affScale(eq.r, -1);
        if (a > 1) {
          if (affIsConstant(r)) {
            if (r.constant % a !== 0) return false;
          } else conds.push(idx("==", idx("%", this.ex(r), ilit(a)), ilit(0)));
        }
        // c·e + r' (>= | =) 0 times a: -c·r + a·r'.
        for (const o of cs) if (o !== eq) rows.push({ aff: affAdd(affScale(r, -o.c), affScale(o.r, a)), eq: o.eq });
        continue;
      }
      for (const l of cs) {
        if (l.c <= 0) continue;
        for (const u of cs) {
          if (u.c >= 0) continue;
          // a·e >= L, b·e <= U.
          const a = l.c;
          const b = -u.c;
          const L = affScale(l.r, -1);
          const U = u.r;
          if (a === 1 || b === 1) {
            rows.push({ aff: affSub(affScale(U, a), affScale(L, b)), eq: false });
            continue;
          }
          if (a === b) {
            const D = affSub(U, L);
            if (affIsConstant(D)) {
              if (D.constant >= a - 1) continue;
              if (D.constant < 0) return false;
              // A multiple of a in [U - D, U].
              conds.push(idx("<=", idx("%", this.ex(U), ilit(a)), ilit(D.constant)));
              continue;
            }
            if (implied(affAdd(D, aff({}, 1 - a)))) continue;
          }
          conds.push(idx("<=", this.floorEx(affAdd(L, aff({}, a - 1)), a), this.floorEx(U, b)));
        }
      }
    }
    return { rows, conds };
  }

  private ex(a: Aff): Ex {
    return affEx(a, this.h.subst);
  }

  private floorEx(a: Aff, d: number): Ex {
    return floorEx(a, d, this.h.subst);
  }
}

/**
 * The rows over `known` (dims) and parameters that `ctx` does not imply, nor each other: the gist
 * of the rows against `ctx`. When one of the context's rows implies each row by its constant
 * (`inContext`), the context lies inside them and the gist keeps nothing: most rows are the
 * enclosing loops' bounds, so most calls end there, without a set or a gist. Otherwise the gist
 * of all the rows (not of the rest: their set's normal form joins `i >= 0` and `i <= 0` into
 * `i = 0`, and the code says which).
 */
export function notImpliedRows(rows: readonly Row[], known: readonly string[], ctx: Ctx): readonly Row[] {
  if (allInContext(rows, ctx)) return [];
  const vars = rowVars(rows);
  const s = addConstraints(universe(vars.filter((n) => !known.includes(n)), [...known]), rows);
  // Rows over inames need only the context's factors of those inames; a row over parameters
  // alone may follow from any factor (a loop `0 <= i < n` implies `n >= 1`): the whole context.
  const overInames = rows.every((r) => Object.keys(r.aff.terms).some((n) => known.includes(n)));
  const set = setOf(ctx);
  return rowsOf(gist(s, overInames ? factorOf(set, vars) : set)).rows;
}

/** Whether `ctx` implies every one of `rows` by a cheap proof (`inContext`). */
function allInContext(rows: readonly Row[], ctx: Ctx): boolean {
  for (let j = 0; j < rows.length; j++) if (!inContext(rows[j]!, ctx)) return false;
  return true;
}

/** Whether a barrier is among `nodes` or inside their loops. */
export function hasBarrier(nodes: readonly ScheduleNode[]): boolean {
  return nodes.some((n) => n.kind === "barrier" || (n.kind === "loop" && hasBarrier(n.body)));
}
