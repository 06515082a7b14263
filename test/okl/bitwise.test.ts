/** OKL's bitwise operators and compound assignments lower to the IR's, and run as C computes them. */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { OklError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { nativeAvailable } from "../run/native-helpers.js";

const one = (src: string) => parseOkl(src)[0]!;

describe("OKL masks", () => {
  const k = one(`@kernel void masks(const int n, const unsigned int *a, unsigned int *out, int *bits) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
        unsigned int x = a[i] & 0xF0u;
        x |= (a[i] >> 28) & 0x3;
        x ^= ~a[i] << 30;
        x <<= 1;
        x >>= 1;
        out[i] = x;
        int b = (int) (a[i] & 0xFF);
        b &= 0x7;
        bits[i] = (b << 2) | (i & 1) ^ (n >> 1);
      }
    }`);

  it("imports: C's & | ^ ~ << >> and &= |= ^= <<= >>= become the IR's operators", () => {
    const text = JSON.stringify(k.instructions);
    for (const op of ["&", "|", "^", "<<", ">>"]) expect(text).toContain(`"op":"${op}"`);
    expect(text).toContain(`"kind":"bitnot"`);
  });

  it("runs as C does", async () => {
    const a = Uint32Array.of(0x12345678, 0xffffffff, 0, 0xc00000f5, 7);
    const n = a.length;
    const r = await run(k, { n, a, out: new Uint32Array(n), bits: new Int32Array(n) });
    const model = [...a].map((v) => {
      let x = (v & 0xf0) >>> 0;
      x = (x | ((v >>> 28) & 3)) >>> 0;
      x = (x ^ ((~v << 30) >>> 0)) >>> 0;
      x = (x << 1) >>> 0;
      return x >>> 1;
    });
    expect([...r.out as Uint32Array]).toEqual(model);
    expect([...r.bits as Int32Array]).toEqual([...a].map((v, i) => (((v & 0xff) & 7) << 2) | ((i & 1) ^ (n >> 1))));
  });

  it.skipIf(!nativeAvailable("c"))("runs on the c backend as on the interpreter", async () => {
    const a = Uint32Array.of(0x12345678, 0xffffffff, 0, 0xc00000f5, 7);
    const inputs = () => ({ n: a.length, a, out: new Uint32Array(a.length), bits: new Int32Array(a.length) });
    const ref = await run(k, inputs());
    const c = await run(k, inputs(), { backend: "c" });
    expect([...c.out as Uint32Array]).toEqual([...ref.out as Uint32Array]);
    expect([...c.bits as Int32Array]).toEqual([...ref.bits as Int32Array]);
  });

  it("lowers to every C-family target and to OKL again", () => {
    for (const t of ["c", "openmp", "opencl", "cuda", "okl"] as const) expect(generateCode(k, t).deviceCode).toMatch(/<<|>>/);
  });
});

describe("what OKL bitwise code is refused", () => {
  it("a float operand is an OklError, as C rejects it", () => {
    const src = `@kernel void f(const int n, const float *a, int *out) {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) out[i] = a[i] & 1; }`;
    expect(() => one(src)).toThrow(OklError);
    expect(() => one(src)).toThrow(/needs integer operands.*\(int\)/);
  });
});
