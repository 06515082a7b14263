/** OKL's `@atomic` with = += -= &= |= ^= ++ --: atomic updates (and exchanges) of the IR, on every target. */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { OklError } from "../../src/errors.js";
import { exprToString, type Assignment } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";

const kernel = (stmt: string) => parseOkl(`@kernel void f(const unsigned int *m, unsigned int *mask) {
    for (int i = 0; i < 4; ++i; @outer) { for (int j = 0; j < 8; ++j; @inner) { ${stmt} } } }`)[0]!;
const atomicInsns = (stmt: string) => kernel(stmt).instructions.filter((i): i is Assignment => i.kind === "assign" && i.atomicity === "update");

describe("@atomic imports as an atomic update of the IR", () => {
  const cases: readonly [string, string][] = [
    ["@atomic *mask &= m[j];", "mask[0] & m[j]"], ["@atomic *mask |= m[j];", "mask[0] | m[j]"],
    ["@atomic *mask ^= m[j];", "mask[0] ^ m[j]"], ["@atomic *mask += m[j];", "mask[0] + m[j]"],
    ["@atomic *mask -= m[j];", "mask[0] - m[j]"], ["@atomic mask[0]--;", "mask[0] - 1"],
    ["@atomic *mask = m[j];", "m[j]"],
  ];
  for (const [stmt, rhs] of cases) {
    it(`${stmt} is mask[0] = ${rhs}, atomic`, () => {
      const [insn] = atomicInsns(stmt);
      expect(exprToString(insn!.rhs).replace(/\s+/g, "")).toBe(rhs.replace(/\s+/g, ""));
    });
  }

  it("each target writes its own atomic: atomicAnd, atomic_or, `omp atomic` ^=, `omp atomic write`, @atomic again", () => {
    expect(generateCode(kernel("@atomic *mask &= m[j];"), "cuda").deviceCode).toContain("atomicAnd(&mask[0], m[");
    expect(generateCode(kernel("@atomic *mask |= m[j];"), "opencl").deviceCode).toContain("atomic_or(&mask[0], m[");
    expect(generateCode(kernel("@atomic *mask ^= m[j];"), "openmp").deviceCode).toMatch(/#pragma omp atomic\n\s*mask\[0\] \^= m\[/);
    expect(generateCode(kernel("@atomic *mask = m[j];"), "openmp").deviceCode).toMatch(/#pragma omp atomic write\n\s*mask\[0\] = m\[/);
    expect(generateCode(kernel("@atomic *mask -= m[j];"), "cuda").deviceCode).toContain("atomicSub(&mask[0], m[");
    expect(generateCode(kernel("@atomic *mask |= m[j];"), "okl").deviceCode).toContain("@atomic mask[0] |= m[");
  });

  it("other operators, and an exchange whose value reads the target, are OklErrors", () => {
    expect(() => kernel("@atomic *mask *= m[j];")).toThrow(OklError);
    expect(() => kernel("@atomic *mask = 2 * *mask;")).toThrow(/the value must not read the target itself/);
  });
});

describe("@atomic |= ^= &= from 32 work-items: every backend agrees with the interpreter", () => {
  const k = parseOkl(`@kernel void f(const unsigned int *m, unsigned int *o, unsigned int *x, unsigned int *a) {
    for (int i = 0; i < 4; ++i; @outer) { for (int j = 0; j < 8; ++j; @inner) {
      @atomic o[j % 3] |= m[8 * i + j];
      @atomic x[j % 2] ^= m[8 * i + j];
      @atomic a[j % 3] &= ~m[8 * i + j];
    } } }`)[0]!;
  const m = Uint32Array.from({ length: 32 }, (_, i) => (i * 2654435761) >>> 0);
  const inputs = () => ({ m, o: new Uint32Array(3), x: new Uint32Array(2), a: new Uint32Array(3).fill(0xffffffff) });
  for (const backend of ["js", ...availableNative(["c", "openmp", "opencl"])] as const) {
    it(backend, async () => {
      const want = await run(k, inputs());
      const got = await run(k, inputs(), { backend });
      for (const name of ["o", "x", "a"] as const) expect([...got[name]!], name).toEqual([...want[name]!]);
      expect([...want.o!].every((v) => v !== 0)).toBe(true);
    }, 60_000);
  }
});
