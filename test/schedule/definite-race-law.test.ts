/**
 * The law of the certain-race check (src/schedule/definite-races.ts), on random OKL kernels: one
 * `@outer` loop, one or two `@inner` loops, a `@shared` or global array stored at an index affine
 * in the inner inames, a sequential loop's iname and a parameter (`s[a*t + b]`, `s[c]`, `s[t/2]`),
 * by `=` or `+=`, under random guards (`if (t < m)`, `if (t == 0)`, `t == 0 || t == m`, …), with
 * constant sizes from 1. A serial enumeration says
 * which work-items store to which cell; a conflict is two distinct work-items (of one group, for
 * `@shared`) storing to one cell in one barrier interval, with differing values or by an update
 * (a sequential loop j inside the @inner loops stays in the interval: its trips are one work-item's).
 *
 *   (a) a refusal at code generation names parameter values (`whenever 2 <= N`, or all) for which
 *       the enumeration finds a conflict, wherever the store runs at all;
 *   (b) a kernel that lowers and has no conflict runs on the interpreter and equals a serial model;
 *   (c) a kernel that lowers but has a conflict is refused by the interpreter's race check: never a
 *       silent answer;
 *   (d) with the named condition's negation assumed (lp.assume), the kernel lowers or is refused
 *       for another loop, and (a)-(c) hold again under the assumption;
 *   (e) a conflict of the kind the check is built to prove (an agent's iname the index does not
 *       name, an exact guard) is refused at code generation.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ExecutionError, ScheduleError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { affToString, containsPoint, parseSet, type BasicSet } from "../../src/poly/index.js";
import { run } from "../../src/run/index.js";
import { assume } from "../../transforms/index.js";

type Guard = "none" | "t < m" | "t >= m" | "t == 0" | "t == m" | "t != m" | "t % 2 == 0" | "u == 0" | "t < m && u == 0" | "b == 0" | "b < m" | "t == 0 || t == m" | "!(t < m)";
type Value = "t" | "1" | "m" | "u" | "t + u" | "b" | "j";
/** A store's instance: group b, work-item (t, u), trip j of a sequential loop inside it. */
interface Pt { readonly b: number; readonly t: number; readonly u: number; readonly j: number }

interface Shape {
  readonly global: boolean;
  /** Extents of the inner loops: t (@inner(0)), and u (@inner(1)) when `U > 0`. */
  readonly T: number;
  readonly U: number;
  /** Trips of a sequential loop j around the store, inside the @inner loops (0: none). */
  readonly J: number;
  /** The index: `a*t + a2*u + aj*j + kb*b + c (+ p)`, or `t/2 + aj*j + c`. */
  readonly half: boolean;
  readonly a: number;
  readonly a2: number;
  readonly aj: number;
  readonly kb: number;
  readonly c0: number;
  readonly withP: boolean;
  readonly update: boolean;
  readonly value: Value;
  readonly guard: Guard;
}

const MAX_N = 3;
const P_VALUES = [0, 1];
const M_VALUES = [-(2 ** 31), -1, 0, 1, 1, 2, 2, 3, 3, 4, 2 ** 31 - 1];

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  global: fc.boolean(),
  T: fc.integer({ min: 1, max: 5 }),
  U: fc.constantFrom(0, 0, 1, 2, 3),
  J: fc.constantFrom(0, 0, 1, 2),
  // Weighted toward the races the check proves (t free in the index: a = 0, no t/2): with even
  // weights only 6 of 60 kernels were refused, and the refusal paths (a) and (d) were thin.
  half: fc.constantFrom(false, false, false, true),
  a: fc.constantFrom(0, 0, 0, 0, 1, 1, 2, -1),
  a2: fc.constantFrom(0, 1, -1, 2),
  aj: fc.constantFrom(0, 1, 3),
  kb: fc.constantFrom(0, 0, 1, 5),
  c0: fc.constantFrom(0, 1),
  withP: fc.boolean(),
  update: fc.boolean(),
  value: fc.constantFrom<Value>("t", "1", "m", "u", "t + u", "b", "j"),
  guard: fc.constantFrom<Guard>("none", "none", "t < m", "t >= m", "t == 0", "t == m", "t != m", "t % 2 == 0", "u == 0", "t < m && u == 0", "b == 0", "b < m",
    "t == 0 || t == m", "!(t < m)"),
}).map((s) => ({
  ...s,
  a2: s.U > 0 ? s.a2 : 0,
  aj: s.J > 0 ? s.aj : 0,
  kb: s.global ? s.kb : 0,
  value: (s.U === 0 && (s.value === "u" || s.value === "t + u")) || (s.J === 0 && s.value === "j") ? "t" : s.value,
  // OKL import sizes `out` from its footprint under the guard, and `t == m` ties the index to m:
  // `out[1 - t]` gets the extent max(2 - m, 0), more than needed where the store never runs (m = -5
  // asks for 7 elements). Not this law's subject: @shared covers it.
  guard: s.U === 0 && s.guard.includes("u") ? "t < m" : s.global && s.guard === "t == m" ? "t == 0" : s.guard,
}));

