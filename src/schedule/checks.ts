/**
 * Checks of iname tags before scheduling (loopy's check.py, the parts about tags): hardware axes
 * used once per instruction, work-group sizes constant or bounded by the parameters, constant unroll trip counts, ilp and
 * vec innermost. Also the constant range of an iname, which the reduction and ilp passes share.
 */
import { ScheduleError } from "../errors.js";
import {
  affToExpr, allInames, formatInameTag, freeVariables, v, arith,
  type Expr, type InameTag, type Instruction, type Kernel,
} from "../ir/index.js";
import { affIsConstant, affSub, dimBounds, factorOf, intersect, setContentId, type Aff, type BasicSet } from "../poly/index.js";
import { hwAxis } from "./device.js";
import { inamesOf } from "./insn-inames.js";
import { rowBounds } from "./row-bounds.js";
import type { HwAxis } from "./types.js";

/** A range of constant size: the iname lies in `lower … lower + size - 1` (`lower` may use parameters and parent inames). */
export interface ConstRange {
  readonly lower: Aff;
  readonly size: number;
}

const rangeMemo = new WeakMap<BasicSet, Map<string, ConstRange | null>>();

/**
 * The tightest `lower … lower + size - 1` with constant `size` that holds `iname` in its domain,
 * or undefined when no bound pair has a constant distance (even under the kernel's assumptions).
 * For `{[i]: 16*b <= i < 16*b + 16}` it is `{lower: 16*b, size: 16}`.
 */
export function constRange(k: Kernel, iname: string): ConstRange | undefined {
  // Asked of one kernel many times (tag checks, reductions, ilp, barriers): remembered per frozen
  // domain list and assumptions, the two it depends on.
  const ds = k.domains;
  if (lastRanges.domains !== ds || lastRanges.assumptions !== k.assumptions) {
    if (!Object.isFrozen(ds) || !allFrozen(ds) || !Object.isFrozen(k.assumptions)) return constRangeOfDomain(k, iname);
    lastRanges = { domains: ds, assumptions: k.assumptions, ranges: new Map() };
  }
  let r = lastRanges.ranges.get(iname);
  if (r === undefined) lastRanges.ranges.set(iname, (r = constRangeOfDomain(k, iname) ?? null));
  return r ?? undefined;
}

/**
 * Whether every entry of `xs` is frozen. Indexed loops here and below: the kernel's arrays are
 * frozen, and a for-of, every() or find() over a frozen array takes V8's slow generic path.
 */
function allFrozen(xs: readonly object[]): boolean {
  for (let x = 0; x < xs.length; x++) if (!Object.isFrozen(xs[x])) return false;
  return true;
}

/** The domain that names `iname` (the first), or undefined. */
function domainOf(k: Kernel, iname: string): BasicSet | undefined {
  const ds = k.domains;
  for (let x = 0; x < ds.length; x++) {
    // (includes() over a frozen array takes V8's slow path.)
    const dims = ds[x]!.dims;
    for (let y = 0; y < dims.length; y++) if (dims[y] === iname) return ds[x];
  }
  return undefined;
}

/** The answers for the domain list and assumptions last asked about (one kernel's passes ask in turn; one entry, no WeakMap). */
let lastRanges: {
  readonly domains: readonly BasicSet[] | undefined;
  readonly assumptions: BasicSet | undefined;
  readonly ranges: Map<string, ConstRange | null>;
} = { domains: undefined, assumptions: undefined, ranges: new Map() };

function constRangeOfDomain(k: Kernel, iname: string): ConstRange | undefined {
  const d = domainOf(k, iname);
  if (!d) throw new ScheduleError(`unknown iname "${iname}" in kernel "${k.name}"`);
  let memo = rangeMemo.get(d);
  if (!memo) rangeMemo.set(d, (memo = new Map()));
  // Kernels share domain objects and differ in assumptions (`assume`, makeKernel's parsed
  // domains): the answer under one kernel's assumptions is not another's.
  const key = k.assumptions.constraints.length > 0 ? `${iname}|${setContentId(k.assumptions)}` : iname;
  let r = memo.get(key);
  if (r === undefined) {
    // The iname's own factor of the domain (the other inames it shares no constraint with
    // cannot bound it, as for hardware axes): `(i_outer, i_inner)` of a tiled domain, a problem
    // that repeats across a sweep whenever the i tile size does, where the whole domain is new.
    const own = (s: BasicSet) => rangeIn(factorOf(s, iname), iname);
    r = own(d) ?? (k.assumptions.constraints.length > 0 ? own(intersect(d, k.assumptions)) : undefined) ?? null;
    memo.set(key, r);
  }
  return r ?? undefined;
}

/**
 * Whether the domain of `iname` bounds it on both sides by rows over it alone (`0 <= i_inner`,
 * `i_inner <= 15`: a split's inner iname, a fetch's dim). Then `constRange` has an answer, with no
 * projection asked: those rows are rows of every projection of the domain onto `iname` (or a
 * tighter constant row is; an empty domain has the range 0..-1), so a constant-distance pair is
 * among its bounds. False where the rows do not say so (`constRange` then decides).
 */
