// Random small sets for the property tests, with an independent brute-force meaning: each
// generated constraint is evaluated directly (JS arithmetic, loops for existentials), never
// through src/poly. Every set includes a box, so enumerating the box enumerates the set.
import fc from "fast-check";

export const B = 3; // dims range over -B..B
export const PARAM_VALUES = [0, 1, 2, 3];
export const DIM_NAMES = ["i", "j", "k", "l"];
export const EX_RANGE = 2; // generated existentials range over -2..2

export type Cons =
  | { kind: "ineq" | "eq"; a: number[]; c: number }
  | { kind: "mod"; a: number[]; c: number; m: number; r: number; le: boolean }
  | { kind: "floor"; a: number[]; c: number; d: number; k: number; le: boolean; ceil: boolean }
  | { kind: "exists"; a: number[]; c: number; b: number; eq: boolean };

export interface GenSet {
  params: string[];
  dims: string[];
  cons: Cons[];
}

const coef = fc.integer({ min: -3, max: 3 });
const affArb = (n: number) => fc.record({ a: fc.array(coef, { minLength: n, maxLength: n }), c: fc.integer({ min: -6, max: 6 }) });

function consArb(n: number, withExists: boolean): fc.Arbitrary<Cons> {
  const arbs: fc.WeightedArbitrary<Cons>[] = [
    { weight: 6, arbitrary: affArb(n).map((x) => ({ kind: "ineq" as const, ...x })) },
    { weight: 1, arbitrary: affArb(n).map((x) => ({ kind: "eq" as const, ...x })) },
    {
      weight: 2,
      arbitrary: fc.record({ x: affArb(n), m: fc.integer({ min: 2, max: 3 }), r: fc.integer({ min: 0, max: 2 }), le: fc.boolean() })
        .map(({ x, m, r, le }) => ({ kind: "mod" as const, ...x, m, r: Math.min(r, m - 1), le })),
    },
    {
      weight: 1,
      arbitrary: fc.record({ x: affArb(n), d: fc.integer({ min: 2, max: 3 }), k: fc.integer({ min: -3, max: 3 }), le: fc.boolean(), ceil: fc.boolean() })
        .map(({ x, d, k, le, ceil }) => ({ kind: "floor" as const, ...x, d, k, le, ceil })),
    },
  ];
  if (withExists) {
    arbs.push({
      weight: 2,
      arbitrary: fc.record({ x: affArb(n), b: fc.constantFrom(-3, -2, -1, 1, 2, 3), eq: fc.boolean() })
        .map(({ x, b, eq }) => ({ kind: "exists" as const, ...x, b, eq })),
    });
  }
  return fc.oneof(...arbs);
}

/** A random set: 2–4 dims, 0–1 params, 1–4 constraints besides the box. */
export function setArb(opts: { withExists?: boolean; dims?: number; params?: number } = {}): fc.Arbitrary<GenSet> {
  const nd = opts.dims !== undefined ? fc.constant(opts.dims) : fc.integer({ min: 2, max: 4 });
  const np = opts.params !== undefined ? fc.constant(opts.params) : fc.integer({ min: 0, max: 1 });
  return fc.tuple(nd, np).chain(([d, p]) =>
    fc.array(consArb(d + p, opts.withExists ?? true), { minLength: 1, maxLength: 4 }).map((cons) => ({
      params: p ? ["n"] : [],
      dims: DIM_NAMES.slice(0, d),
      cons,
    })),
  );
}

function affText(names: readonly string[], a: readonly number[], c: number): string {
  let s = "";
  names.forEach((v, k) => {
    const x = a[k]!;
    if (x === 0) return;
    const t = Math.abs(x) === 1 ? v : k % 2 === 0 ? `${Math.abs(x)}*${v}` : `${Math.abs(x)}${v}`; // both spellings
    s += s === "" ? (x < 0 ? `-${t}` : t) : x < 0 ? ` - ${t}` : ` + ${t}`;
  });
  if (s === "") return String(c);
  return c === 0 ? s : `${s} ${c < 0 ? "-" : "+"} ${Math.abs(c)}`;
}

/** ISL text of a generated set. */
export function toText(g: GenSet): string {
  const names = [...g.params, ...g.dims];
  const parts: string[] = [];
  for (const p of g.params) parts.push(`${PARAM_VALUES[0]} <= ${p} <= ${PARAM_VALUES[PARAM_VALUES.length - 1]}`);
  parts.push(`${-B} <= ${g.dims.join(", ")} <= ${B}`);
  for (const c of g.cons) {
    const t = affText(names, c.a, c.c);
    switch (c.kind) {
      case "ineq": {
        // Several spellings of t >= 0, so the parser's operators are all exercised.
        const forms = [`${t} >= 0`, `${t} > -1`, `0 <= ${t}`, `-1 < ${t}`];
        parts.push(forms[((c.c % 4) + 4) % 4]!);
        break;
      }
      case "eq": parts.push(`${t} = 0`); break;
      case "mod": parts.push(`(${t}) mod ${c.m} ${c.le ? "<=" : "="} ${c.r}`); break;
      case "floor": parts.push(`${c.ceil ? "ceil" : "floor"}((${t})/${c.d}) ${c.le ? "<=" : ">="} ${c.k}`); break;
      case "exists":
        parts.push(`(exists e: ${-EX_RANGE} <= e <= ${EX_RANGE} and ${t} + ${c.b}*e ${c.eq ? "=" : ">="} 0)`);
        break;
    }
  }
  const head = g.params.length ? `[${g.params.join(", ")}] -> ` : "";
  return `${head}{ [${g.dims.join(", ")}] : ${parts.join(" and ")} }`;
}

