/**
 * Split inames collapsed before counting. A split (or tile) of `i` by `f` gives dimensions
 * `i_outer, i_inner` with `0 <= i_inner <= f - 1` and every other row using them only as
 * `f*i_outer + i_inner`. The map `(o, x) -> f*o + x` is a bijection from `Z × [lo, lo + f - 1]`
 * onto `Z`, so the set has as many points as the one with the pair replaced by one dimension
 * `t = f*o + x` (`x`'s box rows dropped). A tiled matmul's domain then counts as `n^3`, not as a
 * sum of floor pieces that equals it. Nested splits collapse one pair at a time. Likewise a tile
 * of a footprint, `f*o <= e <= f*o + f - 1` with `o` nowhere else, counts as `e` alone (findTile);
 * and where neither is left, a dimension an equality defines with coefficient ±1 (`d1_inner = d0 -
 * 2*d1_outer`, as a split of a one-point range normalizes) is projected out, being a function of
 * the others, and the search goes on. Each step removes a dimension.
 *
 *   collapseSplits({[io, ii]: 0 <= ii <= 15 and 0 <= 16*io + ii < n})   // {[io]: 0 <= io < n}
 */
import { projectOut, removeRedundancies, simplify, type BasicSet, type Constraint } from "../../poly/index.js";

/** `s` with every split pair collapsed (same number of points for every parameter value). */
export function collapseSplits(s0: BasicSet): BasicSet {
  if (s0.dims.length < 2) return s0;
  let s = removeRedundancies(s0);
  for (;;) {
    const pair = findPair(s);
    if (pair) {
      s = collapse(s, pair.outer, pair.inner, pair.boxRows);
      continue;
    }
    const tile = findTile(s);
    if (tile) {
      s = dropDim(s, tile.outer, tile.boxRows);
      continue;
    }
    // A dimension an equality gives with coefficient ±1 is a function of the others: out, and look again.
    const defined = definedDim(s);
    if (defined === undefined) return s;
    s = removeRedundancies(projectOut(s, [defined]));
  }
}

/**
 * A dimension with coefficient ±1 in an equality (`d1 = 2*d0_outer + d0_inner`), if any: the one in
 * the fewest rows, so that a split pair's own dimensions stay (the other one of the row goes).
 */
function definedDim(s: BasicSet): string | undefined {
  if (s.dims.length < 2) return undefined;
  const np = s.params.length;
  let best: { dim: number; rows: number } | undefined;
  for (const c of s.constraints) {
    // With an existential in the row, the dimension is no function of the other dimensions.
    if (!c.eq || c.coeffs.some((v, j) => j >= np + s.dims.length && v !== 0)) continue;
    for (let d = 0; d < s.dims.length; d++) {
      if (Math.abs(c.coeffs[np + d]!) !== 1) continue;
      const rows = s.constraints.filter((r) => r.coeffs[np + d] !== 0).length;
      if (!best || rows < best.rows) best = { dim: d, rows };
    }
  }
  return best && s.dims[best.dim];
}

/** The constant box `lo <= x <= hi` of column `col`, from rows over `x` alone, and those rows. */
function boxOf(s: BasicSet, col: number): { size: number; rows: Set<number> } | undefined {
  let lo = -Infinity;
  let hi = Infinity;
  const rows = new Set<number>();
  s.constraints.forEach((c, r) => {
    const a = c.coeffs[col]!;
    if (a === 0 || c.coeffs.some((v, j) => j !== col && v !== 0)) return;
    rows.add(r);
    // a*x + constant (>= or =) 0
    if (a > 0 || c.eq) lo = Math.max(lo, Math.ceil(-c.constant / a));
    if (a < 0 || c.eq) hi = Math.min(hi, Math.floor(-c.constant / a));
  });
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi - lo + 1 < 2) return undefined;
  return { size: hi - lo + 1, rows };
}

