// Property tests: every operation against brute-force enumeration of random small sets (gen.ts).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as P from "../../src/poly/index.js";
import type { BasicSet } from "../../src/poly/index.js";
import { rawSet } from "../../src/poly/rows.js";
import { isCanonicalEmpty } from "../../src/poly/normalize.js";
import { B, type GenSet, box, holds, plainRows, plainSetArb, plainText, respell, respellArb, setArb, stripArb, stripHolds, stripText, toText } from "./gen.js";

const RUNS = { numRuns: 200 };
const parse = (g: GenSet) => P.parseSet(toText(g));

/** Membership by name, through the compiled test of `s`. */
function tester(s: BasicSet): (vals: Record<string, number>) => boolean {
  const vars = [...s.params, ...s.dims];
  const t = P.compilePointTest(s, vars);
  return (vals) => t(vars.map((v) => vals[v]!));
}

const named = (names: readonly string[], x: readonly number[]) => Object.fromEntries(names.map((n, k) => [n, x[k]!]));

/** s has exactly the points of g (over the box of g's names). */
function samePoints(s: BasicSet, g: GenSet): boolean {
  const names = [...g.params, ...g.dims];
  const t = tester(s);
  return box(names).every((x) => t(named(names, x)) === holds(g, x));
}

describe("generated sets", () => {
  it("reach non-empty sets and existentials often enough", () => {
    const sample = fc.sample(setArb(), { numRuns: 300, seed: 42 });
    let nonEmpty = 0;
    let withEx = 0;
    for (const g of sample) {
      if (box([...g.params, ...g.dims]).some((x) => holds(g, x))) nonEmpty++;
      if (parse(g).exists.length > 0) withEx++;
    }
    console.log(`generated sets: ${((100 * nonEmpty) / sample.length).toFixed(0)}% non-empty, ${((100 * withEx) / sample.length).toFixed(0)}% keep existentials`);
    expect(nonEmpty / sample.length).toBeGreaterThan(0.3);
    expect(withEx / sample.length).toBeGreaterThan(0.15);
  });
});

describe("parse and print", () => {
  it("for all generated sets g: parseSet(text(g)) has exactly g's points", () => {
    fc.assert(fc.property(setArb(), (g) => samePoints(parse(g), g)), RUNS);
  });
  it("for all s: parse(print(s)) has the same points and print is idempotent", () => {
    fc.assert(fc.property(setArb(), (g) => {
      const s = parse(g);
      const p = P.printSet(s);
      const t = P.parseSet(p);
      return P.printSet(t) === p && samePoints(t, g) && P.printSet(P.simplify(s)) === p;
    }), RUNS);
  });
});

describe("intersect", () => {
  it("for all a, b: intersect(a, b) = pointwise and", () => {
    fc.assert(fc.property(setArb(), setArb(), (ga, gb) => {
      const r = P.intersect(parse(ga), parse(gb));
      const params = [...new Set([...ga.params, ...gb.params])];
      const dims = ga.dims.length >= gb.dims.length ? ga.dims : gb.dims;
      const names = [...params, ...dims];
      const t = tester(r);
      return box(names).every((x) => {
        const v = named(names, x);
        const pick = (g: GenSet) => [...g.params, ...g.dims].map((n) => v[n]!);
        return t(v) === (holds(ga, pick(ga)) && holds(gb, pick(gb)));
      });
    }), RUNS);
  });
});

/** Brute-force projection of g onto `keep` (names of g). */
function projection(g: GenSet, keep: readonly string[]): Set<string> {
  const names = [...g.params, ...g.dims];
  const out = new Set<string>();
  for (const x of box(names)) if (holds(g, x)) out.add(keep.map((n) => x[names.indexOf(n)]).join(","));
  return out;
}

const dropArb = setArb().chain((g) =>
  fc.subarray([...g.params, ...g.dims], { minLength: 1, maxLength: 2 }).map((drop) => ({ g, drop })));

