/**
 * Issue 15, point 9: a global barrier inside a sequential loop (loopy's
 * `test_kernel_splitting_with_loop`). The loop runs on the host and launches the device kernels
 * at each of its values; every backend follows the host program. Each case runs on interp, js,
 * c, openmp and opencl (those available) against a plain TypeScript reference.
 */
import { describe, expect, it } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { schedule, showSchedule } from "../../src/schedule/index.js";
import { splitIname } from "../../transforms/index.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

/** loopy's kernel, with `m` rows instead of 3 (`m = 3` is loopy's). */
const loopyKernel = (rows: "3" | "m") => makeKernel(`{ [i,k]: 0<=i<n and 0<=k<${rows} }`, `
  for i, k
    ... gbarrier
    c[k,i] = a[k, i + 1]
    ... gbarrier
    out[k,i] = c[k,i]
  end`, [`a: float32[${rows}, n+1]`, `c, out: float32[${rows}, n]`, "n: int32", ...(rows === "m" ? ["m: int32"] : [])], { seqDependencies: true, name: "knl" });

const split = (k: Kernel, by = 128) => splitIname(k, "i", by, { outerTag: "g.0", innerTag: "l.0" });

const filled = (len: number, f: (x: number) => number) => Float32Array.from({ length: len }, (_, x) => f(x));

/** out[k, i] = a[k, i + 1] over m rows of n. */
function shifted(a: Float32Array, m: number, n: number): Float32Array {
  const out = new Float32Array(m * n);
  for (let k = 0; k < m; k++) for (let i = 0; i < n; i++) out[k * n + i] = a[k * (n + 1) + i + 1]!;
  return out;
}

describe("loopy's test_kernel_splitting_with_loop", () => {
  it("schedules two device kernels launched from a host loop over k, which they take as a value", () => {
    const s = schedule(split(loopyKernel("3")));
    expect(s.deviceKernels.map((d) => [d.name, d.hostInames])).toEqual([["knl", ["k"]], ["knl_0", ["k"]]]);
    expect(s.hostProgram).toMatchObject([{ kind: "loop", iname: "k", body: [{ kind: "launch", kernel: 0 }, { kind: "launch", kernel: 1 }] }]);
    expect(s.deviceKernels[0]!.groupAxes.map((a) => a.iname)).toEqual(["i_outer"]);
    // loopy's listing: the host loop around the calls.
    expect(showSchedule(s)).toMatch(/^ {3}0: for k\n {3}1: {5}CALL KERNEL knl\n[^]*\.\.\. gbarrier\n {3}5: {5}CALL KERNEL knl_0\n[^]*end k$/);
  });

  for (const [what, make] of [["untransformed (host loops over i and k)", () => loopyKernel("3")], ["split over g.0/l.0", () => split(loopyKernel("3"))]] as const) {
    it(`${what} runs on every backend`, async () => {
      for (const n of [5, 130]) {
        const a = filled(3 * (n + 1), (x) => x * 1.5 + 1);
        await expectOnEveryBackend(make(), { a, n, c: new Float32Array(3 * n), out: new Float32Array(3 * n) }, { out: shifted(a, 3, n), c: shifted(a, 3, n) });
      }
    });
  }

  it("a host loop bounded by a parameter runs 0, 1 and 4 times", async () => {
    const k = split(loopyKernel("m"), 4);
    for (const m of [0, 1, 4]) {
      const n = 6;
      const a = filled(m * (n + 1), (x) => x + 2);
      const out = filled(m * n, () => -1);
      await expectOnEveryBackend(k, { a, n, m, c: new Float32Array(m * n), out }, { out: m === 0 ? [] : shifted(a, m, n) });
    }
  });
});

