/**
 * Exact elimination of existentials for the guards and loop bounds of the CPU lowering (split out
 * of cpu-axes.ts): existentials eliminated where they can be exactly (a witness, a unit bound),
 * and loop bounds that prefer unit coefficients so that Fourier–Motzkin stays exact.
 */
import {
  addConstraints, aff, constraintImplied, dimBounds, eliminateExact, intersect, isSubset, substitute as substituteSet, universe, varAff,
  type Aff, type BasicSet,
} from "../poly/index.js";
import { untieExistentials } from "../poly/lattice.js";

/**
 * `s` within `ctx` without existentials, when they can be eliminated exactly; else undefined.
 * Projecting a split's outer iname leaves `exists e: -j_inner <= 64e < m - j_inner`; with
 * `0 <= j_inner < 64` known, `e >= 0` (an integer bound the projection does not derive) makes
 * the elimination exact: `j_inner < m`, loopy's guard `-1 + -1 * lid(0) + m >= 0`.
 */
export function eliminateExistentials(s: BasicSet, ctx: BasicSet): BasicSet | undefined {
  if (s.exists.length === 0) return s;
  const t0 = intersect(s, ctx);
  const direct = eliminateOnce(t0);
  if (direct !== undefined || divisibility(t0)) return direct;
  // Existentials tied through one combination (`5*r_outer + r_inner` of a split iname) made one
  // (`t = 5*r_outer + r_inner`), which may have a witness where neither alone has.
  const pieces = untieExistentials(t0, ctx);
  return pieces?.length === 1 ? eliminateOnce(pieces[0]!) : undefined;
}

/** Whether an equality of `t` reads its existentials (a stride or a modulus, not the bounds of an iname projected out). */
function divisibility(t: BasicSet): boolean {
  const first = t.params.length + t.dims.length;
  return t.constraints.some((con) => con.eq && con.coeffs.slice(first).some((x) => x !== 0));
}

/** The rows of `t` that read none of its columns past `dims` (existentials, or the dims after `dims`), over `dims`. */
export function dropExistentialRows(t: BasicSet, dims: readonly string[]): BasicSet {
  const kept = t.params.length + dims.length;
  const rows: BasicSet = {
    params: t.params, dims, exists: [],
    constraints: t.constraints.filter((con) => con.coeffs.slice(kept).every((x) => x === 0)).map((con) => ({ ...con, coeffs: con.coeffs.slice(0, kept) })),
  };
  return intersect(universe(t.params, dims), rows);
}

/** `t0`'s existentials eliminated exactly (Fourier–Motzkin with unit bounds, or witnesses), or undefined. */
function eliminateOnce(t0: BasicSet): BasicSet | undefined {
  const ex = [...t0.exists];
  // The existentials as dimensions (columns stay in place: params, dims, exists).
  const raw: BasicSet = { params: t0.params, dims: [...t0.dims, ...ex], exists: [], constraints: t0.constraints };
  let t = preferUnitBounds(intersect(universe(t0.params, raw.dims), raw), ex);
  const r = eliminateExact(t, ex);
  if (r.exact && r.set.exists.length === 0) return r.set;
  // A divisibility (`i + 2*j = 3*e` of a mod) has no witness among the dims: left to the guards' own conditions.
  if (divisibility(t0)) return undefined;
  // Those whose own elimination is exact, one by one; witnesses for the rest.
  let left = ex;
  for (const e of ex) {
    const one = eliminateExact(t, [e]);
    if (!one.exact || one.set.exists.length > 0) continue;
    t = one.set;
    left = left.filter((x) => x !== e);
  }
  return left.length === 0 ? t : dropByWitness(t, t0.dims, left);
}

/** Most assignments of witnesses to existentials `dropByWitness` tries. */
const MAX_WITNESSES = 64;

/**
 * `t` (existentials `ex` as its last dims) projected onto `dims`, exactly, where each existential
 * has a witness: the rows that do not read the existentials, when every point they allow
 * satisfies the others with each existential set to its witness, an affine form of the dims.
 * duplicateInames leaves such sets: the instructions of a copy `r_d` no longer run within `r`,
 * whose constraints, projected out, tie `r` to the copy's (`exists r: 0 <= r <= 2 and 8*x < e -
 * 56*r`), which Fourier–Motzkin cannot drop exactly, but `r := r_d` satisfies wherever the copy's
 * own rows hold (`r := 8*r_d_outer + r_d_inner` once the copy is split). The candidates: each dim,
 * and what makes a row with one existential the same as a row without (`a*r + L` and `L'`:
 * `r := (L' - L)/a`).
 */
