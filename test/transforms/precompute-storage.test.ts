/**
 * precompute's storage axes (loopy's storage_axes) and storage whose extent is a parameter (a
 * global temporary of parametric shape): what the temporary and the compute instruction are,
 * what is refused, and the law run(precompute(k)) == run(k) on interp, js and (where it runs) C.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { splitIname, tagInames } from "../../transforms/iname.js";
import { addPrefetch, precompute } from "../../transforms/index.js";
import { applyPipeline, fromJSON, step, toJSON } from "../../transforms/pipeline.js";
import { nativeAvailable } from "../run/native-helpers.js";

// About 63% of the random requests are refused by name (most often a storage axis that is not
// one); 400 runs give about 150 checked cases, well over the 100 the law asks for.
const RUNS = { numRuns: Math.max(400, Number(process.env.LOOM_PROPERTY_RUNS ?? 400)) };
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
const temps = (k: Kernel) => k.temporaries.map((t) => `${t.name}: ${t.addressSpace} [${t.shape.map(exprToString).join(", ")}]`);
const within = (k: Kernel, id: string) => [...k.instructions.find((i) => i.id === id)!.withinInames];

async function sameMeaning(ref: Kernel, k: Kernel, params: Record<string, number>, backends: readonly ("interp" | "js" | "c")[] = ["interp", "js"], seed = 0): Promise<void> {
  for (const backend of backends) {
    if (backend === "c" && !nativeAvailable("c")) continue;
    const r = await autoTestVsRef(ref, k, { params, backend, seed });
    if (!r.ok) throw new Error(`${backend}: not equivalent for ${JSON.stringify(params)}: ${r.mismatches.slice(0, 3).join("; ")}`);
  }
}

/** A two-argument rule used at two points, one with a fixed second argument. */
const twoArgs = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["f(x, y) := a[x, y]*2 + x", "out[i,j] = f(i, j) + f(i, 0) {id=u}"],
  ["a, out: float64[n,m]", "n, m: int32"], { name: "two" });
/** A rule whose value uses an iname that is not one of its arguments (loopy's "direct sweep axis"). */
const valueIname = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["g(x) := a[x, j]*3 - j", "out[i,j] = g(i) {id=u}"],
  ["a, out: float64[n,m]", "n, m: int32"], { name: "val" });
const oneArg = () => makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x] + 1", "out[i] = f(i) + f(i+1) {id=u}"], ["a: float32[n+1]", "out: float32[n]", "n: int32"], { name: "pre" });

