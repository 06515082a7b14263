/**
 * Exact multivariate polynomials with rational coefficients (BigInt rationals, rational.ts), and
 * the one operation counting needs: a polynomial summed over an integer range whose bounds are
 * polynomials, `Σ_{x=lo}^{hi} p(x)`, in closed form (Faulhaber). mathjs's own `simplify` and
 * `rationalize` do not bring multivariate expressions to a canonical form with exact fractions
 * (`rationalize` prints 1/3 as 0.3333…), so the canonical form is kept here; mathjs only parses
 * the printed form into an expression tree (`toMathNode`), loaded on that first use: importing it
 * costs more than the rest of the library.
 */
import { createRequire } from "node:module";
import type { MathNode } from "mathjs";
import type { Aff } from "../../poly/index.js";
import { ONE, ZERO, rat, ratAdd, ratIsZero, ratMul, ratPow, ratToString, type Rational } from "./rational.js";


/** A monomial's exponents by variable name, as a canonical key: "m^1*n^2" ("" is the constant). */
type MonoKey = string;

/** Σ coeff · monomial. Zero coefficients are absent. */
export type Poly = ReadonlyMap<MonoKey, Rational>;

const frac = (n: number): Rational => rat(n);

function parseMono(key: MonoKey): Map<string, number> {
  const out = new Map<string, number>();
  if (key === "") return out;
  for (const part of key.split("*")) {
    const [v, e] = part.split("^") as [string, string];
    out.set(v, Number(e));
  }
  return out;
}

function monoKey(m: ReadonlyMap<string, number>): MonoKey {
  return [...m.entries()].filter(([, e]) => e !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([v, e]) => `${v}^${e}`).join("*");
}

function addTerm(out: Map<MonoKey, Rational>, key: MonoKey, c: Rational): void {
  const had = out.get(key);
  const sum = had ? ratAdd(had, c) : c;
  if (ratIsZero(sum)) out.delete(key);
  else out.set(key, sum);
}

export function polyConst(n: number | Rational): Poly {
  const c = typeof n === "number" ? frac(n) : n;
  return ratIsZero(c) ? new Map() : new Map([["", c]]);
}

export function polyVar(name: string): Poly {
  return new Map([[`${name}^1`, frac(1)]]);
}

export function polyAdd(a: Poly, b: Poly): Poly {
  const out = new Map(a);
  for (const [k, c] of b) addTerm(out, k, c);
  return out;
}

export function polyScale(a: Poly, s: number | Rational): Poly {
  const out = new Map<MonoKey, Rational>();
  const f = typeof s === "number" ? frac(s) : s;
  for (const [k, c] of a) addTerm(out, k, ratMul(c, f));
  return out;
}

export function polyMul(a: Poly, b: Poly): Poly {
  const out = new Map<MonoKey, Rational>();
  for (const [ka, ca] of a) {
    for (const [kb, cb] of b) {
      const m = parseMono(ka);
      for (const [v, e] of parseMono(kb)) m.set(v, (m.get(v) ?? 0) + e);
      addTerm(out, monoKey(m), ratMul(ca, cb));
    }
  }
  return out;
}

function polyPow(a: Poly, e: number): Poly {
  let out = polyConst(1);
  for (let i = 0; i < e; i++) out = polyMul(out, a);
  return out;
}

/** `a` as a polynomial: `Σ terms[v]·v + constant`. */
export function polyFromAff(a: Aff): Poly {
  let out = polyConst(a.constant);
  for (const [v, c] of Object.entries(a.terms)) out = polyAdd(out, polyScale(polyVar(v), c));
  return out;
}

/** `p` with `x` replaced by the polynomial `q`. */
export function polySubstitute(p: Poly, x: string, q: Poly): Poly {
  let out: Poly = new Map();
  for (const [k, c] of p) {
    const m = parseMono(k);
    const e = m.get(x) ?? 0;
    m.delete(x);
    const rest: Poly = new Map([[monoKey(m), c]]);
    out = polyAdd(out, e === 0 ? rest : polyMul(rest, polyPow(q, e)));
  }
  return out;
}