function dot(a: readonly number[], x: readonly number[], c: number): number {
  let v = c;
  for (let k = 0; k < a.length; k++) v += a[k]! * x[k]!;
  return v;
}

/** The brute-force meaning: x holds the values of params then dims (any integers). */
export function holds(g: GenSet, x: readonly number[]): boolean {
  const np = g.params.length;
  if (np && (x[0]! < PARAM_VALUES[0]! || x[0]! > PARAM_VALUES[PARAM_VALUES.length - 1]!)) return false;
  for (let k = np; k < x.length; k++) if (x[k]! < -B || x[k]! > B) return false;
  for (const c of g.cons) {
    const v = dot(c.a, x, c.c);
    switch (c.kind) {
      case "ineq": if (v < 0) return false; break;
      case "eq": if (v !== 0) return false; break;
      case "mod": {
        const r = ((v % c.m) + c.m) % c.m;
        if (c.le ? r > c.r : r !== c.r) return false;
        break;
      }
      case "floor": {
        const q = c.ceil ? Math.ceil(v / c.d) : Math.floor(v / c.d);
        if (c.le ? q > c.k : q < c.k) return false;
        break;
      }
      case "exists": {
        let ok = false;
        for (let e = -EX_RANGE; e <= EX_RANGE && !ok; e++) ok = c.eq ? v + c.b * e === 0 : v + c.b * e >= 0;
        if (!ok) return false;
        break;
      }
    }
  }
  return true;
}

/** Every point of the box over `names` (params range over PARAM_VALUES, others over -B..B). */
export function box(names: readonly string[], params: readonly string[] = ["n"]): number[][] {
  let out: number[][] = [[]];
  for (const v of names) {
    const vals = params.includes(v) ? PARAM_VALUES : Array.from({ length: 2 * B + 1 }, (_, k) => k - B);
    out = out.flatMap((p) => vals.map((x) => [...p, x]));
  }
  return out;
}

/** Thin 2-d strips `lo <= a·x + b·y <= lo + w` with larger coefficients: integer-empty yet rationally
 * non-empty sets, which exercise the Omega test's dark shadow and splinters. Box -8..8. */
export const stripArb = fc.array(
  fc.record({ a: fc.integer({ min: -9, max: 9 }), b: fc.integer({ min: -9, max: 9 }), lo: fc.integer({ min: -20, max: 20 }), w: fc.integer({ min: 0, max: 3 }) }),
  { minLength: 1, maxLength: 3 },
);
export type Strip = { a: number; b: number; lo: number; w: number };
export function stripText(ss: readonly Strip[]): string {
  return `{ [x, y] : -8 <= x, y <= 8 and ${ss.map((s) => `${s.lo} <= ${s.a}*x + ${s.b}*y <= ${s.lo + s.w}`).join(" and ")} }`;
}
export function stripHolds(ss: readonly Strip[], x: number, y: number): boolean {
  return ss.every((s) => s.lo <= s.a * x + s.b * y && s.a * x + s.b * y <= s.lo + s.w);
}

/** Sets of plain affine rows only (no mod, floor or exists): no existentials after parsing. */
export function plainSetArb(opts: { dims?: number; params?: number } = {}): fc.Arbitrary<GenSet> {
  const nd = opts.dims !== undefined ? fc.constant(opts.dims) : fc.integer({ min: 2, max: 4 });
  const np = opts.params !== undefined ? fc.constant(opts.params) : fc.integer({ min: 0, max: 1 });
  return fc.tuple(nd, np).chain(([d, p]) => {
    const one = fc.oneof(
      { weight: 3, arbitrary: affArb(d + p).map((x) => ({ kind: "ineq" as const, ...x })) },
      // Small equalities, so that a good share of the sets keeps points.
      {
        weight: 2,
        arbitrary: fc.record({ a: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: d + p, maxLength: d + p }), c: fc.integer({ min: -2, max: 2 }) })
          .map((x) => ({ kind: "eq" as const, ...x })),
      },
    );
    return fc.array(one, { minLength: 1, maxLength: 5 }).map((cons): GenSet => ({ params: p ? ["n"] : [], dims: DIM_NAMES.slice(0, d), cons }));
  });
}

