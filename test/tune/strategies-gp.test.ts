/**
 * The Gaussian process behind the "bayes" strategy: the Cholesky factor reproduces its matrix,
 * the triangular solves invert it, the posterior interpolates what it saw and is unsure far from
 * it, and expected improvement behaves as its formula says.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cholesky, expectedImprovement, GaussianProcess, matern52, normalCdf, solveLower, solveUpper } from "../../src/tune/strategies/gp.js";

const small = fc.double({ min: -3, max: 3, noNaN: true });

describe("dense linear algebra", () => {
  it("L·Lᵀ = A and the two solves give A⁻¹b, for A = B·Bᵀ + n·I", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(fc.constant(n), fc.array(small, { minLength: n * n, maxLength: n * n }), fc.array(small, { minLength: n, maxLength: n }))), ([n, b, rhs]) => {
      const a = new Float64Array(n * n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
        let s = i === j ? n : 0;
        for (let k = 0; k < n; k++) s += b[i * n + k]! * b[j * n + k]!;
        a[i * n + j] = s;
      }
      const l = cholesky(a, n)!;
      expect(l).toBeDefined();
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += l[i * n + k]! * l[j * n + k]!;
        expect(s).toBeCloseTo(a[i * n + j]!, 8);
      }
      const x = solveUpper(l, n, solveLower(l, n, rhs));
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += a[i * n + j]! * x[j]!;
        expect(s).toBeCloseTo(rhs[i]!, 8);
      }
    }));
  });

  it("refuses a matrix that is not positive definite", () => {
    expect(cholesky(Float64Array.from([1, 2, 2, 1]), 2)).toBeUndefined();
    expect(cholesky(Float64Array.from([0]), 1)).toBeUndefined();
  });
});

describe("the Gaussian process", () => {
  it("interpolates its observations and grows unsure away from them", () => {
    const xs = [0, 0.2, 0.4, 0.6, 0.8].map((v) => Float64Array.from([v]));
    const ys = [1.2, 0.3, -0.8, -0.2, 0.9];
    const gp = GaussianProcess.fit(xs, ys);
    const near = gp.predict(xs);
    xs.forEach((_, i) => {
      expect(near.mean[i]).toBeCloseTo(ys[i]!, 0);
      expect(near.variance[i]).toBeLessThan(0.2);
    });
    const far = gp.predict([Float64Array.from([3])]);
    expect(far.variance[0]).toBeGreaterThan(0.9);
    expect(Math.abs(far.mean[0]!)).toBeLessThan(0.2);
    // The posterior covariance of a point with itself is its variance.
    const both = gp.predict([Float64Array.from([0.3]), Float64Array.from([0.9])]);
    expect(both.covariance(0, 0)).toBeCloseTo(both.variance[0]!, 9);
    expect(both.covariance(0, 1)).toBeCloseTo(both.covariance(1, 0), 12);
  });

  it("Matérn 5/2 is 1 at distance 0 and falls with distance", () => {
    expect(matern52(0)).toBe(1);
    fc.assert(fc.property(fc.double({ min: 0, max: 10, noNaN: true }), fc.double({ min: 1e-3, max: 1, noNaN: true }), (r, d) => {
      expect(matern52(r + d)).toBeLessThan(matern52(r));
      expect(matern52(r)).toBeGreaterThan(0);
    }));
  });
});

describe("expected improvement", () => {
  it("is never negative, grows as the mean falls, and tends to max(best - mu, 0) as sigma vanishes", () => {
    fc.assert(fc.property(small, small, fc.double({ min: 1e-3, max: 3, noNaN: true }), fc.double({ min: 1e-3, max: 1, noNaN: true }), (mu, best, sigma, d) => {
      const ei = expectedImprovement(mu, sigma, best, 0);
      expect(ei).toBeGreaterThanOrEqual(-1e-12);
      expect(expectedImprovement(mu - d, sigma, best, 0)).toBeGreaterThan(ei - 1e-12);
      expect(ei).toBeGreaterThanOrEqual(Math.max(best - mu, 0) - 1e-6);
      expect(expectedImprovement(mu, 1e-9, best, 0)).toBeCloseTo(Math.max(best - mu, 0), 6);
    }));
  });

  it("uses the standard normal distribution", () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
    // With mu = best and sigma = 1, EI = φ(0) = 1/√(2π).
    expect(expectedImprovement(0, 1, 0, 0)).toBeCloseTo(1 / Math.sqrt(2 * Math.PI), 6);
  });
});
