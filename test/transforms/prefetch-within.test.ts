/**
 * addPrefetch with loopy's partial subscripts (`f[ifeat,:,:]`) and `within`, and precompute of
 * rules without arguments and of rules used inside other rules: what each builds, each error, and
 * the law run(t(k)) == run(k).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { addPrefetch, precompute } from "../../transforms/index.js";
import { applyPipeline, step, toJSON } from "../../transforms/pipeline.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
async function sameMeaning(k: Kernel, t: Kernel, params: Record<string, number>, seed = 0): Promise<void> {
  const r = await autoTestVsRef(k, t, { params, seed });
  if (!r.ok) throw new Error(`not equivalent for ${JSON.stringify(params)}: ${r.mismatches.slice(0, 3).join("; ")}`);
}

/** loopy's feature-map example, shrunk: every feature ifeat reads a 4x4 tile f[ifeat, :, :]. */
const features = () => makeKernel("{[ifeat,i,j]: 0<=ifeat<nf and 0<=i<4 and 0<=j<4}", [
  "out[ifeat,i,j] = 2*f[ifeat,i,j] - f[ifeat,j,i] {id=s1}",
  "out2[ifeat,i] = f[ifeat,i,0] + g[i] {id=s2}",
  "out3[ifeat,i] = f[0,i,i] {id=s3}",
], ["f, out: float64[nf,4,4]", "out2, out3: float64[nf,4]", "g: float64[4]", "nf: int32"], { name: "feat" });

describe("addPrefetch with a partial subscript (loopy's f[ifeat,:,:])", () => {
  it("keeps the fixed index, stores only the : axes, and fetches once per ifeat", async () => {
    const k = features();
    const t = addPrefetch(k, "f[ifeat,:,:]", { temporaryAddressSpace: "private", defaultTag: null });
    expect(t.temporaries.map((x) => `${x.name}[${x.shape.map(exprToString).join(",")}]`)).toEqual(["f_fetch[4,4]"]);
    expect(text(t)).toEqual([
      "f_fetch[f_dim_0, f_dim_1] = f[ifeat, f_dim_0, f_dim_1]",
      "out[ifeat, i, j] = 2*f_fetch[i, j] - f_fetch[j, i]",
      "out2[ifeat, i] = f_fetch[i, 0] + g[i]",
      "out3[ifeat, i] = f[0, i, i]",
    ]);
    expect(t.instructions[0]!.withinInames).toEqual(["f_dim_0", "f_dim_1", "ifeat"]);
    await sameMeaning(k, t, { nf: 3 });
    await sameMeaning(k, addPrefetch(k, "f[ifeat,:,:]"), { nf: 2 });
  });

  it("reads with other fixed indices are not selected; an instruction mixing both is refused", () => {
    const k = makeKernel("{[e,i]: 0<=e<3 and 0<=i<4}", ["out[e,i] = f[e,i] {id=s1}", "out2[e,i] = f[0,i] {id=s2}"],
      ["f, out, out2: float64[3,4]"]);
    const t = addPrefetch(k, "f[e,:]", { temporaryAddressSpace: "private", defaultTag: null });
    expect(text(t).slice(1)).toEqual(["out[e, i] = f_fetch[i]", "out2[e, i] = f[0, i]"]);
    const mixed = makeKernel("{[e,i]: 0<=e<3 and 0<=i<4}", "out[e,i] = f[e,i] + f[0,i] {id=s1}", ["f, out: float64[3,4]"]);
    expect(() => addPrefetch(mixed, "f[e,:]")).toThrow(/instruction "s1" reads f\[0, i\] besides reads matching f\[e,:\]/);
    expect(() => addPrefetch(k, "f[e+1,:]")).toThrow(/no read of f matches f\[e\+1,:\]/);
    expect(() => addPrefetch(k, "f[e,:,:]")).toThrow(/has 3 indices, but f has 2 axes/);
    expect(() => addPrefetch(k, "f[e,]")).toThrow(/index 1 of "f\[e,\]" is empty/);
  });

  it("within: only the selected instructions read the fetched copy", async () => {
    const k = features();
    const t = addPrefetch(k, "f[ifeat,:,:]", { within: "id:s2", temporaryAddressSpace: "private", defaultTag: null });
    expect(text(t)).toEqual(["out[ifeat, i, j] = 2*f[ifeat, i, j] - f[ifeat, j, i]", "f_fetch[f_dim_0] = f[ifeat, f_dim_0, 0]", "out2[ifeat, i] = f_fetch[i] + g[i]", "out3[ifeat, i] = f[0, i, i]"]);
    await sameMeaning(k, t, { nf: 3 });
    expect(() => addPrefetch(k, "f", { within: "id:nope" })).toThrow(/within "id:nope" matches no instruction/);
    expect(() => addPrefetch(k, "g", { within: "id:s1" })).toThrow(/no instruction that within "id:s1" selects \(s1\) reads g; readers are s2/);
  });

  it("round-trips through the pipeline JSON", () => {
    const p = step.addPrefetch("f[ifeat,:,:]", { within: "writes:out", temporaryAddressSpace: "private", defaultTag: null });
    expect(applyPipeline(features(), toJSON(p))).toEqual(addPrefetch(features(), "f[ifeat,:,:]", { within: "writes:out", temporaryAddressSpace: "private", defaultTag: null }));
  });

  it("law: for any fixed axes, selection and address space, the kernel computes the same", async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom("f[ifeat,:,:]", "f[ifeat,i,:]", "f[ifeat,:,j]", "f[ifeat, :, 0]"), fc.constantFrom(undefined, "id:s1", "id:s2", "reads:g", "not id:s2"),
      fc.constantFrom("private" as const, "local" as const), fc.integer({ min: 0, max: 4 }),
      async (pattern, within, space, nf) => {
        const k = features();
        let t: Kernel;
        try {
          t = addPrefetch(k, pattern, { ...(within ? { within } : {}), temporaryAddressSpace: space, ...(space === "private" ? { defaultTag: null } : {}) });
        } catch (e) {
          // Selections that leave nothing to fetch, or mix reads, are refused by name.
          if (e instanceof TransformError && /no read of f matches|besides reads matching|reads f\b.*readers|no instruction that within/.test(e.message)) return;
          throw e;
        }
        await sameMeaning(k, t, { nf }, nf);
      }), RUNS);
  });
});

