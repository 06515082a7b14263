/**
 * Integer sets to JavaScript source: loop bounds from `dimBounds` and membership guards. Guards
 * are inline comparisons when the set has no existentials, else a call of `compilePointTest`.
 */
import { ExecutionError } from "../errors.js";
import { dimBounds, printSet, type Aff, type BasicSet, type Bound } from "../poly/index.js";

/** How set variables are reached from generated code, and where point tests are registered. */
export interface SetCodeContext {
  /** Code of a parameter or dimension's value as a JS number. */
  nameCode(name: string): string;
  /** Register a membership test; returns the code of a call testing the current point. */
  pointTest(s: BasicSet): string;
}

/** `Σ c·x + k` as code. `affCode({terms: {i: 2}, constant: -1}, (n) => n)` is `(2*i + -1)`. */
export function affCode(a: Aff, nameCode: (name: string) => string): string {
  const parts = Object.entries(a.terms).map(([n, c]) => (c === 1 ? nameCode(n) : `${c}*${nameCode(n)}`));
  if (a.constant !== 0 || parts.length === 0) parts.push(String(a.constant));
  return parts.length === 1 ? parts[0]! : `(${parts.join(" + ")})`;
}

function boundCode(b: Bound, round: "ceil" | "floor", nameCode: (name: string) => string): string {
  const a = affCode(b.aff, nameCode);
  return b.denom === 1 ? a : `Math.${round}(${a} / ${b.denom})`;
}

/** Code of `max` of lower bounds (ceil) or `min` of upper bounds (floor). */
function extremeCode(bounds: readonly Bound[], side: "lower" | "upper", nameCode: (name: string) => string): string {
  const codes = [...new Set(bounds.map((b) => boundCode(b, side === "lower" ? "ceil" : "floor", nameCode)))];
  return codes.length === 1 ? codes[0]! : `Math.${side === "lower" ? "max" : "min"}(${codes.join(", ")})`;
}

/**
 * Code of the range `[lo, hi]` of `dim` over `s` given the `outer` dims (a superset where the
 * projection is inexact; guards make it exact). `what` names the loop in errors.
 * For `{[i,j]: 0 <= j <= i < n}`, dim `j` with outer `["i"]` gives `{lo: "0", hi: "i"}`.
 */
export function rangeCode(s: BasicSet, dim: string, outer: readonly string[], ctx: SetCodeContext, what: string): { lo: string; hi: string } {
  const b = dimBounds(s, dim, outer.filter((o) => o !== dim && s.dims.includes(o)));
  if (b.lower.length === 0 || b.upper.length === 0) {
    throw new ExecutionError(`${what}: the loop over "${dim}" has no ${b.lower.length === 0 ? "lower" : "upper"} bound in its domain ${printSet(s)}`);
  }
  return { lo: extremeCode(b.lower, "lower", ctx.nameCode), hi: extremeCode(b.upper, "upper", ctx.nameCode) };
}

/**
 * Code testing that the current point (params and dims by `nameCode`) lies in `s`; "true" for the
 * universe. `{[i]: 0 <= i < n}` gives `i >= 0 && (n + -1*i + -1) >= 0`.
 */
export function guardCode(s: BasicSet, ctx: SetCodeContext): string {
  if (s.exists.length > 0) return ctx.pointTest(s);
  const cols = [...s.params, ...s.dims];
  const tests = s.constraints.map((c) => {
    const terms: Record<string, number> = {};
    c.coeffs.forEach((v, k) => {
      if (v !== 0) terms[cols[k]!] = v;
    });
    return `${affCode({ terms, constant: c.constant }, ctx.nameCode)} ${c.eq ? "=== 0" : ">= 0"}`;
  });
  return tests.length === 0 ? "true" : tests.join(" && ");
}
