/**
 * The loop nest is remembered by the kernel's structure (`structureKey`: names, tags, loop
 * priorities, dependencies; not the domains' constraints), so that the variants of a sweep share
 * one. Law: whatever kernel was linearized before, `linearize(k)` is the nest computed afresh for
 * `k` (memos emptied): two kernels with one key have one nest.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withKernel, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos } from "../../src/poly/index.js";
import { linearize, structureKey } from "../../src/schedule/linearize.js";
import { hasStructure, structureOf } from "../../src/schedule/structure.js";
import { splitIname, tagInames } from "../../transforms/index.js";

/** Random small kernels (as specs): 1–3 instructions over i, j (j nested in i or not), random loops, dependencies, priorities, tags and loop priorities. */
const arbSpec = fc.record({
  nested: fc.boolean(),
  insns: fc.array(fc.record({
    within: fc.subarray(["i", "j"]),
    priority: fc.constantFrom(0, 1),
    deps: fc.subarray([0, 1]),
  }), { minLength: 1, maxLength: 3 }),
  tagI: fc.constantFrom("", "g.0", "l.0", "ilp"),
  loopPriority: fc.constantFrom(undefined, ["j", "i"], ["i", "j"]),
  bound: fc.constantFrom(8, 16, 64),
  split: fc.constantFrom(0, 4, 8),
});
type Spec = typeof arbSpec extends fc.Arbitrary<infer T> ? T : never;

function kernelOf({ nested, insns, tagI, loopPriority, bound, split }: Spec): Kernel {
  const domains = nested ? [`{[i]: 0<=i<${bound}}`, `{[j]: 0<=j<i}`] : [`{[i,j]: 0<=i<${bound} and 0<=j<n}`];
  const stmts = insns.map((x, m) => {
    const within = x.within.length > 0 && !(nested && x.within.includes("j") && !x.within.includes("i")) ? x.within : ["i"];
    const deps = x.deps.filter((d) => d < m).map((d) => `s${d}`);
    const idx = within.join(", ");
    return `out${m}[${idx}] = ${m} {id=s${m}, inames=${within.join(":")}, priority=${x.priority}${deps.length > 0 ? `, dep=${deps.join(":")}` : ""}}`;
  });
  const args = insns.map((x, m) => `out${m}: float32[${(x.within.length === 2 ? [64, 64] : [64]).join(", ")}]`);
  let k = makeKernel(domains, stmts, [...args, "n: int32", "..."]);
  if (split > 0) k = splitIname(k, "i", split);
  const outer = split > 0 ? "i_outer" : "i";
  if (tagI !== "") k = tagInames(k, { [outer]: tagI });
  if (loopPriority) k = withKernel(k, { loopPriority: [loopPriority.map((n) => (n === "i" ? outer : n))] });
  return k;
}

/** The nest of `k` with every memo emptied first. */
function fresh(k: Kernel): unknown {
  clearPolyMemos();
  return linearize(k);
}

/** The nest of `k` or the error it raises, for comparing. */
function nestOrError(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe("the loop nest remembered by structure", () => {
  it("law: after any other kernel, linearize(k) is the nest computed afresh", () => {
    let shared = 0;
    // Most pairs are variants of one structure: other bounds (another split factor), or one
    // thing the nest depends on changed (dependencies, priorities, a tag, the loop priority).
    const change = fc.constantFrom("bounds", "deps", "priority", "tag", "order", "other");
    fc.assert(fc.property(arbSpec, arbSpec, change, (sa, sb, what) => {
      const a = kernelOf(sa);
      const mixed = (f: "deps" | "priority") => sa.insns.map((x, m) => ({ ...x, [f]: (sb.insns[m] ?? sb.insns[0]!)[f] }));
      const b = kernelOf(
        what === "bounds" ? { ...sa, bound: sb.bound, split: sa.split === 0 ? 0 : sb.split || sa.split }
          : what === "deps" || what === "priority" ? { ...sa, insns: mixed(what) }
            : what === "tag" ? { ...sa, tagI: sb.tagI }
              : what === "order" ? { ...sa, loopPriority: sb.loopPriority }
                : sb);
      const expected = nestOrError(() => fresh(b));
      clearPolyMemos();
      nestOrError(() => linearize(a));
      if (structureKey(a) === structureKey(b)) shared++;
      // The last kernel's structure, compared field by field, answers as the key does.
      expect(hasStructure(b, structureOf(a))).toBe(structureKey(a) === structureKey(b));
      expect(nestOrError(() => linearize(b))).toEqual(expected);
    }), { numRuns: 100 });
    // The law was tested where the memo answers (one key for two kernels), not only where it cannot.
    expect(shared).toBeGreaterThan(0);
  });

  it("variants differing only in bounds share a key; a dependency, priority or tag changes it", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", ["out[i, j] = 1 {id=a}", "out2[i, j] = out[i, j] {id=b, dep=a}"], ["out: float32[n, n]", "out2: float32[n, n]", "n: int32"]);
    expect(structureKey(splitIname(k, "i", 16))).toBe(structureKey(splitIname(k, "i", 32)));
    expect(structureKey(k)).not.toBe(structureKey(withKernel(k, { instructions: k.instructions.map((x) => ({ ...x, dependsOn: [] })) })));
    expect(structureKey(k)).not.toBe(structureKey(withKernel(k, { instructions: k.instructions.map((x) => ({ ...x, priority: x.id === "b" ? 1 : 0 })) })));
    expect(structureKey(k)).not.toBe(structureKey(tagInames(k, { j: "l.0" })));
    expect(structureKey(k)).not.toBe(structureKey(withKernel(k, { loopPriority: [["j", "i"]] })));
  });

  it("a remembered nest is not changed by its users", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {id=a}", ["out: float32[n]", "n: int32"]);
    const first = linearize(k);
    first.push({ kind: "insn", id: "ghost" });
    expect(linearize(k)).toEqual([{ kind: "loop", iname: "i", body: [{ kind: "insn", id: "a" }] }]);
  });
});