/** `p` as Σ_d coeff_d · x^d, coeff_d free of `x`. */
function coefficientsIn(p: Poly, x: string): Map<number, Poly> {
  const out = new Map<number, Map<MonoKey, Rational>>();
  for (const [k, c] of p) {
    const m = parseMono(k);
    const e = m.get(x) ?? 0;
    m.delete(x);
    if (!out.has(e)) out.set(e, new Map());
    addTerm(out.get(e)!, monoKey(m), c);
  }
  return out;
}

const faulhaberMemo: Poly[] = [];
const T = "__t";

/**
 * F_d(t) = Σ_{x=0}^{t} x^d as a polynomial in t (0^0 = 1), from Σ_{x=0}^{t} ((x+1)^{d+1} - x^{d+1}) =
 * (t+1)^{d+1}, i.e. Σ_{j<=d} C(d+1, j) F_j(t) = (t+1)^{d+1}. The identity F_d(hi) - F_d(lo-1) =
 * Σ_{x=lo}^{hi} x^d holds for every hi >= lo - 1 (the empty range gives 0).
 */
function faulhaber(d: number): Poly {
  const hit = faulhaberMemo[d];
  if (hit) return hit;
  let rhs = polyPow(polyAdd(polyVar(T), polyConst(1)), d + 1);
  let binom = 1; // C(d+1, j)
  for (let j = 0; j < d; j++) {
    rhs = polyAdd(rhs, polyScale(faulhaber(j), -binom));
    binom = (binom * (d + 1 - j)) / (j + 1);
  }
  const out = polyScale(rhs, rat(1, d + 1));
  faulhaberMemo[d] = out;
  return out;
}

/** Σ_{x=lo}^{hi} p, exact when hi >= lo - 1 for the values the result is evaluated at. */
export function polySumOver(p: Poly, x: string, lo: Poly, hi: Poly): Poly {
  let out: Poly = new Map();
  const loMinus1 = polyAdd(lo, polyConst(-1));
  for (const [d, coeff] of coefficientsIn(p, x)) {
    const f = faulhaber(d);
    const range = polyAdd(polySubstitute(f, T, hi), polyScale(polySubstitute(f, T, loMinus1), -1));
    out = polyAdd(out, polyMul(coeff, range));
  }
  return out;
}

export function polyIsZero(p: Poly): boolean {
  return p.size === 0;
}

/** The value at `params` (every variable of `p` must be given). */
export function polyEval(p: Poly, params: Readonly<Record<string, number>>): Rational {
  let out: Rational = ZERO;
  for (const [k, c] of p) {
    let term = c;
    for (const [v, e] of parseMono(k)) {
      const val = params[v];
      if (val === undefined) throw new Error(`missing value of ${v}`);
      term = ratMul(term, ratPow(frac(val), e));
    }
    out = ratAdd(out, term);
  }
  return out;
}

export function polyVars(p: Poly): Set<string> {
  const out = new Set<string>();
  for (const k of p.keys()) for (const v of parseMono(k).keys()) out.add(v);
  return out;
}

function degree(k: MonoKey): number {
  let d = 0;
  for (const e of parseMono(k).values()) d += e;
  return d;
}

/** Canonical text: higher degree first, then by name; exact fractions (`n^3 + 1/2*n`). */
export function polyToString(p: Poly): string {
  if (p.size === 0) return "0";
  const keys = [...p.keys()].sort((a, b) => degree(b) - degree(a) || (a < b ? -1 : a > b ? 1 : 0));
  let out = "";
  for (const k of keys) {
    const c = p.get(k)!;
    const neg = c.n < 0n;
    const abs = neg ? { n: -c.n, d: c.d } : c;
    const mono = [...parseMono(k).entries()].map(([v, e]) => (e === 1 ? v : `${v}^${e}`)).join("*");
    const one = abs.n === ONE.n && abs.d === ONE.d;
    const coef = ratToString(abs);
    const body = mono === "" ? coef : one ? mono : `${coef}*${mono}`;
    out += out === "" ? (neg ? `-${body}` : body) : neg ? ` - ${body}` : ` + ${body}`;
  }
  return out;
}

let mathjs: { parse(text: string): MathNode } | undefined;

/** The polynomial as a mathjs expression tree (for `simplify`, `derivative`, LaTeX, …). */
export function polyToMathNode(p: Poly): MathNode {
  mathjs ??= createRequire(import.meta.url)("mathjs") as { parse(text: string): MathNode };
  return mathjs.parse(polyToString(p));
}
