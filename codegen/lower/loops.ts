/**
 * Loops: bounds from the instructions' domains (projected onto the known inames, gisted against
 * the context), then as the iname's tag asks: unrolled copies, a single `int const`, peeled slabs
 * or a plain `for` (with the target's unroll and parallel pragmas).
 */
import { CodegenError, LoomError } from "../../src/errors.js";
import {
  aff, affAdd, affIsConstant, affSub, dimBounds, eliminateExact, factorOf, gist, internSet, intersect, isEmpty, isSubset,
  type Aff, type BasicSet, type Bound,
} from "../../src/poly/index.js";
import { add, mul } from "../../src/poly/int.js";
import { preferUnitBounds, type ScheduleNode } from "../../src/schedule/index.js";
import { block, ibin, ilit, type Ex, type Stmt } from "../ast.js";
import { inContext, type GuardLowering } from "./guards.js";
import type { KernelHost, NodesLowering } from "./host.js";
import { elementLoop } from "./elements.js";
import { checkVecLanes } from "./vec.js";
import { sameJson } from "./same-json.js";
import { affEx as affExWith, condOf, joinEx, rowKey, rowsOf, type Row } from "./rows.js";
import type { LoopContext } from "./context.js";
import { uniformSplit } from "./uniform-loops.js";

const MAX_UNROLL = 4096;

/** Loops of one device kernel. */
export class LoopLowering {
  /** The OpenMP pragma goes on the outermost group loop only. */
  private parallelDone = false;

  constructor(
    private readonly h: KernelHost, private readonly guards: GuardLowering, private readonly nodes: NodesLowering,
    /** The private variables declared so far (for the parallel pragma). */
    private readonly privateNames: () => string[],
    /** Inames of the loops the CPU lowering made of group axes (`LoopNode.hw === "group"`). */
    private readonly groupInames: ReadonlySet<string>,
  ) {}

  loop(iname: string, body: readonly ScheduleNode[], known: readonly string[], ctx: LoopContext): Stmt[] {
    const tag = this.h.k.inameTags[iname];
    if (tag && (tag.kind === "g" || tag.kind === "l") && this.h.opts.hwAxes) {
      throw new CodegenError(`kernel "${this.h.k.name}": iname "${iname}" is tagged ${tag.kind}.${tag.axis} but scheduled as a loop`);
    }
    const inner = [...known, iname];
    const ids = this.h.insnsUnder(body);
    if (tag?.kind === "vec") checkVecLanes(this.h.k, iname, ids.map((id) => this.h.insnOf(id)), (n) => this.pointOf(n));
    // Bounds from each instruction's domain, projected onto the known inames and this one; a loop
    // around barriers alone (loopy's `for i ... lbarrier end`) runs over the iname's own domain.
    const insns = ids.map((id) => this.h.insnOf(id));
    let whole: BasicSet | undefined;
    const rangesOf = (domains: readonly BasicSet[]) => {
      whole = undefined;
      // Instructions share domain objects (one per iname list): each distinct one is bounded once,
      // so a loop around thousands of unrolled statements costs as much as one around a few.
      const byDomain = new Map<BasicSet, BasicSet>();
      // Different domains often have one factor of the iname (a fetch's `k_outer` and the update's,
      // once `k_inner` is projected out): one bound per content, interned.
      const byFactor = new Map<BasicSet, BasicSet>();
      const perInsn = domains.map((d0) => {
        const had = byDomain.get(d0);
        if (had !== undefined) return had;
        let d = d0;
        // An instruction that does not run within the loop's iname (the CPU lowering's loop over a
        // group axis around a fetch that ignores that axis) runs at every iteration of it.
        if (!d.dims.includes(iname)) d = intersect(d, this.h.domainOf([iname]));
        // Only the iname's own factor of the domain bounds it, and only the factors of the context
        // over the same inames can imply those bounds: smaller problems, and ones that a sweep of
        // tile sizes asks again whenever this iname's tile size repeats.
        const f = factorOf(d, iname);
        const p = projectedFactor(f, inner);
        whole ??= p;
        let g = byFactor.get(p);
        if (g === undefined) byFactor.set(p, (g = this.gistedFactor(p, iname, ctx.factorOf(p.dims))));
        byDomain.set(d0, g);
        return g;
      });
      const keys = new Map<BasicSet, string>();
      const keyed = new Map<string, BasicSet>();
      for (const g of perInsn) {
        let key = keys.get(g);
        if (key === undefined) keys.set(g, (key = rangeKey(g, iname)));
        keyed.set(key, g);
      }
      return { perInsn, keyed };
    };
    // Bounds from each instruction's domain (with its affine predicates on CPU targets), projected
    // onto the known inames and this one; a loop around barriers alone (loopy's `for i ... lbarrier
    // end`) runs over the iname's own domain. Where predicates would split one range into several,
    // the loop keeps the domains' range and the predicates stay guards.
    let { perInsn, keyed } = rangesOf(insns.length > 0 ? insns.map((i) => this.h.insnDomain(i)) : [this.h.domainOf(inner)]);
    if (keyed.size > 1 && insns.some((i) => this.h.absorbedPredicates(i).size > 0)) {
      ({ perInsn, keyed } = rangesOf(insns.map((i) => this.h.domainOf(i.withinInames))));
    }
    const body1 = (c: LoopContext) => this.guards.withHoistedGuards(body, inner, c, (c2) => this.nodes(body, inner, c2));
    const ranges = keyed.size;
    if (ranges > 1) keyed = dropContained(keyed, ctx.set);
    if (ranges > 1 && keyed.size === 1) {
      // One range contains every other: the union is that range; the other instructions guard themselves.
      const g = [...keyed.values()][0]!;
      const b = dimBounds(g, iname, known.filter((n) => g.dims.includes(n)));
      return this.emitRange(iname, b.lower, b.upper, known, ctx, body1);
    }
    if (keyed.size === 1) {
      const g = perInsn[0]!;
      const b = dimBounds(g, iname, known.filter((n) => g.dims.includes(n)));
      return this.emitRange(iname, b.lower, b.upper, known, ctx, body1, whole);
    }
    // Instructions with different ranges: the union of the ranges; each instruction guards itself.
    const los: Ex[] = [];
    const his: Ex[] = [];
    for (const g of keyed.values()) {
      let b: { lower: readonly Bound[]; upper: readonly Bound[] } = dimBounds(g, iname, known.filter((n) => g.dims.includes(n)));
      this.checkBounded(iname, b.lower, b.upper);
      // Each instruction guards itself: the union may run over uniform bounds (uniform-loops.ts).
      if (this.h.opts.uniformLocalLoops && this.h.hasBarrierLoop) b = uniformSplit(iname, b.lower, b.upper, (n) => this.h.k.inameTags[n]?.kind === "l", known, undefined, ctx) ?? b;
      los.push(this.boundEx(b.lower, "lower", ctx));
      his.push(this.boundEx(b.upper, "upper", ctx));
    }
    const lo = joinEx("min", los, "idx");
    const hi = joinEx("max", his, "idx");
    const c = ctx.with([iname], []);
    return [this.forStmt(iname, lo, hi, block(body1(c)), known)];
  }

