/**
 * A small Gaussian process for Bayesian optimisation: a Matérn 5/2 covariance of unit amplitude
 * over points in [0,1]^d, a noise term, and the length scale and noise chosen from a grid by the
 * log marginal likelihood. Dense Cholesky: the models hold at most a few hundred observations.
 */

/** Matérn 5/2 at distance `r` (already divided by the length scale). */
export function matern52(r: number): number {
  const s = Math.sqrt(5) * r;
  return (1 + s + (s * s) / 3) * Math.exp(-s);
}

function distance(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(s);
}

/** The lower Cholesky factor of the n×n row-major matrix `a`, or undefined if it is not positive definite. */
export function cholesky(a: Float64Array, n: number): Float64Array | undefined {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= l[i * n + k]! * l[j * n + k]!;
      if (i === j) {
        if (!(s > 0)) return undefined;
        l[i * n + i] = Math.sqrt(s);
      } else l[i * n + j] = s / l[j * n + j]!;
    }
  }
  return l;
}

/** Solve L x = b (forward substitution) for lower-triangular `l`. */
export function solveLower(l: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * n + k]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/** Solve Lᵀ x = b (back substitution) for lower-triangular `l`. */
export function solveUpper(l: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/** The grids the hyperparameters are chosen from (coordinates in [0,1], targets standardised). */
export const LENGTH_SCALES = [0.1, 0.15, 0.25, 0.4, 0.6, 1] as const;
export const NOISES = [1e-4, 1e-2, 0.1] as const;

export interface Posterior {
  readonly mean: Float64Array;
  readonly variance: Float64Array;
  /** Posterior covariance of candidate i with candidate j, for the batch's variance updates. */
  covariance(i: number, j: number): number;
  readonly noise: number;
}

/** A fitted GP: the observations, the factor of their covariance, and the chosen hyperparameters. */
export class GaussianProcess {
  private constructor(
    private readonly x: readonly Float64Array[],
    private readonly l: Float64Array,
    private readonly alpha: Float64Array,
    readonly lengthScale: number,
    readonly noise: number,
    readonly logLikelihood: number,
  ) {}

  /**
   * Fit targets `y` at points `x`: with the given length scale and noise, or else those of the
   * grids with the largest marginal likelihood.
   */
  static fit(x: readonly Float64Array[], y: readonly number[], given?: { readonly lengthScale: number; readonly noise: number }): GaussianProcess {
    const n = x.length;
    const dist = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) dist[i * n + j] = dist[j * n + i] = distance(x[i]!, x[j]!);
    let best: GaussianProcess | undefined;
    for (const ls of given ? [given.lengthScale] : LENGTH_SCALES) {
      for (const noise of given ? [given.noise, NOISES.at(-1)!] : NOISES) {
        if (best && given) break; // the given noise factored: the fallback is not needed
        const k = new Float64Array(n * n);
        for (let i = 0; i < n * n; i++) k[i] = matern52(dist[i]! / ls);
        for (let i = 0; i < n; i++) k[i * n + i] = 1 + noise;
        const l = cholesky(k, n);
        if (!l) continue;
        const alpha = solveUpper(l, n, solveLower(l, n, y));
        let ll = 0;
        for (let i = 0; i < n; i++) ll -= 0.5 * y[i]! * alpha[i]! + Math.log(l[i * n + i]!);
        if (!best || ll > best.logLikelihood) best = new GaussianProcess(x, l, alpha, ls, noise, ll);
      }
    }
    // The largest noise always factors (the matrix is then diagonally dominant enough); this is a guard.
    if (!best) throw new Error("GaussianProcess.fit: no hyperparameters gave a positive-definite covariance");
    return best;
  }

  /** The posterior at `candidates`: mean, variance (without noise), and covariances between them. */
  predict(candidates: readonly Float64Array[]): Posterior {
    const n = this.x.length;
    const m = candidates.length;
    const mean = new Float64Array(m);
    const variance = new Float64Array(m);
    const v: Float64Array[] = [];
    for (let c = 0; c < m; c++) {
      const ks = new Float64Array(n);
      for (let i = 0; i < n; i++) ks[i] = matern52(distance(candidates[c]!, this.x[i]!) / this.lengthScale);
      let mu = 0;
      for (let i = 0; i < n; i++) mu += ks[i]! * this.alpha[i]!;
      const vc = solveLower(this.l, n, ks);
      let q = 0;
      for (let i = 0; i < n; i++) q += vc[i]! * vc[i]!;
      mean[c] = mu;
      variance[c] = Math.max(1 - q, 1e-12);
      v.push(vc);
    }
    const ls = this.lengthScale;
    return {
      mean, variance, noise: this.noise,
      covariance(i: number, j: number): number {
        let q = 0;
        const a = v[i]!, b = v[j]!;
        for (let k = 0; k < n; k++) q += a[k]! * b[k]!;
        return matern52(distance(candidates[i]!, candidates[j]!) / ls) - q;
      },
    };
  }
}

/** The standard normal density and distribution function (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Expected improvement below `best` of a normal with mean `mu` and standard deviation `sigma`, less a margin `xi`. */
export function expectedImprovement(mu: number, sigma: number, best: number, xi: number): number {
  if (!(sigma > 0)) return Math.max(best - xi - mu, 0);
  const d = best - xi - mu;
  const z = d / sigma;
  return d * normalCdf(z) + sigma * normalPdf(z);
}
