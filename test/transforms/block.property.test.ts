/**
 * Law: for every kernel k with an opaque block inside its loops and every pipeline t of splits,
 * tags and renames of those loops, run(t(k)) == run(k) on the interpreter. The block's
 * expressions must follow the loops (a shared expression mapper reaches them); a transform that
 * forgets them (planted below) breaks the law and fast-check finds it.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mapInsnExprs, substitute, v, withKernel, type BlockStmt, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { renameIname, splitIname, tagInames } from "../../transforms/index.js";
import { S, withBlock } from "../ir/block-helpers.js";

const RUNS = { numRuns: Math.min(60, Number(process.env.LOOM_PROPERTY_RUNS ?? 60)) };

/** A data-dependent loop with break and continue, reading and writing through both inames. */
const BODY: BlockStmt[] = [
  S.decl("x", "int32", "a[i, j] + 1"), S.decl("steps", "int32", "0"),
  S.while("x > 1", [
    S.if("x % 2 == 0", [S.set("x", "x / 2")], [S.set("x", "3*x + 1")]),
    S.set("steps", "steps + 1"),
    S.if("steps > 3*j + i + 4", [S.break]),
    S.if("steps % 5 == 0", [S.continue]),
    S.if("j == 0", [S.set("acc[i]", "acc[i] + 1")]), // one work-item per i writes it
  ]),
  S.set("out[i, j]", "100*steps + 10*i + j"),
];

function kernel(): Kernel {
  const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["out[i, j] = 0 {id=b}"], ["a, out: int32[n, m]", "acc: int32[n]", "n, m: int32"]);
  return withBlock(k, "b", BODY);
}

type Step = { readonly kind: "split"; readonly iname: "i" | "j"; readonly factor: number }
  | { readonly kind: "tag" } | { readonly kind: "rename"; readonly iname: "i" | "j" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("split" as const), iname: fc.constantFrom("i" as const, "j" as const), factor: fc.integer({ min: 1, max: 5 }) }),
  fc.constant({ kind: "tag" as const }),
  fc.record({ kind: fc.constant("rename" as const), iname: fc.constantFrom("i" as const, "j" as const) }),
);

/** Apply the steps; `split` may be replaced by a buggy one. Inames are followed by their current names. */
function apply(k0: Kernel, steps: readonly Step[], split = splitIname): Kernel {
  let k = k0;
  const name: Record<"i" | "j", string> = { i: "i", j: "j" };
  // The outer part of each split iname (renames change only the inner one, which name follows).
  const outer: Partial<Record<"i" | "j", string>> = {};
  const splitOne = (x: "i" | "j", factor: number): void => {
    outer[x] = `${name[x]}_outer`;
    k = split(k, name[x], factor);
    name[x] = `${name[x]}_inner`;
  };
  let tagged = false;
  for (const s of steps) {
    if (s.kind === "split") {
      if (k.inameTags[name[s.iname]]) continue;
      splitOne(s.iname, s.factor);
    } else if (s.kind === "rename") {
      if (k.inameTags[name[s.iname]]) continue;
      const fresh = `${name[s.iname]}_r`;
      k = renameIname(k, name[s.iname], fresh);
      name[s.iname] = fresh;
    } else if (!tagged) {
      // Parallel: the outer part of i as groups, the inner parts of both as work-items (an iname
      // not split yet is split by 2 first, so that most tag steps reach a parallel kernel).
      for (const x of ["i", "j"] as const) if (outer[x] === undefined) splitOne(x, 2);
      k = tagInames(k, { [outer.i!]: "g.0", [name.i]: "l.0", [name.j]: "l.1" });
      tagged = true;
    }
  }
  return k;
}

const sizes = fc.record({ n: fc.integer({ min: 1, max: 7 }), m: fc.integer({ min: 1, max: 6 }), seed: fc.nat(1000) });

async function outputs(k: Kernel, n: number, m: number, seed: number): Promise<number[][]> {
  const a = Int32Array.from({ length: n * m }, (_, x) => (x * 7919 + seed * 31) % 41);
  const r = await run(k, { a, out: new Int32Array(n * m), acc: new Int32Array(n), n, m });
  return [Array.from(r.out! as Int32Array), Array.from(r.acc! as Int32Array)];
}

/** The law for one case: the transformed kernel computes what the original does. */
async function law(steps: readonly Step[], z: { n: number; m: number; seed: number }, split = splitIname): Promise<boolean> {
  const k = kernel();
  const want = await outputs(k, z.n, z.m, z.seed);
  try {
    return JSON.stringify(await outputs(apply(k, steps, split), z.n, z.m, z.seed)) === JSON.stringify(want);
  } catch {
    return false;
  }
}

/** A planted bug: splitIname that leaves the block's expressions with the inner iname only. */
function forgetfulSplit(k: Kernel, iname: string, factor: number): Kernel {
  const t = splitIname(k, iname, factor);
  const old = new Map([[iname, v(`${iname}_inner`)]]);
  return withKernel(t, {
    instructions: t.instructions.map((insn) => (insn.kind === "block"
      ? { ...mapInsnExprs(k.instructions.find((x) => x.id === insn.id)!, (e) => substitute(e, old)), withinInames: insn.withinInames } : insn)),
  });
}

describe("transforms of the loops around a block keep its meaning", () => {
  it("split, tag and rename agree with the untransformed kernel (interpreter)", async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), sizes, async (steps, z) => law(steps, z)), RUNS);
  });

  it("the law catches a split that forgets the block's expressions", async () => {
    const r = await fc.check(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), sizes,
      async (steps, z) => law(steps, z, forgetfulSplit)), { numRuns: 200, seed: 7 });
    expect(r.failed).toBe(true);
  });

  it("a split, parallel kernel still runs the block's loop per work-item", async () => {
    const steps: Step[] = [{ kind: "split", iname: "i", factor: 2 }, { kind: "split", iname: "j", factor: 3 }, { kind: "tag" }];
    expect(await law(steps, { n: 5, m: 4, seed: 3 })).toBe(true);
  });
});
