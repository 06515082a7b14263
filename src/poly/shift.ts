/**
 * A fetch's domain from its footprint (transforms/fetch-store.ts): each footprint dim `x_r`
 * replaced by `base_r + y_r` (a new dim `y_r`; `base_r` alone for an axis not stored), the new
 * dims bounded. What `substitute` (per dim, each adding its new name as a parameter),
 * `addConstraints`, `moveToDims` and `reorderDims` give in turn, written down at once where the
 * rows allow it: one normalization instead of seven (issue 21).
 */
import type { Aff, BasicSet } from "./types.js";
import { affAdd, aff } from "./affine.js";
import { add, checkInt, mul } from "./int.js";
import { type Row, toSys } from "./rows.js";
import { finish } from "./normalize.js";
import { affKey, cached, contentMemo, setKey } from "./memo.js";
import { addConstraints, existsApartOf, moveToDims, reorderDims, substitute } from "./ops.js";

/** One footprint dim and what replaces it. */
export interface DimShift {
  readonly dim: string;
  /** Affine in the set's parameters. */
  readonly base: Aff;
  /** The new dim (`base + to`); undefined: the dim becomes `base` alone. */
  readonly to: string | undefined;
}

/**
 * `s` with every dim shifted as `shifts` say (one per dim of `s`, in its order), the new dims in
 * the order of `shifts`, and `bounds` (affine in the parameters and the new dims) added.
 *
 *   shiftDims(parseSet("[n, io] -> {[x]: 16io <= x < 16io + 16 and x < n}"), [{ dim: "x", base: aff({ io: 16 }), to: "y" }], [])
 *     // [n, io] -> {[y]: 0 <= y <= 15 and 16io + y < n}
 */
export function shiftDims(s: BasicSet, shifts: readonly DimShift[], bounds: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  const tos = shifts.flatMap((sh) => (sh.to === undefined ? [] : [sh.to]));
  if (!shiftWrittenAtOnce.on || !direct(s, shifts, tos, bounds)) return stepwiseShift(s, shifts, bounds, tos);
  let key = `${setKey(s)}#`;
  for (const sh of shifts) key += `${sh.dim}=${affKey(sh.base)}+${sh.to ?? ""};`;
  key += "#";
  for (const c of bounds) key += `${c.eq ? "=" : ">"}${affKey(c.aff)};`;
  return cached(shiftMemo, key, () => computeShift(s, shifts, tos, bounds));
}

const shiftMemo = contentMemo<BasicSet>();

const shiftWrittenAtOnce = { on: true };

/** Tests: the shift written down at once where the rows allow it (default), or always stepwise (the route it is checked against). */
export function useShiftAtOnce(on: boolean): void {
  shiftWrittenAtOnce.on = on;
}

/** The stepwise route: what fetch-store.ts did before `shiftDims`, operation by operation. */
export function stepwiseShift(s: BasicSet, shifts: readonly DimShift[], bounds: readonly { aff: Aff; eq: boolean }[], tos: readonly string[]): BasicSet {
  let t = s;
  for (const sh of shifts) t = substitute(t, sh.dim, sh.to === undefined ? sh.base : affAdd(sh.base, aff({ [sh.to]: 1 })));
  t = addConstraints(t, bounds);
  const moved = t;
  t = moveToDims(t, tos.filter((n) => moved.params.includes(n)));
  return reorderDims(t, tos);
}

/**
 * Whether the rows written down at once are those of the stepwise route: the shifts name the dims
 * in order, their bases only parameters, the new names are new, and a dim appears only in
 * inequalities over parameters and dims (as `splitDim` asks: an equality or an existential row
 * through a dim may be tightened differently by the intermediate normalizations).
 */
function direct(s: BasicSet, shifts: readonly DimShift[], tos: readonly string[], bounds: readonly { aff: Aff; eq: boolean }[]): boolean {
  if (shifts.length !== s.dims.length || shifts.some((sh, r) => sh.dim !== s.dims[r])) return false;
  const params = new Set(s.params);
  const taken = new Set([...s.params, ...s.dims, ...s.exists]);
  const seen = new Set<string>();
  for (const n of tos) {
    if (taken.has(n) || seen.has(n)) return false;
    seen.add(n);
  }
  for (const sh of shifts) for (const v in sh.base.terms) if (!params.has(v)) return false;
  for (const c of bounds) for (const v in c.aff.terms) if (!params.has(v) && !seen.has(v)) return false;
  const np = s.params.length;
  const nv = np + s.dims.length;
  for (const c of s.constraints) {
    let dim = false;
    for (let k = np; k < nv; k++) if (c.coeffs[k] !== 0) dim = true;
    if (!dim) continue;
    if (c.eq) return false;
    for (let k = nv; k < c.coeffs.length; k++) if (c.coeffs[k] !== 0) return false;
  }
  return true;
}

function computeShift(s: BasicSet, shifts: readonly DimShift[], tos: readonly string[], bounds: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  const np = s.params.length;
  const nd = s.dims.length;
  const ne = s.exists.length;
  const sys = toSys(s);
  const n = np + tos.length + ne;
  const toCol = shifts.map((sh) => (sh.to === undefined ? -1 : np + tos.indexOf(sh.to)));
  const paramCol = new Map<string, number>();
  s.params.forEach((p, k) => paramCol.set(p, k));
  const shift = (r: Row): Row => {
    const o = new Array<number>(n + 1).fill(0);
    for (let k = 0; k < np; k++) o[k] = r[k]!;
    for (let k = 0; k < ne; k++) o[np + tos.length + k] = r[np + nd + k]!;
    o[n] = r[sys.n]!;
    shifts.forEach((sh, d) => {
      const a = r[np + d]!;
      if (a === 0) return;
      if (toCol[d]! >= 0) o[toCol[d]!] = add(o[toCol[d]!]!, a);
      for (const v in sh.base.terms) {
        const k = paramCol.get(v)!;
        o[k] = add(o[k]!, mul(a, checkInt(sh.base.terms[v]!, () => `coefficient of ${v}`)));
      }
      o[n] = add(o[n]!, mul(a, checkInt(sh.base.constant, "constant")));
    });
    return o;
  };
  const eqs = sys.eqs.map(shift);
  const ineqs = sys.ineqs.map(shift);
  const col = new Map(paramCol);
  tos.forEach((t, j) => col.set(t, np + j));
  for (const c of bounds) {
    const r = new Array<number>(n + 1).fill(0);
    for (const v in c.aff.terms) {
      const k = col.get(v)!;
      r[k] = add(r[k]!, checkInt(c.aff.terms[v]!, () => `coefficient of ${v}`));
    }
    r[n] = checkInt(c.aff.constant, "constant");
    (c.eq ? eqs : ineqs).push(r);
  }
  return finish(s.params, tos, existsApartOf(s, s.params, tos), { n, eqs, ineqs });
}
