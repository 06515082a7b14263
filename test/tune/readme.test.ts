/**
 * The README's "Tuning" example runs as written (on a small n, a temporary log, and openmp
 * replaced by js where the native backend is not available).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import * as lp from "../../src/index.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const start = readme.indexOf("## Tuning");
const code = readme.slice(readme.indexOf("```ts\n", start) + 6, readme.indexOf("```\n", readme.indexOf("```ts\n", start) + 6));

it("runs the README's Tuning example", async () => {
  const log = join(mkdtempSync(join(tmpdir(), "loom-readme-")), "matmul.jsonl");
  const backend = lp.backendAvailability("openmp").available ? "openmp" : "js";
  const js = code
    .replace(/^import .*$/m, "")
    .replace(/ as number/g, "")
    .replace("n: 256", "n: 16")
    .replaceAll('"matmul.jsonl"', JSON.stringify(log))
    .replace('backend: "openmp"', `backend: "${backend}"`)
    .replace(/console\.log\(/g, "out.push(")
    .concat("\nreturn { best, records, fastest, same };");
  expect(js).toContain(JSON.stringify(log));
  const out: unknown[] = [];
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...a: string[]) => (...v: unknown[]) => Promise<unknown>;
  const { best, records, fastest, same } = (await new AsyncFunction("lp", "out", js)(lp, out)) as { best: lp.TuningRecord; records: lp.TuningRecord[]; fastest: lp.Kernel; same: lp.Kernel };
  expect(records.length).toBeGreaterThan(0);
  expect(records.length).toBeLessThanOrEqual(20);
  expect(best.ok).toBe(true);
  expect(lp.readTuningLog(log)).toHaveLength(records.length);
  expect(fastest.name).toBe("matmul");
  expect(same).toEqual(fastest);
  expect(out.length).toBe(2 * records.length + 3); // push(a, b) per progress call, push(a, b, c) at the end
}, 120_000);
