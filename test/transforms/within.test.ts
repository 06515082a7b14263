/**
 * `within` (loopy's match and stack-match arguments) for expandSubst, joinInames, renameIname and
 * fixParameters: what each does to the selected and to the other instructions, each error, and
 * the laws: for every within w, run(t(k, w)) == run(k).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { joinInames } from "../../transforms/iname-join.js";
import { renameIname } from "../../transforms/iname-rename.js";
import { fixParameters } from "../../transforms/parameters.js";
import { expandSubst } from "../../transforms/subst.js";
import { applyPipeline, fromJSON, step, toJSON } from "../../transforms/pipeline.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };
const rhs = (k: Kernel, id: string) => {
  const insn = k.instructions.find((i) => i.id === id)!;
  return insn.kind === "assign" ? exprToString(insn.rhs) : insn.kind;
};
async function sameMeaning(k: Kernel, t: Kernel, params: Record<string, number>, seed = 0): Promise<void> {
  const r = await autoTestVsRef(k, t, { params, seed });
  if (!r.ok) throw new Error(`not equivalent for ${JSON.stringify(params)}: ${r.mismatches.slice(0, 3).join("; ")}`);
}

// ---- expandSubst with stack matches -------------------------------------------------------------

/** Rules calling rules: h calls g and f, g calls f. */
const nested = () => makeKernel("{[i]: 0<=i<n}", [
  "f(x) := 2*x + 1", "g(x) := f(x)*x - 3", "h(x, y) := g(x) + f(y)",
  "p[i] = h(a[i], b[i]) + g(b[i]) {id=s1}", "q[i] = f(a[i]) - g(a[i] + 1) {id=s2}",
], ["a, b, p, q: float64[n]", "n: int32"], { name: "nested" });

describe("expandSubst with a stack match (loopy's expand_subst within)", () => {
  it("expands only the calls whose stack of enclosing calls matches", async () => {
    const k = nested();
    // Only the calls of f made directly inside g: the calls of g stay, and call a copy g_0 of g
    // whose body has f expanded (loopy's rule specialization); h, which calls g, gets a copy too.
    const t = expandSubst(k, "... > id:g > id:f $");
    expect([rhs(t, "s1"), rhs(t, "s2")]).toEqual(["h_0(a[i], b[i]) + g_0(b[i])", "f(a[i]) - g_0(a[i] + 1)"]);
    const rules = Object.fromEntries(t.substitutions.map((r) => [r.name, exprToString(r.expr)]));
    expect(rules).toEqual({ f: "2*x + 1", g_0: "(2*x + 1)*x - 3", h_0: "g_0(x) + f(y)" });
    await sameMeaning(k, t, { n: 7 });
  });

  it("expanding g directly in s2 inlines g's body there, and only there", async () => {
    const k = nested();
    const t = expandSubst(k, "id:s2 > id:g $");
    expect(rhs(t, "s2")).toBe("f(a[i]) - (f(a[i] + 1)*(a[i] + 1) - 3)");
    expect(rhs(t, "s1")).toBe("h(a[i], b[i]) + g(b[i])");
    expect(t.substitutions.map((r) => r.name)).toEqual(["f", "g", "h"]);
    await sameMeaning(k, t, { n: 6 });
  });

  it("a plain expression selects whole instructions, as before", async () => {
    const t = expandSubst(nested(), "id:s2");
    expect(rhs(t, "s2")).toBe("2*a[i] + 1 - ((2*(a[i] + 1) + 1)*(a[i] + 1) - 3)");
    expect(rhs(t, "s1")).toBe("h(a[i], b[i]) + g(b[i])");
  });

  it("names what it could not select, and what is malformed", () => {
    expect(() => expandSubst(nested(), "id:s1 > id:nope")).toThrow(/selects no rule call of kernel "nested".*rules are f, g, h/);
    expect(() => expandSubst(nested(), "id:s1 > ")).toThrow(TransformError);
    expect(() => expandSubst(nested(), "id:s1 > ")).toThrow(/empty level/);
  });

  const LEVELS = ["*", "...", "id:s1", "id:s2", "id:f", "id:g", "id:h", "id:g or id:h", "not id:f", "in_kernel:nest*"];
  it("law: for random stack matches, expandSubst(k, w) computes what k computes", async () => {
    const k = nested();
    let expanded = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(fc.constantFrom(...LEVELS), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.integer({ min: 0, max: 9 }),
      async (levels, bottom, n) => {
        const w = levels.join(" > ") + (bottom ? " $" : "");
        let t: Kernel;
        try {
          t = expandSubst(k, w);
        } catch (e) {
          if (e instanceof TransformError && /selects no rule call/.test(e.message)) return;
          throw e;
        }
        expanded++;
        await sameMeaning(k, t, { n }, n);
      }), RUNS);
    expect(expanded).toBeGreaterThan(RUNS.numRuns / 10);
  });
});

