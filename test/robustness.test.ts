/** No input escapes as anything but a LoomError: pathologically deep or long expressions included. */
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LoomError } from "../src/errors.js";
import { makeKernel, parseExpr } from "../src/parse/index.js";
import { parseSet } from "../src/poly/index.js";
import { run } from "../src/run/index.js";

const DEEP = 30_000;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

describe("pathologically deep input is a LoomError, never a RangeError", () => {
  it("makeKernel and parseExpr with tens of thousands of chained terms", () => {
    const chain = Array(DEEP).fill("a[i]").join(" + ");
    expect(() => makeKernel("{[i]: 0<=i<n}", `out[i] = ${chain}`)).toThrow(LoomError);
    expect(() => makeKernel("{[i]: 0<=i<n}", `out[i] = ${"-".repeat(DEEP)}a[i]`)).toThrow(/nested or chained too deeply/);
    // parseExpr alone copes with this length; whatever it does, it must not be a RangeError.
    let thrown: unknown;
    try {
      parseExpr(`${"-".repeat(DEEP * 3)}b`);
    } catch (e) {
      thrown = e;
    }
    if (thrown !== undefined) expect(thrown).toBeInstanceOf(LoomError);
  });

  it("parseSet with a very long affine chain", () => {
    expect(() => parseSet(`{[i]: 0 <= ${Array(DEEP).fill("i").join(" + ")} < n}`)).toThrow(LoomError);
  });

  it("a long but reasonable expression still builds and runs", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", `out[i] = ${Array(1000).fill("a[i]").join(" + ")}`, ["a: float64[n]", "..."]);
    const { out } = await run(k, { a: Float64Array.of(1, 2), n: 2 });
    expect(Array.from(out as Float64Array)).toEqual([1000, 2000]);
  });

  it("nested parentheses the grammar parses are not refused by the fast parser's recursion", () => {
    // The recursive-descent parser (syntax-fast.ts) exhausted node's default stack at a thousand
    // nested parentheses, which nearley parses and makeKernel accepted before: a LoomError then.
    // vitest's workers have a larger stack, so this runs in a child with node's.
    const script = `import { makeKernel } from "./src/parse/index.ts";
      const k = makeKernel("{[i]: 0<=i<n}", "out[i] = " + "(".repeat(2000) + "a[i]" + ")".repeat(2000), ["a, out: float64[n]", "n: int32"]);
      console.log("instructions: " + k.instructions.length);`;
    const r = spawnSync(process.execPath, ["--stack-size=984", "--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("instructions: 1");
  });
});