/** The smallest index over every work-item and parameter, so that `c = c0 - lowest` keeps it >= 0. */
const span = (coef: number, extent: number) => [Math.min(0, coef * (extent - 1)), Math.max(0, coef * (extent - 1))] as const;
function offset(s: Shape): number {
  if (s.half) return s.c0;
  return s.c0 - span(s.a, s.T)[0] - span(s.a2, Math.max(s.U, 1))[0];
}
function cellOf(s: Shape, { b, t, u, j }: Pt, p: number): number {
  const c = offset(s) + s.aj * j + s.kb * b + (s.withP ? p : 0);
  return s.half ? Math.trunc(t / 2) + c : s.a * t + s.a2 * u + c;
}
/** Every instance of the store for `N` groups, in serial order (a work-item's trips of j in order). */
function points(s: Shape, N: number): Pt[] {
  const out: Pt[] = [];
  for (let b = 0; b < N; b++) for (let u = 0; u < Math.max(s.U, 1); u++) for (let t = 0; t < s.T; t++) for (let j = 0; j < Math.max(s.J, 1); j++) out.push({ b, t, u, j });
  return out;
}
/** Cells of the stored array: enough for every work-item and parameter value. */
function cells(s: Shape): number {
  let max = 0;
  for (const x of points(s, MAX_N)) for (const p of P_VALUES) max = Math.max(max, cellOf(s, x, p));
  return max + 1;
}
function valueOf(s: Shape, { b, t, u, j }: Pt, m: number): number {
  switch (s.value) {
    case "t": return t;
    case "1": return 1;
    case "m": return m;
    case "u": return u;
    case "t + u": return t + u;
    case "b": return b;
    case "j": return j;
  }
}
function guardHolds(s: Shape, { b, t, u }: Pt, m: number): boolean {
  switch (s.guard) {
    case "none": return true;
    case "t < m": return t < m;
    case "t >= m": return t >= m;
    case "t == 0": return t === 0;
    case "t == m": return t === m;
    case "t != m": return t !== m;
    case "t % 2 == 0": return t % 2 === 0;
    case "u == 0": return u === 0;
    case "t < m && u == 0": return t < m && u === 0;
    case "b == 0": return b === 0;
    case "b < m": return b < m;
    case "t == 0 || t == m": return t === 0 || t === m;
    case "!(t < m)": return !(t < m);
  }
}

