// Intersections of sets over disjoint columns, side by side (src/poly/side-by-side.ts, issue 21):
// where both sets are in normal form, their rows sorted together are the normal form of the
// intersection. Law: the same content as the normalizing route, for random pairs (boxes and rows
// over the second set's own dims, with and without existentials and parameters; pairs whose rows
// share a column, or with a set not in normal form, take the normalizing route).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { intersect, parseSet, polyCounts, setContentId } from "../../src/poly/index.js";
import { intersectByNormalizing } from "../../src/poly/ops.js";
import { rawSet } from "../../src/poly/rows.js";
import type { BasicSet } from "../../src/poly/index.js";

/** `s` not in normal form: its rows reversed and its last row twice (the normalizing route drops the copy). */
const unnormalized = (s: BasicSet): BasicSet =>
  (s.constraints.length === 0 ? s : rawSet(s.params, s.dims, s.exists, [...s.constraints].reverse().concat([s.constraints[s.constraints.length - 1]!])));

const coef = fc.integer({ min: -3, max: 3 });
const row = (names: readonly string[]) => fc.record({ cs: fc.array(coef, { minLength: names.length, maxLength: names.length }), c: fc.integer({ min: -6, max: 8 }), op: fc.constantFrom(">=", "=") })
  .map(({ cs, c, op }) => {
    const terms = cs.flatMap((v, k) => (v === 0 ? [] : [`${v}*${names[k]}`]));
    return terms.length === 0 ? "" : `${terms.join(" + ")} + ${c} ${op} 0`;
  });

/** A set over `dims` (and `params`): a box of its dims among `over`, a few rows over `over`, maybe a divisibility of the first name of `over`. */
const setOver = (params: readonly string[], dims: readonly string[], over: readonly string[]) => fc.record({
  lo: fc.array(fc.integer({ min: -2, max: 1 }), { minLength: dims.length, maxLength: dims.length }),
  hi: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: dims.length, maxLength: dims.length }),
  rows: fc.array(row(over), { maxLength: 3 }),
  mod: fc.constantFrom(0, 0, 2, 4),
}).map(({ lo, hi, rows, mod }) => {
  const cons = dims.flatMap((d, k) => (over.includes(d) ? [`${lo[k]} <= ${d} <= ${hi[k]}`] : []));
  for (const r of rows) if (r !== "") cons.push(r);
  if (mod > 1) cons.push(`${over[0]} mod ${mod} = 0`);
  return parseSet(`[${params.join(", ")}] -> { [${dims.join(", ")}] : ${cons.join(" and ")} }`);
});

const pairArb = fc.oneof(
  // Disjoint: the loop nest's projection (over n, i, k) and a fetch's box over its own dims.
  fc.tuple(setOver(["n"], ["i", "k"], ["n", "i", "k"]), setOver(["n", "i", "k"], ["x", "y"], ["x", "y"])),
  fc.tuple(setOver([], ["i"], ["i"]), setOver(["m"], ["x", "y"], ["x", "y"])),
  // A parameter of the first set is a dim of the second, which its rows do not use: the first set's
  // columns change order (x moves after i), and its equalities would pivot elsewhere.
  fc.tuple(setOver(["x"], ["i"], ["x", "i"]), setOver([], ["x", "y"], ["y"])),
  // Not in normal form: the normalizing route.
  fc.tuple(setOver(["n"], ["i", "k"], ["n", "i", "k"]), setOver(["n", "i", "k"], ["x", "y"], ["x", "y"]).map(unnormalized)),
  // Shared columns (a row of the second set over a parameter of the first): the normalizing route.
  fc.tuple(setOver(["n"], ["i", "k"], ["n", "i", "k"]), setOver(["n"], ["x"], ["n", "x"])),
);

describe("intersections side by side (issue 21)", () => {
  it("are the normal form the normalizing route makes", () => {
    const c0 = polyCounts().sideBySide;
    fc.assert(fc.property(pairArb, ([a, b]) => {
      expect(setContentId(intersect(a, b))).toBe(setContentId(intersectByNormalizing(a, b)));
    }), { numRuns: 300 });
    // Many disjoint pairs take the side-by-side route (the law is about it).
    expect(polyCounts().sideBySide - c0).toBeGreaterThan(30);
  });
});