/** One affine row of a plain set: `a·x + c (= | >=) 0` over params then dims. */
export interface PlainRow { eq: boolean; a: number[]; c: number }

/** All rows of a plain set, the box included (params by PARAM_VALUES, dims by -B..B). */
export function plainRows(g: GenSet): PlainRow[] {
  const n = g.params.length + g.dims.length;
  const unit = (k: number, s: number) => Array.from({ length: n }, (_, j) => (j === k ? s : 0));
  const rows: PlainRow[] = [];
  for (let k = 0; k < n; k++) {
    const isParam = k < g.params.length;
    const lo = isParam ? PARAM_VALUES[0]! : -B;
    const hi = isParam ? PARAM_VALUES[PARAM_VALUES.length - 1]! : B;
    rows.push({ eq: false, a: unit(k, 1), c: -lo }, { eq: false, a: unit(k, -1), c: hi });
  }
  for (const c of g.cons) {
    if (c.kind !== "ineq" && c.kind !== "eq") throw new Error("plainRows: not a plain set");
    rows.push({ eq: c.kind === "eq", a: [...c.a], c: c.c });
  }
  return rows;
}

/** ISL text of plain rows over g's names. */
export function plainText(g: GenSet, rows: readonly PlainRow[]): string {
  const names = [...g.params, ...g.dims];
  const parts = rows.map((r) => `${affText(names, r.a, r.c)} ${r.eq ? "=" : ">="} 0`);
  const head = g.params.length ? `[${g.params.join(", ")}] -> ` : "";
  return `${head}{ [${g.dims.join(", ")}] : ${parts.length > 0 ? parts.join(" and ") : "true"} }`;
}

/**
 * Random choices for `respell`: each step is (kind, i, j, c) with indices taken modulo the row
 * counts when applied, so the choices do not depend on the set.
 */
export const respellArb = fc.record({
  steps: fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.nat(), fc.nat(), fc.integer({ min: -2, max: 2 })), { maxLength: 8 }),
  perm: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
});

/**
 * Another spelling of the same points: equalities combined into each other (`e2 + c·e1`),
 * redundant combinations of equalities added, equalities added into inequalities (`r + c·e`),
 * an equality written as two opposite inequalities, an inequality scaled by k > 0 with a constant
 * that floors back (`k·r + j`, 0 <= j < k), a weaker parallel copy; then the rows shuffled.
 */
export function respell(rows0: readonly PlainRow[], ch: { steps: readonly [number, number, number, number][]; perm: readonly number[] }): PlainRow[] {
  let rows = rows0.map((r) => ({ eq: r.eq, a: [...r.a], c: r.c }));
  const plus = (r: PlainRow, c: number, e: PlainRow): PlainRow => ({ eq: r.eq, a: r.a.map((v, k) => v + c * e.a[k]!), c: r.c + c * e.c });
  for (const [kind, i, j, c] of ch.steps) {
    const eqs = rows.filter((r) => r.eq);
    const ineqs = rows.filter((r) => !r.eq);
    if (kind <= 1 && eqs.length >= 2) {
      const e1 = eqs[i % eqs.length]!;
      const e2 = eqs[(i + 1 + (j % (eqs.length - 1))) % eqs.length]!;
      if (kind === 0) rows[rows.indexOf(e2)] = plus(e2, c, e1); // e2 + c·e1
      else rows.push(plus(e1, c === 0 ? 1 : c, e2)); // a redundant copy
    } else if (kind === 2 && eqs.length >= 1 && ineqs.length >= 1) {
      const r = ineqs[i % ineqs.length]!;
      rows[rows.indexOf(r)] = plus(r, c, eqs[j % eqs.length]!); // r + c·e
    } else if (kind === 3 && eqs.length >= 1) {
      const e = eqs[i % eqs.length]!;
      rows.splice(rows.indexOf(e), 1, { eq: false, a: e.a, c: e.c }, { eq: false, a: e.a.map((v) => -v), c: -e.c });
    } else if (kind === 4 && ineqs.length >= 1) {
      const r = ineqs[i % ineqs.length]!;
      const k = 2 + (j % 3);
      rows[rows.indexOf(r)] = { eq: false, a: r.a.map((v) => k * v), c: k * r.c + (Math.abs(c) % k) };
    } else if (kind === 5 && ineqs.length >= 1) {
      const r = ineqs[i % ineqs.length]!;
      rows.push({ eq: false, a: r.a, c: r.c + 1 + Math.abs(c) });
    }
  }
  // A permutation from the choices: repeatedly take the (perm[k] mod remaining)-th row.
  const rest = [...rows];
  const out: PlainRow[] = [];
  for (let k = 0; rest.length > 0; k++) out.push(rest.splice((ch.perm[k % ch.perm.length] ?? 0) % rest.length, 1)[0]!);
  return out;
}