  /**
   * The bounds of `iname` in `p` (a projected factor, interned) that the context's factor `c` of
   * its inames does not imply: `gist(unitBounds(p, iname, c), c)`, remembered by the identity of
   * `p` and `c` (see `projectedFactor`).
   */
  private gistedFactor(p: BasicSet, iname: string, c: BasicSet): BasicSet {
    let byCtx = gisted.get(p);
    if (byCtx === undefined) gisted.set(p, (byCtx = new WeakMap()));
    let byIname = byCtx.get(c);
    if (byIname === undefined) byCtx.set(c, (byIname = new Map()));
    let g = byIname.get(iname);
    if (g === undefined) byIname.set(iname, (g = gist(this.unitBounds(p, iname, c), c)));
    return g;
  }

  /** `p` within `ctx` (a factor of the context) with `iname`'s non-unit bounds replaced by implied constant ones where possible. */
  private unitBounds(p: BasicSet, iname: string, ctx: BasicSet): BasicSet {
    if (!rowsOf(p).rows.some((r) => Math.abs(r.aff.terms[iname] ?? 0) > 1)) return p;
    if (p.exists.length > 0 || ctx.exists.length > 0) return p;
    return preferUnitBounds(intersect(p, ctx), [iname]);
  }

  /**
   * A loop over `iname` from max(lower) to min(upper), as the iname's tag asks: unrolled, a single
   * `int const`, peeled slabs, or a plain loop. `make` builds the body for a context.
   */
  emitRange(
    iname: string, lower: readonly Bound[], upper: readonly Bound[], known: readonly string[], ctx: LoopContext,
    make: (c: LoopContext) => Stmt[], whole?: BasicSet,
  ): Stmt[] {
    const tag = this.h.k.inameTags[iname];
    this.checkBounded(iname, lower, upper);
    const boundRows = (lo: readonly Bound[], up: readonly Bound[], shiftLo = 0, shiftHi = 0): Row[] => {
      const out: Row[] = [];
      for (const b of lo) out.push({ aff: lowerRow(iname, b, shiftLo), eq: false });
      for (const b of up) out.push({ aff: upperRow(iname, b, shiftHi), eq: false });
      return out;
    };
    const dims = [...known, iname];
    const withRows = (rows: readonly Row[]) => ctx.with(dims, rows);

    if (tag && (tag.kind === "unr" || tag.kind === "ilp")) {
      // Constant bounds: from the loop's own bounds, else from the domain with the outer inames
      // projected out too (a triangle `j <= i < 8` unrolls j over 0..7, guarding j <= i).
      const all = whole ? dimBounds(intersectCtx(whole, ctx.set), iname, []) : undefined;
      let clo = lower.filter((b) => affIsConstant(b.aff));
      let chi = upper.filter((b) => affIsConstant(b.aff));
      if (clo.length === 0 && all) clo = all.lower.filter((b) => affIsConstant(b.aff));
      if (chi.length === 0 && all) chi = all.upper.filter((b) => affIsConstant(b.aff));
      if (clo.length === 0 || chi.length === 0) {
        throw new CodegenError(`kernel "${this.h.k.name}": cannot unroll iname "${iname}" (tag ${tag.kind}): its trip count is not a constant`);
      }
      const lo = Math.max(...clo.map((b) => Math.ceil(b.aff.constant / b.denom)));
      const hi = Math.min(...chi.map((b) => Math.floor(b.aff.constant / b.denom)));
      // The target's element level (alpaka): a loop over the thread's elements, not copies.
      if (tag.kind === "ilp" && this.h.opts.ilpElements) return elementLoop(this.h, iname, lo, hi, withRows, make);
      if (hi - lo + 1 > MAX_UNROLL) throw new CodegenError(`kernel "${this.h.k.name}": unrolling "${iname}" would copy its body ${hi - lo + 1} times (at most ${MAX_UNROLL})`);
      const out: Stmt[] = [];
      for (let v = lo; v <= hi; v++) {
        this.h.subst.set(iname, ilit(v));
        // Each copy knows the iname's value: `16*j_outer + j_inner < m` is no guard of copy 0.
        out.push(...make(withRows([{ aff: aff({ [iname]: 1 }, -v), eq: true }])));
      }
      this.h.subst.delete(iname);
      return out;
    }
    const lo = this.boundEx(lower, "lower", ctx);
    const hi = this.boundEx(upper, "upper", ctx);
    if (sameJson(lo, hi)) {
      const c = withRows(boundRows(lower, upper));
      return [block([{ k: "decl", dtype: "int32", name: iname, init: lo, isConst: true }, ...make(c)])];
    }
    const slabs = this.h.k.inameSlabs?.[iname];
    if (slabs && (slabs[0] > 0 || slabs[1] > 0)) {
      const [a, b] = slabs;
      const out: Stmt[] = [];
      const mainLo = a > 0 ? ibin("+", lo, ilit(a)) : lo;
      if (a > 0) {
        out.push({ k: "comment", text: `initial slab for '${iname}'` });
        out.push(this.forStmt(iname, lo, { k: "bin", op: "min", l: ibin("+", lo, ilit(a - 1)), r: hi, dtype: "idx" }, block(make(withRows(boundRows(lower, upper)))), known));
      }
      // The bulk is empty where the range never has more than the slabs' iterations (a range of at
      // most a + b values everywhere): its loop never runs, and its body, built under an empty
      // context, would have no bounds to read.
      const bulk = withRows(boundRows(lower, upper, a, b));
      if (!isEmpty(bulk.set)) {
        out.push({ k: "comment", text: `bulk slab for '${iname}'` });
        out.push(this.forStmt(iname, mainLo, b > 0 ? ibin("-", hi, ilit(b)) : hi, block(make(bulk)), known));
      }
      if (b > 0) {
        out.push({ k: "comment", text: `final slab for '${iname}'` });
        out.push(this.forStmt(iname, { k: "bin", op: "max", l: ibin("+", hi, ilit(1 - b)), r: mainLo, dtype: "idx" }, hi, block(make(withRows(boundRows(lower, upper)))), known));
      }
      return out;
    }
    const u = this.h.opts.uniformLocalLoops && this.h.hasBarrierLoop
      ? uniformSplit(iname, lower, upper, (n) => this.h.k.inameTags[n]?.kind === "l", known, whole, ctx)
      : undefined;
    if (u) {
      // Uniform bounds, the varying ones as a guard (codegen/lower/uniform-loops.ts: PoCL).
      const body = make(withRows(boundRows(lower, upper)));
      // Varying bounds that the uniform ones imply within the context need no guard (cheap proofs:
      // `8 * a_dim_1_outer + lid(0) <= 15` for `a_dim_1_outer <= 1` and `lid(0) <= 7`).
      const within = withRows(boundRows(u.lower, u.upper));
      const rows = boundRows(u.guardLower, u.guardUpper).filter((r) => !inContext(r, within));
      const inner: Stmt[] = body.length === 0 ? [block([])] : rows.length === 0 ? body : [{ k: "if", cond: condOf(rows, this.h.subst), then: block(body) }];
      return [this.forStmt(iname, this.boundEx(u.lower, "lower", ctx), this.boundEx(u.upper, "upper", ctx), block(inner), known)];
    }
    return [this.forStmt(iname, lo, hi, block(make(withRows(boundRows(lower, upper)))), known)];
  }