// ---- joinInames within ---------------------------------------------------------------------------

const twoNests = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", [
  "out[i,j] = 2*a[i,j] + j {id=s1}", "out2[i,j] = a[i,j] - i {id=s2}",
], ["a, out, out2: float64[n,4]", "n: int32"], { name: "two" });

describe("joinInames within", () => {
  it("joins the inames of the selected instructions only; the others keep i, j", async () => {
    const k = twoNests();
    const t = joinInames(k, ["i", "j"], undefined, { within: "id:s1", tag: "g.0" });
    expect(t.instructions.map((i) => i.withinInames)).toEqual([["j_and_i"], ["i", "j"]]);
    expect(rhs(t, "s1")).toBe("2*a[j_and_i//4, j_and_i%4] + j_and_i%4");
    expect(t.inameTags.j_and_i).toEqual({ kind: "g", axis: 0 });
    await sameMeaning(k, t, { n: 5 });
  });

  it("selecting every user removes the old inames, as a join without within does", () => {
    const t = joinInames(twoNests(), ["i", "j"], "ij", { within: "id:s*" });
    expect(t.domains.flatMap((d) => d.dims)).toEqual(["ij"]);
  });

  it("refuses a within that selects nothing or no user of the inames", () => {
    expect(() => joinInames(twoNests(), ["i", "j"], undefined, { within: "id:zzz" })).toThrow(/within "id:zzz" matches no instruction/);
    const k = makeKernel("{[i,j,l]: 0<=i<4 and 0<=j<4 and 0<=l<3}", ["out[i,j] = a[i,j] {id=s1}", "b[l] = 1 {id=s2}"], ["a, out: float64[4,4]", "b: float64[3]"]);
    expect(() => joinInames(k, ["i", "j"], undefined, { within: "id:s2" })).toThrow(/no instruction that within "id:s2" selects \(s2\) uses i, j/);
  });

  it("law: for every selection and n, the joined kernel computes the same", async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom("id:s1", "id:s2", "id:s1 or id:s2", "writes:out2", "not id:s1"), fc.boolean(), fc.integer({ min: 0, max: 7 }),
      async (w, tagged, n) => {
        const k = twoNests();
        await sameMeaning(k, joinInames(k, ["i", "j"], undefined, { within: w, ...(tagged ? { tag: "g.0" } : {}) }), { n }, n);
      }), RUNS);
  });
});

// ---- renameIname within --------------------------------------------------------------------------

const fusable = () => makeKernel(["{[i]: 0<=i<n}", "{[i2]: 0<=i2<n}"], [
  "t[i] = 2*a[i] {id=s1}", "u[i] = a[i] + 1 {id=s2}", "out[i2] = b[i2]*3 {id=s3}",
], ["a, b, t, u, out: float64[n]", "n: int32"], { name: "fus" });