describe("precompute: rules without arguments and rules used inside other rules", () => {
  it("a rule without arguments is computed once into a scalar", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["s() := 2*c[0] + c[1]", "out[i] = s()*a[i] {id=u}"], ["a, out: float64[n]", "c: float64[2]", "n: int32"]);
    const t = precompute(k, "s");
    expect(text(t)).toEqual(["s_0 = 2*c[0] + c[1]", "out[i] = s_0*a[i]"]);
    expect(t.temporaries.map((x) => `${x.name}[${x.shape.length}]`)).toEqual(["s_0[0]"]);
    await sameMeaning(k, t, { n: 5 });
  });

  it("uses inside another rule: the calling rule is expanded at its calls first", async () => {
    const k = makeKernel("{[i]: 0<=i<6}", ["f(x) := a[x]*a[x]", "g(x) := f(x) + f(x + 1)", "out[i] = g(i) {id=u}"],
      ["a: float64[7]", "out: float64[6]"]);
    const t = precompute(k, "f", ["i"], { temporaryAddressSpace: "private" });
    expect(text(t)).toEqual(["f_0[f_dim_0] = a[f_dim_0]*a[f_dim_0]", "out[i] = f_0[i] + f_0[i + 1]"]);
    await sameMeaning(k, t, {});
  });

  it("law: precomputing f used directly, in g, and in h (calling g), over random sweeps, computes the same", async () => {
    const k = makeKernel("{[i,j]: 0<=i<5 and 0<=j<3}", [
      "f(x, y) := a[x]*y + 1", "g(x) := f(x, 2) - f(x + 1, 1)", "h(x, y) := g(x)*f(x, y)",
      "out[i,j] = h(i, j) + f(i, j) {id=u1}", "out2[i] = g(i) {id=u2}",
    ], ["a: float64[6]", "out: float64[5,3]", "out2: float64[5]"]);
    let done = 0;
    await fc.assert(fc.asyncProperty(fc.constantFrom("f", "g", "h"), fc.constantFrom([], ["j"], ["i"], ["i", "j"]), fc.constantFrom(undefined, ["u1"], ["u2"]), fc.nat(9),
      async (rule, sweep, within, seed) => {
        let t: Kernel;
        try {
          t = precompute(k, rule, sweep, { temporaryAddressSpace: "private", ...(within ? { within } : {}) });
        } catch (e) {
          // Footprints that are no box (uses of different shapes, unswept), or an iname the selected uses do not have, are refused by name.
          if (e instanceof TransformError && /no lower bound affine|no upper bound affine|is not an iname of the instructions|no instruction/.test(e.message)) return;
          throw e;
        }
        done++;
        await sameMeaning(k, t, {}, seed);
      }), RUNS);
    expect(done).toBeGreaterThan(RUNS.numRuns / 4);
  });
});

describe("precompute: storageAxes and parametric extents (more in precompute-storage.test.ts)", () => {
  it("storageAxes names the stored arguments; a parametric extent is global, and refused in a private temporary", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["f(x) := a[x]*2", "out[i] = f(i)"], ["a, out: float64[n]", "n: int32"]);
    const t = precompute(k, "f", ["i"], { storageAxes: ["x"] });
    expect(t.temporaries.map((x) => `${x.addressSpace} [${x.shape.map(exprToString).join(",")}]`)).toEqual(["global [n]"]);
    await sameMeaning(k, t, { n: 4 });
    expect(() => precompute(k, "f", ["i"], { temporaryAddressSpace: "private" })).toThrow(/extent n, which is not a constant/);
  });
});