export function hasConstantRows(k: Kernel, iname: string): boolean {
  const d = domainOf(k, iname);
  const r = d ? rowBounds(d, iname) : undefined;
  return r !== undefined && Number.isFinite(r[0]) && Number.isFinite(r[1]);
}

/** `constRange` from the whole domain, every other iname projected out: the route the factor's answer is checked against (tests). */
export function constRangeOfWholeDomain(k: Kernel, iname: string): ConstRange | undefined {
  const d = k.domains.find((s) => s.dims.includes(iname));
  if (!d) throw new ScheduleError(`unknown iname "${iname}" in kernel "${k.name}"`);
  return rangeIn(d, iname) ?? (k.assumptions.constraints.length > 0 ? rangeIn(intersect(d, k.assumptions), iname) : undefined);
}

function rangeIn(d: BasicSet, iname: string): ConstRange | undefined {
  const b = dimBounds(d, iname, []);
  let best: ConstRange | undefined;
  for (const lo of b.lower) {
    if (lo.denom !== 1) continue;
    for (const hi of b.upper) {
      if (hi.denom !== 1) continue;
      const diff = affSub(hi.aff, lo.aff);
      if (!affIsConstant(diff)) continue;
      const size = Math.max(0, diff.constant + 1);
      if (!best || size < best.size) best = { lower: lo.aff, size };
    }
  }
  return best;
}

/** `iname - lower`, simplified when the lower bound is 0. */
export function offsetFrom(iname: string, lower: Aff): Expr {
  const isZero = Object.keys(lower.terms).length === 0 && lower.constant === 0;
  return isZero ? v(iname) : arith("-", v(iname), affToExpr(lower));
}

/**
 * The inames that the bounds of `l`-tagged `iname` use, once the other local inames of its domain
 * are projected out (a tile's `j_tile` and `j_in_tile` share a work-group; guards keep the exact
 * domain): empty where its extent is an affine expression of the kernel's parameters, which the
 * launch evaluates (`0 <= j < n`: work-groups of `n` work-items).
 */
function nonParametricBounds(k: Kernel, iname: string): string[] {
  const d = k.domains.find((s) => s.dims.includes(iname));
  if (!d) throw new ScheduleError(`unknown iname "${iname}" in kernel "${k.name}"`);
  const local = (x: string) => k.inameTags[x]?.kind === "l" || k.inameTags[x]?.kind === "l.auto";
  const b = dimBounds(d, iname, d.dims.filter((x) => x !== iname && !local(x)));
  const inames = new Set(allInames(k));
  const out = new Set<string>();
  for (const x of [...b.lower, ...b.upper]) for (const n of Object.keys(x.aff.terms)) if (inames.has(n)) out.add(n);
  return [...out].sort();
}

/**
 * The constant range of the hardware axis an `l`-tagged iname spans, or a ScheduleError naming
 * `insnId` and what needs the constant (`need`: "a local reduction", "l.auto"); a parametric
 * extent (`0 <= j < n`) is a launch size, but not a size these passes can build arrays of.
 */
export function localSize(k: Kernel, iname: string, insnId: string, need: string): ConstRange {
  const r = constRange(k, iname);
  if (!r) {
    const tag = k.inameTags[iname];
    const what = tag ? formatInameTag(tag) : "l";
    const fix = `split it (splitIname(k, "${iname}", 16)) and tag the inner part, or fix its bounds with assumptions`;
    if (nonParametricBounds(k, iname).length === 0) {
      throw new ScheduleError(`instruction "${insnId}": iname "${iname}" is tagged ${what} and its extent depends on the kernel's parameters; ${need} needs a compile-time constant extent; ${fix}`);
    }
    throw new ScheduleError(
      `instruction "${insnId}": iname "${iname}" is tagged ${what}, but its extent is not a compile-time constant; ${fix}`);
  }
  return r;
}

/**
 * Check that `l`-tagged `iname` has a launch size: a compile-time constant extent, or the hull of
 * its range over every other iname, affine in the kernel's parameters (loopy's work-group size
 * over a triangle `0 <= j <= i < n` or a chunk of `0 <= i < n`: the maximum over the outer loops,
 * `n`; each instruction keeps its own domain as a guard). Else a ScheduleError: a hull bounded by
 * a value computed in the kernel (a temporary) or not bounded at all.
 */