describe("projection", () => {
  it("for all s, names: projectOut(s, names) is exactly the projection", () => {
    fc.assert(fc.property(dropArb, ({ g, drop }) => {
      const r = P.projectOut(parse(g), drop);
      const keep = [...r.params, ...r.dims];
      const proj = projection(g, keep);
      const t = tester(r);
      return box(keep).every((x) => t(named(keep, x)) === proj.has(x.join(",")));
    }), RUNS);
  });
  it("for all s, names: eliminate(s, names) ⊇ projection, = when exact", () => {
    fc.assert(fc.property(dropArb, ({ g, drop }) => {
      const { set: r, exact } = P.eliminateExact(parse(g), drop);
      const keep = [...r.params, ...r.dims];
      const proj = projection(g, keep);
      const t = tester(r);
      // A superset may reach outside the box: compare inside it.
      return box(keep).every((x) => {
        const inR = t(named(keep, x));
        const inP = proj.has(x.join(","));
        return exact ? inR === inP : !inP || inR;
      });
    }), RUNS);
  });
});

describe("dimBounds", () => {
  const arb = setArb().chain((g) => fc.integer({ min: 0, max: g.dims.length - 1 }).map((d) => ({ g, d })));
  it("for all s, d: every point lies within the bounds; when exact the bounds are tight", () => {
    fc.assert(fc.property(arb, ({ g, d }) => {
      const s = parse(g);
      const dim = g.dims[d]!;
      const outer = g.dims.slice(0, d);
      const b = P.dimBounds(s, dim, outer);
      const names = [...g.params, ...g.dims];
      const range = (v: Record<string, number>) => {
        let lo = -Infinity;
        let hi = Infinity;
        for (const x of b.lower) lo = Math.max(lo, Math.ceil(P.affEval(x.aff, v) / x.denom));
        for (const x of b.upper) hi = Math.min(hi, Math.floor(P.affEval(x.aff, v) / x.denom));
        return [lo, hi] as const;
      };
      for (const x of box(names)) {
        if (!holds(g, x)) continue;
        const v = named(names, x);
        const [lo, hi] = range(v);
        if (!(lo <= v[dim]! && v[dim]! <= hi)) return false;
      }
      if (!b.exact) return true;
      const keepOuter = [...g.params, ...outer];
      const projOuter = projection(g, keepOuter);
      const projWith = projection(g, [...keepOuter, dim]);
      for (const key of projOuter) {
        const vals = key === "" ? [] : key.split(",").map(Number);
        const v = named(keepOuter, vals);
        const [lo, hi] = range(v);
        if (!Number.isFinite(lo) || !Number.isFinite(hi)) return false; // the set is bounded
        for (let x = lo; x <= hi; x++) if (!projWith.has([...vals, x].join(","))) return false;
      }
      return true;
    }), RUNS);
  });
});

