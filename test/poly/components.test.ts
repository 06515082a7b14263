/**
 * Independent parts of a constraint system: emptiness decided component by component, and gist
 * contexts whose unrelated boxes are left out of the implication tests. Brute force (plain JS over
 * a box) is the reference; nothing here goes through src/poly to compute the expected answer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePointTest, dimBounds, factorOf, gist, intersect, isEmpty, parseSet, printSet } from "../../src/poly/index.js";

const B = 3;
type RowSpec = { a: number[]; c: number; eq: boolean };

const rowArb = (n: number) => fc.record({
  a: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: n, maxLength: n }),
  c: fc.integer({ min: -6, max: 6 }),
  eq: fc.integer({ min: 0, max: 9 }).map((v) => v < 2),
});

/** `a·x + c >= 0` (or `= 0`) as text over `names`. */
function rowText(r: RowSpec, names: readonly string[]): string {
  const lhs = r.a.map((v, k) => `${v}*${names[k]}`).join(" + ");
  return `${lhs} + ${r.c} ${r.eq ? "=" : ">="} 0`;
}

const holds = (r: RowSpec, x: readonly number[]) => {
  const v = r.a.reduce((s, a, k) => s + a * x[k]!, r.c);
  return r.eq ? v === 0 : v >= 0;
};

/** Every point of the box -B..B over `n` dims. */
function* box(n: number): Generator<number[]> {
  const x = new Array<number>(n).fill(-B);
  for (;;) {
    yield [...x];
    let k = 0;
    while (k < n && x[k] === B) x[k++] = -B;
    if (k === n) return;
    x[k]!++;
  }
}

describe("emptiness by components", () => {
  it("for all systems of two unlinked blocks (x, y) and (z, w): isEmpty agrees with brute force", () => {
    const names = ["x", "y", "z", "w"];
    fc.assert(fc.property(fc.array(rowArb(2), { minLength: 1, maxLength: 3 }), fc.array(rowArb(2), { minLength: 1, maxLength: 3 }), (r1, r2) => {
      const rows: RowSpec[] = [...r1.map((r) => ({ ...r, a: [...r.a, 0, 0] })), ...r2.map((r) => ({ ...r, a: [0, 0, ...r.a] }))];
      const text = `{ [x, y, z, w] : ${[`-${B} <= x <= ${B} and -${B} <= y <= ${B} and -${B} <= z <= ${B} and -${B} <= w <= ${B}`, ...rows.map((r) => rowText(r, names))].join(" and ")} }`;
      let brute = true;
      for (const p of box(4)) if (rows.every((r) => holds(r, p))) brute = false;
      expect(isEmpty(parseSet(text))).toBe(brute);
    }), { numRuns: 150 });
  });

  it("an empty block among feasible ones makes the system empty", () => {
    expect(isEmpty(parseSet("{ [x, y, z] : 0 <= x <= 5 and 0 <= y <= 5 and 2z >= 1 and 2z <= 1 }"))).toBe(true);
    expect(isEmpty(parseSet("{ [x, y, z] : 0 <= x <= 5 and x + y <= 3 and 0 <= y and 3z >= 1 and 3z <= 2 }"))).toBe(true);
    expect(isEmpty(parseSet("{ [x, y, z] : 0 <= x <= 5 and x + y <= 3 and 0 <= y and 3z >= 1 and 3z <= 3 }"))).toBe(false);
  });
});

describe("gist with unrelated boxes in the context", () => {
  it("for all s over (i, j) and contexts with boxes on u, v: the boxes change nothing when they have points", () => {
    const names = ["i", "j"];
    fc.assert(fc.property(
      fc.array(rowArb(2), { minLength: 1, maxLength: 4 }), fc.array(rowArb(2), { maxLength: 3 }),
      fc.integer({ min: -2, max: 2 }), fc.integer({ min: -2, max: 2 }),
      (sRows, cRows, uLo, uHi) => {
        const sText = `{ [i, j, u, v] : -${B} <= i <= ${B} and -${B} <= j <= ${B}${sRows.map((r) => ` and ${rowText(r, names)}`).join("")} }`;
        const inner = cRows.map((r) => rowText(r, names));
        const plain = parseSet(`{ [i, j] ${inner.length > 0 ? `: ${inner.join(" and ")}` : ""} }`);
        const boxed = parseSet(`{ [i, j, u, v] : ${[...inner, `${uLo} <= u <= ${uHi}`, "0 <= v <= 4"].join(" and ")} }`);
        const s = parseSet(sText);
        const g = gist(s, boxed);
        // The law of gist, pointwise over the box: gist(s, c) ∩ c = s ∩ c.
        const lhs = intersect(g, boxed);
        // Compiled once (containsPoint compiles the set at every call: 2,401 points a run).
        const inLhs = compilePointTest(lhs, ["i", "j", "u", "v"]);
        // One expect for the whole box (vitest's expect costs more than the point test).
        let wrong: number[] | null = null;
        for (const p of box(4)) {
          const [i, j, u, v] = p as [number, number, number, number];
          const inC = uLo <= u && u <= uHi && 0 <= v && v <= 4 && cRows.every((r) => holds(r, [i, j]));
          const inS = sRows.every((r) => holds(r, [i, j]));
          if (inLhs(p) !== (inC && inS)) { wrong = p; break; }
        }
        expect(wrong).toBeNull();
        // With points in the boxes, the gist is the one against the context without them.
        if (uLo <= uHi) expect(printSet(g)).toBe(printSet(gist(s, plain)));
      }), { numRuns: 150 });
  });
});