  /** The one value iname `n` takes (a split by 1), if its domain has a single point. */
  private pointOf(n: string): number | undefined {
    const d = this.h.domainOf([n]);
    if (!d.dims.includes(n)) return undefined;
    const b = dimBounds(d, n, []);
    const lo = b.lower.filter((x) => affIsConstant(x.aff)).map((x) => Math.ceil(x.aff.constant / x.denom));
    const hi = b.upper.filter((x) => affIsConstant(x.aff)).map((x) => Math.floor(x.aff.constant / x.denom));
    if (lo.length === 0 || hi.length === 0) return undefined;
    const l = Math.max(...lo);
    return l === Math.min(...hi) ? l : undefined;
  }

  private checkBounded(iname: string, lower: readonly Bound[], upper: readonly Bound[]): void {
    if (lower.length === 0 || upper.length === 0) throw new CodegenError(`kernel "${this.h.k.name}": iname "${iname}" is unbounded ${lower.length === 0 ? "below" : "above"}`);
  }

  private forStmt(iname: string, lo: Ex, hi: Ex, body: Stmt, known: readonly string[]): Stmt {
    const tag = this.h.k.inameTags[iname];
    const pragmas: string[] = [];
    if (tag?.kind === "unr_hint" && this.h.opts.unrollHint) pragmas.push(this.h.opts.unrollHint(tag.max));
    if (tag?.kind === "vec" && this.h.opts.simdLoop) pragmas.push(this.h.opts.simdLoop);
    if (this.h.opts.parallelLoop && !this.parallelDone && this.groupInames.has(iname) && known.every((n) => !this.groupInames.has(n))) {
      this.parallelDone = true;
      pragmas.push(this.h.opts.parallelLoop(this.privateNames()));
    }
    return { k: "for", v: iname, lo, hi, body, pragmas };
  }

