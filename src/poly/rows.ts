/**
 * Dense rows: the working form of constraints inside operations. A row has one coefficient per
 * column (params, dims, existentials) followed by the constant: `row[n]` is the constant.
 */
import type { BasicSet, Constraint } from "./types.js";
import { add, lin, mul } from "./int.js";
import { stampSet, tally } from "./memo.js";

export type Row = number[];

/** A constraint system over `n` columns: `eqs` are `= 0`, `ineqs` are `>= 0`. */
export interface Sys {
  n: number;
  eqs: Row[];
  ineqs: Row[];
  /** Set by `finishSys` where coefficients outgrew the safe integers: its rows are exact but not the normal form. */
  rough?: boolean;
}

/** Build a set object without normalizing (callers normalize). */
export function rawSet(
  params: readonly string[],
  dims: readonly string[],
  exists: readonly string[],
  constraints: readonly Constraint[],
): BasicSet {
  const s = {
    params: frozenCopy(params),
    dims: frozenCopy(dims),
    exists: frozenCopy(exists),
    constraints: Object.freeze(constraints),
  };
  // The slot where the set's content key is remembered (memo.ts), hidden from keys and equality.
  stampSet(s);
  tally.setsBuilt++;
  return Object.freeze(s);
}

/** A frozen array is already a value that no one can change: shared, not copied. */
function frozenCopy(names: readonly string[]): readonly string[] {
  return Object.isFrozen(names) ? names : Object.freeze([...names]);
}

/** Number of columns of `s`. */
export function ncols(s: BasicSet): number {
  return s.params.length + s.dims.length + s.exists.length;
}

/** All column names of `s` in column order. */
export function colNames(s: BasicSet): string[] {
  return [...s.params, ...s.dims, ...s.exists];
}

/** The rows of `s`. */
export function toSys(s: BasicSet): Sys {
  const n = ncols(s);
  const eqs: Row[] = [];
  const ineqs: Row[] = [];
  for (const c of s.constraints) {
    // Packed small-integer arrays: setting `length` would make them holey and slow every row op.
    const r: Row = [];
    for (let k = 0; k < n; k++) r.push(c.coeffs[k] ?? 0);
    r.push(c.constant);
    (c.eq ? eqs : ineqs).push(r);
  }
  return { n, eqs, ineqs };
}

/** Constraints from rows (no normalization). */
export function sysConstraints(sys: Sys): Constraint[] {
  const out: Constraint[] = [];
  for (const r of sys.eqs) out.push(constraintOf(r, sys.n, true));
  for (const r of sys.ineqs) out.push(constraintOf(r, sys.n, false));
  return out;
}

/** The frozen constraint of row `r` over `n` columns. */
function constraintOf(r: Row, n: number, eq: boolean): Constraint {
  return Object.freeze({ eq, coeffs: Object.freeze(r.slice(0, n)), constant: r[n]! });
}

/** r1*a + r2*b, checked. */
export function combine(a: number, r1: Row, b: number, r2: Row): Row {
  const out = new Array<number>(r1.length);
  for (let k = 0; k < r1.length; k++) out[k] = lin(a, r1[k]!, b, r2[k]!);
  return out;
}

/** Remove column `col` from every row (its coefficient must be zero or be meant to vanish). */
export function dropColumn(sys: Sys, col: number): Sys {
  return { n: sys.n - 1, eqs: sys.eqs.map((r) => withoutColumn(r, col)), ineqs: sys.ineqs.map((r) => withoutColumn(r, col)) };
}

/** `r` without entry `col`. */
function withoutColumn(r: Row, col: number): Row {
  const out = new Array<number>(r.length - 1);
  for (let k = 0, j = 0; k < r.length; k++) if (k !== col) out[j++] = r[k]!;
  return out;
}

/** Insert `count` zero columns at `at`. */
export function insertColumns(r: Row, at: number, count: number): Row {
  const c = r.slice();
  c.splice(at, 0, ...new Array<number>(count).fill(0));
  return c;
}

/** Replace column `col` by the affine row `def` (same width, def[col] = 0): x_col := def·x + def_c. */
export function substRow(r: Row, col: number, def: Row): Row {
  const c = r[col]!;
  if (c === 0) return r;
  const out = r.slice();
  out[col] = 0;
  for (let k = 0; k < out.length; k++) if (def[k] !== 0) out[k] = add(out[k]!, mul(c, def[k]!));
  return out;
}

/** Reorder the columns of `r` (constant last): new column k is old column `perm[k]`, -1 = zero. */
export function permuteRow(r: Row, perm: readonly number[]): Row {
  const out = new Array<number>(perm.length + 1);
  for (let k = 0; k < perm.length; k++) out[k] = perm[k]! < 0 ? 0 : r[perm[k]!]!;
  out[perm.length] = r[r.length - 1]!;
  return out;
}


/** The root of `k` in a union-find forest, halving paths on the way. */
export function findRoot(parent: Int32Array, k: number): number {
  while (parent[k] !== k) k = parent[k] = parent[parent[k]!]!;
  return k;
}