describe("emptiness and redundancy", () => {
  it("for all s: isEmpty(s) agrees with brute force (params free)", () => {
    fc.assert(fc.property(setArb(), (g) => {
      const names = [...g.params, ...g.dims];
      return P.isEmpty(parse(g)) === !box(names).some((x) => holds(g, x));
    }), RUNS);
  });
  it("for all thin strips s: isEmpty(s) agrees with brute force (dark shadow, splinters)", () => {
    fc.assert(fc.property(stripArb, (ss) => {
      let any = false;
      for (let x = -8; x <= 8 && !any; x++) for (let y = -8; y <= 8 && !any; y++) any = stripHolds(ss, x, y);
      return P.isEmpty(P.parseSet(stripText(ss))) === !any;
    }), { numRuns: 300 });
  });
  it("for all s: removeRedundancies keeps the points and leaves no implied row", () => {
    fc.assert(fc.property(setArb(), (g) => {
      const r = P.removeRedundancies(parse(g));
      if (!samePoints(r, g)) return false;
      // Each remaining row is needed: without it, its negation is satisfiable.
      return r.constraints.every((c, i) => {
        const others = r.constraints.filter((_, j) => j !== i);
        const negs = c.eq ? [1, -1] : [1];
        return negs.some((sg) => !P.isEmpty(rawSet(r.params, r.dims, r.exists, [...others, {
          eq: false, coeffs: c.coeffs.map((v) => -sg * v), constant: -sg * c.constant - 1,
        }])));
      });
    }), RUNS);
  });
  it("for all s, c: gist(s, c) ∩ c = s ∩ c", () => {
    const arb = fc.integer({ min: 2, max: 3 }).chain((d) => fc.tuple(setArb({ dims: d, params: 1 }), setArb({ dims: d, params: 1 })));
    fc.assert(fc.property(arb, ([gs, gc]) => {
      const c = parse(gc);
      const r = P.intersect(P.gist(parse(gs), c), c);
      const names = [...gs.params, ...gs.dims];
      const t = tester(r);
      return box(names).every((x) => t(named(names, x)) === (holds(gs, x) && holds(gc, x)));
    }), RUNS);
  });
  it("for all s, c and a divisibility m said by both: gist(s ∩ m, c ∩ m) ∩ c ∩ m = s ∩ c ∩ m, and m is gone from the gist", () => {
    // The shape of a prefetch's store domain gisted against its loops: both carry `n mod 64 = 0`.
    const arb = fc.integer({ min: 2, max: 3 }).chain((d) => fc.tuple(
      setArb({ dims: d, params: 1, withExists: false }), setArb({ dims: d, params: 1, withExists: false }),
      fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 3 }), fc.boolean()));
    fc.assert(fc.property(arb, ([gs, gc, q, r0, onDim]) => {
      const r = r0 % q;
      const v = onDim ? gs.dims[0]! : gs.params[0]!;
      const m = P.parseSet(`[${gs.params.join(",")}] -> {[${gs.dims.join(",")}]: ${v} mod ${q} = ${r}}`);
      const s = P.intersect(parse(gs), m);
      const c = P.intersect(parse(gc), m);
      const g = P.gist(s, c);
      const back = P.intersect(g, c);
      const names = [...gs.params, ...gs.dims];
      const t = tester(back);
      const val = (x: readonly number[]) => x[names.indexOf(v)]!;
      const inM = (x: readonly number[]) => ((val(x) % q) + q) % q === r;
      const same = box(names).every((x) => t(named(names, x)) === (holds(gs, x) && holds(gc, x) && inM(x)));
      return same && (P.isEmpty(c) || parse(gs).exists.length > 0 || g.exists.length === 0);
    }), RUNS);
  });
  it("for all a, b without free existentials: isSubset agrees with brute force", () => {
    const arb = fc.integer({ min: 2, max: 3 }).chain((d) =>
      fc.tuple(setArb({ dims: d, params: 1 }), setArb({ dims: d, params: 1, withExists: false })));
    fc.assert(fc.property(arb, ([ga, gb]) => {
      const names = [...ga.params, ...ga.dims];
      const a = parse(ga);
      const b = parse(gb);
      const brute = box(names).every((x) => !holds(ga, x) || holds(gb, x));
      // a ∩ b ⊆ b always: true answers are reached too.
      return P.isSubset(a, b) === brute && P.isSubset(P.intersect(a, b), b) && P.isEqualSet(b, P.removeRedundancies(b));
    }), RUNS);
  });
  it("for all a, and b1, b2 without existentials: isSubsetOfUnion agrees with brute force", () => {
    const arb = fc.integer({ min: 2, max: 3 }).chain((d) => fc.tuple(
      setArb({ dims: d, params: 1 }), plainSetArb({ dims: d, params: 1 }), plainSetArb({ dims: d, params: 1 })));
    let inside = 0;
    fc.assert(fc.property(arb, ([ga, g1, g2]) => {
      const names = [...ga.params, ...ga.dims];
      const brute = box(names).every((x) => !holds(ga, x) || holds(g1, x) || holds(g2, x));
      if (brute) inside++;
      // a ∩ (b1 ∪ b2) is inside too: true answers that no single b gives are reached.
      const [a, b1, b2] = [parse(ga), parse(g1), parse(g2)];
      return P.isSubsetOfUnion(a, [b1, b2]) === brute && P.isSubsetOfUnion(P.intersect(a, b1), [b1, b2]);
    }), RUNS);
    expect(inside).toBeGreaterThan(0);
  });
});

