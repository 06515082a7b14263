/**
 * `loom tune` and `loom plot`, spawned as the command runs (from the sources through tsx): a JSON
 * spec sweep with its report, --json, a malformed spec, a TypeScript module spec stopped by SIGINT
 * mid-sweep (exit 130, the log holds what was reported) and rerun (it resumes: nothing measured
 * twice). The progress lines and the usage errors in process.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import * as lp from "../src/index.js";
import { main } from "../src/cli.js";
import { barLine, plainLine } from "../src/cli/progress.js";
import { parseXml } from "./tune/plot-xml.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "loom-tune-"));
writeFileSync(join(dir, "package.json"), "{ \"type\": \"module\" }\n");
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

interface Run { code: number | null; out: string; err: string }

/** `loom ARGS` from the sources; `onErr` sees stderr as it grows and may signal the process. */
function loom(args: readonly string[], onErr?: (err: string, kill: (s: NodeJS.Signals) => void) => void): Promise<Run> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "test/cli-run.ts"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      onErr?.(err, (s) => child.kill(s));
    });
    child.on("error", rej);
    child.on("close", (code) => res({ code, out, err }));
  });
}

const lines = (p: string) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim() !== "");
const KERNEL = {
  domains: "{[i]: 0<=i<n}", instructions: "out[i] = 2*a[i]",
  args: ["a: float32[n]", "out: float32[n]", "n: int32"], options: { name: "twice" },
};

