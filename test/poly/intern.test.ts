// Interning (src/poly/memo.ts): a set's key and its canonical object are decided by its whole
// content. The oracle is independent of the poly layer: the fields compared as plain JSON.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { clearPolyMemos, factorOf, internSet, parseSet, setContentId } from "../../src/poly/index.js";
import { rawSet } from "../../src/poly/rows.js";
import type { BasicSet, Constraint } from "../../src/poly/types.js";

// Names that hash alike (same length, first and last character) and entries at the edges of the
// compact key form and of int32.
const NAMES = ["n", "m", "iab", "icb", "i", "j", "e0", "e1"];
const ENTRIES = [0, 1, -1, 2, 16000, 16001, -16000, -16001, 2147483647, -2147483648, 2147483646, -2147483647, 4294967296, 7];

interface Spec {
  params: string[];
  dims: string[];
  exists: string[];
  rows: { eq: boolean; coeffs: number[]; constant: number }[];
}

const names = (n: number) => fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: n });
const entry = fc.constantFrom(...ENTRIES);

const specArb: fc.Arbitrary<Spec> = fc
  .record({ params: names(2), dims: names(2), exists: names(1) })
  .chain(({ params, dims, exists }) => {
    const width = params.length + dims.length + exists.length;
    const row = fc.record({ eq: fc.boolean(), coeffs: fc.array(entry, { minLength: width, maxLength: width }), constant: entry });
    return fc.record({ params: fc.constant(params), dims: fc.constant(dims), exists: fc.constant(exists), rows: fc.array(row, { maxLength: 3 }) });
  });

/** A change that keeps the form of a set: usually a different content, sometimes the same. */
const editArb = fc.record({ kind: fc.integer({ min: 0, max: 6 }), at: fc.nat(), value: entry, name: fc.constantFrom(...NAMES) });

function edit(s: Spec, e: { kind: number; at: number; value: number; name: string }): Spec {
  const t: Spec = structuredClone(s);
  const r = t.rows.length > 0 ? t.rows[e.at % t.rows.length]! : undefined;
  if (e.kind === 0 && r) r.constant = e.value;
  else if (e.kind === 1 && r && r.coeffs.length > 0) r.coeffs[e.at % r.coeffs.length] = e.value;
  else if (e.kind === 2 && r) r.eq = !r.eq;
  else if (e.kind === 3 && t.rows.length > 1) t.rows.reverse();
  else if (e.kind === 4) {
    const list = [t.params, t.dims, t.exists].find((l) => l.length > 0);
    if (list) list[e.at % list.length] = e.name;
  } else if (e.kind === 5 && r) r.coeffs.push(0); // a wider row is another content
  return t;
}

function built(s: Spec): BasicSet {
  const cs: Constraint[] = s.rows.map((r) => Object.freeze({ eq: r.eq, coeffs: Object.freeze([...r.coeffs]), constant: r.constant }));
  return rawSet([...s.params], [...s.dims], [...s.exists], cs);
}

function literal(s: Spec): BasicSet {
  const t = structuredClone(s);
  return { params: t.params, dims: t.dims, exists: t.exists, constraints: t.rows };
}

const same = (a: Spec, b: Spec) => JSON.stringify(a) === JSON.stringify(b);

describe("sets are interned by content", () => {
  it("equal keys and one canonical object exactly when the contents are equal", () => {
    fc.assert(
      fc.property(specArb, editArb, fc.boolean(), fc.boolean(), (s, e, clear, lit) => {
        const t = edit(s, e);
        const a = built(s);
        if (clear) clearPolyMemos();
        const b = lit ? literal(t) : built(t);
        const equal = same(s, t);
        expect(setContentId(a) === setContentId(b)).toBe(equal);
        expect(internSet(a) === internSet(b)).toBe(equal);
        // The canonical object has that content, and keys stay put when asked again.
        expect(setContentId(internSet(b))).toBe(setContentId(b));
        expect(JSON.stringify(internSet(b).constraints)).toBe(JSON.stringify(b.constraints));
        expect(setContentId(a)).toBe(setContentId(built(s)));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the content a literal was interned with when the literal changes later", () => {
    const lit = { params: ["n"], dims: ["i"], exists: [], constraints: [{ eq: false, coeffs: [0, 1], constant: 0 }] };
    const key = setContentId(lit);
    lit.constraints[0]!.constant = 5;
    const other = rawSet(["n"], ["i"], [], [Object.freeze({ eq: false, coeffs: Object.freeze([0, 1]), constant: 5 })]);
    expect(setContentId(other)).not.toBe(key);
    expect(setContentId(rawSet(["n"], ["i"], [], [Object.freeze({ eq: false, coeffs: Object.freeze([0, 1]), constant: 0 })]))).toBe(key);
  });

  it("gives sets parsed twice one canonical object, and keys built sets by content", () => {
    const text = "[n] -> { [io, ii, jo] : 0 <= ii < 16 and 0 <= 16io + ii < n and 0 <= jo < n and n mod 64 = 0 }";
    const a = parseSet(text);
    const b = parseSet(text);
    expect(b).not.toBe(a);
    expect(internSet(b)).toBe(internSet(a));
    expect(setContentId(factorOf(b, "ii"))).toBe(setContentId(factorOf(a, "ii")));
    expect(setContentId(factorOf(b, "ii"))).not.toBe(setContentId(factorOf(a, "jo")));
  });
});
