/**
 * A kernel of many one-statement @inner phases (nekRS's insSubcycleAdvectionCubatureSurfaceHex3D
 * lowers to 1,091 instructions): the interpreter bound every local iname of the group in every
 * phase, so its code grew with phases × inames (400 phases: 6 MB of JavaScript, and V8's stack
 * overflowed with a message blaming a deep expression). Each phase binds the inames it uses.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { compileKernel } from "../../src/run/interp.js";
import { prepareArgs } from "../../src/run/args.js";

/** `phases` @inner loops, each t[i] = s[(i + b) % 16] * 0.5 + a[e*16 + i] with s and t swapped in turn. */
function phased(phases: number): lp.Kernel {
  let body = "";
  for (let b = 0; b < phases; b++) {
    const [x, y] = b % 2 ? ["t", "s"] : ["s", "t"];
    body += `for (int i = 0; i < 16; ++i; @inner) { ${y}[i] = ${x}[(i + ${b}) % 16] * 0.5 + a[e*16 + i]; }\n`;
  }
  return lp.parseOkl(`@kernel void f(const int N, const double *a, double *out) {
  for (int e = 0; e < N; ++e; @outer) {
    @shared double s[16], t[16];
    for (int i = 0; i < 16; ++i; @inner) { s[i] = a[e*16 + i]; }
${body}    for (int i = 0; i < 16; ++i; @inner) { out[e*16 + i] = ${phases % 2 ? "t" : "s"}[i]; }
  }
}`)[0]!;
}

function model(phases: number, a: Float64Array, N: number): number[] {
  const out: number[] = [];
  for (let e = 0; e < N; e++) {
    let s = Array.from({ length: 16 }, (_, i) => a[e * 16 + i]!);
    for (let b = 0; b < phases; b++) s = s.map((_, i) => s[(i + b) % 16]! * 0.5 + a[e * 16 + i]!);
    out.push(...s);
  }
  return out;
}

const args = (N: number) => ({ N, a: Float64Array.from({ length: 16 * N }, (_, i) => (i % 7) - 3), out: new Float64Array(16 * N) });

describe("the interpreter's code for many @inner phases", () => {
  it("grows with the phases, not with phases × inames", () => {
    const size = (p: number) => compileKernel(prepareArgs(phased(p), args(1), { temporaries: false }).kernel).source.length;
    const [small, large] = [size(40), size(80)];
    expect(large / small).toBeLessThan(2.4);
  });

  it("runs them as the serial meaning says", async () => {
    const { N, a } = args(2);
    const got = (await lp.run(phased(41), args(2))).out as Float64Array;
    const want = model(41, a, N);
    got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 9));
  });
});
