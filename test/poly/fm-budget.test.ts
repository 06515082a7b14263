/**
 * Fourier–Motzkin's work budget: one elimination step combines every lower with every upper bound
 * of the variable, so steps in turn can grow a system until the process runs out of memory (the
 * fuzzer met one in the CPU lowering). A step of more than FM_PAIR_LIMIT pairs is a LoomError
 * naming the sizes, at once; smaller steps still give the exact answer.
 */
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { parseSet } from "../../src/poly/index.js";
import { containsPoint } from "../../src/poly/enumerate.js";
import { FM_PAIR_LIMIT } from "../../src/poly/fm.js";
import { eliminate } from "../../src/poly/project.js";

/** `n` lower and `n` upper bounds on x, none redundant: eliminating x makes n² pairs. */
const fan = (n: number) => {
  const cs: string[] = [];
  for (let i = 1; i <= n; i++) cs.push(`${i}*x >= y + ${i * i}`, `${i}*x <= z + ${7 * i}`);
  return parseSet(`{[x, y, z]: ${cs.join(" and ")}}`);
};

describe("Fourier–Motzkin's budget", () => {
  it("a step past the limit is a LoomError naming its bounds, before any pair is made", () => {
    const n = Math.floor(Math.sqrt(FM_PAIR_LIMIT)) + 1;
    expect(() => eliminate(fan(n), ["x"])).toThrow(LoomError);
    expect(() => eliminate(fan(n), ["x"])).toThrow(`eliminating a variable would combine ${n} lower with ${n} upper bounds (${n * n} new constraints, more than ${FM_PAIR_LIMIT})`);
  });

  it("a step within it gives the exact projection: (y, z) is in it when some x meets every bound", () => {
    const p = eliminate(fan(20), ["x"]);
    // x = 0 meets i*0 >= y + i² and i*0 <= z + 7i for every i <= 20 when y = -1000, z = 1000.
    expect(containsPoint(p, { y: -1000, z: 1000 })).toBe(true);
    // y = z = 0 needs x >= i (i = 20: x >= 20) and x <= 7: no x.
    expect(containsPoint(p, { y: 0, z: 0 })).toBe(false);
  });
});
