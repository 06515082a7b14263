/**
 * Lowering one OKL @kernel, its loops: @outer/@inner/@tile nests to inames and hardware axes,
 * regular loops to sequential inames, trip-count inames for steps other than 1, work-item ranges.
 */
import { c, exprType, type Dtype, type Expr } from "../../ir/index.js";
import { aff, affAdd, affScale, type Aff } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import { constRange, isolateIterator, levelsBelow, someAst } from "./ast-queries.js";
import { constValue, Scope, type Ctx } from "./bindings.js";
import { checkHeaderNotWritten, loopHead, tileAxes, unrollValues, type LoopHead } from "./loop-head.js";
import { affineBound, affToIr, cmpRows } from "./loop-rows.js";
import { geometricBound, geometricUpdate, geometricValue, writesIterator } from "./geometric.js";
import { hostForm, nonUniform } from "./uniform.js";
import { directionAgrees, iterateValue, tripCount } from "./trip.js";
import type { EntryHead } from "./entry-bounds.js";
import { LaunchLowering } from "./kernel-launch.js";
import { lowerShuffle } from "./warp-shuffles.js";

/** The comparison of a host-counted loop as derived-args.ts names it. */
const CMP_NAMES: Readonly<Record<string, string>> = { "<": "lt", "<=": "le", ">": "gt", ">=": "ge" };

export abstract class LoopLowering extends LaunchLowering {
  /** @inner inames over 0 … L-1 (L constant, no guards), with L: where warp shuffles are lowered. */
  protected readonly innerExtents = new Map<string, number>();
  /** The two @shared copies shuffles of one type and extent alternate between (warp-shuffles.ts). */
  private readonly shuffleCopies = new Map<string, { names: string[]; next: number }>();

