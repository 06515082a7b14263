/**
 * Data types of the integer-set core. Plain frozen objects: sets are values, every operation
 * returns a new one. Rows are dense coefficient arrays indexed by column (see ALGORITHMS.md §1).
 */

/**
 * One constraint `coeffs · x + constant (= | >=) 0`. The columns of `x` are the set's
 * parameters, then its set dimensions, then its existential dimensions, in that order.
 */
export interface Constraint {
  /** true: `= 0`; false: `>= 0`. */
  readonly eq: boolean;
  readonly coeffs: readonly number[];
  readonly constant: number;
}

/**
 * A basic set: the integer points `x` (set dimensions) such that there exist integers `e`
 * (existential dimensions) satisfying every constraint, for given parameter values.
 * `i mod 3 = 0` is `exists e: i = 3e`; `floor(i/4)` is an existential `e` with `4e <= i <= 4e+3`.
 */
export interface BasicSet {
  readonly params: readonly string[];
  readonly dims: readonly string[];
  readonly exists: readonly string[];
  readonly constraints: readonly Constraint[];
}

/** An affine expression over named variables: `Σ terms[v]·v + constant`. Zero terms are absent. */
export interface Aff {
  readonly terms: Readonly<Record<string, number>>;
  readonly constant: number;
}

/**
 * One bound of a dimension `x`: as a lower bound it means `x >= ceil(aff / denom)`, as an upper
 * bound `x <= floor(aff / denom)`. `denom >= 1`; `aff` uses only parameters and outer dimensions.
 */
export interface Bound {
  readonly aff: Aff;
  readonly denom: number;
}

/**
 * Bounds of a dimension in terms of parameters and outer dimensions: `max(lower) <= x <= min(upper)`.
 * `exact` is false when projection had to over-approximate (non-unit Fourier–Motzkin pairs); the
 * caller must then keep the set's constraints as a guard. An empty list means unbounded on that side.
 */
export interface DimBounds {
  readonly lower: readonly Bound[];
  readonly upper: readonly Bound[];
  readonly exact: boolean;
}
