/**
 * Law: the native backends' bounds proof (src/run/bounds.ts, on piecewise quasi-affine
 * subscripts) refuses a kernel exactly when the interpreter, which checks every access as it
 * runs, finds an access outside its array.
 */
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { checkBounds, run } from "../../src/run/index.js";

const leaf = fc.oneof(fc.constant("i"), fc.constant("j"), fc.integer({ min: -3, max: 6 }).map(String), fc.constant("n"));
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof({ depthSize: "small", withCrossShrink: true },
    leaf,
    fc.tuple(tie("e"), fc.constantFrom("+", "-"), tie("e")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(tie("e"), fc.integer({ min: -3, max: 4 })).map(([a, c]) => `${c}*${a}`),
    fc.tuple(tie("e"), fc.constantFrom("//", "%"), fc.integer({ min: 1, max: 5 })).map(([a, op, c]) => `(${a} ${op} ${c})`),
    fc.tuple(tie("e"), fc.constantFrom("<", "<=", "==", "!="), tie("e"), tie("e"), tie("e")).map(([a, op, b, x, y]) => `if(${a} ${op} ${b}, ${x}, ${y})`),
    fc.tuple(fc.constantFrom("min", "max"), tie("e"), tie("e")).map(([f, a, b]) => `${f}(0 + ${a}, ${b})`),
  ),
})).e;

const stats = { cases: 0, oob: 0, unprovable: 0 };

describe("bounds proof", () => {
  afterAll(() => {
    console.log(`bounds law: ${stats.cases} cases, ${stats.oob} out of bounds, ${stats.unprovable} refused as unprovable`);
    expect(stats.unprovable).toBeLessThan(stats.cases / 20);
  });

  it("refuses exactly the kernels whose run reads outside an array", async () => {
    await fc.assert(fc.asyncProperty(expr, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 12 }), fc.option(expr, { nil: undefined }),
      async (sub, n, len, pred) => {
        const assign = `out[i, j] = a[${sub}]`;
        const insn = pred ? `if ${pred} >= 0\n  ${assign}\nend` : assign;
        const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", insn, ["a: float32[len]", "out: float32[n, n]", "n, len: int32"]);
        const a = new Float32Array(len);
        let interpOob = false;
        try {
          await run(k, { a, n, len });
        } catch (e) {
          if (!(e instanceof ExecutionError) || !/outside|past|bounds|extent/.test(e.message)) throw e;
          interpOob = true;
        }
        let proofFails = false;
        let unprovable = false;
        try {
          checkBounds(k, new Map([["n", n], ["len", len]]), new Map([["a", { extents: [len], size: len }], ["out", { extents: [n, n], size: n * n }]]));
        } catch (e) {
          if (!(e instanceof ExecutionError)) throw e;
          proofFails = true;
          unprovable = /not affine/.test(e.message); // unprovable subscript, or a predicate the proof could not use
        }
        // Too many pieces to reason about is a refusal on the safe side, never a wrong "in bounds".
        if (unprovable) stats.unprovable++;
        else expect(proofFails, `${insn} with n=${n}, len=${len}`).toBe(interpOob);
        stats.cases++;
        if (interpOob) stats.oob++;
      }), { numRuns: 300 });
  });
});
