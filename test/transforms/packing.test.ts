/**
 * Packing (issue 18B): BLIS-style schedules through addPrefetch / precompute with given outer
 * inames; the arrangements refused before that are not wrong now run; each refusal that remains
 * names what, where and what would be accepted. (The law: packing.property.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { TransformError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { addPrefetch, precompute, prioritizeLoops, splitIname, tagInames } from "../../transforms/index.js";
import { packedMatmul, packedMatmulPipeline, matmulUpdate } from "../../bench/packing-matmul.js";
import { matmulRef, matmulUpdateForm } from "./gen-packing.js";

const params = { n: 7, m: 5, p: 9 };
/** The update form blocked BLIS-style: blocks of 4 x 6, k blocks of 3, a 2 x 3 ilp micro-tile. */
const blocked = (kc = 3): Kernel => {
  let k = matmulUpdateForm(kc);
  k = splitIname(k, "i", 4, { outerTag: "g.0" });
  k = splitIname(k, "j", 6);
  k = splitIname(k, "i_inner", 2, { outerIname: "i_mid", innerIname: "i_r", innerTag: "ilp" });
  k = splitIname(k, "j_inner", 3, { outerIname: "j_mid", innerIname: "j_r", innerTag: "ilp" });
  return prioritizeLoops(k, "j_outer,k_outer,i_mid,j_mid,k_inner");
};
/** The reduction form: c = sum(k, …) with k split, the same micro-tile. */
const reduction = (): Kernel => {
  let k = splitIname(matmulRef(), "i", 4, { outerTag: "g.0" });
  k = splitIname(k, "j", 6);
  k = splitIname(k, "k", 3);
  k = splitIname(k, "i_inner", 2, { outerIname: "i_mid", innerIname: "i_r", innerTag: "ilp" });
  return splitIname(k, "j_inner", 3, { outerIname: "j_mid", innerIname: "j_r", innerTag: "ilp" });
};
const packB = (k: Kernel, extra: object = {}) =>
  addPrefetch(k, "b", { sweepInames: ["k_inner", "j_mid", "j_r"], fetchOuterInames: ["j_outer", "k_outer"], temporaryAddressSpace: "private", ...extra });
const within = (k: Kernel, id: string) => k.instructions.find((i) => i.id === id)!.withinInames;
const ok = async (k: Kernel, backend: "interp" | "js" = "interp") => {
  const r = await autoTestVsRef(matmulRef(), k, { params, backend });
  expect(r.ok, r.mismatches.join("; ")).toBe(true);
};

