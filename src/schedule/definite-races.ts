/**
 * Races Loom can prove, for instructions whose stores are not checked (`write_race_ok`: the
 * author's word that work-items storing to one cell store one value; OKL import gives it to every
 * instruction, as OCCA checks nothing). The word cannot hold where two work-items provably run the
 * same assignment instance between the same barriers, store to the same cell, and the stored value
 * provably depends on which of them stores:
 *
 *   - an update of the cell (`s[0] = s[0] + t`, OKL's `s[0] += t` inside `@inner`): each work-item
 *     reads what another may have written, and the sum depends on their order (lost updates on a
 *     GPU, the serial sum on a CPU);
 *   - a value affine in the inames that differs between the two (`s[0] = t`): the last writer wins.
 *
 * "Provably" means every fact used is exact: the instruction's domain (no bound read from memory or
 * a temporary), its predicates (conjunctions of affine comparisons), the store's indices (affine)
 * and, for the second case, the value. Anything else proves nothing and is left to the
 * interpreter's run-time race check, which refuses the same stores on the inputs it is given.
 *
 *   definiteRace(k, insn, "t", "local")   // "updates" for OKL's `s[0] += t` over @inner t
 */
import { predicateConditions, type AffCondition } from "../analysis/footprint.js";
import { LoomError } from "../errors.js";
import {
  atomicUpdateOf, exprToAff, iterationDomain, type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { addConstraints, aff, affAdd, affSub, gist, intersect, isEmpty, isSubset, printSet, projectOut, rename, type Aff, type BasicSet } from "../poly/index.js";

/**
 * Why two work-items' stores of one instance conflict (`how`: an update of the cell, or values
 * that differ), and for which parameter values (`when`, ISL text such as `N >= 2`; undefined:
 * for all).
 */
export interface DefiniteRace {
  readonly how: "updates" | "differs";
  readonly when?: string;
}

const TWIN = "__race_twin";

/**
 * Pairs of points of `d` (an instruction's domain over `inames`) that store to one cell: the
 * second (its inames renamed with a suffix) has the same indices `idx`, a larger `x`, and the same
 * value of every iname in `equal`. `twinAff` renames an affine form to the second point.
 */
export function storePairs(d: BasicSet, inames: ReadonlySet<string>, idx: readonly Aff[], x: string, equal: readonly string[] = []): { pairs: BasicSet; twinAff: (a: Aff) => Aff } {
  const twinOf = (n: string) => (inames.has(n) ? n + TWIN : n);
  const twinAff = (a: Aff): Aff => ({ terms: Object.fromEntries(Object.entries(a.terms).map(([n, c]) => [twinOf(n), c])), constant: a.constant });
  const renames: Record<string, string> = {};
  for (const n of d.dims) if (inames.has(n)) renames[n] = twinOf(n);
  const same: AffCondition[] = idx.map((a) => ({ aff: affSub(a, twinAff(a)), eq: true }));
  for (const n of equal) same.push({ aff: affSub(aff({ [n]: 1 }), aff({ [twinOf(n)]: 1 })), eq: true });
  const apart: AffCondition = { aff: affAdd(affSub(aff({ [twinOf(x)]: 1 }), aff({ [x]: 1 })), aff({}, -1)), eq: false };
  return { pairs: addConstraints(intersect(d, rename(d, renames)), [...same, apart]), twinAff };
}

/**
 * The affine conditions `e` is exactly the conjunction of, or undefined when some conjunct is not
 * an affine comparison (`!=`, `or`, a read of memory): then the set it cuts is not known exactly.
 * Each conjunct is `predicateConditions`'s one condition (it leaves out, not fails on, the others).
 */
function exactConditions(e: Expr, isIndexVar: (n: string) => boolean): AffCondition[] | undefined {
  if (e.kind === "logical") {
    if (e.op !== "and") return undefined;
    const l = exactConditions(e.left, isIndexVar);
    const r = l && exactConditions(e.right, isIndexVar);
    return l && r ? [...l, ...r] : undefined;
  }
  if (e.kind !== "compare" && e.kind !== "not") return undefined;
  const c = predicateConditions(e, isIndexVar);
  return c.length === 1 ? c : undefined;
}

/**
 * Whether two work-items that differ in the parallel iname `x` provably run the same instance of
 * the assignment `insn` (every iname that is no agent's equal: the same trip of each sequential
 * loop, so no barrier between them; for local storage the same group) and store to one cell of
 * its left-hand side, and the value stored provably depends on which of them stores; which way.
 * `agents`: the inames whose values tell agents apart (for local storage, the `l` inames only).
 */
export function definiteRace(k: Kernel, insn: Instruction, x: string, agents: ReadonlySet<string>): DefiniteRace | undefined {
  if (insn.kind !== "assign" || insn.atomicity !== "none") return undefined;
  const update = atomicUpdateOf(insn.lhs, insn.rhs);
  const how: DefiniteRace["how"] | undefined = update === undefined ? undefined : update.op !== "=" ? "updates" : "differs";
  if (how === undefined) return undefined;
  const inames = new Set(insn.withinInames);
  const values = new Set(k.args.filter((a) => a.kind === "value").map((a) => a.name));
  const isIndexVar = (n: string) => inames.has(n) || values.has(n);
  const idx: Aff[] = [];
  for (const e of insn.lhs.kind === "subscript" ? insn.lhs.indices : insn.lhs.kind === "linear" ? [insn.lhs.index] : []) {
    const a = exprToAff(e, isIndexVar);
    if (!a) return undefined;
    idx.push(a);
  }
  const value = how === "differs" ? exprToAff(update!.value, isIndexVar) : undefined;
  if (how === "differs" && (value === undefined || !(x in value.terms))) return undefined;
  let d: BasicSet = iterationDomain(k, insn.withinInames);
  if (k.assumptions.constraints.length > 0) d = intersect(d, k.assumptions);
  if (d.params.some((p) => !values.has(p))) return undefined;
  const conds: AffCondition[] = [];
  for (const p of insn.predicates) {
    const c = exactConditions(p, isIndexVar);
    if (!c) return undefined;
    conds.push(...c);
  }
  if (conds.length > 0) d = addConstraints(d, conds);
  const equal = [...inames].filter((n) => !agents.has(n));
  /** The conflicting pairs whose inames in `same` agree: stores to one cell, and for "differs" values apart. */
  const conflicting = (same: readonly string[]): BasicSet => {
    const { pairs: meeting, twinAff } = storePairs(d, inames, idx, x, same);
    if (value === undefined) return meeting;
    // Values that differ: one of the two strictly larger (the twin's or the first's).
    const gap = affSub(twinAff(value), value);
    const larger = (g: Aff) => addConstraints(meeting, [{ aff: affAdd(g, aff({}, -1)), eq: false }]);
    const up = larger(gap);
    return isEmpty(up) ? larger(affSub(aff({}), gap)) : up;
  };
  const pairs = conflicting(equal);
  if (isEmpty(pairs)) return undefined;
  const when = raceWhen(projectOut(d, d.dims), projectOut(pairs, pairs.dims), () => {
    const twins = conflicting([...inames].filter((n) => n !== x));
    return projectOut(twins, twins.dims);
  });
  return when === undefined ? { how } : { how, when };
}

/**
 * For which parameter values, beyond those for which the instruction runs at all (`runs`), it
 * races (`params`, exact): undefined for all of them. A projection can keep existentials that are
 * no floor or mod (`out[2*t + 5*b]` across `u`: `2*e3 = 5*e0 + 2*e1 - 5*e2`), and containment in
 * such a set cannot be decided; then the pairs of work-items that differ in the racing iname alone
 * (`twins()`, a subset whose projection is simpler) may still cover every run. Else the exact set
 * itself is the answer, existentials and all.
 */
function raceWhen(runs: BasicSet, params: BasicSet, twins: () => BasicSet): string | undefined {
  const covers = (s: BasicSet): boolean | undefined => {
    try {
      return isSubset(runs, s);
    } catch (e) {
      if (e instanceof LoomError) return undefined;
      throw e;
    }
  };
  const exact = covers(params);
  if (exact === true || (exact === undefined && covers(twins()) === true)) return undefined;
  return /: (.*) \}$/.exec(printSet(exact === false ? gist(params, runs) : params))?.[1];
}