describe("precompute: storage axes (loopy's storage_axes)", () => {
  it("default: every argument, in order; the axes of extent 1 are dropped", async () => {
    const k = splitIname(twoArgs(), "j", 4);
    const t = precompute(k, "f", ["j_inner"]);
    // x = i is fixed (extent 1: not stored); y spans j_inner's values and the fixed use f(i, 0):
    // from 0 to 4*j_outer + 3, within m, so its tightest extent free of inames is m.
    expect(text(t)).toEqual(["f_0[f_dim_0] = a[i, f_dim_0]*2 + i", "out[i, j_inner + j_outer*4] = f_0[j_inner + 4*j_outer] + f_0[0]"]);
    expect(temps(t)).toEqual(["f_0: global [m]"]);
    await sameMeaning(twoArgs(), t, { n: 3, m: 5 }, ["interp", "js", "c"]);
    const all = precompute(twoArgs(), "f", ["i", "j"]);
    expect(temps(all)).toEqual(["f_0: global [n, m]"]);
    await sameMeaning(twoArgs(), all, { n: 3, m: 5 }, ["interp", "js", "c"]);
  });

  it("storageAxes orders the axes of the temporary (the first varies slowest)", async () => {
    const rowMajor = precompute(twoArgs(), "f", ["i", "j"], { storageAxes: ["x", "y"] });
    const colMajor = precompute(twoArgs(), "f", ["i", "j"], { storageAxes: "y, x" });
    expect(text(rowMajor)).toEqual(["f_0[f_dim_0, f_dim_1] = a[f_dim_0, f_dim_1]*2 + f_dim_0", "out[i, j] = f_0[i, j] + f_0[i, 0]"]);
    expect(text(colMajor)).toEqual(["f_0[f_dim_0, f_dim_1] = a[f_dim_1, f_dim_0]*2 + f_dim_1", "out[i, j] = f_0[j, i] + f_0[0, i]"]);
    expect(temps(colMajor)).toEqual(["f_0: global [m, n]"]);
    // Positions name the arguments too.
    expect(text(precompute(twoArgs(), "f", ["i", "j"], { storageAxes: [1, 0] }))).toEqual(text(colMajor));
    for (const t of [rowMajor, colMajor]) await sameMeaning(twoArgs(), t, { n: 3, m: 4 }, ["interp", "js", "c"]);
  });

  it("an argument left out is not stored: the value is computed for its one value at the uses", async () => {
    const t = precompute(twoArgs(), "f", ["j"], { storageAxes: ["y"] });
    expect(text(t)).toEqual(["f_0[f_dim_0] = a[i, f_dim_0]*2 + i", "out[i, j] = f_0[j] + f_0[0]"]);
    expect(within(t, "compute_f")).toEqual(["f_dim_0", "i"]);
    await sameMeaning(twoArgs(), t, { n: 3, m: 4 }, ["interp", "js", "c"]);
  });

  it("a swept iname that the value uses is a storage axis of its own, slowest by default (loopy's order)", async () => {
    const t = precompute(valueIname(), "g", ["i", "j"]);
    expect(text(t)).toEqual(["g_0[g_dim_0, g_dim_1] = a[g_dim_1, g_dim_0]*3 - g_dim_0", "out[i, j] = g_0[j, i]"]);
    const t2 = precompute(valueIname(), "g", ["i", "j"], { storageAxes: ["x", "j"] });
    expect(text(t2)).toEqual(["g_0[g_dim_0, g_dim_1] = a[g_dim_0, g_dim_1]*3 - g_dim_1", "out[i, j] = g_0[i, j]"]);
    // Not swept: the compute runs within j.
    const t3 = precompute(valueIname(), "g", ["i"]);
    expect(text(t3)).toEqual(["g_0[g_dim_0] = a[g_dim_0, j]*3 - j", "out[i, j] = g_0[i]"]);
    expect(within(t3, "compute_g")).toEqual(["g_dim_0", "j"]);
    for (const x of [t, t2, t3]) await sameMeaning(valueIname(), x, { n: 3, m: 4 }, ["interp", "js", "c"]);
  });

  it("loopy's test_precompute_confusing_subst_arguments: a rule parameter named like an iname", async () => {
    const ref = makeKernel("{[i,j]: 0<=i<n and 0<=j<5}", ["D(i) := a[i+1] - a[i]", "b[i,j] = D(j)"], ["a: float32[6]", "b: float32[n,5]", "n: int32"], { name: "precomputer" });
    let k = tagInames(ref, { j: "g.1" });
    k = splitIname(k, "i", 128, { outerTag: "g.0", innerTag: "l.0" });
    const t = precompute(k, "D", "j", { storageAxes: ["i"], temporaryAddressSpace: "private" });
    expect(text(t)).toEqual(["D_0[D_dim_0] = a[D_dim_0 + 1] - a[D_dim_0]", "b[i_inner + i_outer*128, j] = D_0[j]"]);
    await sameMeaning(ref, t, { n: 7 });
  });

  it("storageAxisToTag tags the precompute iname of a storage axis", () => {
    const t = precompute(twoArgs(), "f", ["i", "j"], { storageAxes: ["x", "y"], storageAxisToTag: { y: "unr" } });
    expect(t.inameTags.f_dim_1).toEqual({ kind: "unr" });
    expect(t.inameTags.f_dim_0).toBeUndefined();
    expect(() => precompute(twoArgs(), "f", ["i", "j"], { storageAxisToTag: { z: "unr" } })).toThrow(/storageAxisToTag names "z", which is not a storage axis; storage axes are x, y/);
  });

  it("dtype (loopy's): the temporary's type; the compute converts the rule's value as C's assignment does", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["f(x) := a[x] / 3", "out[i] = f(i) * 3 {id=u}"], ["a, out: float64[n]", "n: int32"], { name: "narrow" });
    const wide = precompute(k, "f", ["i"], { dtype: "float64" });
    expect(wide.temporaries.find((t) => t.name === "f_0")!.dtype).toBe("float64");
    await sameMeaning(k, wide, { n: 9 });
    // Stored in float32, a[i]/3*3 is rounded once more: the law fails, as it must.
    const narrow = precompute(k, "f", ["i"], { dtype: "float" });
    expect(narrow.temporaries.find((t) => t.name === "f_0")!.dtype).toBe("float32");
    const r = await autoTestVsRef(k, narrow, { params: { n: 64 }, rtol: 1e-12 });
    expect(r.ok).toBe(false);
    expect((await autoTestVsRef(k, narrow, { params: { n: 64 }, rtol: 1e-6 })).ok).toBe(true);
    expect(() => precompute(k, "f", ["i"], { dtype: "float128" })).toThrow(/precompute.*unknown dtype "float128"/);
    const json = toJSON(step.precompute("f", ["i"], { dtype: "float64" }));
    expect(toJSON(fromJSON(json))).toEqual(json);
    expect(applyPipeline(k, json).temporaries.find((t) => t.name === "f_0")!.dtype).toBe("float64");
  });

  it("refusals name what is accepted", () => {
    expect(() => precompute(twoArgs(), "f", ["j"], { storageAxes: ["z"] })).toThrow(/storage axis "z" is neither an argument of rule "f" \(x, y\) nor an iname of the instructions that use it \(i, j\)/);
    expect(() => precompute(twoArgs(), "f", ["j"], { storageAxes: [2] })).toThrow(/storage axis 2 is not an argument position of rule "f", which takes 2 argument/);
    expect(() => precompute(twoArgs(), "f", ["j"], { storageAxes: ["y", 1] })).toThrow(/storage axis "y" is given twice/);
    expect(() => precompute(twoArgs(), "f", ["j"], { storageAxes: ["x"] })).toThrow(/argument y of rule "f" is not a storage axis, so it must be the same at every use; it is j in instruction "u" and 0 in instruction "u"/);
    const same = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["f(x, y) := a[x, y]", "out[i,j] = f(i, j)"], ["a, out: float64[n,m]", "n, m: int32"]);
    expect(() => precompute(same, "f", ["j"], { storageAxes: ["x"] })).toThrow(/argument y of rule "f" is not a storage axis, but its value j varies with the swept iname\(s\) j; add y to storageAxes/);
    expect(() => precompute(valueIname(), "g", ["i", "j"], { storageAxes: ["x"] })).toThrow(/the value of rule "g" uses the swept iname j, which is not a storage axis/);
  });
});

