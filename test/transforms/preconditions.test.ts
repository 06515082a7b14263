/**
 * docs/preconditions.md, row by row: each precondition it lists is refused with a TransformError
 * whose message starts with the transformation's name, and the kernel passed in is unchanged.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { TransformError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";

const vadd = () => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] {id=s}", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "k" });
const matmul = () => lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) {id=mm}", ["a, b, c: float32[n, n]", "n: int32"], { name: "mm" });
const twoInsn = () => lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<8}", ["t[i] = a[i] {id=w}", "out[i, j] = t[i] + j {id=r, dep=w}"],
  ["a: float32[n]", "out: float32[n, 8]", "n: int32", lp.temporary("t", "float32", ["n"], "global")], { name: "two" });

/** [the transformation's name as it opens the message, what it is called on, the call]. */
const REFUSALS: ReadonlyArray<readonly [string, () => Kernel, (k: Kernel) => unknown]> = [
  ["splitIname", vadd, (k) => lp.splitIname(lp.tagInames(k, "i:g.0"), "i", 4)],
  ["splitIname", vadd, (k) => lp.splitIname(k, "i", 4, { outerIname: "a" })],
  ["splitIname", vadd, (k) => lp.splitIname(k, "nope", 4)],
  ["splitIname", vadd, (k) => lp.splitIname(k, "i", 4, { slabs: [1] as never })],
  ["chunkIname", vadd, (k) => lp.chunkIname(k, "nope", 4)],
  ["tagInames", vadd, (k) => lp.tagInames(k, "i:q.7")],
  ["tagInames", vadd, (k) => lp.tagInames(lp.tagInames(k, "i:g.0"), "i:l.0")],
  ["prioritizeLoops", matmul, (k) => lp.prioritizeLoops(k, "i,i")],
  ["joinInames", twoInsn, (k) => lp.joinInames(k, ["i", "j"], "ij")],
  ["tile", matmul, (k) => lp.tile(k, ["i", "j"], [16, 16, 16])],
  ["renameIname", matmul, (k) => lp.renameIname(k, "i", "j")],
  ["renameIname", matmul, (k) => lp.renameIname(k, "i", "a")],
  ["mapDomain", vadd, (k) => lp.mapDomain(k, "{[i] -> [io, ii]: i = 4*io + 2*ii and 0 <= ii < 4}")],
  ["splitReductionInward", matmul, (k) => lp.splitReductionInward(k, "i")],
  ["assume", vadd, (k) => lp.assume(k, "i >= 1")],
  ["tagArrayAxes", matmul, (k) => lp.tagArrayAxes(k, "a", "vec,vec")],
  ["dimOrder", matmul, (k) => lp.dimOrder(k, "a", [0, 0])],
  ["setTemporaryAddressSpace", twoInsn, (k) => lp.setTemporaryAddressSpace(k, "t", "shared" as never)],
  ["privatize", twoInsn, (k) => lp.privatize(k, "t", "j")],
  ["extractSubst", vadd, (k) => lp.extractSubst(k, "sin", "a[i]*2", ["i"])],
  ["assignmentToSubst", twoInsn, (k) => lp.assignmentToSubst(k, "nope")],
  ["addDependency", twoInsn, (k) => lp.addDependency(k, "id:w", "id:r")],
  ["addBarrier", twoInsn, (k) => lp.addBarrier(k, "id:w", "id:r", "everywhere" as never)],
  ["setInstructionPriority", twoInsn, (k) => lp.setInstructionPriority(k, "id:w", 1.5)],
];

describe("docs/preconditions.md: each listed precondition is checked", () => {
  it.each(REFUSALS.map(([name, make, call], n) => [`${name} #${n}`, name, make, call] as const))("%s", (_label, name, make, call) => {
    const k = make();
    const before = JSON.stringify(k);
    let thrown: unknown;
    try { call(k); } catch (e) { thrown = e; }
    expect(thrown).toBeInstanceOf(TransformError);
    expect((thrown as Error).message.startsWith(`${name}:`)).toBe(true);
    expect(JSON.stringify(k)).toBe(before);
  });

  it("every transformation the page's tables name is a function of the library", async () => {
    const { readFileSync } = await import("node:fs");
    const page = readFileSync(new URL("../../docs/preconditions.md", import.meta.url), "utf8");
    const named = [...page.matchAll(/^\| `([a-zA-Z]+)\(/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(20);
    for (const n of named) expect(typeof (lp as Record<string, unknown>)[n], n).toBe("function");
  });
});