describe("name operations", () => {
  it("for all s, dim, aff: substitute agrees pointwise", () => {
    const arb = setArb().chain((g) => fc.record({
      d: fc.integer({ min: 0, max: g.dims.length - 1 }),
      a: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: g.params.length + g.dims.length, maxLength: g.params.length + g.dims.length }),
      c: fc.integer({ min: -2, max: 2 }),
    }).map((x) => ({ g, ...x })));
    fc.assert(fc.property(arb, ({ g, d, a, c }) => {
      const names = [...g.params, ...g.dims];
      const dim = g.dims[d]!;
      const terms: Record<string, number> = {};
      names.forEach((n, k) => { if (n !== dim) terms[n] = a[k]!; });
      const r = P.substitute(parse(g), dim, P.aff(terms, c));
      const rest = names.filter((n) => n !== dim);
      const t = tester(r);
      return box(rest).every((x) => {
        const v = named(rest, x);
        const full = names.map((n) => (n === dim ? P.affEval(P.aff(terms, c), v) : v[n]!));
        return t(v) === holds(g, full);
      });
    }), RUNS);
  });
  it("for all s: rename agrees pointwise", () => {
    fc.assert(fc.property(setArb(), (g) => {
      const map = Object.fromEntries([...g.params, ...g.dims].map((n) => [n, `${n}_r`]));
      const r = P.rename(parse(g), map);
      const names = [...g.params, ...g.dims];
      const t = tester(r);
      return box(names).every((x) => t(named(names.map((n) => map[n]!), x)) === holds(g, x));
    }), RUNS);
  });
  it("for all s, name, value: fixValues agrees pointwise", () => {
    const arb = setArb().chain((g) => fc.record({
      which: fc.constantFrom(...g.params, ...g.dims),
      v: fc.integer({ min: -B, max: B }),
    }).map((x) => ({ g, ...x })));
    fc.assert(fc.property(arb, ({ g, which, v }) => {
      const r = P.fixValues(parse(g), { [which]: v });
      const names = [...g.params, ...g.dims];
      const rest = names.filter((n) => n !== which);
      const t = tester(r);
      return box(rest).every((x) => {
        const val = named(rest, x);
        return t(val) === holds(g, names.map((n) => (n === which ? v : val[n]!)));
      });
    }), RUNS);
  });
  it("for all s: moveToParams then moveToDims keeps the points", () => {
    fc.assert(fc.property(setArb(), (g) => {
      const d = g.dims[0]!;
      const r = P.moveToDims(P.moveToParams(parse(g), [d]), [d], 0);
      return r.dims[0] === d && samePoints(r, g);
    }), RUNS);
  });
});

describe("enumeration and membership", () => {
  it("for all s, params: points and count agree with brute force", () => {
    fc.assert(fc.property(setArb(), (g) => {
      const s = parse(g);
      const pv = g.params.length ? [0, 1, 2, 3] : [undefined];
      return pv.every((n) => {
        const params: Record<string, number> = n === undefined ? {} : { n };
        const want = box(g.dims).filter((x) => holds(g, n === undefined ? x : [n, ...x]));
        const got = P.points(s, params);
        return JSON.stringify(got) === JSON.stringify(want) && P.count(s, params) === want.length;
      });
    }), RUNS);
  });
  it("for all s: containsPoint and compilePointTest (any var order) agree with brute force", () => {
    fc.assert(fc.property(setArb(), fc.boolean(), (g, rev) => {
      const s = parse(g);
      const names = [...g.params, ...g.dims];
      const vars = rev ? [...names].reverse() : names;
      const t = P.compilePointTest(s, vars);
      return box(names).every((x, idx) => {
        const v = named(names, x);
        const want = holds(g, x);
        if (t(vars.map((n) => v[n]!)) !== want) return false;
        return idx % 7 !== 0 || P.containsPoint(s, v) === want;
      });
    }), RUNS);
  });
});

/**
 * true when every equality of `s` has a ±1 coefficient at its pivot (last nonzero column). Then
 * the normal form is canonical; with a larger pivot the columns left free are confined to a
 * lattice (`i = 2j`: i even), and inequalities equivalent on that lattice but not everywhere
 * (`i >= 1`, `i >= 2`) are not told apart yet.
 */
function unitPivots(s: BasicSet): boolean {
  return s.constraints.every((c) => {
    if (!c.eq) return true;
    let k = c.coeffs.length - 1;
    while (k >= 0 && c.coeffs[k] === 0) k--;
    return k < 0 || Math.abs(c.coeffs[k]!) === 1;
  });
}

