/**
 * Law: for every kernel k and every split s (split or chunk, optionally split again, optionally
 * tagged), run(s(k)) == run(k) — checked with autoTestVsRef on random inputs and sizes.
 */
import { describe, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { iterationDomain, reductionInames, type Kernel } from "../../src/ir/index.js";
import { count } from "../../src/poly/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { chunkIname, splitIname, tagInames } from "../../transforms/index.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 200) };

const FAMILIES = {
  elementwise: () => fc.constantFrom("2*a[i] + 1", "a[i]*a[i] - 3", "a[i] - 1").map((f) =>
    makeKernel("{[i]: 0<=i<n}", `out[i] = ${f}`, ["a, out: float64[n]", "n: int32"])),
  matvec: () => fc.constant(makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, A[i,j]*x[j])", ["A: float64[n,n]", "x, y: float64[n]", "n: int32"])),
  triangular: () => fc.constant(makeKernel("{[i,j]: 0<=j<=i<n}", "out[i] = sum(j, a[i,j]*(j + 1))", ["a: float64[n,n]", "out: float64[n]", "n: int32"])),
  guarded: () => fc.constant(makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "out[i,j] = a[i,j] + i - 2*j {if=i+j<n}", ["a, out: float64[n,n]", "n: int32"])),
  twoStatements: () => fc.constant(makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=first}", "out[i] = t[i] + a[i] {id=second}"], ["a, t, out: float64[n]", "n: int32"])),
} as const;

interface Plan {
  readonly iname: number;
  readonly factor: number;
  readonly chunk: boolean;
  readonly within: number;
  readonly again: { readonly which: "outer" | "inner"; readonly factor: number } | null;
  readonly tag: string | null;
}

const plan = (tags: readonly string[]): fc.Arbitrary<Plan> => fc.record({
  iname: fc.nat(), factor: fc.integer({ min: 1, max: 6 }), chunk: fc.boolean(), within: fc.nat({ max: 2 }),
  again: fc.option(fc.record({ which: fc.constantFrom("outer" as const, "inner" as const), factor: fc.integer({ min: 1, max: 6 }) })),
  tag: fc.option(fc.constantFrom(...tags)),
});

/** Apply a plan; chunking an iname with coupled bounds (triangular) falls back to a split. */
function apply(k: Kernel, p: Plan): Kernel {
  const inames = k.domains.flatMap((d) => d.dims);
  const iname = inames[p.iname % inames.length]!;
  const within = p.within === 0 || k.instructions.length < 2 ? undefined : k.instructions[p.within - 1]!.id;
  let t: Kernel;
  let chunked = p.chunk;
  try {
    t = p.chunk ? chunkIname(k, iname, p.factor, { within }) : splitIname(k, iname, p.factor, { within });
  } catch (e) {
    if (!(e instanceof TransformError) || !p.chunk) throw e;
    t = splitIname(k, iname, p.factor, { within });
    chunked = false;
  }
  if (p.again) t = splitIname(t, `${iname}_${p.again.which}`, p.again.factor);
  if (p.tag) {
    // unr/ilp need a constant trip count: the inner iname of a split, the outer one of a chunk.
    const fixed = chunked ? "outer" : "inner";
    const target = p.again?.which === fixed ? `${iname}_${fixed}_inner` : `${iname}_${fixed}`;
    t = tagInames(t, { [target]: p.tag });
  }
  return t;
}

/** How many times each instruction runs (its loops and reduction inames), by id. */
function instances(k: Kernel, n: number): Record<string, number> {
  return Object.fromEntries(k.instructions.map((insn) => {
    const red = insn.kind === "assign" ? [...reductionInames(insn.rhs)] : [];
    const inames = [...insn.withinInames, ...red];
    return [insn.id, inames.length === 0 ? 1 : count(iterationDomain(k, inames), { n })];
  }));
}

/** Same outputs on random inputs, and (so that idempotent writes cannot hide a duplicate) the same instance counts. */
async function equivalent(k: Kernel, t: Kernel, n: number): Promise<boolean> {
  const [ci, ct] = [instances(k, n), instances(t, n)];
  if (JSON.stringify(ci) !== JSON.stringify(ct)) throw new Error(`instance counts differ for n=${n}: ${JSON.stringify(ci)} vs ${JSON.stringify(ct)}`);
  const r = await autoTestVsRef(k, t, { params: { n }, seed: n });
  if (!r.ok) throw new Error(`not equivalent for n=${n}: ${r.mismatches.slice(0, 3).join("; ")}`);
  return true;
}

describe("split and chunk preserve the meaning of a kernel", () => {
  for (const [name, family] of Object.entries(FAMILIES)) {
    it(`${name}`, async () => {
      await fc.assert(fc.asyncProperty(family(), plan(["unr", "ilp", "ilp.seq", "unr_hint"]), fc.integer({ min: 0, max: 13 }),
        async (k, p, n) => equivalent(k, apply(k, p), n)), RUNS);
    });
  }
});

describe("split with g/l tags preserves the meaning of a kernel", () => {
  it("elementwise, matvec, triangular, guarded", async () => {
    const families = fc.oneof(FAMILIES.elementwise(), FAMILIES.matvec(), FAMILIES.triangular(), FAMILIES.guarded());
    await fc.assert(fc.asyncProperty(families, fc.nat(), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 13 }),
      async (k, which, factor, n) => {
        // Only loop (not reduction) inames get hardware tags: i is never a reduction iname here.
        return equivalent(k, splitIname(k, "i", factor, which % 2 === 0 ? { outerTag: "g.0", innerTag: "l.0" } : { outerTag: "g.0" }), n);
      }), RUNS);
  });
});
