/**
 * Scalar (0-d) outputs and global scalar temporaries (issues 15.3, 16.4): a 0-d array argument and
 * a 0-d global temporary are pointers to one element (`out[0]`) on every target. The js backend
 * wrote a local and returned 0; C assigned a value to the pointer (float: no compile, int: 0).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel, TargetName } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, setTemporaryAddressSpace, splitIname } from "../../transforms/index.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

const n = 11;
const af = Float32Array.from({ length: n }, (_, i) => (i * 7) % 5 - 1.5);
const ai = Int32Array.from({ length: n }, (_, i) => (i * 7) % 5 - 1);
const sumOf = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, x) => Math.fround(s + x), 0);

const sumInto = (dtype: "float32" | "int32"): Kernel =>
  makeKernel("{[i]: 0<=i<n}", "out = sum(i, a[i])", [`a: ${dtype}[n]`, `out: ${dtype}[]`, "n: int32"], { name: `scalar_${dtype}` });

describe("out = sum(i, a[i]) into a 0-d argument", () => {
  for (const dtype of ["float32", "int32"] as const) {
    const a = dtype === "float32" ? af : ai;
    it(`${dtype}: every backend gives the sum`, async () => {
      await expectOnEveryBackend(sumInto(dtype), { a }, { out: [sumOf(a)] });
    }, 60_000);
    it(`${dtype}: split sequentially`, async () => {
      await expectOnEveryBackend(splitIname(sumInto(dtype), "i", 4), { a }, { out: [sumOf(a)] });
    }, 60_000);
    it(`${dtype}: split with the inner part on l.0 (a work-group reduction)`, async () => {
      await expectOnEveryBackend(splitIname(sumInto(dtype), "i", 4, { innerTag: "l.0" }), { a }, { out: [sumOf(a)] });
    }, 60_000);
  }

  it("max and product into 0-d outputs, read back in the same kernel", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["m = max(i, a[i]) {id=m}", "p = product(i, a[i] + 2) {id=p}", "both[0] = m + p {dep=m:p}"],
      ["a: float32[n]", "m: float32[]", "p: float32[]", "both: float32[1]", "n: int32"]);
    const m = Math.max(...af);
    const p = Array.from(af).reduce((s, x) => Math.fround(s * Math.fround(x + 2)), 1);
    await expectOnEveryBackend(k, { a: af }, { m: [m], p: [p], both: [Math.fround(m + p)] });
  }, 60_000);

  it("every target prints the store as the pointer's one cell", () => {
    for (const t of ["c", "openmp", "opencl", "cuda", "okl", "js"] as TargetName[]) {
      const code = generateCode(sumInto("float32"), t).deviceCode;
      expect(code, t).toMatch(/out\[0\] = acc_i;/);
      expect(code, t).not.toMatch(/(^|[^\w[])out = /m);
    }
  });
});

describe("global scalar temporaries (issue 16.4)", () => {
  const withTemp = () => makeKernel("{[i]: 0<=i<n}", ["<float32> s = sum(i, a[i]) {id=r}", "out[0] = 2*s {dep=r}"],
    ["a: float32[n]", "out: float32[1]", "n: int32"], { name: "global_scalar" });
  const expected = [Math.fround(2 * sumOf(af))];

  it("setTemporaryAddressSpace(k, \"s\", \"global\") on a reduction result", async () => {
    const k = setTemporaryAddressSpace(withTemp(), "s", "global");
    expect(generateCode(k, "c").deviceCode).toMatch(/s\[0\] = acc_i;\n\s*out\[0\] = 2\.0f \* s\[0\];/);
    await expectOnEveryBackend(k, { a: af }, { out: expected });
  }, 60_000);

  it("the same with the reduction split onto l.0", async () => {
    const k = setTemporaryAddressSpace(splitIname(withTemp(), "i", 4, { innerTag: "l.0" }), "s", "global");
    await expectOnEveryBackend(k, { a: af }, { out: expected });
  }, 60_000);

  it("addPrefetch with no sweep inames into a global temporary", async () => {
    const k0 = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] * c[2]", ["a: float32[n]", "c: float32[4]", "out: float32[n]", "n: int32"]);
    const k = addPrefetch(k0, "c[2]", { sweepInames: [], temporaryAddressSpace: "global" });
    const c = Float32Array.from([1, 2, 3.5, 4]);
    await expectOnEveryBackend(k, { a: af, c }, { out: Array.from(af, (x) => Math.fround(x * 3.5)) });
  }, 60_000);
});