describe("canonical form", () => {
  const arb = plainSetArb().chain((g) => respellArb.map((ch) => ({ g, ch })));
  it("for all sets g without existentials: two spellings of the same set print identically", () => {
    let canonical = 0;
    let withEqs = 0;
    let runs = 0;
    fc.assert(fc.property(arb, ({ g, ch }) => {
      const rows = plainRows(g);
      const a = P.parseSet(plainText(g, rows));
      const b = P.parseSet(plainText(g, respell(rows, ch)));
      runs++;
      // The respelling has the same points (a check of the test itself), and so does the normal form.
      if (!samePoints(a, g) || !samePoints(b, g)) return false;
      // Canonical only where both normal forms have unit pivots: with a larger pivot the normal
      // form does not reason about the lattice, so it may miss integer emptiness (2i = -n - 2 and
      // 2j = -3n - 1 with n in 0..3 has no integer point, yet is not printed as false).
      if (!unitPivots(a) || !unitPivots(b)) return true;
      canonical++;
      if (a.constraints.some((c) => c.eq) && !P.isEmpty(a)) withEqs++;
      return P.printSet(a) === P.printSet(b);
    }), { numRuns: 400 });
    console.log(`canonical form: ${canonical} of ${runs} runs had unit pivots and were compared, ${withEqs} non-empty with equalities`);
    expect(canonical).toBeGreaterThanOrEqual(200);
  });
  it("for all pairs a, b without existentials from the same points: isEqualSet(a, b) implies print(a) === print(b)", () => {
    // Pairs from the same points: two respellings of one generated set (neither is g's own text).
    const pair = plainSetArb({ params: 1 }).chain((g) => fc.tuple(respellArb, respellArb).map(([c1, c2]) => ({ g, c1, c2 })));
    let compared = 0;
    fc.assert(fc.property(pair, ({ g, c1, c2 }) => {
      const rows = plainRows(g);
      const a = P.parseSet(plainText(g, respell(rows, c1)));
      const b = P.parseSet(plainText(g, respell(rows, c2)));
      if (!P.isEqualSet(a, b)) return false; // they have the same points by construction
      if (!unitPivots(a) || !unitPivots(b)) return true;
      compared++;
      return P.printSet(a) === P.printSet(b) && P.printSet(P.simplify(a)) === P.printSet(a);
    }), { numRuns: 400 });
    expect(compared).toBeGreaterThanOrEqual(200);
  });
  it("examples: equalities reduced against each other and against the inequalities", () => {
    const same = (x: string, y: string) => expect(P.printSet(P.parseSet(x))).toBe(P.printSet(P.parseSet(y)));
    same("[n] -> {[i,j]: i = j and 0 <= i < n}", "[n] -> {[i,j]: i = j and 0 <= j < n}");
    same("{[i,j,k]: i = j and j = k}", "{[i,j,k]: i = k and j = k}");
    // Not a Hermite basis of the rows' lattice: x + 3z = 0 is implied but not an integer combination.
    same("{[x,y,z]: x + y + 2z = 0 and x + 3y = 0}", "{[x,y,z]: x + 3z = 0 and x + 3y = 0}");
    // A non-unit pivot (j) is eliminated from the inequalities with a positive multiple.
    same("[n] -> {[i,j]: i = 2j and 0 <= j < n}", "[n] -> {[i,j]: i = 2j and 0 <= i + 2j - i < 2n}");
    expect(P.printSet(P.parseSet("[n] -> {[i,j]: i = j and 0 <= j < n}"))).toBe("[n] -> { [i, j] : 0 <= i < n and j = i }");
    // Opposite inequalities that appear only after substitution become equalities, reduced too.
    expect(P.printSet(P.parseSet("{[i,j]: i = j and i >= 0 and j <= 0}"))).toBe("{ [i, j] : i = 0 and j = 0 }");
    // Reducing would leave the safe integers: the equalities stay as tidy left them (exact, stable).
    const big = P.parseSet("{[i,j,k]: 1073741823 i + 3 j + k = 0 and 1162261467 i + 33554431 j + 2k = 7 and 0 <= k}");
    expect(big.constraints.filter((c) => c.eq)).toHaveLength(2);
    expect(P.printSet(P.parseSet(P.printSet(big)))).toBe(P.printSet(big));
    // Combining equalities also exposes integer emptiness: eliminating k leaves even coefficients, odd constant.
    expect(isCanonicalEmpty(P.parseSet("{[i,j,k]: 1073741823 i + 3 j + 5 k = 0 and 1162261467 i + 33554431 j + 7 k = 7}"))).toBe(true);
  });
  it("examples: two existentials that equalities force equal become one (n mod 64 = 0 said twice)", () => {
    const twice = P.intersect(P.parseSet("[n] -> {[i]: 0 <= i < n and n mod 64 = 0}"), P.parseSet("[n] -> {[i]: n mod 64 = 0 and n >= 64}"));
    expect(twice.exists).toHaveLength(1);
    expect(P.printSet(twice)).toBe(P.printSet(P.parseSet("[n] -> {[i]: 0 <= i < n and n mod 64 = 0 and n >= 64}")));
    // Equal only up to sign: -64e1 = -n is the same equality.
    expect(P.parseSet("[n] -> {[i]: exists (a, b: 64a = n and -64b = -n + 0 and i = a + b)}").exists).toHaveLength(1);
    // Not twins: different multiples stay apart (merged, 4e = n and 6e = n would leave only n = 0).
    const both = P.parseSet("[n] -> {[i]: n mod 4 = 0 and n mod 6 = 0 and i = 0}");
    expect([0, 4, 6, 12, 24].map((n) => P.containsPoint(both, { n, i: 0 }))).toEqual([true, false, false, true, true]);
  });
});