export function checkLocalExtent(k: Kernel, iname: string, insnId: string): void {
  if (hasConstantRows(k, iname) || constRange(k, iname)) return;
  const tag = k.inameTags[iname];
  const what = tag ? formatInameTag(tag) : "l";
  let ax: HwAxis;
  try {
    ax = hwAxis(k, iname, "l", tag?.kind === "l" ? tag.axis : 0);
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    throw new ScheduleError(`instruction "${insnId}": iname "${iname}" is tagged ${what}, but its range has no bound in the kernel's parameters (${e.message}); ` +
      `bound it by parameters, or split it (splitIname(k, "${iname}", 16)) and tag the inner part`);
  }
  const used = new Set<string>();
  freeVariables(ax.base, used);
  freeVariables(ax.size, used);
  const computed = k.temporaries.filter((t) => used.has(t.name)).map((t) => `"${t.name}"`);
  if (computed.length > 0) {
    throw new ScheduleError(
      `instruction "${insnId}": iname "${iname}" is tagged ${what}, but its extent depends on ${computed.join(", ")}, computed inside the kernel; ` +
      `a work-group size must be known at launch: bound "${iname}" by the kernel's parameters, or leave it sequential`);
  }
}

const SEQUENTIAL: ReadonlySet<InameTag["kind"]> = new Set(["for", "ord", "unr", "unr_hint"]);

/**
 * Throw a ScheduleError for the first tag problem: two inames of one instruction on the same
 * hardware axis, an `l` iname whose range has no bound in the parameters, a `unr` iname without a constant trip
 * count, or an `ilp`/`vec` iname with a sequential loop nested inside it.
 */
export function checkInameTags(k: Kernel): void {
  let tagged = false;
  for (const _ in k.inameTags) tagged = true;
  if (!tagged) return;
  // An l iname's extent is checked once (at its first instruction, which the error names).
  const localChecked = new Set<string>();
  // The checks read an instruction's inames only: each list once (a big kernel's thousands of
  // instructions share a few), at its first instruction, which an error names. A few
  // instructions are checked as they are (no key printed per instruction).
  const seen = k.instructions.length > 8 ? new Set<string>() : undefined;
  // The iname on each hardware axis (g.0-2 at 0-2, l.0-2 at 3-5; others by their tag's text).
  const onAxis: (string | undefined)[] = [];
  const instructions = k.instructions;
  for (let n = 0; n < instructions.length; n++) {
    const insn = instructions[n]!;
    const inames = inamesOf(insn);
    if (seen !== undefined) {
      const key = inames.join(" ");
      if (seen.has(key)) continue;
      seen.add(key);
    }
    onAxis.length = 0;
    let hw: Map<string, string> | undefined;
    for (let x = 0; x < inames.length; x++) {
      const i = inames[x]!;
      const t = k.inameTags[i];
      if (!t) continue;
      switch (t.kind) {
        case "g": case "l": {
          const slot = t.axis >= 0 && t.axis < 3 && Number.isInteger(t.axis) ? (t.kind === "g" ? 0 : 3) + t.axis : -1;
          const other = slot >= 0 ? onAxis[slot] : hw?.get(formatInameTag(t));
          if (other !== undefined) {
            throw new ScheduleError(`instruction "${insn.id}" uses inames "${other}" and "${i}", both tagged ${formatInameTag(t)}; a hardware axis can carry one iname per instruction`);
          }
          if (slot >= 0) onAxis[slot] = i;
          else (hw ??= new Map()).set(formatInameTag(t), i);
          if (t.kind === "l" && !localChecked.has(i)) {
            checkLocalExtent(k, i, insn.id);
            localChecked.add(i);
          }
          break;
        }
        case "unr":
          if (!constRange(k, i)) {
            throw new ScheduleError(`instruction "${insn.id}": iname "${i}" is tagged unr, but its trip count is not a compile-time constant; split it first or tag it unr_hint`);
          }
          break;
        // vec: an innermost loop like ilp.seq, its lanes privatized alike; code generation makes it SIMD.
        case "ilp": case "ilp.seq": case "vec":
          checkIlpInnermost(k, insn, i, inames);
          break;
        default:
          break;
      }
    }
  }
}

/** loopy's rule: an ilp loop is innermost, so no sequential iname of the instruction may have to nest inside it. */
function checkIlpInnermost(k: Kernel, insn: Instruction, ilp: string, inames: readonly string[]): void {
  for (const y of inames) {
    if (y === ilp) continue;
    const t = k.inameTags[y];
    if (t && !SEQUENTIAL.has(t.kind)) continue;
    const boundsUse = k.domains.some((d) => d.dims.includes(y) && d.params.includes(ilp));
    const prioritized = k.loopPriority.some((p) => p.includes(ilp) && p.includes(y) && p.indexOf(ilp) < p.indexOf(y));
    if (boundsUse || prioritized) {
      const why = boundsUse ? `the bounds of "${y}" use "${ilp}"` : `a loop priority puts "${ilp}" outside "${y}"`;
      throw new ScheduleError(`instruction "${insn.id}": iname "${ilp}" is tagged ${formatInameTag(k.inameTags[ilp]!)}, so it must be innermost, but sequential iname "${y}" nests inside it (${why})`);
    }
  }
}
