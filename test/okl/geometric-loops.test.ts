/**
 * Issue 20, libParanumal's bitonicSortStructs: plain loops updated by a constant shift (`size <<= 1`,
 * `stride >>= 1`) whose bodies hold barriers and @inner loops run in lockstep on all work-items
 * (src/okl/lower/geometric.ts): a counter iname with the iterator `S << k*t`, `S >> k*t`, its
 * trip count computed by the host where start and bound are value arguments, else bounded by the
 * type's width with the condition as a predicate; the same for `*= k` and `/= k`. Kernels in the style of those code bases (a
 * block bitonic sort through @shared memory, a tree reduction, a per-block shift schedule), each
 * on interp and openmp against the serial meaning; C's loops that never end or overflow are
 * ExecutionErrors before the launch; forms that cannot be proven are OklErrors with line:column.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError, OklError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { withDerivedArgs } from "../../src/run/derived-args.js";
import { kernelFromJSON, kernelToJSON } from "../../src/tune/executor/kernel-json.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, realWorldBackends, seeded } from "./real-world-helpers.js";

// Each block of 2*p_B keys sorted ascending (ids follow their keys) by a bitonic network through
// @shared memory; keys past N act as +infinity (never swapped), so any N sorts.
const BLOCK_SORT = `
#define p_B 8
@kernel void blockSort(const int N, double *keys, int *ids) {
  for (int b = 0; b < (N + 2*p_B - 1)/(2*p_B); ++b; @outer) {
    @shared double s_k[2*p_B];
    @shared int s_i[2*p_B];
    for (int t = 0; t < p_B; ++t; @inner) {
      const int g = b*2*p_B + t;
      if (g < N) { s_k[t] = keys[g]; s_i[t] = ids[g]; }
      if (g + p_B < N) { s_k[t + p_B] = keys[g + p_B]; s_i[t + p_B] = ids[g + p_B]; }
    }
    const int span = (N < 2*p_B) ? N : 2*p_B;
    for (int size = 2; size < 2*span; size <<= 1) {
      @barrier("local");
      for (int t = 0; t < p_B; ++t; @inner) {
        const int lo = 2*t - (t & (size/2 - 1));
        const int hi = lo + size - 1 - 2*(t % (size/2));
        if (b*2*p_B + hi < N && s_k[lo] > s_k[hi]) {
          const double k0 = s_k[lo]; s_k[lo] = s_k[hi]; s_k[hi] = k0;
          const int i0 = s_i[lo]; s_i[lo] = s_i[hi]; s_i[hi] = i0;
        }
      }
      for (int stride = size/4; stride > 0; stride >>= 1) {
        @barrier("local");
        for (int t = 0; t < p_B; ++t; @inner) {
          const int lo = 2*t - (t & (stride - 1));
          const int hi = lo + stride;
          if (b*2*p_B + hi < N && s_k[lo] > s_k[hi]) {
            const double k0 = s_k[lo]; s_k[lo] = s_k[hi]; s_k[hi] = k0;
            const int i0 = s_i[lo]; s_i[lo] = s_i[hi]; s_i[hi] = i0;
          }
        }
      }
    }
    @barrier("local");
    for (int t = 0; t < p_B; ++t; @inner) {
      const int g = b*2*p_B + t;
      if (g < N) { keys[g] = s_k[t]; ids[g] = s_i[t]; }
      if (g + p_B < N) { keys[g + p_B] = s_k[t + p_B]; ids[g + p_B] = s_i[t + p_B]; }
    }
  }
}`;

// A tree reduction of 64 values per element, halving from a stride the host passes.
const TREE_SUMS = `
@kernel void treeSums(const int Nelements, const int half, const double *x, double *sums) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared double s_x[64];
    for (int n = 0; n < 64; ++n; @inner) s_x[n] = x[64*e + n];
    for (int stride = half; stride > 0; stride >>= 1) {
      @barrier("local");
      for (int n = 0; n < 64; ++n; @inner) if (n < stride && n + stride < 64) s_x[n] += s_x[n + stride];
    }
    @barrier("local");
    for (int n = 0; n < 64; ++n; @inner) if (n == 0) sums[e] = s_x[0];
  }
}`;

// Growing schedules with start and bound from the host (a shift, a product), and per-block
// decreasing ones (their start reads the block index: bounded by the type's width, the condition
// a predicate): a 64-bit right shift by 2 and a quotient by 3.
const SCHEDULES = `
@kernel void schedules(const int Nblocks, const int first, const int limit, int *grow, int *shrink) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    @shared int s_c[4];
    for (int t = 0; t < 4; ++t; @inner) s_c[t] = 0;
    for (int w = first; w < limit; w <<= 1) {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 0) s_c[0] = (3*s_c[0] + w) % 1000003;
    }
    for (int w = first; w <= limit; w = w * 3) {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 2) s_c[2] = (7*s_c[2] + w) % 1000003;
    }
    for (long d = 3*b - 4; d >= 1; d >>= 2) {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 1) s_c[1] = 5*s_c[1] + (int) d;
    }
    for (int q = 11*b - 20; q > 0; q /= 3) {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 3) s_c[3] = 2*s_c[3] + q;
    }
    @barrier("local");
    for (int t = 0; t < 4; ++t; @inner) {
      if (t == 0) grow[2*b] = s_c[0];
      if (t == 2) grow[2*b + 1] = s_c[2];
      if (t == 1) shrink[2*b] = s_c[1];
      if (t == 3) shrink[2*b + 1] = s_c[3];
    }
  }
}`;

function sortedBlocks(keys: readonly number[], ids: readonly number[]): { keys: number[]; ids: number[] } {
  const outK: number[] = [], outI: number[] = [];
  for (let b = 0; b < keys.length; b += 16) {
    const pairs = keys.slice(b, b + 16).map((k, j) => [k, ids[b + j]!] as const).sort((p, q) => p[0] - q[0]);
    for (const [k, i] of pairs) outK.push(k), outI.push(i);
  }
  return { keys: outK, ids: outI };
}

describe("a bitonic sort through @shared memory: `size <<= 1` around `stride >>= 1`, each trip a barrier", () => {
  const [k] = parseOkl(BLOCK_SORT);

  it("the outer loop's trip count is a value argument the host computes; the inner one runs within the type's width", () => {
    expect(k!.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["b_end", "size_trip"]);
    expect(k!.args.map((a) => a.name)).toEqual(["N", "keys", "ids", "b_end", "size_trip"]);
    // The tuner's job files keep the host's count.
    expect(kernelFromJSON(kernelToJSON(k!)).oklOptions?.derivedArgs).toEqual(k!.oklOptions?.derivedArgs);
  });

  it("sorts every block, for sizes 0, 1, non-powers of two and several blocks, as the serial meaning", async () => {
    const check = async (N: number) => {
      const keys = seeded(Math.max(N, 1), N + 11).slice(0, N);
      const ids = keys.map((_, i) => i);
      const want = sortedBlocks(keys, ids);
      // Arrays one longer than N: the element past the end must stay as it was.
      await expectSerialMeaning(k!, () => ({ N, keys: Float64Array.from([...keys, 7]), ids: Int32Array.from([...ids, -7]) }),
        { keys: [...want.keys, 7], ids: [...want.ids, -7] }, 0, { checkBounds: false });
    };
    for (const N of [0, 1, 5, 13]) await check(N);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 14, max: 40 }), check), { numRuns: 2, seed: 30 });
  });
});

describe("a right shift from a value argument: the host counts the trips", () => {
  const [k] = parseOkl(TREE_SUMS);

  it("tree sums as the serial meaning, for strides 0, negative, powers of two and others", async () => {
    expect(k!.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["stride_trip"]);
    const E = 2;
    const x = seeded(64 * E, 5);
    for (const half of [-3, 0, 1, 5, 32, 40]) {
      const sums = Array.from({ length: E }, (_, e) => {
        const s = x.slice(64 * e, 64 * e + 64);
        for (let stride = half; stride > 0; stride >>= 1) for (let n = 0; n < stride && n + stride < 64; n++) s[n]! += s[n + stride]!;
        return s[0]!;
      });
      await expectSerialMeaning(k!, () => ({ Nelements: E, half, x: Float64Array.from(x), sums: new Float64Array(E) }), { sums }, 1e-12, { checkBounds: false });
    }
  });
});

describe("a growing schedule from the host and a per-block right shift bounded by the width", () => {
  const [k] = parseOkl(SCHEDULES);
  const serial = (Nblocks: number, first: number, limit: number) => {
    const grow: number[] = [], shrink: number[] = [];
    for (let b = 0; b < Nblocks; b++) {
      let c0 = 0, c1 = 0, c2 = 0, c3 = 0;
      for (let w = first; w < limit; w *= 2) c0 = (3 * c0 + w) % 1000003;
      for (let w = first; w <= limit; w *= 3) c2 = (7 * c2 + w) % 1000003;
      for (let d = 3 * b - 4; d >= 1; d = Math.floor(d / 4)) c1 = 5 * c1 + d;
      for (let q = 11 * b - 20; q > 0; q = Math.trunc(q / 3)) c3 = 2 * c3 + q;
      grow.push(c0, c2), shrink.push(c1, c3);
    }
    return { grow, shrink };
  };

  it("agrees with the serial meaning (negative and zero starts run no trip)", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 14 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: -5, max: 5000 }), async (Nblocks, first, limit) => {
      const args = () => ({ Nblocks, first, limit, grow: new Int32Array(Math.max(2*Nblocks, 1)), shrink: new Int32Array(Math.max(2*Nblocks, 1)) });
      const want = serial(Nblocks, first, limit);
      const pad = (a: number[]) => (Nblocks === 0 ? [0] : a);
      await expectSerialMeaning(k!, args, { grow: pad(want.grow), shrink: pad(want.shrink) }, 0);
    }), { numRuns: 3, seed: 31 });
  });

  it("C's loop that never ends, shifts a negative value or overflows is an ExecutionError before any launch", async () => {
    const cases: [number, number, RegExp][] = [
      [0, 5, /argument "w_trip".*never ends \(its value stays 0/],
      [-1, 5, /argument "w_trip".*shifts the negative value -1 left/],
      [1, 2147483647, /argument "w_trip".*1073741824 << 1 = 2147483648 passes int32's range/],
      [2, 1073741824, /argument "w_trip_0".*774840978 \* 3 = 2324522934 passes int32's range/],
    ];
    for (const backend of realWorldBackends()) {
      for (const [first, limit, msg] of cases) {
        const grow = new Int32Array([9, 9, 9, 9]);
        const p = run(k!, { Nblocks: 2, first, limit, grow, shrink: new Int32Array(4) } as never, { backend } as never);
        await expect(p, `${backend}: ${first}, ${limit}`).rejects.toThrow(ExecutionError);
        await expect(run(k!, { Nblocks: 2, first, limit, grow, shrink: new Int32Array(4) } as never, { backend } as never)).rejects.toThrow(msg);
        expect(Array.from(grow)).toEqual([9, 9, 9, 9]);
      }
    }
  });
});

describe("shift loops that cannot be proven to run C's trips are refused with line and column", () => {
  const wrap = (loop: string, body = "s_c[0] += 1;") => `@kernel void f(const int n, const int m, const int *cnt, int *out) {
  for (int b = 0; b < n; ++b; @outer) {
    @shared int s_c[1];
    int r = m + b;
    int q = 1;
    for (int t = 0; t < 4; ++t; @inner) { q = t; if (t == 0) s_c[0] = 0; }
    ${loop} {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 0) { ${body} }
    }
    @barrier("local");
    for (int t = 0; t < 4; ++t; @inner) if (t == 0) out[b] = s_c[0];
  }
}`;
  const cases: [string, string | undefined, RegExp][] = [
    ["for (int d = b + 1; d < 64; d <<= 1)", undefined, /:7:\d+: loop "d".*its start is not computed from value arguments and constants alone.*a growing loop is supported where start and bound are/],
    ["for (int d = b; d > m; d >>= 1)", undefined, /:7:\d+: loop "d".*the bound must be a compile-time constant >= 0.*a bound read at run time/],
    ["for (int d = b; d > -1; d >>= 1)", undefined, /:7:\d+: loop "d".*the bound -1 may keep it running forever/],
    ["for (int d = b; d >= 0; d >>= 1)", undefined, /:7:\d+: loop "d".*constant >= 1.*the bound 0/],
    ["for (int d = n; d < 64; d >>= 1)", undefined, /:7:\d+: loop "d".*decreases "d" but the condition is "d < …"/],
    // A const argument the kernel only reads is uniform (real-world-uniform-loops.test.ts); one it writes is not.
    ["for (int d = out[b]; d > 0; d >>= 1)", undefined, /:7:\d+: loop "d".*its start reads memory \("out", which is not a `const` argument the kernel only reads\), which may differ between the work-items/],
    ["for (int d = q; d > 0; d >>= 1)", undefined, /:7:\d+: loop "d".*its start reads the private variable "q.*", assigned inside an @inner loop, which may differ/],
    ["for (int z = 0; z < n; ++z) for (int d = r; d > 0; d >>= 1)", undefined, /:7:\d+: loop "d".*the private variable "r.*" inside loop "z"/],
    ["for (int d = 1; d < 2*r; d <<= 1)", undefined, /:7:\d+: loop "d".*its bound is not computed from value arguments and constants alone/],
    ["for (int d = n; d > 0; d = d/2 + 1)", undefined, /:7:\d+: loop "d": a plain loop holding barriers or @inner loops .* a shift, product or quotient by a constant/],
    ["for (int d = n; d > 0; d /= 1)", undefined, /:7:\d+: loop "d".*factor must be a constant integer >= 2 \(by 1 the loop never ends\)/],
    ["for (int d = n; d < m; d *= -2)", undefined, /:7:\d+: loop "d".*a negative factor flips the sign/],
    ["for (int d = n; d > 0; d >>= m)", undefined, /:7:\d+: loop "d": .*a shift, product or quotient by a constant/],
    ["for (int d = n; d > 0; d >>= 0)", undefined, /:7:\d+: loop "d".*from 1 to 31 \(by 0 the loop never ends\)/],
    ["for (int d = n; d > 0; d >>= 1)", "d = 0;", /:9:\d+: loop "d": its body assigns "d"/],
  ];
  it.each(cases)("%s", (loop, body, msg) => {
    const e = oklError(() => parseOkl(wrap(loop, body)));
    expect(e).toBeInstanceOf(OklError);
    expect(e.message).toMatch(msg);
  });

  it("a private scalar assigned once in the @outer body is uniform: a start from the block index, bounded by the width", async () => {
    const [k] = parseOkl(wrap("for (int d = r; d > 0; d >>= 1)"));
    expect(k!.oklOptions?.derivedArgs ?? []).toEqual([]);
    const n = 6, m = 3;
    const out = Array.from({ length: n }, (_, b) => Math.max(0, Math.floor(Math.log2(m + b)) + 1));
    await expectSerialMeaning(k!, () => ({ n, m, cnt: new Int32Array(1), out: new Int32Array(n) }), { out }, 0);
  });

  it("a private scalar of value arguments assigned once (`int span = …`) is computed by the host with the loop", async () => {
    const [k] = parseOkl(BLOCK_SORT.replace("const int span", "int span"));
    expect(k!.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["b_end", "size_trip"]);
    const N = 13, keys = seeded(N, 3), ids = keys.map((_, i) => i);
    const want = sortedBlocks(keys, ids);
    await expectSerialMeaning(k!, () => ({ N, keys: Float64Array.from(keys), ids: Int32Array.from(ids) }), want, 0, { checkBounds: false });
  });

  it("a body that writes other variables than the iterator is accepted", () => {
    expect(() => parseOkl(wrap("for (int d = n; d > 0; d >>= 1)", "int q = n; q++; s_c[0] += q;"))).not.toThrow();
  });
});

describe("the host's trip count is C's loop", () => {
  // `v CMP E; v OP= k` with start and bound value arguments, and C's loop modelled on JS's int32
  // operators (`>>` is C's arithmetic shift, `<<` of a non-negative value below 2^31 exact).
  const forms: [string, string, (v: number, k: number) => number][] = [
    [">>=", ">", (v, k) => v >> k], [">>=", ">=", (v, k) => v >> k], ["/=", ">", (v, k) => Math.trunc(v / k)], ["/=", ">=", (v, k) => Math.trunc(v / k)],
    ["<<=", "<", (v, k) => v * 2 ** k], ["<<=", "<=", (v, k) => v * 2 ** k], ["*=", "<", (v, k) => v * k], ["*=", "<=", (v, k) => v * k],
  ];
  it.each(forms)("v %s k with v %s E: the count, or an ExecutionError where C's loop never ends or overflows", (op, cmp, next) => {
    const k = (kk: number) => parseOkl(`@kernel void f(const int S, const int E, int *out) {
  for (int b = 0; b < 1; ++b; @outer) {
    @shared int s_n[1];
    for (int v = S; v ${cmp} E; v ${op} ${kk}) { @barrier("local"); for (int t = 0; t < 2; ++t; @inner) if (t == 0) s_n[0] += 1; }
    for (int t = 0; t < 2; ++t; @inner) if (t == 0) out[0] = s_n[0];
  }
}`)[0]!;
    const factorOf = (kk: number) => (op === "*=" || op === "/=" ? kk + 1 : kk);
    const kernels = [1, 2, 3].map((kk) => k(factorOf(kk)));
    const holds = (v: number, e: number) => (cmp === ">" ? v > e : cmp === ">=" ? v >= e : cmp === "<" ? v < e : v <= e);
    fc.assert(fc.property(fc.integer({ min: -300, max: 300 }), fc.integer({ min: -300, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 3 }), (S, E0, kk) => {
      const E = E0 % 7 === 0 ? E0 : (E0 % 600) - 300;
      const factor = factorOf(kk);
      const kern = kernels[kk - 1]!;
      let n = 0, v = S, error = false;
      while (holds(v, E)) {
        n++;
        const w = next(v, factor);
        if ((op === "<<=" && v < 0) || w === v || w > 2 ** 31 - 1 || w < -(2 ** 31)) { error = true; break; }
        v = w;
      }
      const got = () => withDerivedArgs(kern, { S, E, out: new Int32Array(1) }).v_trip;
      if (error) expect(got).toThrow(ExecutionError);
      else expect(got()).toBe(n);
    }), { numRuns: 150, seed: 33 });
  });
});