function okl(s: Shape): string {
  const S = cells(s);
  const terms = s.half ? ["t/2"] : [s.a !== 0 ? `${s.a}*t` : "", s.a2 !== 0 ? `${s.a2}*u` : ""].filter((x) => x !== "");
  if (s.aj !== 0) terms.push(`${s.aj}*j`);
  if (s.kb !== 0) terms.push(`${s.kb}*b`);
  if (s.withP) terms.push("p");
  terms.push(String(offset(s)));
  const idx = terms.join(" + ");
  const guarded = `${s.guard === "none" ? "" : `if (${s.guard}) `}${s.global ? "out" : "s"}[${idx}] ${s.update ? "+=" : "="} ${s.value};`;
  const store = s.J > 0 ? `for (int j = 0; j < ${s.J}; ++j) { ${guarded} }` : guarded;
  const inner = (body: string) => s.U > 0
    ? `for (int u = 0; u < ${s.U}; ++u; @inner(1)) { for (int t = 0; t < ${s.T}; ++t; @inner(0)) { ${body} } }`
    : `for (int t = 0; t < ${s.T}; ++t; @inner) { ${body} }`;
  const first = s.U > 0 ? "t == 0 && u == 0" : "t == 0";
  const body = s.global ? inner(store) : [
    `@shared double s[${S}];`,
    inner(`if (${first}) { for (int c = 0; c < ${S}; ++c) s[c] = 0; }`),
    inner(store),
    inner(`if (${first}) { for (int c = 0; c < ${S}; ++c) out[b*${S} + c] = s[c]; }`),
  ].join("\n    ");
  return `@kernel void f(const int N, const int m, const int p, double *out) {
  for (int b = 0; b < N; ++b; @outer) {
    ${body}
  }
}`;
}

interface Params { readonly N: number; readonly m: number; readonly p: number }
interface Store extends Pt { readonly cell: number; readonly v: number }

/** Every store the kernel makes, in serial order. */
function stores(s: Shape, q: Params): Store[] {
  return points(s, q.N).filter((x) => guardHolds(s, x, q.m)).map((x) => ({ ...x, cell: cellOf(s, x, q.p), v: valueOf(s, x, q.m) }));
}

/** Two distinct work-items (of one group for @shared) storing to one cell, by an update or with differing values. */
function conflict(s: Shape, q: Params): boolean {
  const st = stores(s, q);
  for (let i = 0; i < st.length; i++) for (let j = i + 1; j < st.length; j++) {
    const x = st[i]!, y = st[j]!;
    if (x.cell !== y.cell || (x.t === y.t && x.u === y.u && x.b === y.b) || (!s.global && x.b !== y.b)) continue;
    if (s.update || x.v !== y.v) return true;
  }
  return false;
}

/**
 * A conflict the check is built to prove: two work-items that differ in an agent's iname the index
 * does not name (t, u; b for a global array) store to one cell by an update, or store values that
 * differ in that iname, under a guard that is a conjunction of affine comparisons.
 */
function provable(s: Shape, q: Params): boolean {
  if (s.half || s.guard === "t != m" || s.guard === "t % 2 == 0" || s.guard.includes("||")) return false;
  const free = [...(s.a === 0 ? ["t"] : []), ...(s.U > 0 && s.a2 === 0 ? ["u"] : []), ...(s.global && s.kb === 0 ? ["b"] : [])] as ("t" | "u" | "b")[];
  const st = stores(s, q);
  return free.some((v) => st.some((x) => st.some((y) => x[v] < y[v] && x.cell === y.cell && x.j === y.j && (s.global || x.b === y.b) &&
    (s.update || (s.value.includes(v) && x.v !== y.v)))));
}

const initial = (n: number) => Float64Array.from({ length: n }, (_, i) => (i * 7) % 5);

/** The serial meaning: the stores in order, into the group's zeroed @shared array or into `out`. */
function serial(s: Shape, q: Params): Float64Array {
  const S = cells(s);
  const out = initial(MAX_N * S);
  const target = s.global ? out : new Float64Array(MAX_N * S);
  for (const x of stores(s, q)) {
    const at = s.global ? x.cell : x.b * S + x.cell;
    target[at] = s.update ? target[at]! + x.v : x.v;
  }
  if (!s.global) out.set(target.subarray(0, q.N * S));
  return out;
}

const paramsArb = fc.record({ N: fc.constantFrom(0, 1, 2, 2, 3, 3), m: fc.constantFrom(...M_VALUES), p: fc.constantFrom(...P_VALUES) });

/** The race refusal of code generation, or undefined when the kernel lowers. */
function refusalOf(k: Kernel): ScheduleError | undefined {
  try {
    generateCode(k, "c");
    return undefined;
  } catch (e) {
    if (!(e instanceof ScheduleError) || !/ races on /.test(e.message)) throw e;
    return e;
  }
}

const asPoint = (q: Params) => ({ N: q.N, m: q.m, p: q.p });
/** `[N, m, p] -> { : cond }`: the parameter values a condition (a race's `whenever`, an assumption) admits. */
const paramSet = (cond: string) => parseSet(`[N, m, p] -> { : ${cond} }`);

