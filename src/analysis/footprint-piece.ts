/**
 * The footprint of one access (src/analysis/footprint.ts): its indices' image of the iteration
 * domain with the sweep inames projected out, remembered by content, and the facts of the kernel
 * every access asks. Also the affine conditions of a predicate, and what a lean piece tells a
 * wider sweep (`PieceNote`): whether that sweep would compute the very same piece.
 */
import { LoomError } from "../errors.js";
import {
  allInames, exprToAff, exprToString, findArg, findSubstitution, findTemporary, iterationDomain, naturalCompare, type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import {
  aff, affAdd, affSub, extendSet, factorOf, intersect, moveToParams, projectOut, universe, affKey, contentMemo, memoized, setContentId,
  type Aff, type BasicSet,
} from "../poly/index.js";

/** One read of the array (or call of the rule) in an instruction. */
export interface Access {
  readonly insnId: string;
  /** The subscript (or rule arguments), one per axis. */
  readonly indices: readonly Expr[];
  /** The inames in scope: the instruction's loops and its reduction inames. */
  readonly inames: readonly string[];
  /** The use's tag (loopy's `a$x[i]`, `f$one(i)`), when it has one. */
  readonly tag?: string;
}

/** A footprint that cannot be computed: a non-affine subscript, an unbounded axis, … */
export class FootprintError extends LoomError {}


/** `aff >= 0` (or `= 0`): one affine condition. */
export interface AffCondition {
  readonly aff: Aff;
  readonly eq: boolean;
}

/**
 * The affine conditions a predicate is a conjunction of (`i >= 1 and i < n - 1` gives
 * `i - 1 >= 0`, `n - 2 - i >= 0`). Conjuncts that are not affine comparisons of the variables
 * `isIndexVar` accepts (`or`, `!=`, reads of arrays, floats…) are left out, so the result is implied
 * by the predicate: a set cut by it still contains every point where the predicate holds.
 */
export function predicateConditions(e: Expr, isIndexVar: (name: string) => boolean): AffCondition[] {
  switch (e.kind) {
    case "logical":
      return e.op === "and" ? [...predicateConditions(e.left, isIndexVar), ...predicateConditions(e.right, isIndexVar)] : [];
    case "not": {
      const o = e.operand;
      if (o.kind !== "compare") return [];
      const neg = { "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==" } as const;
      return predicateConditions({ ...o, op: neg[o.op] }, isIndexVar);
    }
    case "compare": {
      const l = exprToAff(e.left, isIndexVar);
      const r = exprToAff(e.right, isIndexVar);
      if (!l || !r) return [];
      switch (e.op) {
        case "<": return [{ aff: affAdd(affSub(r, l), aff({}, -1)), eq: false }];
        case "<=": return [{ aff: affSub(r, l), eq: false }];
        case ">": return [{ aff: affAdd(affSub(l, r), aff({}, -1)), eq: false }];
        case ">=": return [{ aff: affSub(l, r), eq: false }];
        case "==": return [{ aff: affSub(l, r), eq: true }];
        default: return [];
      }
    }
    default: return [];
  }
}

/**
 * The footprint of one access: its indices' image of the iteration domain, sweep inames projected
 * out. `lean` (only which fixed inames the footprint depends on is wanted): fixed inames that no
 * chain of rows through non-parameter columns ties to an index are projected out as well — they
 * can never share a row with an index (FM combines only rows that share an eliminated column), so
 * the rows over the indices are those of the full piece, computed on fewer columns (the other
 * tile's inames in a tiled matmul). Where the projection leaves an equality over parameters alone,
 * which could rewrite those rows, the full piece is computed instead.
 */
export function accessPiece(
  k: Kernel, acc: Access, dims: readonly string[], sweep: ReadonlySet<string>, arrayName: string, lean = false, guarded = true, notes?: PieceNote[],
): BasicSet {
  const facts = factsOf(k);
  const kernelInames = facts.inames;
  const used = new Set(acc.inames);
  const affs = acc.indices.map((e, r) => {
    const a = exprToAff(e, facts.isIndexVar);
    if (!a) {
      const where = guarded ? `in instruction "${acc.insnId}"` : `of the invocation ${acc.insnId}`;
      const what = findSubstitution(k, arrayName) ? "argument" : "subscript";
      throw new FootprintError(`the ${what} ${r} of ${arrayName} (${exprToString(e)}) ${where} is not affine in the inames and parameters, so its footprint is unknown`);
    }
    for (const n of Object.keys(a.terms)) if (kernelInames.has(n)) used.add(n);
    return a;
  });
  // The reader's predicates that are affine conditions on inames and integer parameters narrow
  // the points where the access runs (a guarded stencil reads no a[-1]). An invocation has none:
  // its conditions enter the key below only through `cs`, so the memo stays keyed by content.
  const intNames = facts.intNames;
  const conds = guarded ? (facts.insns.get(acc.insnId)?.predicates ?? []).flatMap((p) => predicateConditions(p, (n) => intNames.has(n))) : [];
  for (const cd of conds) for (const n of Object.keys(cd.aff.terms)) if (kernelInames.has(n)) used.add(n);
  const inames = [...used].sort(naturalCompare);
  const fd = footprintDomain(inames.length > 0 ? iterationDomain(k, inames) : universe([], []), [...affs, ...conds.map((cd) => cd.aff)], sweep, lean);
  const dom = fd.set;
  const extra = [...affs, ...conds.map((cd) => cd.aff)].flatMap((a) => Object.keys(a.terms)).filter((n) => !dom.dims.includes(n) && !dom.params.includes(n));
  const params = [...dom.params, ...new Set(extra)];
  const cs = [...affs.map((a, r) => ({ aff: affSub(aff({ [dims[r]!]: 1 }), a), eq: true })), ...conds];
  // Everything below is a function of these (sets are compared by content): a pipeline rebuilt for
  // the next variant, or a second prefetch over the same reads, asks again with new objects.
  let key = `${setContentId(dom)}|${setContentId(k.assumptions)}|${lean ? 1 : 0}|${dims.join(",")}|${params.join(",")}|`;
  for (const d of dom.dims) if (sweep.has(d)) key += `${d},`;
  for (const con of cs) key += `${con.eq ? "=" : ">"}${affKey(con.aff)};`;
  if (!lean) return memoized(pieceMemo, key, () => computeAccessPiece(k, dom, params, dims, cs, sweep, false).set);
  const piece = memoized(leanMemo, key, () => computeAccessPiece(k, dom, params, dims, cs, sweep, true));
  notes?.push({ domDims: dom.dims, others: fd.others, reusable: piece.full && !fd.wholeKept });
  return piece.set;
}

const pieceMemo = contentMemo<BasicSet>();
/** Lean pieces, and whether each is the full piece (the lean shortcut did not apply). */
const leanMemo = contentMemo<{ readonly set: BasicSet; readonly full: boolean }>();

/**
 * What a lean piece tells a wider sweep of the same access (a fetch asks the lean footprint over
 * its sweep inames, then the full one over more): the piece was computed over a domain with the
 * dims `domDims`, the other factors' inames `others` projected out; `reusable` when it is the full
 * piece too (the lean shortcut did not apply, and the whole domain was not kept for an equality).
 */
export interface PieceNote {
  readonly domDims: readonly string[];
  readonly others: readonly string[];
  readonly reusable: boolean;
}

/**
 * Whether the full piece over `wider` (which holds `sweep`) is the lean piece over `sweep` that
 * `note` describes. The full piece projects the other factors' swept inames where the lean one
 * projects all of them: the same domain when every one of them is swept; and over that domain it
 * fixes and sweeps the same dims when `wider` adds none of them. Then both are the same
 * computation (computeAccessPiece's full path) on the same arguments.
 */
export function sameWhenWider(note: PieceNote, sweep: ReadonlySet<string>, wider: ReadonlySet<string>): boolean {
  if (!note.reusable) return false;
  for (const o of note.others) if (!wider.has(o)) return false;
  for (const d of note.domDims) if (wider.has(d) !== sweep.has(d)) return false;
  return true;
}

/**
 * The domain an access's footprint is computed over: the factors of the iteration domain that hold
 * the indices' inames as they are, and the other factors (the j tile of a read `a[i, k]`) with
 * their swept inames projected out — and, for a `lean` piece, their fixed ones too, as
 * `computeAccessPiece` would project them (no row ties them to an index). Those factors then only
 * say for which values of the parameters (and their fixed inames) the access runs: `n >= 1`. The
 * footprint is the same as over the whole domain, which it projects anyway; but this domain is the
 * same for every tile size of the other factors, so the piece, and all that is computed from it,
 * repeats across the variants of a sweep.
 */
function footprintDomain(
  dom: BasicSet, affs: readonly Aff[], sweep: ReadonlySet<string>, lean: boolean,
): { set: BasicSet; others: readonly string[]; wholeKept: boolean } {
  const indexInames = new Set<string>();
  for (const a of affs) for (const n of Object.keys(a.terms)) if (dom.dims.includes(n)) indexInames.add(n);
  if (indexInames.size === 0) return { set: dom, others: [], wholeKept: false };
  const mine = factorOf(dom, [...indexInames]);
  if (mine === dom) return { set: dom, others: [], wholeKept: false };
  const others = dom.dims.filter((d) => !mine.dims.includes(d));
  const gone = lean ? others : others.filter((d) => sweep.has(d));
  if (gone.length === 0) return { set: dom, others, wholeKept: others.length > 0 };
  // Remembered per domain object: a fetch asks of the same one twice (the lean footprint, then the
  // full one, which project the same factors), and each prefetch of a pipeline again.
  let byGone = domainMemo.get(dom);
  if (byGone === undefined) domainMemo.set(dom, (byGone = new Map()));
  const key = `${mine.dims.join(",")}|${lean ? 1 : 0}|${gone.join(",")}`;
  let hit = byGone.get(key);
  if (hit === undefined) byGone.set(key, (hit = footprintDomainOf(dom, mine, others, gone, lean)));
  // The whole domain kept (an equality over the parameters): a full piece would project more.
  return { set: hit, others, wholeKept: hit === dom };
}

const domainMemo = new WeakMap<BasicSet, Map<string, BasicSet>>();

function footprintDomainOf(dom: BasicSet, mine: BasicSet, others: readonly string[], gone: readonly string[], lean: boolean): BasicSet {
  const rest = projectOut(factorOf(dom, others), gone);
  // An equality over the parameters alone could rewrite the index rows (see accessPiece): keep
  // the whole domain then, as the lean piece does.
  if (lean && hasParamEquality(rest, [])) return dom;
  return intersect(mine, rest);
}

function computeAccessPiece(
  k: Kernel, dom: BasicSet, params: readonly string[], dims: readonly string[], cs: readonly { aff: Aff; eq: boolean }[],
  sweep: ReadonlySet<string>, lean: boolean,
): { set: BasicSet; full: boolean } {
  let s = extendSet(dom, params, [...dom.dims, ...dims], cs);
  if (lean) {
    // The dims rows tie, through dims and existentials (not parameters), to an index: its factors.
    const tied = new Set(factorOf(s, dims).dims);
    if (dom.dims.some((d) => !sweep.has(d) && !tied.has(d))) {
      const fixedTied = dom.dims.filter((d) => !sweep.has(d) && tied.has(d));
      const drop = dom.dims.filter((d) => sweep.has(d) || !tied.has(d));
      let t = fixedTied.length > 0 ? moveToParams(s, fixedTied) : s;
      if (drop.length > 0) t = projectOut(t, drop);
      if (!hasParamEquality(t, fixedTied)) {
        if (k.assumptions.constraints.length > 0) t = intersect(t, k.assumptions);
        if (!hasParamEquality(t, fixedTied)) return { set: t, full: false };
      }
    }
  }
  const fixed = dom.dims.filter((d) => !sweep.has(d));
  if (fixed.length > 0) s = moveToParams(s, fixed);
  const swept = dom.dims.filter((d) => sweep.has(d));
  if (swept.length > 0) s = projectOut(s, swept);
  if (k.assumptions.constraints.length > 0) s = intersect(s, k.assumptions);
  return { set: s, full: true };
}

/**
 * Whether `s` has an equality over parameters alone other than `tied` (no dim, no existential): it
 * could substitute into the rows over the indices, so a lean piece would not match the full one.
 */
function hasParamEquality(s: BasicSet, tied: readonly string[]): boolean {
  const np = s.params.length;
  const tiedCols = new Set(tied.map((t) => s.params.indexOf(t)));
  return s.constraints.some((con) => con.eq && con.coeffs.every((x, j) => x === 0 || (j < np && !tiedCols.has(j))));
}

/** Names that hold integers: inames, the domains' parameters, integer value arguments. */
function integerNames(k: Kernel): Set<string> {
  const out = new Set<string>(allInames(k));
  for (const d of k.domains) for (const p of d.params) out.add(p);
  for (const a of k.args) if (a.kind === "value" && a.dtype !== undefined && /^u?int/.test(a.dtype)) out.add(a.name);
  for (const t of k.temporaries) out.delete(t.name);
  return out;
}

/** What every access of a kernel asks of it: computed once per frozen kernel (a fetch asks per access, twice). */
interface KernelFacts {
  readonly inames: ReadonlySet<string>;
  /** `integerNames(k)`. */
  readonly intNames: ReadonlySet<string>;
  readonly insns: ReadonlyMap<string, Instruction>;
  /** Whether a name in a subscript is an index variable (not an array argument or a temporary). */
  readonly isIndexVar: (name: string) => boolean;
}

const factsMemo = new WeakMap<Kernel, KernelFacts>();

/** The facts of `k`, remembered when `k` is frozen (its fields then never change). */
export function factsOf(k: Kernel): KernelFacts {
  let f = factsMemo.get(k);
  if (f !== undefined) return f;
  f = {
    inames: new Set(allInames(k)),
    intNames: integerNames(k),
    insns: new Map(k.instructions.map((i) => [i.id, i])),
    isIndexVar: (n) => (!findArg(k, n) || findArg(k, n)!.kind === "value" ? !findTemporary(k, n) : false),
  };
  if (Object.isFrozen(k) && Object.isFrozen(k.instructions) && Object.isFrozen(k.domains) && Object.isFrozen(k.args) && Object.isFrozen(k.temporaries)) factsMemo.set(k, f);
  return f;
}
