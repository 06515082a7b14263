/**
 * A domain parameter naming a temporary ARRAY (`[t] -> {[r]: 0 <= r < t}` with `t[i]` a
 * temporary) has no meaning: C read the array's address as the bound (`r <= t - 1`). Building or
 * changing a kernel refuses it (src/ir/domain-params.ts via kernelRecord / withKernel), whichever
 * way the name comes in, with a message naming the parameter, the temporary and what is accepted;
 * a refused change leaves its input as it was. The same kernels with a scalar bound still build
 * and run (interp and js against the count they must give).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError, ScheduleError, TransformError } from "../../src/errors.js";
import { generateCode } from "../../codegen/index.js";
import { withKernel, type Kernel } from "../../src/ir/index.js";
import { addDtypes, makeKernel, temporary } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { kernelFromJSON, kernelToJSON } from "../../src/tune/executor/kernel-json.js";
import { tagInames } from "../../transforms/index.js";

const N = 4;

/** `out[i]` counts `r` below the bound `p` read from `cnt[i]`; `shape` [] is a scalar bound, else `p` is an array of that shape. */
function source(p: string, shape: readonly number[], how: "insn" | "declared") {
  const cell = shape.length === 0 ? p : `${p}[${["i", ...shape.slice(1).map(() => "0")].join(", ")}]`;
  const domains = [`{[i]: 0<=i<${N}}`, `[${p}] -> {[r]: 0<=r<${p}}`];
  const write = how === "insn" ? `<int32> ${cell} = cnt[i] {id=lt}` : `${cell} = cnt[i] {id=lt}`;
  const insns = [write, "out[i] = sum(r, 1) {id=u, dep=lt}"];
  const args = [...(how === "declared" ? [temporary(p, "int32", [...shape], "private")] : []), "cnt: int32[4]", "out: int32[4]"];
  return { domains, insns, args };
}

function build(p: string, shape: readonly number[], how: "insn" | "declared"): Kernel {
  const s = source(p, shape, how);
  return addDtypes(makeKernel(s.domains, s.insns, s.args as never), {});
}

/** The refusal's message: the parameter, the temporary and its axes, and what a bound may read. */
function refusal(p: string, rank: number): RegExp {
  const axes = rank === 1 ? "1 axis" : `${rank} axes`;
  return new RegExp(`parameter "${p}", which names \\w+ temporary "${p}", an array \\(${axes}\\), not a scalar.*a domain parameter is a value argument, an outer iname or a scalar temporary`);
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Names a kernel might give a bound: not the kernel's own names (`i`, `r`, `cnt`, `out`). */
const nameArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/).map((s) => `b_${s}`);
const shapeArb = fc.oneof(fc.constant([N]), fc.tuple(fc.constant(N), fc.integer({ min: 1, max: 3 })));

describe("a domain parameter naming a temporary array is refused where the kernel is built or changed", () => {
  it("makeKernel (a <> temporary written with a subscript, or one declared with temporary()) and kernelFromJSON", () => {
    fc.assert(fc.property(nameArb, shapeArb, fc.constantFrom("insn" as const, "declared" as const), (p, shape, how) => {
      const e = thrown(() => build(p, shape, how));
      expect(e).toBeInstanceOf(LoomError);
      expect(String((e as Error).message)).toMatch(refusal(p, shape.length));
      // A stored kernel (a tuning record) whose bound became an array is refused when read back.
      const json = kernelToJSON(build(p, [], how)) as { temporaries: { name: string; shape: unknown[] }[] };
      const t = json.temporaries.find((x) => x.name === p)!;
      const bad = { ...json, temporaries: json.temporaries.map((x) => (x === t ? { ...x, shape: shape.map((n) => ({ kind: "const", value: n, isFloat: false })) } : x)) };
      const e2 = thrown(() => kernelFromJSON(bad));
      expect(e2).toBeInstanceOf(LoomError);
      expect(String((e2 as Error).message)).toMatch(refusal(p, shape.length));
    }), { numRuns: 20 });
  });

  it("withKernel: giving the bound a shape, or adding a domain that takes an array as parameter, is a TransformError; the input is unchanged", () => {
    fc.assert(fc.property(nameArb, shapeArb, fc.boolean(), (p, shape, viaDomain) => {
      const k = build(p, [], "insn");
      const before = JSON.stringify(kernelToJSON(k));
      const arrayTemp = { name: `${p}_a`, dtype: "int32" as const, shape: shape.map((n) => ({ kind: "const" as const, value: n, isFloat: false })), addressSpace: "private" as const, order: "C" as const, dimTags: undefined };
      const change = () => {
        if (!viaDomain) return withKernel(k, { temporaries: k.temporaries.map((t) => (t.name === p ? { ...arrayTemp, name: p } : t)) });
        // A second temporary, an array, and a domain list whose bound reads it.
        const withTemp = withKernel(k, { temporaries: [...k.temporaries, arrayTemp] });
        const other = makeKernel([`[${p}_a] -> {[r]: 0<=r<${p}_a}`], "out[0] = 1", ["out: int32[4]", `${p}_a: int32`]).domains[0]!;
        return withKernel(withTemp, { domains: [k.domains[0]!, other] });
      };
      const e = thrown(change);
      expect(e).toBeInstanceOf(TransformError);
      expect(String((e as Error).message)).toMatch(refusal(viaDomain ? `${p}_a` : p, shape.length));
      expect(JSON.stringify(kernelToJSON(k))).toBe(before);
      expect(Object.isFrozen(k.temporaries) && Object.isFrozen(k.domains)).toBe(true);
    }), { numRuns: 20 });
  });

  it("an ilp or vec lane copy of a scalar bound (the schedule's realizeIlp) is refused instead of reading the copies' address as the bound", () => {
    for (const tagName of ["ilp", "vec"]) {
      const k = tagInames(build("t", [], "insn"), { i: tagName });
      for (const target of ["c", "opencl", "cuda"] as const) {
        const e = thrown(() => generateCode(k, target));
        // realizeIlp refuses it itself (a ScheduleError naming the scalar, the loop it bounds and the lane iname).
        expect(e, `${tagName} ${target}`).toBeInstanceOf(ScheduleError);
        expect(String((e as Error).message), `${tagName} ${target}`).toMatch(
          new RegExp(`temporary "t" is written inside ilp iname "i" \\(tagged ${tagName}\\).*bounds the loop over "r"`));
      }
    }
  });

  it("a scalar bound still builds and runs: out[i] is cnt[i] on interp and js", async () => {
    await fc.assert(fc.asyncProperty(nameArb, fc.constantFrom("insn" as const, "declared" as const), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: N, maxLength: N }), async (p, how, cnt) => {
      const k = build(p, [], how);
      for (const backend of ["interp", "js"]) {
        const out = (await run(k, { cnt: Int32Array.from(cnt), out: new Int32Array(N) } as never, { backend } as never)) as { out: Int32Array };
        expect(Array.from(out.out), backend).toEqual(cnt);
      }
    }), { numRuns: 6 });
  });
});