  /** max of lower bounds `ceil(aff/denom)` or min of upper bounds `floor(aff/denom)`. */
  private boundEx(bounds: readonly Bound[], side: "lower" | "upper", ctx: LoopContext): Ex {
    const exs = bounds.map((b) => {
      if (b.denom === 1) return this.affEx(b.aff);
      if (affIsConstant(b.aff)) return ilit(side === "lower" ? Math.ceil(b.aff.constant / b.denom) : Math.floor(b.aff.constant / b.denom));
      if (side === "upper") return this.floorDiv(b.aff, b.denom, this.impliedNonneg(b.aff, ctx));
      const less = affAdd(b.aff, aff({}, -1));
      const plain = this.impliedNonneg(less, ctx);
      if (!plain) {
        const more = affAdd(b.aff, aff({}, b.denom - 1));
        if (this.impliedNonneg(more, ctx)) return this.floorDiv(more, b.denom, true);
      }
      return ibin("+", this.floorDiv(less, b.denom, plain), ilit(1));
    });
    // Constant bounds fold into one.
    const consts = exs.filter((e): e is Ex & { k: "lit" } => e.k === "lit");
    const rest: Ex[] = exs.filter((e) => e.k !== "lit");
    const op = side === "lower" ? "max" : "min";
    if (consts.length > 0) rest.push(ilit((side === "lower" ? Math.max : Math.min)(...consts.map((c) => c.value))));
    return joinEx(op, rest, "idx");
  }

  private floorDiv(a: Aff, d: number, nonneg: boolean): Ex {
    return { k: "bin", op: "//", l: this.affEx(a), r: ilit(d), dtype: "idx", nonneg };
  }

  private impliedNonneg(a: Aff, ctx: LoopContext): boolean {
    // A cheap proof first (a context row or the intervals imply it), else the exact emptiness test.
    if (inContext({ aff: a, eq: false }, ctx)) return true;
    try {
      // Through the made set around the loops where their components allow (LoopContext.emptyWith).
      return ctx.emptyWith(affSub(aff({}, -1), a));
    } catch {
      return false;
    }
  }

