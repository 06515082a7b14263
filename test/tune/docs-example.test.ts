/**
 * docs/tuning.md's complete example runs as written: on a small n, with its files (the log and
 * the plot) in a temporary directory, and openmp replaced by js where the native backend is not
 * available.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import * as lp from "../../src/index.js";

const doc = readFileSync(new URL("../../docs/tuning.md", import.meta.url), "utf8");
const start = doc.indexOf("## A complete example");
const code = doc.slice(doc.indexOf("```ts\n", start) + 6, doc.indexOf("```\n", doc.indexOf("```ts\n", start) + 6));
const plotsAt = doc.indexOf("## Plots");
const plots = doc.slice(doc.indexOf("```ts\n", plotsAt) + 6, doc.indexOf("```\n", doc.indexOf("```ts\n", plotsAt) + 6));

it("runs the complete example of docs/tuning.md, then its plots section on the example's records", async () => {
  const dir = mkdtempSync(join(tmpdir(), "loom-docs-tuning-"));
  const log = join(dir, "matmul.jsonl");
  const svg = join(dir, "matmul.svg");
  const backend = lp.backendAvailability("openmp").available ? "openmp" : "js";
  const js = code
    .replace(/^import \{ writeFileSync \} from "node:fs";$/m, "")
    .replace(/^import \* as lp from "loom-kernels";$/m, "")
    .replace(/ as number/g, "")
    .replace("n: 256", "n: 16")
    .replace('process.once("SIGINT", () => controller.abort());', "")
    .replaceAll('"matmul.jsonl"', JSON.stringify(log))
    .replaceAll('"matmul.svg"', JSON.stringify(svg))
    .replace('backend: "openmp"', `backend: "${backend}"`)
    .replace(/console\.(log|error|warn)\(/g, "out.push(")
    .concat(`\n${plots.replace(/: string/g, "").replaceAll('"matmul.jsonl"', JSON.stringify(log))}\nreturn { best, records, fastest, same, svg };`);
  for (const s of [log, svg]) expect(js).toContain(JSON.stringify(s));
  expect(js).not.toMatch(/^import /m);
  const out: unknown[] = [];
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...a: string[]) => (...v: unknown[]) => Promise<unknown>;
  const { best, records, fastest, same, svg: plotted } = (await new AsyncFunction("lp", "out", "writeFileSync", js)(lp, out, (await import("node:fs")).writeFileSync)) as
    { best: lp.TuningRecord; records: lp.TuningRecord[]; fastest: lp.Kernel; same: lp.Kernel; svg: string };
  // The plots section's first line, run on the example's records.
  expect(plotted).toMatch(/<svg[\s>]/);
  expect(records.length).toBeGreaterThan(0);
  expect(records.length).toBeLessThanOrEqual(30);
  expect(best.ok).toBe(true);
  expect(lp.readTuningLog(log)).toHaveLength(records.length);
  expect(fastest.name).toBe("matmul");
  expect(same).toEqual(fastest);
  expect(readFileSync(svg, "utf8")).toMatch(/^<\?xml|^<svg/);
  expect(existsSync(svg)).toBe(true);
}, 180_000);
