/**
 * The spec of `loom tune` (src/cli/tune-spec.ts) and its restriction expressions
 * (src/cli/restriction-expr.ts), in process: every mistake names its field; the pipeline template
 * fills "$name" from the point; expressions are parsed, never evaluated as JavaScript.
 */
import fc from "fast-check";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as lp from "../src/index.js";
import { compileRestriction } from "../src/cli/restriction-expr.js";
import { checkSpec, instantiate, readSpec, SpecError } from "../src/cli/tune-spec.js";

const dir = mkdtempSync(join(tmpdir(), "loom-spec-"));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const KERNEL = {
  domains: "{[i]: 0<=i<n}", instructions: "out[i] = 2*a[i]",
  args: ["a: float32[n]", "out: float32[n]", "n: int32"], options: { name: "twice" },
};
const SPEC = {
  kernel: KERNEL, space: { t: [1, 2, 4], tag: ["g.0", "for"] },
  pipeline: [{ op: "splitIname", args: ["i", "$t", { outerTag: "$tag" }] }],
  params: { n: 32 },
};

describe("tune spec: the pipeline template", () => {
  it("replaces every \"$name\" by the point's value, keeping its type; \"$$x\" is a literal \"$x\"", () => {
    expect(instantiate([{ op: "splitIname", args: ["i", "$t", { outerTag: "$tag", note: "$$t" }] }], { t: 4, tag: "g.0" }))
      .toEqual([{ op: "splitIname", args: ["i", 4, { outerTag: "g.0", note: "$t" }] }]);
  });

  it("builds each point's pipeline: the step applied equals the direct transformation", () => {
    const spec = checkSpec({ ...SPEC }, join(dir, "s.json"));
    for (const t of SPEC.space.t) {
      const built = spec.options.build(spec.kernel, { t, tag: "g.0" }) as lp.Step;
      expect(lp.toJSON(built)).toEqual([{ op: "splitIname", args: ["i", t, { outerTag: "g.0" }] }]);
      expect(built(spec.kernel)).toEqual(lp.splitIname(spec.kernel, "i", t, { outerTag: "g.0" }));
    }
  });

  it("puts the log beside the spec by default (its name with .jsonl), or where the spec says, relative to it", () => {
    expect(checkSpec({ ...SPEC }, join(dir, "sweep.json")).log).toBe(join(dir, "sweep.jsonl"));
    expect(checkSpec({ ...SPEC, log: "logs/x.jsonl" }, join(dir, "sweep.json")).log).toBe(join(dir, "logs", "x.jsonl"));
  });

  it("passes the executor on to lp.autotune (a queue sweep from a spec: docs/tuning-distributed.md)", () => {
    const executor = { queue: { connection: "redis://127.0.0.1:6379", name: "mm" } };
    expect(checkSpec({ ...SPEC, executor }, join(dir, "s.json")).options.executor).toEqual(executor);
    expect(checkSpec({ ...SPEC }, join(dir, "s.json")).options.executor).toBeUndefined();
  });

  it("loads an OKL kernel relative to the spec, by name when the file has several", () => {
    file("two.okl", `@kernel void first(const int n, float *a) {
  for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) { a[i] = 2*a[i]; }
}
@kernel void second(const int n, float *b) {
  for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) { b[i] = b[i] + 1; }
}
`);
    const spec = checkSpec({ ...SPEC, kernel: { okl: "two.okl", kernel: "second" }, pipeline: [] }, join(dir, "okl.json"));
    expect(spec.kernel.name).toBe("second");
    expect(() => checkSpec({ ...SPEC, kernel: { okl: "two.okl" }, pipeline: [] }, join(dir, "okl.json"))).toThrow(/holds 2 kernels \(first, second\); name one with kernel.kernel/);
    expect(() => checkSpec({ ...SPEC, kernel: { okl: "two.okl", kernel: "third" }, pipeline: [] }, join(dir, "okl.json"))).toThrow(/"third" is not a kernel of two.okl; its kernels are first, second/);
  });
});

