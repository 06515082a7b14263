/**
 * Law: untieExistentials(s) is a union of basic sets with exactly the points of s, none of which
 * ties two existentials in one constraint. Checked against brute force: each generated set is a
 * list of rows over (n, i, j, e0, e1[, e2]) with every existential in a box, evaluated directly.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePointTest, parseSet, printSet, type BasicSet } from "../../src/poly/index.js";
import { reducingMatrix, tiesExistentials, untieExistentials } from "../../src/poly/lattice.js";

interface Row { eq: boolean; a: number[]; c: number }
interface Gen { nex: number; rows: Row[]; box: number }

const PARAMS = ["n"];
const DIMS = ["i", "j"];
const B = 3;

/** Rows over [n, i, j, e...]: a box on i, j and the existentials, and random (tying) rows. */
const genArb: fc.Arbitrary<Gen> = fc.integer({ min: 2, max: 3 }).chain((nex) => {
  const small = fc.integer({ min: -3, max: 3 });
  const exPart = fc.array(fc.integer({ min: -7, max: 7 }), { minLength: nex, maxLength: nex });
  const row = fc.record({
    eq: fc.boolean(),
    x: fc.array(small, { minLength: 3, maxLength: 3 }),
    e: exPart,
    c: fc.integer({ min: -8, max: 8 }),
  }).map(({ eq, x, e, c }) => ({ eq, a: [...x, ...e], c }));
  return fc.record({
    nex: fc.constant(nex),
    rows: fc.array(row, { minLength: 1, maxLength: 3 }).map((rs) => rs.map((r, k) => ({ ...r, eq: r.eq && k < 2 }))),
    box: fc.integer({ min: 1, max: 4 }),
  });
});

function toSet(g: Gen): BasicSet {
  const nv = 3 + g.nex;
  const unit = (k: number, s: number) => Array.from({ length: nv }, (_, m) => (m === k ? s : 0));
  const box: Row[] = [];
  for (let k = 1; k < 3; k++) box.push({ eq: false, a: unit(k, 1), c: B }, { eq: false, a: unit(k, -1), c: B });
  for (let k = 3; k < nv; k++) box.push({ eq: false, a: unit(k, 1), c: 0 }, { eq: false, a: unit(k, -1), c: g.box });
  return {
    params: PARAMS, dims: DIMS, exists: Array.from({ length: g.nex }, (_, k) => `e${k}`),
    constraints: [...box, ...g.rows].map((r) => ({ eq: r.eq, coeffs: r.a, constant: r.c })),
  };
}

/** Brute force: some e in the box satisfies every row. */
function member(g: Gen, n: number, i: number, j: number): boolean {
  const e = new Array<number>(g.nex).fill(0);
  const ok = (): boolean => g.rows.every((r) => {
    const v = r.a[0]! * n + r.a[1]! * i + r.a[2]! * j + e.reduce((acc, x, k) => acc + r.a[3 + k]! * x, 0) + r.c;
    return r.eq ? v === 0 : v >= 0;
  });
  const search = (k: number): boolean => {
    if (k === g.nex) return ok();
    for (let x = 0; x <= g.box; x++) {
      e[k] = x;
      if (search(k + 1)) return true;
    }
    return false;
  };
  return search(0);
}

describe("reducingMatrix", () => {
  it("for all v: v·V = (gcd(v), 0, …) and V is unimodular", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: -40, max: 40 }), { minLength: 1, maxLength: 4 }), (v) => {
      const V = reducingMatrix(v);
      const k = v.length;
      const prod = Array.from({ length: k }, (_, c) => v.reduce((acc, x, r) => acc + x * V[r]![c]!, 0));
      const g = v.reduce((a, x) => gcdAbs(a, x), 0);
      expect(prod).toEqual([g, ...new Array(k - 1).fill(0)]);
      expect(Math.abs(det(V))).toBe(1);
    }), { numRuns: 500 });
  });
});

function gcdAbs(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

function det(M: number[][]): number {
  if (M.length === 1) return M[0]![0]!;
  return M[0]!.reduce((acc, x, c) => acc + (c % 2 ? -1 : 1) * x * det(M.slice(1).map((r) => r.filter((_, k) => k !== c))), 0);
}

describe("untieExistentials", () => {
  it("unties the prefetch footprint of a split swept iname (random pipeline, seed 57) into one piece", () => {
    const s = parseSet("[m] -> { [jo, ji] : 0 <= ji <= 4 and exists (e0, e1 : -80*jo - ji - 35*e0 <= 5*e1 < m - 80*jo - ji - 35*e0 and -7*e0 <= e1 <= 6 and 0 <= e1 <= -7*e0 + 15) }");
    expect(tiesExistentials(s)).toBe(true);
    const pieces = untieExistentials(s)!;
    expect(pieces).toHaveLength(1);
    expect(tiesExistentials(pieces[0]!)).toBe(false);
    expect(printSet(pieces[0]!)).toContain("exists (e0 : ");
  });

  it("for all sets with tied bounded existentials: the pieces have exactly its points and tie none", () => {
    let untied = 0;
    fc.assert(fc.property(genArb, (g) => {
      const s = toSet(g);
      const pieces = untieExistentials(s);
      if (!pieces) return true;
      untied++;
      for (const p of pieces) expect(tiesExistentials(p)).toBe(false);
      const tests = pieces.map((p) => compilePointTest(p, ["n", "i", "j"]));
      for (let n = 0; n <= 3; n++) {
        for (let i = -B - 1; i <= B + 1; i++) {
          for (let j = -B - 1; j <= B + 1; j++) {
            const want = member(g, n, i, j) && Math.abs(i) <= B && Math.abs(j) <= B;
            const got = tests.some((t) => t([n, i, j]));
            if (got !== want) throw new Error(`at n=${n} i=${i} j=${j}: pieces say ${got}, brute force ${want}\n${printSet(s)}\n${pieces.map(printSet).join("\n")}`);
          }
        }
      }
      return true;
    }), { numRuns: 400 });
    // Bounded existentials can always be split: nearly every case must be answered.
    expect(untied).toBeGreaterThan(380);
  });

  it("within a context, the pieces agree with the set at every point of the context", () => {
    // e1 is bounded only through j, which the context bounds.
    const s = parseSet("[n] -> { [i, j] : exists (e0, e1 : 0 <= e0 <= 3 and 0 <= 3*e0 + 2*e1 - i <= 1 and e1 <= j and e1 >= 0) }");
    const ctx = parseSet("{ [j] : 0 <= j <= 3 }");
    expect(untieExistentials(s, ctx)).toBeDefined();
    const pieces = untieExistentials(s, ctx)!;
    const inS = compilePointTest(s, ["n", "i", "j"]);
    for (let i = -2; i <= 20; i++) for (let j = 0; j <= 3; j++) expect(pieces.some((p) => compilePointTest(p, ["n", "i", "j"])([0, i, j]))).toBe(inS([0, i, j]));
  });
});