  /** CUDA's warp shuffles in @inner loops, through a @shared copy (warp-shuffles.ts). */
  protected readonly shuffles = (this.ex.shuffle = (name: string, e: A.Call, ctx: Ctx): Expr => lowerShuffle({
    expr: (x, c2) => this.ex.expr(x, c2),
    dtypeOf: (x) => exprType(x, { varType: (n) => this.tempNamed(n)?.dtype ?? this.argNamed(n)?.dtype })?.dtype,
    lane: (c2) => this.shuffleLanes(c2),
    sharedCopy: (dtype, extent) => {
      const key = `${dtype} ${extent}`;
      const pair = this.shuffleCopies.get(key) ?? { names: [] as string[], next: 0 };
      this.shuffleCopies.set(key, pair);
      const k = pair.next++ % 2;
      if (pair.names[k] === undefined) {
        pair.names[k] = this.fresh(`shfl_copy_${dtype}`);
        this.temps.push({ name: pair.names[k], dtype, shape: [c(extent)], addressSpace: "local", order: "C", dimTags: undefined });
      }
      return pair.names[k];
    },
    result: (value, dtype, c2, pos) => {
      const n = this.fresh(`${name.replace(/^_+/, "")}_value`);
      this.temps.push({ name: n, dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      this.emit({ kind: "var", name: n }, value, c2, false, pos);
      return { kind: "var", name: n };
    },
    store: (array, index, value, c2, pos) => this.emit({ kind: "subscript", array, indices: [index] }, value, c2, false, pos),
    laneFacts: (c2) => ({
      ...this.uniformFacts(c2), within: c2.within, preds: c2.preds, dtypeOf: (n) => this.tempNamed(n)?.dtype ?? this.argNamed(n)?.dtype,
      laneAxis: (i) => (this.tags[i]?.kind === "l" && this.innerExtents.has(i) ? { axis: (this.tags[i] as { axis: number }).axis, extent: this.innerExtents.get(i)! } : undefined),
      sequential: (i) => this.tags[i]?.kind !== "l" && this.tags[i]?.kind !== "g", uniform: (x) => nonUniform(x, this.uniformFacts(c2), c2.within, c2.preds) === undefined,
    }),
    fail: (d, p) => this.fail(d, p),
  }, name, e, ctx));

  /**
   * The work-items of the @inner loops around a shuffle as CUDA numbers its lanes: the linear thread
   * index `x + Dx*(y + Dy*z)` (@inner(0) is x), over every axis of the nest's work-group, each loop
   * over `0 … D-1` with D constant (the axis's whole extent); or why there is none.
   */
  private shuffleLanes(ctx: Ctx): { readonly index: Expr; readonly extent: number; readonly axes: number } | string {
    const items = ctx.within.filter((i) => this.tags[i]?.kind === "l");
    if (!ctx.inner || items.length === 0 || items.some((i) => !this.innerExtents.has(i))) {
      return "a shuffle must be called in @inner loops `for (int t = 0; t < L; ++t; @inner)` with L a compile-time constant (their work-items are the lanes), the same range as the other @inner loops of their axis in the nest";
    }
    // A loop around the @inner loops runs its trips on every work-item of the group together (its
    // barriers, the copies' too); one inside them could run a different number of trips per lane.
    const first = ctx.within.indexOf(items[0]!);
    if (ctx.within.some((i, at) => at > first && this.tags[i]?.kind !== "l" && this.tags[i]?.kind !== "g")) {
      return "a shuffle inside a loop within the @inner loops is not supported: all lanes must reach it together (unroll the loop, or put it around the @inner loops)";
    }
    const byAxis = new Map(items.map((i) => [(this.tags[i] as { axis: number }).axis, i]));
    const missing = [...this.nestAxes].find((a) => !byAxis.has(a));
    if (missing !== undefined) return `the work-group also runs @inner axis ${missing}, which no loop around the call has: CUDA numbers lanes over every axis of the group (call it inside an @inner(${missing}) loop too)`;
    let index: Expr | undefined;
    let extent = 1;
    for (const a of [...byAxis.keys()].sort((x, y) => x - y)) {
      const v: Expr = { kind: "var", name: byAxis.get(a)! };
      const term: Expr = extent === 1 ? v : { kind: "arith", op: "*", left: c(extent), right: v };
      index = index === undefined ? term : { kind: "arith", op: "+", left: index, right: term };
      extent *= this.innerExtents.get(byAxis.get(a)!)!;
    }
    return { index: index!, extent, axes: byAxis.size };
  }

  // ---- loops ----------------------------------------------------------------------------------

  /**
   * Whether a plain loop with constant bounds is unrolled at import rather than lowered to an
   * iname: where its body holds attributed loops, barriers or @shared memory (each iteration
   * launches or synchronizes them), subscripts an array of pointer aliases (its slots need
   * compile-time subscripts), or reads a file-scope constant table (the value itself at each
   * constant subscript, not a select).
   */
  private mustUnroll(s: A.For, ctx: Ctx): boolean {
    return someAst(s.body, (n) => {
      if (n.kind === "for") return n.okl !== undefined;
      if (n.kind === "barrier") return true;
      if (n.kind === "declaration") return n.declarators.some((d) => d.okl.shared || (d.pointers.length > 0 && d.arrayDims.length > 0));
      if (n.kind !== "ident") return false;
      const k = ctx.scope.get(n.name)?.kind;
      return k === "pointers" || k === "table";
    });
  }

  protected forLoop(s0: A.For, ctx: Ctx): void {
    const s = isolateIterator(s0);
    let h = loopHead(s, ctx, this.ex);
    if (s.okl === undefined && h.constant && (h.step === undefined || this.mustUnroll(s, ctx))) {
      const values = unrollValues(h, s.pos, this.failAt);
      for (const v of values) {
        const scope = new Scope(ctx.scope);
        scope.set(h.name, { kind: "expr", expr: c(v) });
        this.stmt(s.body, { ...ctx, scope, seqLoop: true });
      }
      return;
    }
    // A plain loop with another update (`s *= 2`) and bounds known only at run time: an ordinary C loop,
    // unless its body holds barriers or @inner loops (geometric.ts).
    if (s.okl === undefined && h.step === undefined && h.update === undefined) {
      return this.holdsSyncs(s, ctx) ? this.geometricLoop(s, h, ctx) : this.opaque(s0, ctx);
    }
    // A bound the body changes is re-read every trip: an ordinary C loop where it can be one.
    const entryRead = s.okl === undefined || s.okl.kind === "inner" || s.okl.kind === "tile";
    const written = entryRead ? this.boundWrittenInBody(s, h, ctx) : undefined;
    if (written) return s.okl === undefined && !this.holdsSyncs(s, ctx) ? this.opaque(s0, ctx) : this.boundWritten(h, written.name, written.at.pos);
    if (this.needsTrip(h)) {
      const hosted = this.hostBounds(h);
      if (!hosted) return this.tripLoop(s, h, ctx);
      h = hosted;
    }
    // A plain, @inner or @tile loop reads its bounds' private scalars at entry (entry-bounds.ts).
    let entry: EntryHead | undefined;
    this.checkTileLaunch(s, h);
    if (entryRead) ({ head: h } = entry = this.entryBounds(s, h, ctx));
    if (h.step === undefined) this.fail(`loop "${h.name}": the update must be ++, --, += c or -= c with a constant c (use a constant step, or bounds known at compile time)`, s.update?.pos ?? s.pos);
    const before = this.log.insns.length;
    const okl = s.okl;
    const scope = new Scope(ctx.scope);
    let inner: Ctx;
    const guards: Expr[] = [];
    if (okl?.kind === "tile") {
      const size = constValue(okl.size, ctx.scope);
      if (size === undefined || size < 1) this.fail("@tile: the tile size must be a positive compile-time integer", okl.size.pos);
      const to = this.fresh(`${h.name}_tile`);
      const ti = this.fresh(`${h.name}_in_tile`);
      // Documented semantics: block loop over start + K*to, in-tile start + K*to + d*ti, 0 <= d*ti < K.
      const sgn = h.step > 0 ? 1 : -1;
      const d = Math.abs(h.step);
      const start = h.startAff ?? this.fail(`@tile: the start of loop "${h.name}" must be affine`, s.pos);
      const block = affAdd(start, aff({ [to]: sgn * size }));
      const value = affAdd(block, aff({ [ti]: sgn * d }));
      // Work-items over runtime-sized blocks around a sequential in-tile loop: the check is a guard,
      // so that the blocks' range (the work-group size) does not depend on the in-tile iname.
      const checkGuard = okl.check && okl.outer?.kind === "inner" && okl.inner?.kind !== "inner" && this.launchSized(h);
      if (checkGuard) guards.push({ kind: "compare", op: h.cmp, left: affToIr(value), right: h.end });
      const rows = [
        { aff: aff({ [to]: 1 }), eq: false }, { aff: aff({ [ti]: 1 }), eq: false }, { aff: aff({ [ti]: -d }, size - 1), eq: false },
        ...cmpRows(block, h.cmp, h.end, s.pos, this.failAt),
        ...(okl.check && !checkGuard ? cmpRows(value, h.cmp, h.end, s.pos, this.failAt) : []),
      ];
      this.addDomain([to, ti], rows);
      if (entry !== undefined && entry.copies.length > 0) for (const n of [to, ti]) this.boundTemps.set(n, entry.copies);
      const axes = tileAxes(s, okl);
      // Both levels @inner on one axis (`@tile(4, @inner(1), @inner(1))`): the in-tile level takes it.
      const sameAxis = okl.outer?.kind === "inner" && okl.inner?.kind === "inner" && axes[0] === axes[1];
      if (okl.outer && (okl.outer.kind === "outer" || this.workItems(h, !sameAxis))) this.tags[to] = { kind: okl.outer.kind === "outer" ? "g" : "l", axis: axes[0]! };
      if (okl.inner) this.tags[ti] = { kind: okl.inner.kind === "outer" ? "g" : "l", axis: axes[1]! };
      scope.set(h.name, { kind: "expr", expr: affToIr(value) });
      const anyInner = okl.outer?.kind === "inner" || okl.inner?.kind === "inner";
      inner = { ...ctx, scope, within: [...ctx.within, to, ti], preds: [...ctx.preds, ...guards], outer: true, inner: ctx.inner || anyInner, seqLoop: ctx.seqLoop || (!okl.outer && !okl.inner) };
    } else {
      const iname = this.fresh(h.name);
      let value: Aff;
      let rows: { aff: Aff; eq: boolean }[];
      const own = okl?.kind === "inner" ? constRange(s, ctx.scope) : undefined;
      const hull = own && okl?.kind === "inner" ? this.hulls.get(okl.axis ?? levelsBelow(s.body, "inner")) : undefined;
      if (own && hull) {
        // Sibling @inner loops on one axis with different constant ranges: one launch extent (the
        // hull), each loop's work-items guarded by its own range (OCCA runs the extra ones idle too).
        value = aff({ [iname]: 1 });
        rows = [{ aff: aff({ [iname]: 1 }, -hull[0]), eq: false }, { aff: aff({ [iname]: -1 }, hull[1]), eq: false }];
        const v: Expr = { kind: "var", name: iname };
        if (own[0] > hull[0]) guards.push({ kind: "compare", op: ">=", left: v, right: c(own[0]) });
        if (own[1] < hull[1]) guards.push({ kind: "compare", op: "<=", left: v, right: c(own[1]) });
      } else if (h.step === 1 && h.startAff !== undefined && !(okl?.kind === "inner" && (this.launchSized(h) || this.offsetInner(h)))) {
        value = aff({ [iname]: 1 });
        rows = [{ aff: affAdd(value, affScale(h.startAff, -1)), eq: false }, ...cmpRows(value, h.cmp, h.end, s.pos, this.failAt)];
      } else {
        const start = h.startAff ?? this.fail(`loop "${h.name}": the start must be affine in the arguments and enclosing loop variables`, s.pos);
        value = affAdd(start, aff({ [iname]: h.step }));
        rows = [{ aff: aff({ [iname]: 1 }), eq: false }, ...cmpRows(value, h.cmp, h.end, s.pos, this.failAt)];
      }
      this.addDomain([iname], rows);
      // An @inner loop over 0 … L-1, L constant, unguarded: its work-items can shuffle (warp-shuffles.ts).
      if (own && own[0] === 0 && guards.length === 0 && value.constant === 0 && Object.keys(value.terms).length === 1 && value.terms[iname] === 1) this.innerExtents.set(iname, own[1] + 1);
      if (entry !== undefined && entry.copies.length > 0) this.boundTemps.set(iname, entry.copies);
      if (okl && (okl.kind === "outer" || this.workItems(h))) {
        this.tags[iname] = { kind: okl.kind === "outer" ? "g" : "l", axis: okl.axis ?? levelsBelow(s.body, okl.kind) };
        // A runtime-sized @inner loop counts from 0 (OCCA's `i = init + ID`): siblings share the base and
        // the scheduler sizes the axis to the largest of them, guarding each by its own range.
        if (okl.kind === "inner" && !this.launchSized(h)) this.checkInnerRange(iname, rows, s.pos);
      }
      scope.set(h.name, { kind: "expr", expr: affToIr(value) });
      inner = {
        ...ctx, scope, within: [...ctx.within, iname], preds: [...ctx.preds, ...guards], outer: ctx.outer || okl?.kind === "outer",
        inner: ctx.inner || okl?.kind === "inner", seqLoop: ctx.seqLoop || (okl === undefined && ctx.outer),
      };
    }
    if (okl && okl.kind !== "tile" && okl.kind === "inner" && !ctx.outer) this.fail("Cannot have [@inner] loop outside of an [@outer] loop", s.pos, "OKL §3.4");
    this.stmt(s.body, inner);
    entry?.checkBody(before);
  }

  /**
   * A plain loop updated by a constant shift, product or quotient (`size <<= 1`, `stride >>= 1`,
   * `s /= 2`) whose body holds barriers or @inner loops: a counter iname `t` with the iterator
   * `S << k*t`, `S >> k*t`, `S * k^t` or `S / k^t`, its
   * trip count computed by the host or bounded by the type's width with the condition as a
   * predicate (geometric.ts has the proof and what is refused).
   */
  private geometricLoop(s: A.For, h: LoopHead, ctx: Ctx): void {
    const u = geometricUpdate(h) ?? this.fail(`loop "${h.name}": a plain loop holding barriers or @inner loops runs on all work-items together, so its update must be ++, --, += c, -= c, or a shift, product or quotient by a constant (<<= k, >>= k, *= k, /= k)`, s.update?.pos ?? s.pos);
    const w = writesIterator(s, h.name);
    if (w) this.fail(`loop "${h.name}": its body assigns "${h.name}"; a loop holding barriers or @inner loops counts its trips before it runs, so the body must not change its iterator`, w);
    checkHeaderNotWritten(s, h, ctx, this.failAt);
    const facts = this.uniformFacts(ctx);
    const bound = geometricBound(h, u, ctx, this.failAt, (e) => nonUniform(e, facts, ctx.within), (e) => hostForm(e, facts, (x) => this.valueArgsOnly(x)));
    const t = this.fresh(h.name);
    const rows = [{ aff: aff({ [t]: 1 }), eq: false }, { aff: aff({ [t]: -1 }, bound.count - 1), eq: false }];
    if (bound.trip) {
      const n = (this.derivedValue(bound.trip, `${h.name}_trip`, `the trip count of loop "${h.name}" (line ${s.pos.line})`, "int32") as { name: string }).name;
      rows.push({ aff: aff({ [t]: -1, [n]: 1 }, -1), eq: false });
    }
    this.addDomain([t], rows);
    const value = geometricValue(h, u, t);
    const scope = new Scope(ctx.scope);
    scope.set(h.name, { kind: "expr", expr: value });
    const preds = bound.trip ? ctx.preds : [...ctx.preds, { kind: "compare", op: h.cmp, left: value, right: h.end } as Expr];
    this.stmt(s.body, { ...ctx, scope, within: [...ctx.within, t], preds, seqLoop: true });
  }

  /** The loop's start, bound or step is not affine (reads memory, divides a parameter): it iterates a trip count. */
  protected needsTrip(h: LoopHead): boolean {
    if (h.step === undefined) return h.update?.amount !== undefined && constValue(h.update.amount, h.ctx.scope) === undefined;
    return h.startAff === undefined || !affineBound(h.end, h.cmp);
  }

  /**
   * A loop whose start, bound or step is not affine (`k < cnt[j]`, `i += n/16 + 1`): C's trip
   * count (`tripCount`) goes into an int32 temporary before the loop, an iname `t` runs over
   * `0 <= t < trip` (a domain with the temporary as parameter), and `i = start ± step*t`; a start or
   * step that reads memory is kept in a temporary of the iterator's type. `@tile` keeps its
   * documented span semantics: blocks `start ± K*t` (affine rows when start and bound are), in-tile
   * `block ± step*u` over `0 <= u < K` guarded by `step*u < K`. Loop levels whose trip count is
   * computed on the device cannot be grid or work-group extents: such @outer and @inner levels run
   * sequentially (refused in nests with @shared memory or barriers), except @outer levels there
   * whose start, bound and step read only value arguments: the host computes them (hostBounds for a
   * constant step, a trip-count value argument here for a step read from an argument), as OCCA's
   * host computes launch sizes. Bounds affine in the arguments never come here: they size the launch.
   */
  protected tripLoop(s: A.For, h: LoopHead, ctx0: Ctx): void {
    const okl = s.okl;
    const upd = h.update ?? this.fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, s.update?.pos ?? s.pos, "OKL §3.1");
    if (!directionAgrees(upd.increasing, h.cmp)) {
      this.fail(`loop "${h.name}": the update ${upd.increasing ? "increases" : "decreases"} "${h.name}" but the condition is "${h.name} ${h.cmp} …": the loop runs zero times or never ends; with bounds that are not affine it is not supported`, s.pos);
    }
    if (okl?.kind === "inner" && !ctx0.outer) this.fail("Cannot have [@inner] loop outside of an [@outer] loop", s.pos, "OKL §3.4");
    checkHeaderNotWritten(s, h, ctx0, this.failAt);
    // The trip count is computed on the device, also before an @outer nest (every work-item computes it).
    const ctx: Ctx = { ...ctx0, outer: true };
    for (const [what, e] of [["bound", h.end], ["start", h.start]] as const) {
      if (this.floatTyped(e)) this.fail(`loop "${h.name}": its ${what} has a floating-point type; only integer bounds that are not affine are supported`, s.pos);
    }
    const amountConst = upd.amount === undefined ? 1 : constValue(upd.amount, ctx.scope);
    if (amountConst !== undefined && amountConst <= 0) this.fail(`loop "${h.name}": the step must be positive (the loop would not terminate)`, s.update?.pos ?? s.pos);
    // Start and step are kept signed (the iterator's value where the loop runs); the trip count compares in the iterator's type.
    const held: Dtype = h.dtype.endsWith("64") ? "int64" : "int32";
    // A host-sized @outer level with a step read from the arguments: its trip count is a value
    // argument the host computes (a constant step never comes here: hostBounds).
    const hostSized = this.hostSized(h);
    const step = amountConst !== undefined ? c(amountConst) : hostSized ? this.ex.expr(upd.amount!, ctx) : this.capture(this.ex.expr(upd.amount!, ctx), `${h.name}_step`, held, ctx, s.pos);
    const wide = (e: Expr): Expr => (h.dtype === "int32" ? e : { kind: "cast", dtype: h.dtype, value: e });
    const trip = (start: Expr, stride: Expr, base: string): string => {
      const name = this.fresh(base);
      this.temps.push({ name, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      const count = tripCount(wide(start), wide(h.end), stride, h.cmp);
      this.emit({ kind: "var", name }, h.dtype === "int32" ? count : { kind: "cast", dtype: "int32", value: count }, ctx, false, s.pos);
      return name;
    };
    const below = (t: string, n: string) => [{ aff: aff({ [t]: 1 }), eq: false }, { aff: aff({ [t]: -1, [n]: 1 }, -1), eq: false }];
    const scope = new Scope(ctx0.scope);
    const sequential = () => {
      if (this.nestSyncs && okl) {
        this.fail(`loop "${h.name}": its trip count is computed on the device (its bounds or step are not affine in the kernel's arguments), so this ` +
          `${okl.kind === "tile" ? "@tile block" : `@${okl.kind}`} loop cannot size the launch and runs sequentially, which is not supported in a nest with @shared memory or barriers ` +
          `(bounds affine in the arguments, like \`j < n\`, or constant are)`, s.pos);
      }
    };
    // The host runs C's loop in the iterator's type (derived-args.ts loopTrip): a step <= 0 or an
    // iterator passing its type's range after the last trip is an ExecutionError there, as C's loop
    // never ends or overflows, where tripCount's formula would give a count C's loop does not have.
    const derived = (start: Expr, stride: Expr, base: string): string => {
      const up = h.cmp === "<" || h.cmp === "<=";
      const fn = `okl_trip_${h.dtype}_${up ? "add" : "sub"}_${CMP_NAMES[h.cmp]}`;
      const call: Expr = { kind: "call", fn, args: [start, h.end, stride, c(2 ** 31 - 1)] };
      return (this.derivedValue(call, base, `the trip count of @outer loop "${h.name}" (line ${s.pos.line})`, "int32") as { name: string }).name;
    };
    if (okl?.kind !== "tile") {
      if (okl && !hostSized) sequential();
      const start = hostSized ? h.start : this.capture(h.start, `${h.name}_start`, held, ctx, s.pos);
      const n = hostSized ? derived(start, step, `${h.name}_trip`) : trip(start, step, `${h.name}_trip`);
      const t = this.fresh(h.name);
      this.addDomain([t], below(t, n));
      if (hostSized) this.tags[t] = { kind: "g", axis: okl!.axis ?? levelsBelow(s.body, "outer") };
      else this.boundTemps.set(t, [n]);
      scope.set(h.name, { kind: "expr", expr: iterateValue(start, step, t, upd.increasing) });
      this.stmt(s.body, {
        ...ctx0, scope, within: [...ctx0.within, t], outer: ctx0.outer || okl?.kind === "outer",
        inner: ctx0.inner || okl?.kind === "inner", seqLoop: ctx0.seqLoop || (okl === undefined && ctx0.outer),
      });
      return;
    }
    const size = constValue(okl.size, ctx.scope);
    if (size === undefined || size < 1) this.fail("@tile: the tile size must be a positive compile-time integer", okl.size.pos);
    const to = this.fresh(`${h.name}_tile`);
    const ti = this.fresh(`${h.name}_in_tile`);
    const rows: { aff: Aff; eq: boolean }[] = [];
    const guards: Expr[] = [];
    const bound: string[] = [];
    const affineBlock = h.startAff !== undefined && affineBound(h.end, h.cmp);
    let block: Expr;
    if (affineBlock) {
      const b = affAdd(h.startAff, aff({ [to]: (upd.increasing ? 1 : -1) * size }));
      rows.push({ aff: aff({ [to]: 1 }), eq: false }, ...cmpRows(b, h.cmp, h.end, s.pos, this.failAt));
      block = affToIr(b);
    } else {
      if (okl.outer && !hostSized) sequential();
      const start = hostSized ? h.start : this.capture(h.start, `${h.name}_start`, held, ctx, s.pos);
      const n = hostSized ? derived(start, c(size), `${h.name}_tiles`) : trip(start, c(size), `${h.name}_tiles`);
      rows.push(...below(to, n));
      if (!hostSized) bound.push(n);
      block = iterateValue(start, c(size), to, upd.increasing);
    }
    rows.push({ aff: aff({ [ti]: 1 }), eq: false });
    if (amountConst !== undefined) rows.push({ aff: aff({ [ti]: -amountConst }, size - 1), eq: false });
    else {
      // step >= 1, so the in-tile iterations are among 0 <= u < K.
      rows.push({ aff: aff({ [ti]: -1 }, size - 1), eq: false });
      guards.push({ kind: "compare", op: "<", left: { kind: "arith", op: "*", left: step, right: { kind: "var", name: ti } }, right: c(size) });
    }
    const value = iterateValue(block, step, ti, upd.increasing);
    if (okl.check) guards.push({ kind: "compare", op: h.cmp, left: wide(value), right: wide(h.end) });
    this.addDomain([to, ti], rows);
    for (const i of [to, ti]) this.boundTemps.set(i, bound);
    const axes = tileAxes(s, okl);
    if (okl.outer && (affineBlock || hostSized) && (okl.outer.kind === "outer" || this.workItems(h))) this.tags[to] = { kind: okl.outer.kind === "outer" ? "g" : "l", axis: axes[0]! };
    if (okl.inner) this.tags[ti] = { kind: okl.inner.kind === "outer" ? "g" : "l", axis: axes[1]! };
    scope.set(h.name, { kind: "expr", expr: value });
    const anyInner = okl.outer?.kind === "inner" || okl.inner?.kind === "inner";
    this.stmt(s.body, {
      ...ctx0, scope, within: [...ctx0.within, to, ti], preds: [...ctx0.preds, ...guards], outer: true,
      inner: ctx0.inner || anyInner, seqLoop: ctx0.seqLoop || (!okl.outer && !okl.inner),
    });
  }
}
