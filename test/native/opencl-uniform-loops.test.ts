/**
 * OpenCL's uniform loop bounds (codegen/lower/uniform-loops.ts): in a device kernel with a barrier in a loop,
 * a loop whose bounds depend on the local ids runs over bounds every work-item shares, guarded by
 * the varying ones. PoCL 3.1 segfaults at launch on the varying loop (a loop with zero trips for
 * some work-items after a loop around a barrier, under the same condition). The packing cases of
 * that class run on opencl in a child process (a crash fails the test instead of killing vitest)
 * and equal the reference.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/pipeline.js";
import { uniformSplit } from "../../codegen/lower/uniform-loops.js";
import { makeKernel } from "../../src/parse/index.js";
import { dimBounds, parseSet, type Bound } from "../../src/poly/index.js";
import { tagInames } from "../../transforms/iname.js";
import { availableNative } from "../run/native-helpers.js";
import { packingCase, type PackingSpec } from "../transforms/gen-packing.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The case PoCL 3.1 crashed on (issue: "No input may crash or hang the process"). */
const CRASH: PackingSpec = {
  form: "reduction", mc: 4, nc: 3, kc: 1, mr: 2, nr: 2, laneI: "ilp", laneJ: "ilp.seq", group: true, workItems: true,
  pack: ["a"], explicitOuter: true, space: "local", spaceA: "local", iFirst: true, sizes: { n: 2, m: 2, p: 2 },
};

/** The `for` headers of OpenCL code whose bounds mention a local id. */
const varyingLoops = (code: string) => code.split("\n").filter((l) => /^\s*for \(/.test(l) && l.includes("lid("));

/** Shapes of the class: work-item micro-tiles of partial blocks, a local panel, the loads inside the k loop with its barriers. */
const shapes: fc.Arbitrary<PackingSpec> = fc.record({
  mc: fc.integer({ min: 2, max: 5 }), nc: fc.integer({ min: 2, max: 5 }), kc: fc.integer({ min: 1, max: 3 }),
  mr: fc.integer({ min: 1, max: 3 }), nr: fc.integer({ min: 1, max: 3 }), pack: fc.constantFrom<("a" | "b")[]>(["a"], ["b"]),
  sizes: fc.record({ n: fc.integer({ min: 1, max: 7 }), m: fc.integer({ min: 1, max: 7 }), p: fc.integer({ min: 1, max: 7 }) }),
}).map((s) => ({ ...CRASH, ...s, mr: Math.min(s.mr, s.mc), nr: Math.min(s.nr, s.nc) }));

describe("uniform loop bounds on OpenCL", () => {
  it("the crash case's loops over local-id-dependent ranges run over uniform bounds with a guard", () => {
    const before = generateCode(packingCase(CRASH).transformed, "cuda").deviceCode;
    const code = generateCode(packingCase(CRASH).transformed, "opencl").deviceCode;
    // CUDA keeps the varying bounds (the rewrite is PoCL's), OpenCL has none left.
    expect(before.split("\n").filter((l) => /^\s*for \(/.test(l) && l.includes("threadIdx")).length).toBeGreaterThan(0);
    expect(varyingLoops(code)).toEqual([]);
    expect(code).toMatch(/for \(int j_r = 0; j_r <= 1; \+\+j_r\)\n\s*\{\n\s*if \(3 \* gid\(1\) \+ 2 \* lid\(0\) \+ j_r < p/);
  });

  it("only where needed: a kernel without a barrier inside a loop keeps its varying loop", () => {
    const k = tagInames(makeKernel("{ [i, j]: 0 <= i < 4 and 0 <= j <= i }", "out[i, j] = 1", ["out: float32[4, 4]"], { name: "tri" }), { i: "l.0" });
    expect(varyingLoops(generateCode(k, "opencl").deviceCode)).toHaveLength(1);
  });

  it("uniformSplit: the uniform range with the varying bounds as a guard is each work-item's range (property)", () => {
    const at = (b: Bound, l: number, side: "lo" | "hi") => (side === "lo" ? Math.ceil : Math.floor)((b.aff.constant + (b.aff.terms["l"] ?? 0) * l) / b.denom);
    const holds = (bs: readonly Bound[], l: number, j: number, side: "lo" | "hi") => bs.every((b) => (side === "lo" ? j >= at(b, l, "lo") : j <= at(b, l, "hi")));
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -2, max: 2 }),
      fc.integer({ min: -3, max: 6 }), fc.integer({ min: 1, max: 3 }), fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      (L, a, b, c, d, den, cap) => {
        const s = parseSet(`{ [l, j]: 0 <= l < ${L} and ${a}*l + ${b} <= j and ${den}*j <= ${c}*l + ${d}${cap === undefined ? "" : ` and j <= ${cap}`} }`);
        if (!s.dims.includes("j")) return;
        const { lower, upper } = dimBounds(s, "j", ["l"]);
        const u = uniformSplit("j", lower, upper, (n) => n === "l", ["l"], s, s);
        if (!u) {
          expect([...lower, ...upper].every((x) => !x.aff.terms["l"])).toBe(true);
          return;
        }
        const lo = Math.max(...u.lower.map((x) => at(x, 0, "lo")));
        const hi = Math.min(...u.upper.map((x) => at(x, 0, "hi")));
        for (let l = 0; l < L; l++) {
          const want: number[] = [];
          for (let j = -20; j <= 20; j++) if (holds(lower, l, j, "lo") && holds(upper, l, j, "hi")) want.push(j);
          const got: number[] = [];
          for (let j = lo; j <= hi; j++) if (holds(u.guardLower, l, j, "lo") && holds(u.guardUpper, l, j, "hi") && holds(u.lower, l, j, "lo") && holds(u.upper, l, j, "hi")) got.push(j);
          expect(got, `l = ${l}`).toEqual(want);
        }
      }), { numRuns: 60, seed: 77 });
  });

  const natives = availableNative(["opencl"]);
  /** Random shapes run natively besides the crash case (one PoCL compile each). */
  const SHAPES = 2;
  const BUDGET = 60_000 * (1 + SHAPES);
  it.skipIf(natives.length === 0)("the crash case and random shapes of its class run on opencl (child process) and equal the reference", () => {
    const specs = [CRASH, ...fc.sample(shapes, { numRuns: SHAPES, seed: 2031 })];
    // A hang (PoCL's other failure mode) is killed before the test's budget: the signal fails it.
    const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "test/native/uniform-loops-child.ts"), JSON.stringify(specs)],
      { cwd: root, encoding: "utf8", timeout: BUDGET - 10_000, killSignal: "SIGKILL" });
    const lines = r.stdout.split("\n").filter((l) => l.length > 0);
    expect({ status: r.status, signal: r.signal, ran: lines.length }, r.stderr).toEqual({ status: 0, signal: null, ran: specs.length });
    lines.forEach((l, i) => expect(JSON.parse(l), `spec ${JSON.stringify(specs[i])}`).toEqual({ ok: true, mismatches: [] }));
  }, BUDGET);
});