describe("renameIname within", () => {
  it("a fresh name: the selected instructions loop over a copy, which keeps the tag (loopy's preserve_tags)", async () => {
    const k = fusable();
    const tagged = { ...k, inameTags: { i: { kind: "g", axis: 0 } } } as Kernel;
    const t = renameIname(tagged, "i", "row", { within: "id:s2" });
    expect(t.instructions.map((i) => i.withinInames)).toEqual([["i"], ["row"], ["i2"]]);
    expect(rhs(t, "s2")).toBe("a[row] + 1");
    expect(t.inameTags.row).toEqual({ kind: "g", axis: 0 });
    await sameMeaning(k, renameIname(k, "i", "row", { within: "id:s2" }), { n: 4 });
  });

  it("an existing name with existingOk: merges only where selected (loop fusion of one statement)", async () => {
    const k = fusable();
    const t = renameIname(k, "i", "i2", { existingOk: true, within: "id:s2" });
    expect(t.instructions.map((i) => i.withinInames)).toEqual([["i"], ["i2"], ["i2"]]);
    await sameMeaning(k, t, { n: 5 });
    const all = renameIname(k, "i", "i2", { existingOk: true, within: "id:s1 or id:s2" });
    expect(all.domains.flatMap((d) => d.dims)).toEqual(["i2"]);
  });

  it("refuses what it refuses without within, and a within without users", () => {
    expect(() => renameIname(fusable(), "i", "i2", { within: "id:s1" })).toThrow(/pass \{ existingOk: true \}/);
    expect(() => renameIname(fusable(), "i", "a", { within: "id:s1" })).toThrow(/"a" is already a name/);
    expect(() => renameIname(fusable(), "i", "r", { within: "id:s3" })).toThrow(/no instruction that within "id:s3" selects \(s3\) uses "i"/);
    const diff = makeKernel(["{[i]: 0<=i<n}", "{[i2]: 0<=i2<n-1}"], ["t[i] = 1 {id=s1}", "out[i2] = 2 {id=s3}"], ["t, out: float64[n]", "n: int32"]);
    expect(() => renameIname(diff, "i", "i2", { existingOk: true, within: "id:s1" })).toThrow(/do not iterate over the same domain/);
  });

  it("law: for every selection, fresh or merging, the kernel computes the same", async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom("id:s1", "id:s2", "id:s1 or id:s2", "writes:u", "iname:i"), fc.boolean(), fc.integer({ min: 0, max: 7 }),
      async (w, merge, n) => {
        const k = fusable();
        const t = merge ? renameIname(k, "i", "i2", { existingOk: true, within: w }) : renameIname(k, "i", "fresh", { within: w });
        await sameMeaning(k, t, { n }, n);
      }), RUNS);
  });
});

// ---- fixParameters within ------------------------------------------------------------------------

const scaled = () => makeKernel("{[i]: 0<=i<n}", [
  "out[i] = alpha*a[i] + n {id=s1}", "out2[i] = alpha - a[i]*n {id=s2}",
], ["a, out, out2: float64[n]", "n: int32", "alpha: float64"], { name: "sc" });

describe("fixParameters within", () => {
  it("substitutes in the selected instructions only; the domain is fixed, and a parameter still read stays an argument", () => {
    const t = fixParameters(scaled(), { n: 8, alpha: 0.5 }, { within: "id:s1" });
    expect([rhs(t, "s1"), rhs(t, "s2")]).toEqual(["0.5d*a[i] + 8", "alpha - a[i]*n"]);
    expect(t.domains[0]!.params).toEqual([]);
    expect(t.args.map((a) => a.name)).toEqual(["a", "out", "out2", "n", "alpha"]);
    const all = fixParameters(scaled(), { n: 8 }, { within: "id:s1 or id:s2" });
    expect(all.args.map((a) => a.name)).toEqual(["a", "out", "out2", "alpha"]);
  });

  it("refuses a within that selects nothing, and options that are not an object", () => {
    expect(() => fixParameters(scaled(), { n: 8 }, { within: "id:zz" })).toThrow(/within "id:zz" matches no instruction/);
    expect(() => fixParameters(scaled(), { n: 8 }, "id:s1" as never)).toThrow(/options must be an object/);
  });

  it("round-trips through the pipeline JSON with its options", () => {
    const p = step.fixParameters({ n: 8 }, { within: "id:s1" });
    expect(toJSON(fromJSON(toJSON(p)))).toEqual(toJSON(p));
    expect(applyPipeline(scaled(), toJSON(p))).toEqual(fixParameters(scaled(), { n: 8 }, { within: "id:s1" }));
  });

  it("law: run(fixParameters(k, v, {within})) with v passed where still an argument is run(k) with v", async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom("id:s1", "id:s2", "id:s1 or id:s2", "reads:alpha and id:s2"), fc.integer({ min: 0, max: 9 }),
      fc.double({ min: -3, max: 3, noNaN: true }), fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
      async (w, n, alpha, which) => {
        const k = scaled();
        const values = { n, alpha };
        const fixed = Object.fromEntries(Object.entries(values).filter((_, x) => which[x]));
        if (Object.keys(fixed).length === 0) return;
        const t = fixParameters(k, fixed, { within: w });
        const a = Float64Array.from({ length: n }, (_, x) => Math.sin(x + n));
        const passed = Object.fromEntries(Object.entries(values).filter(([p]) => t.args.some((arg) => arg.name === p)));
        const [want, got] = [await run(k, { a, ...values }), await run(t, { a, ...passed })];
        expect([...(got.out as Float64Array), ...(got.out2 as Float64Array)]).toEqual([...(want.out as Float64Array), ...(want.out2 as Float64Array)]);
      }), RUNS);
  });
});