describe("tune spec: mistakes name the field", () => {
  const where = join(dir, "bad.json");
  it.each([
    ["an unknown field", { ...SPEC, spaec: {} }, /unknown field "spaec"; a spec has kernel, pipeline, build, restrictions, log, space/],
    ["no kernel", { ...SPEC, kernel: undefined }, /the spec has no kernel/],
    ["a kernel without instructions", { ...SPEC, kernel: { domains: "{[i]: 0<=i<n}" } }, /kernel needs domains and instructions \(or okl\)/],
    ["a kernel that does not parse", { ...SPEC, kernel: { ...KERNEL, instructions: "out[i] = = 2" } }, /^kernel: /],
    ["a space that is a list", { ...SPEC, space: [1, 2] }, /space must be an object of value lists/],
    ["a pipeline that is not a list", { ...SPEC, pipeline: { op: "splitIname" } }, /pipeline must be an array of steps/],
    ["a placeholder naming no parameter", { ...SPEC, pipeline: [{ op: "splitIname", args: ["i", "$tk"] }] },
      /pipeline\[0\]\.args\[1\] is "\$tk" but the space has no parameter "tk"; parameters are t, tag/],
    ["an unknown transformation", { ...SPEC, pipeline: [{ op: "splitInames", args: ["i", "$t"] }] }, /^pipeline: .*splitInames/],
    ["both build and pipeline", { ...SPEC, build: () => undefined }, /either build .* or pipeline/],
    ["restrictions that are not a list", { ...SPEC, restrictions: "t < 4" }, /restrictions must be an array of expressions/],
    ["a restriction naming no parameter", { ...SPEC, restrictions: ["t * u < 4"] }, /restrictions\[0\] "t \* u < 4": "u" is not a parameter of the space; parameters are t, tag/],
    ["a restriction that does not parse", { ...SPEC, restrictions: ["t <"] }, /restrictions\[0\] "t <": the expression ends too early/],
    ["an empty log path", { ...SPEC, log: "" }, /log must be the path of the tuning log/],
  ])("%s", (_what, raw, message) => {
    const f = () => checkSpec(raw as Record<string, unknown>, where);
    expect(f).toThrow(SpecError);
    expect(f).toThrow(lp.LoomError);
    expect(f).toThrow(message);
  });

  it("refuses a file that is not JSON, a JSON array and an unknown extension", async () => {
    await expect(readSpec(file("broken.json", "{ \"kernel\": "))).rejects.toThrow(/the spec is not valid JSON/);
    await expect(readSpec(file("list.json", "[1]"))).rejects.toThrow(/the spec must be a JSON object/);
    await expect(readSpec(file("spec.yaml", "a: 1"))).rejects.toThrow(/a spec is a .json file or a .js\/.ts module; got ".yaml"/);
    await expect(readSpec(join(dir, "missing.json"))).rejects.toThrow(/cannot read the spec/);
  });

  it("reads a module spec's default export, and names what a failing module threw", async () => {
    const m = await readSpec(file("mod.mjs", "export default { space: { t: [1] }, build: (k) => k };"));
    expect(Object.keys(m).sort()).toEqual(["build", "space"]);
    await expect(readSpec(file("throws.mjs", "throw new Error('spec module broke');"))).rejects.toThrow(/cannot load the spec module: Error: spec module broke/);
  });
});