  private affEx(a: Aff): Ex {
    return affExWith(a, this.h.subst);
  }
}

/**
 * `denom·(x - shift) - aff >= 0` of a lower bound `x >= ceil(aff/denom)` shifted by `shift`, as
 * `affSub(affScale(affAdd(aff({x: 1}), aff({}, -shift)), denom), aff)` makes it (terms in that
 * order), without the three forms between.
 */
function lowerRow(x: string, b: Bound, shift: number): Aff {
  const t: Record<string, number> = { [x]: b.denom };
  const bt = b.aff.terms;
  for (const n in bt) t[n] = add(t[n] ?? 0, -bt[n]!);
  return aff(t, add(mul(add(0, -shift), b.denom), -b.aff.constant));
}

/** `aff - denom·(x + shift) >= 0` of an upper bound `x <= floor(aff/denom)`, as `affSub(b.aff, affScale(affAdd(aff({x: 1}), aff({}, shift)), denom))` makes it. */
function upperRow(x: string, b: Bound, shift: number): Aff {
  const t: Record<string, number> = {};
  const bt = b.aff.terms;
  for (const n in bt) t[n] = bt[n]!;
  t[x] = add(t[x] ?? 0, -b.denom);
  return aff(t, add(b.aff.constant, -mul(add(0, shift), b.denom)));
}

/**
 * Loop bounds across device kernels and sweep variants (issue 21), remembered by the identity of
 * interned sets: the iname's factor of a domain (`factorOf` interns it, so the variants of a sweep
 * with the same tile size of that iname share the object), its projection onto the loop's inames,
 * that projection gisted against the context's factor of its inames (interned too), and the key
 * of a range. Sets are immutable values, so an answer found by identity is the answer; the
 * interned objects are new after `clearPolyMemos` (a new generation), so nothing outlives it.
 */
const projections = new WeakMap<BasicSet, Map<string, BasicSet>>();
const gisted = new WeakMap<BasicSet, WeakMap<BasicSet, Map<string, BasicSet>>>();
const rangeKeys = new WeakMap<BasicSet, Map<string, string>>();

/** `f` (an iname's factor) with its dims outside `inner` and its existentials eliminated, interned. */
function projectedFactor(f: BasicSet, inner: readonly string[]): BasicSet {
  let drop = "";
  for (const n of f.dims) if (!inner.includes(n)) drop += `${n},`;
  if (drop === "" && f.exists.length === 0) return internSet(f);
  let byDrop = projections.get(f);
  if (byDrop === undefined) projections.set(f, (byDrop = new Map()));
  let p = byDrop.get(drop);
  if (p === undefined) byDrop.set(drop, (p = internSet(eliminateExact(f, [...f.dims.filter((n) => !inner.includes(n)), ...f.exists]).set)));
  return p;
}

/** The rows of `g` over `iname` as one key, sorted: two ranges with equal keys are one range. */
function rangeKey(g: BasicSet, iname: string): string {
  let byIname = rangeKeys.get(g);
  if (byIname === undefined) rangeKeys.set(g, (byIname = new Map()));
  let key = byIname.get(iname);
  if (key === undefined) byIname.set(iname, (key = rowsOf(g).rows.filter((r) => r.aff.terms[iname]).map(rowKey).sort().join("&")));
  return key;
}

/** `s` intersected with the context's constraints (same names aligned). */
function intersectCtx(s: BasicSet, ctx: BasicSet): BasicSet {
  return intersect(s, ctx);
}

/**
 * `keyed` without the ranges another one contains (within `ctx`): the hull of intervals is
 * unchanged by dropping one inside another (its lower bound is not below, its upper not above,
 * wherever it is not empty; where it is empty its instruction does not run, and guards itself).
 */
function dropContained(keyed: ReadonlyMap<string, BasicSet>, ctx: BasicSet): Map<string, BasicSet> {
  const entries = [...keyed];
  const inCtx = entries.map(([, g]) => intersect(g, factorOf(ctx, g.dims)));
  const sub = (a: number, b: number): boolean => {
    try {
      return isSubset(inCtx[a]!, inCtx[b]!);
    } catch (e) {
      if (e instanceof LoomError) return false; // undecidable here (existentials): keep both
      throw e;
    }
  };
  const out = new Map<string, BasicSet>();
  entries.forEach(([key, g], a) => {
    // Of two equal ranges, the first stays.
    const inside = entries.some((_, b) => b !== a && sub(a, b) && (b < a || !sub(b, a)));
    if (!inside) out.set(key, g);
  });
  return out;
}