function dropByWitness(t: BasicSet, dims: readonly string[], ex: readonly string[]): BasicSet | undefined {
  if (t.exists.length > 0 || dims.length === 0) return undefined;
  const flat = dropExistentialRows(t, dims);
  const kept = t.params.length + dims.length;
  const names = [...t.params, ...dims];
  const free = t.constraints.filter((con) => con.coeffs.slice(kept).every((x) => x === 0));
  const candidates = ex.map((e) => {
    const col = t.params.length + t.dims.indexOf(e);
    const out = new Map<string, Aff>(dims.map((y) => [`${y}`, varAff(y)]));
    for (const r1 of t.constraints) {
      const a = r1.coeffs[col]!;
      if (a === 0 || r1.coeffs.some((x, j) => j >= kept && j !== col && x !== 0)) continue;
      for (const r2 of free) {
        if (r2.eq !== r1.eq) continue;
        const terms: Record<string, number> = {};
        let ok = (r2.constant - r1.constant) % a === 0;
        for (let j = 0; ok && j < kept; j++) {
          const diff = r2.coeffs[j]! - r1.coeffs[j]!;
          if (diff % a !== 0) ok = false;
          else if (diff !== 0) terms[names[j]!] = diff / a;
        }
        if (!ok || Object.keys(terms).length === 0) continue;
        const w = aff(terms, (r2.constant - r1.constant) / a);
        out.set(JSON.stringify([terms, w.constant]), w);
      }
    }
    return [...out.values()];
  });
  if (candidates.reduce((n, c) => n * c.length, 1) > MAX_WITNESSES) return undefined;
  const pick = (at: number, s: BasicSet): boolean =>
    at === ex.length ? isSubset(flat, s) : candidates[at]!.some((w) => pick(at + 1, substituteSet(s, ex[at]!, w)));
  return pick(0, t) ? flat : undefined;
}

/**
 * `t` (where `names` are dimensions) with the integer bounds of `names` that hold over all of `t`
 * added where constant, and the non-unit bounds of `names` that the rest implies dropped: the
 * same points, with `e >= 0` in place of `64e >= -j_inner` (given `0 <= j_inner < 64`). Loop
 * bounds read `e = 0` instead of `(-j_inner + 63) / 64`, and eliminating `e` becomes exact.
 */
export function preferUnitBounds(t0: BasicSet, names: readonly string[]): BasicSet {
  let t = t0;
  const ex = names;
  const rows: { aff: Aff; eq: boolean }[] = [];
  for (const e of ex) {
    const b = dimBounds(t, e, []);
    const lo = b.lower.filter((x) => Object.keys(x.aff.terms).length === 0).map((x) => Math.ceil(x.aff.constant / x.denom));
    const hi = b.upper.filter((x) => Object.keys(x.aff.terms).length === 0).map((x) => Math.floor(x.aff.constant / x.denom));
    if (lo.length > 0) rows.push({ aff: aff({ [e]: 1 }, -Math.max(...lo)), eq: false });
    if (hi.length > 0) rows.push({ aff: aff({ [e]: -1 }, Math.min(...hi)), eq: false });
  }
  t = addConstraints(t, rows);
  // Drop the non-unit bounds of the existentials that the others imply (`64e >= -j_inner` given
  // `e >= 0`), so that Fourier–Motzkin pairs a unit bound with each and is exact.
  const cols = ex.map((e) => t.params.length + t.dims.indexOf(e));
  for (const c of [...t.constraints]) {
    if (c.eq || !cols.some((col) => Math.abs(c.coeffs[col]!) > 1)) continue;
    // `isSubset(t without c, t)` is "the other rows imply c": a row-level question, so the set
    // without c is only built when c goes.
    const at = t.constraints.indexOf(c);
    if (at < 0 || !constraintImplied(t, at)) continue;
    const rest: BasicSet = { ...t, constraints: t.constraints.filter((x) => x !== c) };
    t = intersect(universe(t.params, t.dims), rest);
  }
  return t;
}