describe("packing: the panel of b for (j_outer, k_outer) into a contiguous temporary", () => {
  it("the store runs within exactly the given outer inames, the micro-tile loops nested inside by priorities", async () => {
    const k = packB(blocked());
    expect(within(k, "b_fetch_rule")).toEqual(["b_dim_0", "b_dim_1", "j_outer", "k_outer"]);
    expect(k.loopPriority).toContainEqual(["k_outer", "i_mid"]);
    expect(k.temporaries.find((t) => t.name === "b_fetch")).toMatchObject({ addressSpace: "private" });
    // One store of the 3 x 6 panel per (j_outer, k_outer), before the micro-tile loops.
    const code = generateCode(k, "c").deviceCode;
    const at = (s: string) => code.indexOf(s);
    expect(at("float b_fetch[18];")).toBeGreaterThan(0);
    const store = at("b_fetch[6 * b_dim_0 + b_dim_1] = b[");
    expect(at("for (int k_outer")).toBeGreaterThan(0);
    expect(at("for (int k_outer")).toBeLessThan(store);
    expect(code.indexOf("for (int i_mid", store)).toBeGreaterThan(store);
    expect(code.indexOf("b_fetch[6 * b_dim_0", store + 1)).toBe(-1);
    await ok(k);
    await ok(k, "js");
  });

  it("both panels, as bench/packing-matmul.ts packs them (small blocks), keep the meaning (n a multiple of the blocks, assumed, or not)", async () => {
    const square = makeKernel("{ [i, j, k]: 0 <= i, j, k < n }", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
    for (const n of [11, 12]) {
      const k = packedMatmulPipeline(n, { blocks: { MC: 4, NC: 6, KC: 3, MR: 2, NR: 3 } })(matmulUpdate(3));
      expect(k.assumptions.constraints.length > 0, `n = ${n}`).toBe(n === 12);
      const r = await autoTestVsRef(square, k, { params: { n } });
      expect(r.ok, r.mismatches.join("; ")).toBe(true);
    }
    // a is packed once per k block (k_outer outside j_outer), not again for each panel of b.
    expect(within(packedMatmul(1024), "a_fetch_rule")).toEqual(["a_dim_0", "a_dim_1", "i_outer", "k_outer"]);
  });

  it("precompute with precomputeOuterInames packs the same panel", async () => {
    let k = blocked();
    k = makeKernel(["{ [i, j]: 0 <= i < n and 0 <= j < p }", "{ [k_outer, k_inner]: 0 <= k_inner < 3 and 0 <= 3*k_outer + k_inner < m }"],
      ["bb(x, y) := b[x, y]", "c[i, j] = 0 {id=zero}", "c[i, j] = c[i, j] + sum(k_inner, a[i, 3*k_outer + k_inner]*bb(3*k_outer + k_inner, j)) {id=update, dep=zero}"],
      ["a: float32[n, m]", "b: float32[m, p]", "c: float32[n, p]", "n, m, p: int32"], { name: "mm_rule" });
    k = splitIname(splitIname(k, "i", 4, { outerTag: "g.0" }), "j", 6);
    k = splitIname(k, "j_inner", 3, { outerIname: "j_mid", innerIname: "j_r", innerTag: "ilp" });
    k = prioritizeLoops(k, "j_outer,k_outer,i_inner,j_mid,k_inner");
    k = precompute(k, "bb", ["k_inner", "j_mid", "j_r"], { precomputeOuterInames: ["j_outer", "k_outer"], temporaryAddressSpace: "private" });
    expect(within(k, "compute_bb")).toEqual(["bb_dim_0", "bb_dim_1", "j_outer", "k_outer"]);
    await ok(k);
  });

  it("formerly refused, now run: a store inside the reduction over k_outer sweeping the ilp lanes (they nest inside the reduction)", async () => {
    // Was: "must run inside the reduction over k_outer … cannot sweep j_r".
    const k = addPrefetch(reduction(), "b", { sweepInames: ["k_inner", "j_r"], temporaryAddressSpace: "private" });
    expect(within(k, "b_fetch_rule")).not.toContain("j_r");
    expect(within(k, "b_fetch_rule")).not.toContain("i_r");
    await ok(k);
  });

  it("a global scratch panel: one for the kernel where no work-groups share it; refused where they would", async () => {
    let serial = matmulUpdateForm(3);
    serial = splitIname(splitIname(serial, "i", 4), "j", 6);
    serial = prioritizeLoops(serial, "i_outer,j_outer,k_outer,i_inner,j_inner,k_inner");
    serial = addPrefetch(serial, "a", { sweepInames: ["k_inner", "i_inner"], fetchOuterInames: ["i_outer", "j_outer", "k_outer"], temporaryAddressSpace: "global", defaultTag: null });
    expect(within(serial, "a_fetch_rule")).toEqual(["a_dim_0", "a_dim_1", "i_outer", "j_outer", "k_outer"]);
    await ok(serial);
    // The panel of a depends on the group iname: each group would write its own rows into it.
    expect(() => addPrefetch(blocked(), "a", { sweepInames: ["k_inner", "i_mid", "i_r"], fetchOuterInames: ["i_outer", "j_outer", "k_outer"], temporaryAddressSpace: "global", defaultTag: null }))
      .toThrow(/temporary "a_fetch" cannot be made global because a write race across the iname\(s\) i_outer would emerge/);
    // The panel of b does not, but the groups run its k_outer loop out of step: the scheduler says so.
    const k = packB(blocked(), { temporaryAddressSpace: "global", defaultTag: null });
    expect(() => generateCode(k, "c")).toThrow(/global temporary "b_fetch".*different work-groups \(along "i_outer"\)/s);
  });

  it("OpenMP: a panel written inside the parallel loop is private to each thread even though its store ignores the group iname", () => {
    const code = generateCode(addPrefetch(reduction(), "b", { sweepInames: ["k_inner", "j_r"], temporaryAddressSpace: "private" }), "openmp").deviceCode;
    // Private: a private(...) clause, or (since the OpenMP target outlines the loop's body into a
    // function with restrict parameters) a local of that function, one per call.
    expect(code).toMatch(/#pragma omp parallel for private\([^)]*\bb_fetch\b|static void \w+\([^)]*\)\n\{\n(?:  float \w+\[\d+\];\n)*  float b_fetch\[/);
  });
});

describe("packing: the refusals that remain (each would be wrong)", () => {
  const refuses = (f: () => unknown, ...parts: RegExp[]) => {
    let err: unknown;
    try {
      f();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TransformError);
    for (const p of parts) expect((err as Error).message).toMatch(p);
  };

  it("a store inside the reduction over k_outer but outside a loop around it: the reduction's loops always nest inside", () => {
    refuses(() => addPrefetch(reduction(), "b", { sweepInames: ["k_inner", "j_r"], fetchOuterInames: ["j_outer", "k_outer"], temporaryAddressSpace: "private" }),
      /addPrefetch: fetchOuterInames puts the store "b_fetch_rule" inside the reduction over k_outer of instruction "insn" but outside (i_mid|j_mid)/,
      /add (i_mid|j_mid) to fetchOuterInames, or leave k_outer out of it/, /write the reduction as an update/);
  });

  it("sweeping a sequential loop around the reduction the store runs inside", () => {
    refuses(() => addPrefetch(reduction(), "b", { sweepInames: ["k_inner", "j_mid", "j_r"], temporaryAddressSpace: "private" }),
      /the store "b_fetch_rule" must run inside the reduction over k_outer of instruction "insn"/, /cannot sweep j_mid, a loop around that reduction/,
      /add k_outer to sweepInames, or do not sweep j_mid/);
  });

  it("a loop priority that puts a loop the store does not run within outside one it does", () => {
    const k = prioritizeLoops(blocked(), "i_mid,k_outer");
    refuses(() => packB(k), /the store "b_fetch_rule" runs within k_outer and not within i_mid, so i_mid must be nested inside k_outer, but the loop priorities put i_mid outside k_outer/,
      /add i_mid to fetchOuterInames/);
  });

  it("the bounds of an outer iname that use a loop the store does not run within", () => {
    const k = makeKernel(["{ [i]: 0 <= i < n }", "{ [k]: 0 <= k <= i }"], "c[i] = c[i] + a[k] {id=acc}", ["a, c: float32[n]", "n: int32"], { name: "tri" });
    refuses(() => addPrefetch(k, "a", { fetchOuterInames: ["k"], temporaryAddressSpace: "private" }),
      /runs within k and not within i, so i must be nested inside k, but the bounds of k use i/, /add i to fetchOuterInames/);
  });

  it("a store with loops of its own inside an ilp loop (ilp loops are innermost)", () => {
    refuses(() => addPrefetch(blocked(), "b", { sweepInames: ["k_inner", "j_mid"], fetchOuterInames: ["j_outer", "k_outer", "j_r"], temporaryAddressSpace: "private" }),
      /the store "b_fetch_rule" into b_fetch would run inside j_r, tagged ilp, with its own loops \(b_dim_0, b_dim_1\) bounded by it/,
      /add j_r to sweepInames .* and leave it out of fetchOuterInames, or tag it unr instead/);
  });

  it("a global temporary that ilp or ilp.seq lanes would each fill with their own values (ilp.seq ran wrong before), also when tagged afterwards", async () => {
    const ref = makeKernel("{ [i, j, k]: 0 <= i < n and 0 <= j < 4 and 0 <= k < 3 }", "out[i, j] = sum(k, a[i, j]*w[k])",
      ["a, out: float32[n, 4]", "w: float32[3]", "n: int32"], { name: "lanes" });
    const fetch = (k: Kernel) => addPrefetch(k, "a", { fetchOuterInames: ["i", "j"], temporaryAddressSpace: "global", defaultTag: null });
    for (const tag of ["ilp", "ilp.seq"]) {
      refuses(() => fetch(tagInames(ref, { j: tag })), /temporary "a_fetch" cannot be made global because a write race across the iname\(s\) j would emerge/, /add j to the sweep inames, or use the private address space/);
      // The reduction over k nests outside the lanes: the store would run for all lanes first.
      const r = await autoTestVsRef(ref, tagInames(fetch(ref), { j: tag }), { params: { n: 3 }, backend: "js" });
      expect(r.ok).toBe(false);
      expect(r.mismatches.join(" ")).toMatch(new RegExp(`writes global temporary "a_fetch" within ilp iname "j" \\(tagged ${tag.replace(".", "\\.")}\\) a value that depends on "j".*index "a_fetch" by "j", make it private`));
    }
  });
});
