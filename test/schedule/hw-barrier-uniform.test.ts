/**
 * Issue 15.16: a barrier inside a loop whose bounds mention a local id, where every work-item of
 * the group runs the loop the same number of times. loopy's `test_barrier_counter_barriers`
 * kernel: `k` split by 128 with the inner part on l.0 leaves `k_outer` bounded by
 * `-128*k_outer + 1 <= k_inner <= -128*k_outer + 97`, whose hull over the local id is the single
 * point `k_outer = 0`; the loop runs once for every work-item, and the barriers inside the loops
 * over i and j are met by all (loopy counts 50*10*2 of them). Where the trip count may differ
 * between work-items and the exact domain cannot be kept as guards, it stays a ScheduleError.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { domainIndexOf } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { schedule, showSchedule, type ScheduleNode } from "../../src/schedule/index.js";
import { splitIname } from "../../transforms/index.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";
import { tag } from "../run/parallel-helpers.js";

/** loopy's "weird2" kernel, `c` an argument (its cells outside 1 <= k < 98 are the caller's). */
function weird2(ni = 50, nj = 10) {
  const k = makeKernel(`{[i,k,j]: 0<=i<${ni} and 1<=k<98 and 0<=j<${nj}}`, [
    "c[i,j,k] = 2*a[i,j,k] {id=first}",
    "e[i,j,k] = c[i,j,k+1]+c[i,j,k-1] {dep=first}",
  ], [`a, c, e: int32[${ni},${nj},99]`]);
  return splitIname(k, "k", 128, { innerTag: "l.0" });
}

function reference(a: Int32Array, c0: Int32Array, ni: number, nj: number): { c: Int32Array; e: Int32Array } {
  const c = Int32Array.from(c0);
  const e = new Int32Array(a.length);
  for (let i = 0; i < ni; i++) for (let j = 0; j < nj; j++) for (let k = 1; k < 98; k++) c[(i * nj + j) * 99 + k] = 2 * a[(i * nj + j) * 99 + k]!;
  for (let i = 0; i < ni; i++) for (let j = 0; j < nj; j++) for (let k = 1; k < 98; k++) {
    const q = (i * nj + j) * 99 + k;
    e[q] = c[q + 1]! + c[q - 1]!;
  }
  return { c, e };
}

function barriersPerIteration(nodes: readonly ScheduleNode[], loop: string): number | undefined {
  for (const n of nodes) {
    if (n.kind !== "loop") continue;
    if (n.iname === loop) return n.body.filter((x) => x.kind === "barrier").length;
    const r = barriersPerIteration(n.body, loop);
    if (r !== undefined) return r;
  }
  return undefined;
}

describe("a barrier in a loop whose bounds mention a local id but whose trip count does not (15.16)", () => {
  it("schedules loopy's weird2: k_outer = 0 for every work-item, two barriers per (i, j) as loopy counts", () => {
    const s = schedule(weird2());
    const d = s.kernel.domains[domainIndexOf(s.kernel, "k_outer")]!;
    expect([...d.params, ...d.dims]).not.toContain("k_inner");
    expect(barriersPerIteration(s.deviceKernels[0]!.body, "j")).toBe(2);
    expect(showSchedule(s)).toMatch(/for k_outer[\s\S]*for j[\s\S]*lbarrier[\s\S]*lbarrier[\s\S]*end j/);
    // OpenCL: no local id in a loop header, the remainder guarded inside.
    const code = generateCode(weird2(), "opencl").deviceCode;
    for (const line of code.split("\n").filter((l) => l.includes("for ("))) expect(line).not.toContain("lid(");
    expect(code).toMatch(/if \(0 < lid\(0\) && lid\(0\) <= 97\)/);
  });

  it("computes loopy's weird2 on every backend as the plain reference does", async () => {
    const [ni, nj] = [4, 3];
    const a = Int32Array.from({ length: ni * nj * 99 }, (_, q) => (q * 7) % 23 - 11);
    const c = Int32Array.from({ length: ni * nj * 99 }, (_, q) => (q * 5) % 13);
    await expectOnEveryBackend(weird2(ni, nj), { a, c }, reference(a, c, ni, nj));
  });

  it("the same with c a local temporary (loopy's default for it): e on every backend", async () => {
    const k0 = makeKernel("{[i,k,j]: 0<=i<3 and 1<=k<98 and 0<=j<2}", [
      "c[k] = 2*a[i,j,k] {id=first}",
      "e[i,j,k] = c[k+1]+c[k-1] {dep=first, if=k >= 2 and k <= 96}",
    ], ["a, e: int32[3,2,99]", temporary("c", "int32", [99], "local")]);
    const k = splitIname(k0, "k", 128, { innerTag: "l.0" });
    const a = Int32Array.from({ length: 3 * 2 * 99 }, (_, q) => (q * 3) % 17);
    const e = new Int32Array(a.length);
    for (let q = 0; q < a.length; q++) { const kk = q % 99; if (kk >= 2 && kk <= 96) e[q] = 2 * a[q + 1]! + 2 * a[q - 1]!; }
    await expectOnEveryBackend(k, { a }, { e });
  });

  it("a loop whose trip count differs between work-items and whose exact domain needs an existential stays refused", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<16}", "{[k,j]: 0<=j<=3 and 0<=k<i and 3k = 2j + i}"], [
      "t[i] = a[i] {id=w, inames=i:k}",
      "out[i] = t[15-i] {id=r, dep=w, inames=i:k}",
    ], [temporary("t", "float32", [16], "local"), "..."]), { i: "l.0" });
    expect(() => schedule(k)).toThrow(ScheduleError);
    expect(() => schedule(k)).toThrow(/loop "k", whose bounds depend on local id i/);
  });
});