describe("restriction expressions", () => {
  it("agree with the same arithmetic and logic in JavaScript", () => {
    fc.assert(fc.property(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: -100, max: 100 }), (a, b, c) => {
      const p = { a, b, c };
      const f = (src: string) => compileRestriction(src, ["a", "b", "c"], "r")(p);
      expect(f("a * b <= c")).toBe(a * b <= c);
      expect(f("a + b * 2 > c - 1")).toBe(a + b * 2 > c - 1);
      expect(f("(a + b) * 2 > c")).toBe((a + b) * 2 > c);
      expect(f("a // b == floor(a / b)")).toBe(true);
      expect(f("a % b == c % b or not a < c and b >= 1")).toBe(a % b === c % b || (!(a < c) && b >= 1));
      expect(f("!(a < c) && b >= 1 || a == -c")).toBe((!(a < c) && b >= 1) || a === -c);
      expect(f("max(a, b, c) - min(a, c) >= abs(a - c)")).toBe(Math.max(a, b, c) - Math.min(a, c) >= Math.abs(a - c));
    }), { numRuns: 100 });
  });

  it("compare strings, in either quotes", () => {
    const f = compileRestriction("gl == 'yes' or t != \"x\"", ["gl", "t"], "r");
    expect([f({ gl: "yes", t: "x" }), f({ gl: "no", t: "x" }), f({ gl: "no", t: "y" })]).toEqual([true, false, true]);
  });

  it.each([
    ["process.exit(1)", /unexpected "\."|not a parameter/],
    ["constructor(1)", /unknown function "constructor"/],
    ["t toString", /unexpected "toString" after a complete expression at column 3/],
    ["t < 4 ;", /unexpected ";" at column 7/],
    ["t >> 2", /unexpected ">" at column 4/],
    ["t < 4 and max(", /the expression ends too early/],

    ["(t < 4", /expected "\)" at the end/],
    ["u < 4", /"u" is not a parameter of the space; parameters are t/],
  ])("refuses %s without running it", (src, message) => {
    expect(() => compileRestriction(src, ["t"], "restrictions[0]")).toThrow(lp.LoomError);
    expect(() => compileRestriction(src, ["t"], "restrictions[0]")).toThrow(message);
  });

  it("refuses expressions nested past 200 levels, quoting a long source shortened", () => {
    // Before: "Maximum call stack size exceeded" (a RangeError, while parsing or at every point).
    const deep = (src: string) => () => compileRestriction(src, ["t"], "restrictions[0]");
    expect(deep(`${"(".repeat(50_000)}t${")".repeat(50_000)} > 0`)).toThrow(/^restrictions\[0\] "\({60}…\(100005 characters\)": the expression nests deeper than 200 levels at column 202;/);
    expect(deep(`${Array(100_000).fill("t").join(" + ")} > 0`)).toThrow(/nests deeper than 200 levels at column 803; write it with fewer/);
    expect(deep(`${"not ".repeat(100_000)}t > 0`)).toThrow(/nests deeper than 200 levels at column 805/);
    // 200 levels are accepted and evaluated.
    expect(compileRestriction(`${"(".repeat(199)}t${")".repeat(199)} > 0`, ["t"], "r")({ t: 1 })).toBe(true);
    expect(compileRestriction(`${Array(150).fill("t").join(" + ")} == 150`, ["t"], "r")({ t: 1 })).toBe(true);
  });

  it("is a LoomError at evaluation when arithmetic meets a string", () => {
    const f = compileRestriction("t * 2 < 4", ["t"], "r");
    expect(() => f({ t: "x" })).toThrow(/\* needs numbers; got "x"/);
  });
});

describe("the example specs", () => {
  const examples = join(dirname(fileURLToPath(import.meta.url)), "..", "examples");
  it.each(["tune-matmul.json", "tune-matmul.ts"])("%s loads, and its pipeline builds a variant equal to the kernel on the reference", async (name) => {
    const path = join(examples, name);
    const spec = checkSpec(await readSpec(path), path);
    expect(spec.kernel.name).toBe("matmul");
    expect(spec.log).toBe(join(examples, "tune-matmul.jsonl"));
    const point = Object.fromEntries(Object.entries(spec.options.space).map(([n, vs]) => [n, vs[1]!]));
    const built = spec.options.build(spec.kernel, point);
    const variant = typeof built === "function" ? built(spec.kernel) : built;
    const check = await lp.autoTestVsRef(spec.kernel, variant, { params: { n: 7 }, backend: "js" });
    expect(check.ok).toBe(true);
  });
});

describe("docs/tuning.md", () => {
  it("shows examples/tune-matmul.json as its sample JSON spec", () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "..");
    const doc = readFileSync(join(root, "docs/tuning.md"), "utf8");
    const block = /### JSON specs\n\n```json\n([\s\S]*?)```/.exec(doc);
    expect(block).not.toBeNull();
    expect(JSON.parse(block![1]!)).toEqual(JSON.parse(readFileSync(join(root, "examples/tune-matmul.json"), "utf8")));
  });
});