/**
 * An assumption under which `when` cannot hold: the negation of its first constraint, when that is an
 * inequality (`2 <= N and 2 <= m` -> `-2 + N <= -1`).
 */
function negation(when: BasicSet): string | undefined {
  const c = when.constraints[0];
  if (!c || c.eq || c.coeffs.slice(when.params.length).some((x) => x !== 0)) return undefined;
  const terms: Record<string, number> = {};
  when.params.forEach((n, i) => { if (c.coeffs[i]) terms[n] = c.coeffs[i]!; });
  return `${affToString({ terms, constant: c.constant })} <= -1`;
}

describe("the certain-race check, as a law over random OKL kernels", () => {
  it("refusals name conflicting parameter values; what lowers runs to the serial answer or is refused at run", async () => {
    await fc.assert(fc.asyncProperty(shapeArb, fc.array(paramsArb, { minLength: 3, maxLength: 3 }), async (s, qs) => {
      const src = okl(s);
      let k: Kernel = parseOkl(src)[0]!;
      const nots: string[] = [];
      const admitted = (q: Params) => nots.length === 0 || containsPoint(paramSet(nots.join(" and ")), asPoint(q));
      for (let round = 0; ; round++) {
        const e = refusalOf(k);
        // (e) What the check is built to prove, it refuses.
        if (round === 0 && e === undefined) for (const q of qs) expect(provable(s, q), `${src}\nN=${q.N} m=${q.m} p=${q.p}: not refused`).toBe(false);
        if (e === undefined) break;
        // (a) Wherever the message says it races and the store runs, two work-items conflict.
        const when = / whenever (.*?): every /.exec(e.message)?.[1];
        const racy = when === undefined ? undefined : paramSet(when);
        for (const q of qs) {
          if (!admitted(q) || stores(s, q).length === 0 || (racy && !containsPoint(racy, asPoint(q)))) continue;
          expect(conflict(s, q), `${src}\nN=${q.N} m=${q.m} p=${q.p}: ${e.message}`).toBe(true);
        }
        // (d) Assuming the condition's negation removes this race: the kernel lowers or names another loop.
        const not = racy && negation(racy);
        if (!not || round === 2) return;
        const loop = / of loop (".*?")/.exec(e.message)?.[1];
        k = assume(k, not);
        nots.push(not);
        const again = refusalOf(k);
        if (again) expect(/ of loop (".*?")/.exec(again.message)?.[1], `${src}\nassumed ${not}: ${again.message}`).not.toBe(loop);
      }
      for (const q of qs) {
        const out = initial(MAX_N * cells(s));
        const result = run(k, { ...asPoint(q), out }, { backend: "interp" });
        if (!admitted(q)) {
          await expect(result).rejects.toThrow(/violates the assumptions/);
        } else if (conflict(s, q)) {
          // (c) Lowered but racy for these values: the interpreter's race check refuses.
          await expect(result, `${src}\nN=${q.N} m=${q.m} p=${q.p}`).rejects.toThrow(ExecutionError);
          await expect(result).rejects.toThrow(/^race on /);
        } else {
          // (b) No conflict: the serial answer.
          const got = (await result).out as Float64Array;
          expect(Array.from(got), `${src}\nN=${q.N} m=${q.m} p=${q.p}`).toEqual(Array.from(serial(s, q)));
        }
      }
    }), { numRuns: 60 });
  });

  it("a race whose pairs project to existentials that are no floor or mod is refused as a race, not a failure to decide", () => {
    // Cells 2*t + 5*b meet across u; the pairs' parameters keep `2*e3 = 5*e0 + 2*e1 - 5*e2`.
    const s: Shape = { global: true, T: 2, U: 3, J: 0, half: false, a: 2, a2: 0, aj: 0, kb: 5, c0: 0, withP: false, update: false, value: "t + u", guard: "none" };
    const e = refusalOf(parseOkl(okl(s))[0]!);
    expect(e?.message).toMatch(/races on global array "out": every work-item of loop "u" .* stores different values \(t \+ u\)/);
  });
});