/** A random affine row over `names` with small coefficients. */
const rowArb = (names: readonly string[]) =>
  fc.record({ coeffs: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: names.length, maxLength: names.length }), constant: fc.integer({ min: -6, max: 6 }) })
    .map(({ coeffs, constant }) => P.aff(Object.fromEntries(names.flatMap((n, k) => (coeffs[k] ? [[n, coeffs[k]!]] : []))), constant));

describe("row-level helpers of code generation", () => {
  it("for all s, rows: extendSet(s, params, dims + z, rows) = pointwise (s and z in the box and rows)", () => {
    // Two dims plus z keep the brute-force box small (7^3 points per parameter value).
    const arb = setArb({ dims: 2 }).chain((g) => {
      const names = [...g.params, ...g.dims, "z"];
      return fc.tuple(fc.constant(g), fc.array(fc.tuple(rowArb(names), fc.boolean()), { maxLength: 2 }));
    });
    fc.assert(fc.property(arb, ([g, rows]) => {
      const dims = [...g.dims, "z"];
      const box3 = [P.aff({ z: 1 }, B), P.aff({ z: -1 }, B)].map((aff) => ({ aff, eq: false }));
      const cs = [...box3, ...rows.map(([aff, eq]) => ({ aff, eq }))];
      const r = P.extendSet(parse(g), g.params, dims, cs);
      const names = [...g.params, ...dims];
      const t = tester(r);
      return box(names).every((x) => {
        const v = named(names, x);
        const inG = holds(g, [...g.params, ...g.dims].map((n) => v[n]!));
        const inRows = cs.every((c) => (c.eq ? P.affEval(c.aff, v) === 0 : P.affEval(c.aff, v) >= 0));
        return t(v) === (inG && inRows);
      });
    }), RUNS);
  });

  it("for all s, a: isEmptyWith(s, a) = isEmpty(s and a >= 0) = brute force", () => {
    const arb = setArb().chain((g) => fc.tuple(fc.constant(g), rowArb([...g.params, ...g.dims])));
    fc.assert(fc.property(arb, ([g, a]) => {
      const s = parse(g);
      const names = [...g.params, ...g.dims];
      const brute = !box(names).some((x) => holds(g, x) && P.affEval(a, named(names, x)) >= 0);
      return P.isEmptyWith(s, a) === brute && P.isEmpty(P.addConstraints(s, [{ aff: a, eq: false }])) === brute;
    }), RUNS);
  });
});