describe("precompute: a parametric extent makes a global temporary", () => {
  it("sweeping a whole parametric range stores it in a global temporary of shape n + 1 (interp, js, C)", async () => {
    const t = precompute(oneArg(), "f", ["i"]);
    expect(temps(t)).toEqual(["f_0: global [n + 1]"]);
    expect(text(t)).toEqual(["f_0[f_dim_0] = 2*a[f_dim_0] + 1", "out[i] = f_0[i] + f_0[i + 1]"]);
    for (const n of [1, 4, 9]) await sameMeaning(oneArg(), t, { n }, ["interp", "js", "c"]);
  });

  it("a private or local temporary of parametric shape is refused; a shape that depends on an iname always is", () => {
    expect(() => precompute(oneArg(), "f", ["i"], { temporaryAddressSpace: "private" }))
      .toThrow(/extent n \+ 1, which is not a constant .*only a global temporary \(temporaryAddressSpace "global"\) may have a parametric shape, not a private one/);
    const tri = makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", ["f(x) := a[x]", "out[i] = sum(j, f(j))"], ["a, out: float64[n]", "n: int32"]);
    expect(() => precompute(tri, "f", ["j"])).toThrow(/a temporary's shape cannot depend on the iname\(s\) i/);
  });

  it("read across work-groups: a global barrier follows the compute (the kernel splits there)", async () => {
    const k = splitIname(oneArg(), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    const t = precompute(k, "f", ["i_outer", "i_inner"]);
    expect(t.instructions.map((i) => `${i.id}:${i.kind}`)).toEqual(["compute_f:assign", "compute_f_barrier:barrier", "u:assign"]);
    expect(t.instructions[2]!.dependsOn).toContain("compute_f_barrier");
    for (const n of [3, 9]) await sameMeaning(oneArg(), t, { n }, ["interp", "js", "c"]);
  });

  it("addPrefetch keeps constant extents for local and private fetches; a parametric one needs global", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i+1]", ["a: float64[n+1]", "out: float64[n]", "n: int32"]);
    expect(() => addPrefetch(k, "a", { sweepInames: ["i"] })).toThrow(/extent n \+ 1, which is not a constant .*not a local or private one/);
    expect(() => addPrefetch(k, "a", { sweepInames: ["i"], temporaryAddressSpace: "private" })).toThrow(/not a private one/);
    const t = addPrefetch(k, "a", { sweepInames: ["i"], temporaryAddressSpace: "global", defaultTag: null });
    expect(temps(t)).toEqual(["a_fetch: global [n + 1]"]);
    await sameMeaning(k, t, { n: 6 }, ["interp", "js", "c"]);
  });
});