// Each spawn loads the library from its sources twice (the command and its worker): minutes on a busy machine.
describe("loom tune (spawned)", { timeout: 240_000 }, () => {
  it("sweeps a JSON spec: progress on stderr; the best variants, the best pipeline and the log on stdout", async () => {
    const spec = file("twice.json", JSON.stringify({
      kernel: KERNEL, space: { t: [1, 2, 4, 8], tag: ["g.0", "for"] },
      pipeline: [{ op: "splitIname", args: ["i", "$t", { outerTag: "$tag" }] }],
      restrictions: ["t > 1 or tag == 'for'"], params: { n: 64 }, repeats: 1,
    }));
    const r = await loom(["tune", spec]);
    expect(r.err).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const log = join(dir, "twice.jsonl");
    const records = lp.readTuningLog(log);
    expect(records).toHaveLength(7); // t=1 with g.0 is restricted away
    expect(r.err).toContain("[7/7] best ");
    expect(r.out).toMatch(/^7 variants of twice in .* \(7 ok\)/);
    expect(r.out).toMatch(/#\s+t\s+tag\s+median ms\s+min ms/);
    const best = records.filter((x) => x.ok).reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
    const printed = r.out.split("\n")[r.out.split("\n").findIndex((l) => l.startsWith("best pipeline")) + 1]!;
    expect(JSON.parse(printed)).toEqual(best.pipeline);
    expect(r.out).toContain(`log: ${log}`);
  });

  it("prints one JSON line with --json, and refuses a malformed spec naming the field (exit 1)", async () => {
    const spec = file("json.json", JSON.stringify({
      kernel: KERNEL, space: { t: [2, 4] }, pipeline: [{ op: "splitIname", args: ["i", "$t"] }], params: { n: 32 }, repeats: 1, log: "json-log.jsonl",
    }));
    const r = await loom(["tune", spec, "--json", "--plot", join(dir, "json.svg")]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n")).toHaveLength(1);
    const result = JSON.parse(r.out);
    expect(result.status).toBe("ok");
    expect(result.variants).toBe(2);
    expect(result.counts).toEqual({ ok: 2 });
    expect(result.log).toBe(join(dir, "json-log.jsonl"));
    const records = lp.readTuningLog(result.log);
    expect(result.best.medianMs).toBe(Math.min(...records.map((x) => x.medianMs)));
    expect(parseXml(readFileSync(join(dir, "json.svg"), "utf8")).name).toBe("svg");

    const bad = file("bad.json", JSON.stringify({ kernel: KERNEL, space: { t: [2] }, pipeline: [{ op: "splitIname", args: ["i", "$tk"] }] }));
    const b = await loom(["tune", bad]);
    expect(b.code).toBe(1);
    expect(b.out).toBe("");
    expect(b.err).toContain(`${bad}: error: pipeline[0].args[1] is "$tk" but the space has no parameter "tk"; parameters are t`);
  });

  it("stops after the variant in flight on SIGINT (exit 130) with what it found, and a rerun resumes from the log", async () => {
    // A TypeScript module spec whose build takes 150 ms, so the sweep is surely mid-way when the signal comes.
    const spec = file("slow.ts", `import * as lp from ${JSON.stringify(pathToFileURL(join(root, "src/index.ts")).href)};
const kernel: lp.Kernel = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "slow" });
const pause = new Int32Array(new SharedArrayBuffer(4));
export default {
  kernel, space: { t: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] }, params: { n: 32 }, repeats: 1,
  build: (_k: lp.Kernel, p: lp.TuningPoint) => {
    Atomics.wait(pause, 0, 0, 150);
    return lp.split("i", p.t as number);
  },
};
`);
    let sent = false;
    const r = await loom(["tune", spec], (err, kill) => {
      if (!sent && err.includes("[1/12]")) {
        sent = true;
        kill("SIGINT");
      }
    });
    expect(r.code).toBe(130);
    expect(r.err).toContain("stopping after the variant in flight");
    const m = /^stopped by Ctrl-C: (\d+) variants? of slow/.exec(r.out);
    expect(m).not.toBeNull();
    const done = Number(m![1]);
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(12);
    const log = join(dir, "slow.jsonl");
    const before = lines(log);
    expect(before).toHaveLength(done);

    const again = await loom(["tune", spec, "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out).variants).toBe(12);
    const after = lines(log);
    expect(after).toHaveLength(12);
    expect(after.slice(0, done)).toEqual(before); // the first records are kept, not measured again
    expect(new Set(after.map((l) => JSON.stringify(JSON.parse(l).point))).size).toBe(12);
  });
});

describe("loom tune and loom plot (in process)", () => {
  const cli = async (...argv: string[]) => {
    let out = "";
    let err = "";
    const status = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
    return { status, out, err };
  };

  it("refuses a missing spec and bad options with the usage", async () => {
    const r = await cli("tune");
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/loom: error: tune: missing SPEC[\s\S]*usage:[\s\S]*loom tune SPEC/);
    expect((await cli("tune", "x.json", "--variants", "-1")).err).toMatch(/--variants needs a positive integer; got "-1"/);
    expect((await cli("tune", "x.json", "--frobnicate")).err).toMatch(/tune: unknown option "--frobnicate"/);
  });

  it("plots a log as a well-formed SVG file, and refuses an unknown parameter", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "plotme" });
    const log = join(dir, "plot.jsonl");
    await lp.autotune(k, { space: { t: [1, 2, 4] }, params: { n: 32 }, repeats: 1, log, build: (_k, p) => lp.split("i", p.t as number) });
    const out = join(dir, "plot.svg");
    expect((await cli("plot", log, "-o", out)).status).toBe(0);
    const svg = parseXml(readFileSync(out, "utf8"));
    expect(svg.children.find((e) => e.name === "title")!.text).toMatch(/^plotme: median time \(ms\) against t/);
    const bad = await cli("plot", log, "--x", "u");
    expect(bad.status).toBe(1);
    expect(bad.err).toContain(`${log}: error: plotTuning: x "u" is not a parameter of the records; parameters are t`);
  });
});

describe("progress lines", () => {
  const best = { point: { t: 4 }, medianMs: 0.5, ok: true, status: "ok", times: [0.5] } as lp.TuningRecord;
  it("say done/total, the best so far with its point, the time elapsed and left", () => {
    const s = { done: 3, total: 12, best, freshMs: 3000, fresh: 3 };
    expect(plainLine(s, 3000)).toBe("[3/12] best 0.5 ms (t=4); 3.0 s elapsed, about 9.0 s left");
    expect(plainLine({ ...s, done: 12 }, 12_000)).toBe("[12/12] best 0.5 ms (t=4); 12.0 s elapsed");
    expect(plainLine({ done: 1, total: 2, freshMs: 0, fresh: 0 }, 100)).toBe("[1/2] no ok variant yet; 0.1 s elapsed");
  });
  it("fit the bar to the terminal's width", () => {
    const s = { done: 5, total: 10, best, freshMs: 5000, fresh: 5 };
    const full = barLine(s, 5000, 1000);
    expect(full).toBe("[##########----------] 5/10  best 0.5 ms (t=4)  5.0 s, ETA 5.0 s");
    for (const columns of [20, 40, 80]) {
      const line = barLine(s, 5000, columns);
      expect([...line].length).toBeLessThan(columns);
      expect(full.startsWith(line)).toBe(true);
    }
  });
});