describe("variants", () => {
  it("three device kernels in one host loop, each reading another group's cells of the previous one", async () => {
    const k = split(makeKernel("{ [i,k]: 0<=i<n and 0<=k<m }", `
      for k, i
        c[k, i] = a[i] + k {id=w1}
        ... gbarrier {id=g1, dep=w1}
        d[k, i] = c[k, n - 1 - i] * 2 {id=w2, dep=g1}
        ... gbarrier {id=g2, dep=w2}
        out[k, i] = d[k, (i + 1) % n] - c[k, i] {id=w3, dep=g2}
      end`, ["a: float32[n]", "c, d, out: float32[m, n]", "n, m: int32"], { name: "three" }), 4);
    expect(schedule(k).deviceKernels.map((d) => d.name)).toEqual(["three", "three_0", "three_1"]);
    const n = 10;
    const m = 3;
    const a = filled(n, (x) => x * x);
    const want = new Float32Array(m * n);
    for (let kk = 0; kk < m; kk++) {
      for (let i = 0; i < n; i++) want[kk * n + i] = 2 * (a[n - 1 - ((i + 1) % n)]! + kk) - (a[i]! + kk);
    }
    await expectOnEveryBackend(k, { a, n, m, c: new Float32Array(m * n), d: new Float32Array(m * n), out: new Float32Array(m * n) }, { out: want });
  });

  it("nested host loops, with a device kernel between the outer and the inner loop", async () => {
    const k = split(makeKernel("{ [j,k,i]: 0<=j<p and 0<=k<m and 0<=i<n }", `
      x[j, i] = a[i] * (j + 1) {id=wx, inames=j:i}
      ... gbarrier {id=gx, dep=wx, inames=j}
      y[j, k, i] = x[j, n - 1 - i] + k {id=wy, dep=gx}
      ... gbarrier {id=gy, dep=wy, inames=j:k}
      out[j, k, i] = y[j, k, (i + 1) % n] {id=wo, dep=gy}
      `, ["a: float32[n]", "x: float32[p, n]", "y, out: float32[p, m, n]", "n, m, p: int32"], { name: "nest" }), 4);
    const s = schedule(k);
    expect(s.hostProgram).toMatchObject([{ kind: "loop", iname: "j", body: [{ kind: "launch" }, { kind: "loop", iname: "k" }] }]);
    expect(s.deviceKernels.map((d) => d.hostInames)).toEqual([["j"], ["j", "k"], ["j", "k"]]);
    const [n, m, p] = [9, 2, 3];
    const a = filled(n, (x) => x - 4);
    const want = new Float32Array(p * m * n);
    for (let j = 0; j < p; j++) for (let kk = 0; kk < m; kk++) for (let i = 0; i < n; i++) want[(j * m + kk) * n + i] = a[n - 1 - ((i + 1) % n)]! * (j + 1) + kk;
    await expectOnEveryBackend(k, { a, n, m, p, x: new Float32Array(p * n), y: new Float32Array(p * m * n), out: new Float32Array(p * m * n) }, { out: want });
  });

  it("a dependency between iterations of the host loop is no race across groups (each launch has one k)", async () => {
    // w writes row k + 1 reversed, r reads row k: within one launch they never meet.
    const k = split(makeKernel("{ [i,k]: 0<=i<n and 0<=k<m }", `
      for k, i
        c[k + 1, n - 1 - i] = a[i] + k {id=w}
        out[k, i] = c[k, i] {id=r, dep=w}
        ... gbarrier {id=gb, dep=r}
      end`, ["a: float32[n]", "c: float32[m + 1, n]", "out: float32[m, n]", "n, m: int32"], { name: "carry" }), 4);
    const [n, m] = [7, 3];
    const a = filled(n, (x) => 3 * x);
    const c = filled((m + 1) * n, (x) => (x < n ? 100 + x : 0));
    const want = new Float32Array(m * n);
    for (let kk = 0; kk < m; kk++) for (let i = 0; i < n; i++) want[kk * n + i] = kk === 0 ? 100 + i : a[n - 1 - i]! + kk - 1;
    await expectOnEveryBackend(k, { a, n, m, c, out: new Float32Array(m * n) }, { out: want });
  });
});
