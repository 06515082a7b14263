// polyCounts (src/poly/memo.ts, issue 21): the work under the answers, counted where time is
// noise. A question computed once counts its work; asked again of new objects with the same
// content, it counts none; factoring counts once per set object and per factor restricted, and a
// factor whose content was interned before is not built again.
import { describe, expect, it } from "vitest";
import { clearPolyMemos, factorOf, intersect, parseSet, polyCounts, type PolyCounts } from "../../src/poly/index.js";

const since = (c0: PolyCounts) => {
  const c1 = polyCounts();
  return { answers: c1.answers - c0.answers, setsBuilt: c1.setsBuilt - c0.setsBuilt, normalizations: c1.normalizations - c0.normalizations, factorings: c1.factorings - c0.factorings, restrictions: c1.restrictions - c0.restrictions, factorsBuilt: c1.factorsBuilt - c0.factorsBuilt };
};

describe("polyCounts", () => {
  it("counts an intersection's normalization and set once, and nothing when it is remembered", () => {
    clearPolyMemos();
    const a = () => parseSet("[n] -> { [i, j] : 0 <= i < n and 0 <= j < 4 }");
    const b = () => parseSet("[n] -> { [i, j] : i <= j }");
    const [x, y] = [a(), b()];
    let c0 = polyCounts();
    intersect(x, y);
    const first = since(c0);
    expect(first.answers).toBe(1);
    expect(first.normalizations).toBe(1);
    expect(first.setsBuilt).toBe(1);
    const [x2, y2] = [a(), b()];
    c0 = polyCounts();
    intersect(x2, y2);
    expect(since(c0)).toEqual({ answers: 0, setsBuilt: 0, normalizations: 0, factorings: 0, restrictions: 0, factorsBuilt: 0 });
  });

  it("counts factoring once per set object, restrictions per factor, and builds a repeated factor once", () => {
    clearPolyMemos();
    const text = (m: number) => `[n] -> { [i, j] : 0 <= i < n and 0 <= ${m}j < n }`;
    const s = parseSet(text(2));
    let c0 = polyCounts();
    factorOf(s, "i");
    factorOf(s, "j");
    factorOf(s, "i");
    expect(since(c0)).toMatchObject({ factorings: 1, restrictions: 2, factorsBuilt: 2, answers: 0 });
    // Another set with the same i factor: factored and restricted anew, the i factor not built.
    const t = parseSet(text(3));
    c0 = polyCounts();
    expect(factorOf(t, "i")).toBe(factorOf(s, "i"));
    expect(since(c0)).toMatchObject({ factorings: 1, restrictions: 1, factorsBuilt: 0 });
  });
});