/** A pair (outer, inner) of dimension columns where every row but inner's box has outer = size × inner. */
function findPair(s: BasicSet): { outer: number; inner: number; boxRows: Set<number> } | undefined {
  const np = s.params.length;
  for (let x = np; x < np + s.dims.length; x++) {
    const box = boxOf(s, x);
    if (!box) continue;
    for (let o = np; o < np + s.dims.length; o++) {
      if (o === x) continue;
      let linked = false;
      let ok = true;
      s.constraints.forEach((c, r) => {
        if (box.rows.has(r)) return;
        const co = c.coeffs[o]!;
        const cx = c.coeffs[x]!;
        if (co !== box.size * cx) ok = false;
        else if (cx !== 0) linked = true;
      });
      if (ok && linked) return { outer: o, inner: x, boxRows: box.rows };
    }
  }
  return undefined;
}

/**
 * A tile: a dimension `o` whose rows all bound one expression `u = w + c*o`, `w` affine in the other
 * dimensions and the parameters (no existential), between constants `lo <= u <= lo + |c| - 1` — a
 * footprint's `16*group <= element <= 16*group + 15`, or the outer part of a split normalized into
 * the others' rows. For each value of the rest exactly one `o` fits, so the set counts as the one
 * without `o` (and those rows).
 */
function findTile(s: BasicSet): { outer: number; boxRows: Set<number> } | undefined {
  const np = s.params.length;
  const nv = np + s.dims.length;
  for (let o = np; o < nv; o++) {
    const rows = new Set<number>();
    s.constraints.forEach((c, r) => {
      if (c.coeffs[o] !== 0) rows.add(r);
    });
    const list = [...rows].map((r) => s.constraints[r]!);
    const first = list[0];
    if (!first || list.some((c) => c.coeffs.some((v, j) => j >= nv && v !== 0))) continue;
    const c1 = first.coeffs[o]!;
    // Each row is λ*u + constant with λ = c_r / c1: its other coefficients are λ times the first's.
    if (!list.every((c) => c.coeffs.every((v, j) => v * c1 === first.coeffs[j]! * c.coeffs[o]!))) continue;
    let lo = -Infinity;
    let hi = Infinity;
    for (const c of list) {
      const bound = (-c.constant * c1) / c.coeffs[o]!;
      const positive = c.coeffs[o]! * c1 > 0;
      if (positive || c.eq) lo = Math.max(lo, Math.ceil(bound));
      if (!positive || c.eq) hi = Math.min(hi, Math.floor(bound));
    }
    if (hi - lo + 1 === Math.abs(c1)) return { outer: o, boxRows: rows };
  }
  return undefined;
}

/** `s` without the dimension column `col` and the rows `rows` (the only ones that used it). */
function dropDim(s: BasicSet, col: number, rows: ReadonlySet<number>): BasicSet {
  const constraints = s.constraints.filter((_, r) => !rows.has(r)).map((c) => ({ eq: c.eq, coeffs: c.coeffs.filter((_, j) => j !== col), constant: c.constant }));
  const np = s.params.length;
  return simplify({ params: s.params, dims: s.dims.filter((_, d) => d !== col - np), exists: s.exists, constraints });
}

/** Column `outer` becomes `t = size*outer + inner` (its coefficient that of `inner`); `inner` and its box go. */
function collapse(s: BasicSet, outer: number, inner: number, boxRows: ReadonlySet<number>): BasicSet {
  const constraints: Constraint[] = [];
  s.constraints.forEach((c, r) => {
    if (boxRows.has(r)) return;
    const coeffs = c.coeffs.map((v, j) => (j === outer ? c.coeffs[inner]! : v)).filter((_, j) => j !== inner);
    constraints.push({ eq: c.eq, coeffs, constant: c.constant });
  });
  const np = s.params.length;
  const dims = s.dims.filter((_, d) => d !== inner - np);
  return simplify({ params: s.params, dims, exists: s.exists, constraints });
}