describe("precompute: the law run(precompute(k)) == run(k) over random sweeps, storage axes and extents (fast-check)", () => {
  // `uses`: the subst_use forms to pick from (a rule name, "name$tag", invocations, lists of those).
  const kernels: { k: Kernel; rule: string; params: string[]; uses?: (string | string[])[] }[] = [
    { k: twoArgs(), rule: "f", params: ["x", "y"], uses: ["f", "f(i, j)", "f(i, 0)"] },
    {
      k: makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["f(x, y) := a[x, y]*2 + x", "out[i,j] = f$p(i, j) + f(i, 0) + f$q(i, j) {id=u}"], ["a, out: float64[n,m]", "n, m: int32"], { name: "tags" }),
      rule: "f", params: ["x", "y"], uses: ["f", "f$p", "f$q", ["f$p", "f$q"], "f(i, 0)", ["f$q", "f(i, 0)"], "f$p(i, j)"],
    },
    { k: valueIname(), rule: "g", params: ["x"] },
    { k: splitIname(twoArgs(), "i", 2), rule: "f", params: ["x", "y"] },
    { k: splitIname(valueIname(), "j", 3), rule: "g", params: ["x"] },
    { k: makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["f(x, y) := a[x, y] - y", "out[i,j] = f(i, j) * f(i, j + 1 - 1)"], ["a, out: float64[n,m]", "n, m: int32"], { name: "sq" }), rule: "f", params: ["x", "y"] },
  ];
  const refused = /is not a storage axis|must be the same at every use|varies with the swept iname|cannot depend on the iname|may have a parametric shape|no (lower|upper) bound affine|is not an iname of the instructions|write race|global barrier must follow/;

  it("holds on interp and js", async () => {
    let done = 0;
    await fc.assert(fc.asyncProperty(
      fc.nat(kernels.length - 1), fc.nat(15), fc.option(fc.tuple(fc.nat(63), fc.nat(5)), { nil: undefined }),
      fc.constantFrom("auto", "global", "private") as fc.Arbitrary<"auto" | "global" | "private">, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }),
      fc.nat(6),
      async (which, sweepBits, axesPick, space, n, m, usePick) => {
        const { k, params, uses } = kernels[which]!;
        const rule = uses ? uses[usePick % uses.length]! : kernels[which]!.rule;
        const inames = [...new Set(k.instructions.flatMap((i) => i.withinInames))].sort();
        const sweep = inames.filter((_, b) => (sweepBits >> b) & 1);
        let storageAxes: string[] | undefined;
        if (axesPick !== undefined) {
          const pool = [...params, ...inames];
          const chosen = pool.filter((_, b) => (axesPick[0] >> b) & 1);
          // A rotation of the chosen axes: the order of the temporary's axes.
          const r = chosen.length > 0 ? axesPick[1] % chosen.length : 0;
          storageAxes = [...chosen.slice(r), ...chosen.slice(0, r)];
        }
        let t: Kernel;
        try {
          t = precompute(k, rule, sweep, { temporaryAddressSpace: space, ...(storageAxes ? { storageAxes } : {}) });
        } catch (e) {
          if (e instanceof TransformError && refused.test(e.message)) return;
          throw e;
        }
        done++;
        await sameMeaning(k, t, { n, m }, ["interp", "js"], n * 7 + m);
        if (process.env.LOOM_PRECOMPUTE_LOG) console.log(which, sweep.join(","), storageAxes?.join(","), space, temps(t).join("; "));
      }), RUNS);
    expect(done).toBeGreaterThanOrEqual(100);
  }, 120_000);
});

describe("precompute: pipeline steps carry the new options through JSON", () => {
  it("storageAxes, storageAxisToTag and a global temporary round-trip exactly", () => {
    const p = step.precompute("f", ["i", "j"], { storageAxes: ["y", 0], storageAxisToTag: { y: "unr" }, temporaryAddressSpace: "global" });
    const json = JSON.parse(JSON.stringify(toJSON(p)));
    expect(json).toEqual([{ op: "precompute", args: ["f", ["i", "j"], { storageAxes: ["y", 0], storageAxisToTag: { y: "unr" }, temporaryAddressSpace: "global" }] }]);
    const back = fromJSON(json);
    expect(toJSON(back)).toEqual(toJSON(p));
    expect(JSON.stringify(applyPipeline(twoArgs(), json))).toBe(JSON.stringify(precompute(twoArgs(), "f", ["i", "j"], { storageAxes: ["y", 0], storageAxisToTag: { y: "unr" }, temporaryAddressSpace: "global" })));
  });
});