describe("factors", () => {
  it("for all sets of two unlinked blocks over a parameter: factorOf(s, y) is s's projection on y's factor where s has points", () => {
    // Blocks (x, y) and (z, w), both over the parameter n, and a parameter row with an existential
    // (n even, or n a multiple of 3) that every factor carries.
    const names = ["x", "y", "z", "w"];
    const rowOverN = fc.record({ r: rowArb(2), n: fc.integer({ min: -2, max: 2 }) });
    fc.assert(fc.property(
      fc.array(rowOverN, { minLength: 1, maxLength: 3 }), fc.array(rowOverN, { minLength: 0, maxLength: 3 }), fc.constantFrom(2, 3), fc.boolean(),
      (r1, r2, mod, linkW) => {
        const text = (r: { r: RowSpec; n: number }, ns: readonly string[]) => `${rowText(r.r, ns).replace(/ (>=|=) 0$/, "")} + ${r.n}*n ${r.r.eq ? "=" : ">="} 0`;
        const rows = [...r1.map((r) => text(r, ["x", "y"])), ...r2.map((r) => text(r, linkW ? ["z", "w"] : ["z", "z"]))];
        const s = parseSet(`[n] -> { [x, y, z, w] : ${[...names.map((v) => `-${B} <= ${v} <= ${B}`), `n mod ${mod} = 0`, ...rows].join(" and ")} }`);
        const f = factorOf(s, "y");
        // An empty set (a row false for every n) is its own canonical empty set.
        if (f === s && isEmpty(s)) return;
        // y's factor: y, and x when a row links them; never z or w.
        expect([["x", "y"], ["y"]]).toContainEqual([...f.dims]);
        const withX = f.dims.includes("x");
        const sat = (r: { r: RowSpec; n: number }, a: number, b: number, n: number) => {
          const v = r.r.a[0]! * a + r.r.a[1]! * b + r.r.c + r.n * n;
          return r.r.eq ? v === 0 : v >= 0;
        };
        const inFactor = compilePointTest(f, withX ? ["n", "x", "y"] : ["n", "y"]);
        for (let n = -B; n <= B; n++) {
          const inP = n % mod === 0;
          const blockZW = [...box(2)].some(([z, w]) => r2.every((r) => sat(r, z!, linkW ? w! : z!, n)));
          const sHas = inP && blockZW && [...box(2)].some(([x, y]) => r1.every((r) => sat(r, x!, y!, n)));
          for (const [x, y] of box(2)) {
            // s projected on the factor's dims (x free when the factor is y alone).
            const inXY = inP && (withX ? r1.every((r) => sat(r, x!, y!, n)) : [...box(1)].some(([x1]) => r1.every((r) => sat(r, x1!, y!, n))));
            const inF = inFactor(withX ? [n, x!, y!] : [n, y!]);
            // Where s has points, the factor is exactly its projection (where it has none, the
            // other factors may be empty while this one is not: no answer is wrong there).
            if (sHas) expect(inF).toBe(inXY);
          }
        }
      }), { numRuns: 150 });
  });

  it("for all sets of two unlinked blocks: the dims a dim's bounds use are the same from its factor as from the whole set", () => {
    // Barrier placement asks which inames a loop's bounds use of the iname's factor alone.
    const rowOverN = fc.record({ r: rowArb(2), n: fc.integer({ min: -2, max: 2 }) });
    fc.assert(fc.property(
      fc.array(rowOverN, { minLength: 1, maxLength: 3 }), fc.array(rowOverN, { minLength: 0, maxLength: 3 }), fc.constantFrom(2, 3),
      (r1, r2, mod) => {
        const text = (r: { r: RowSpec; n: number }, ns: readonly string[]) => `${rowText(r.r, ns).replace(/ (>=|=) 0$/, "")} + ${r.n}*n ${r.r.eq ? "=" : ">="} 0`;
        const rows = [...r1.map((r) => text(r, ["x", "y"])), ...r2.map((r) => text(r, ["z", "w"]))];
        const s = parseSet(`[n] -> { [x, y, z, w] : ${[...["x", "y", "z", "w"].map((v) => `-${B} <= ${v} <= ${B}`), `n mod ${mod} = 0`, ...rows].join(" and ")} }`);
        const used = (t: typeof s) => {
          const b = dimBounds(t, "y", t.dims.filter((d) => d !== "y"));
          return [...new Set([...b.lower, ...b.upper].flatMap((x) => Object.keys(x.aff.terms)).filter((v) => t.dims.includes(v)))].sort();
        };
        const f = factorOf(s, "y");
        expect(used(f)).toEqual(used(s));
      }), { numRuns: 100 });
  });

  it("a set of one factor is its own factor; a dim no row links stands alone", () => {
    const s = parseSet("[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }");
    expect(factorOf(s, "j")).toBe(s);
    const t = parseSet("[n] -> { [io, ii, a] : 0 <= ii < 16 and 0 <= 16io + ii < n and 0 <= a < 8 and n mod 64 = 0 }");
    expect(printSet(factorOf(t, "ii"))).toBe(printSet(parseSet("[n] -> { [io, ii] : 0 <= ii < 16 and 0 <= 16io + ii < n and n mod 64 = 0 }")));
    expect(printSet(factorOf(t, "a"))).toBe(printSet(parseSet("[n] -> { [a] : 0 <= a < 8 and n mod 64 = 0 }")));
    expect(printSet(factorOf(t, ["a", "io"]))).toBe(printSet(t));
    expect(factorOf(t, "a")).toBe(factorOf(t, "a"));
    expect(factorOf(t, [])).toEqual(parseSet("[n] -> { [] : n mod 64 = 0 }"));
  });
});
