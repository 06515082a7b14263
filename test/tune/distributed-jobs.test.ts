/**
 * A queue job is data (no Redis needed here): kernels travel as JSON and read back as the same
 * kernel; any change to a job's JSON reads back as a kernel or is refused (JobRefused), never
 * anything else; a pipeline that does not parse, a wrong format, a kernel that is not the one its
 * hash names are refused; a job a worker reads measures as the same variant measures locally.
 * Importing the library never loads BullMQ or ioredis (only a queue sweep or a worker does).
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { main } from "../../src/cli.js";
import { JOB_FORMAT, kernelHash, measureJob, readJob, type VariantJob } from "../../src/tune/executor/job.js";
import { JobRefused, kernelFromJSON, kernelToJSON } from "../../src/tune/executor/kernel-json.js";
import { measureVariant } from "../../src/tune/measure.js";
import { matmul, tiled } from "./helpers.js";

const roundTrip = (k: lp.Kernel) => kernelFromJSON(JSON.parse(JSON.stringify(kernelToJSON(k))));

function kernels(): lp.Kernel[] {
  const m = matmul();
  const okl = lp.parseOkl(`@kernel void f(const int n, const float *a, float *out) {
    for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
      float s = 0.0f;
      int j = 0;
      while (j < 3) { s += a[i] * (j == 1 ? 2.0f : -1.0f); ++j; }
      out[i] = s > 0 ? s : 1.0f / 0.0f;
    }
  }`)[0]!;
  return [
    m,
    tiled({ ti: 4, tj: 2, gl: "yes" })(m),
    lp.addPrefetch(lp.split("k", 4)(lp.split("i", 4, { outerTag: "g.0", innerTag: "l.0" })(m)), "a", { sweepInames: ["i_inner", "k_inner"] }),
    okl,
    lp.makeKernel("{[i]: 0<=i<n}", "out[i] = -0.0 + a[i] / 3.5f", ["a, out: float32[n]", "n: int32"], { name: "neg_zero" }),
    // A struct of int and double fields: split into field arrays, C's layout kept in oklOptions.structArgs.
    lp.parseOkl(`typedef struct { int id; double u; } bc_t;
    @kernel void g(const int n, const bc_t *bc, double *out) {
      for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) { out[i] = bc[i].u * bc[i].id; }
    }`)[0]!,
  ];
}

describe("kernel JSON", () => {
  it("reads back as the same kernel (text, fields and hash)", () => {
    const ks = kernels();
    expect(ks.some((k) => (k.oklOptions?.structArgs?.length ?? 0) > 0)).toBe(true);
    for (const k of ks) {
      const back = roundTrip(k);
      expect(lp.show(back)).toBe(lp.show(k));
      expect(back).toEqual(k);
      expect(kernelHash(back)).toBe(kernelHash(k));
    }
  });

  it("any value put anywhere in a kernel's JSON reads back as a kernel or is refused (JobRefused), never anything else", () => {
    const json = kernelToJSON(matmul());
    /** Every path to a node of the JSON tree. */
    const paths: (string | number)[][] = [];
    const walk = (x: unknown, path: (string | number)[]) => {
      paths.push(path);
      if (Array.isArray(x)) x.forEach((y, i) => walk(y, [...path, i]));
      else if (x !== null && typeof x === "object") for (const [k, y] of Object.entries(x)) walk(y, [...path, k]);
    };
    walk(json, []);
    const junk = fc.oneof(fc.constantFrom<unknown>(null, true, -1, 1.5, "", "x; system(\"rm -rf /\")", [], {}, { kind: "js", code: "process.exit(1)" }, { kind: "var" }, { $number: "eval" }), fc.jsonValue());
    fc.assert(fc.property(fc.constantFrom(...paths.filter((p) => p.length > 0)), junk, (path, value) => {
      const copy = JSON.parse(JSON.stringify(json)) as Record<string | number, unknown>;
      let node = copy;
      for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
      node[path.at(-1)!] = value;
      try {
        expect(kernelFromJSON(copy).name).toBeTypeOf("string");
      } catch (e) {
        expect(e).toBeInstanceOf(JobRefused);
        expect((e as Error).message).toMatch(/^kernel(\.|\[| )/);
      }
    }), { numRuns: 300 });
  });
});

function jobOf(k: lp.Kernel, point: lp.TuningPoint, extra: Partial<VariantJob> = {}): VariantJob {
  return {
    format: JOB_FORMAT, kernel: kernelToJSON(k), kernelHash: kernelHash(k), point, pipeline: lp.toJSON(tiled(point)),
    backend: "js", params: { n: 16 }, testParams: { n: 5 }, repeats: 2, ...extra,
  };
}

describe("a worker's reading of a job", () => {
  const k = matmul();
  const point = { ti: 2, tj: 4, gl: "no" };

  it("refuses what is not a job it can run, naming the field", () => {
    const refusals: [unknown, RegExp][] = [
      [null, /must be an object/],
      [{ ...jobOf(k, point), format: 2 }, /format is 2; this worker reads format 1/],
      [{ ...jobOf(k, point), pipeline: [{ op: "eval", args: ["process.exit()"] }] }, /job\.pipeline does not parse/],
      [{ ...jobOf(k, point), pipeline: undefined }, /a pipeline or a variant kernel/],
      [{ ...jobOf(k, point), variant: kernelToJSON(k) }, /not both/],
      [{ ...jobOf(k, point), kernelHash: "0".repeat(16) }, /does not read back as the kernel it names/],
      [{ ...jobOf(k, point), point: { ti: { toString: "x" } } }, /job\.point must be/],
      [{ ...jobOf(k, point), backend: "bash" }, /job\.backend/],
      [{ ...jobOf(k, point), repeats: 0 }, /job\.repeats/],
      [{ ...jobOf(k, point), params: { n: "16" } }, /job\.params/],
    ];
    for (const [data, message] of refusals) {
      expect(() => readJob(data)).toThrow(JobRefused);
      expect(() => readJob(data)).toThrow(message);
    }
  });

  it("measures the variant as a local sweep does: the same status, pipeline and number of times", async () => {
    const off = lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) + 1", ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
    for (const job of [jobOf(k, point), { ...jobOf(k, point), pipeline: undefined, variant: kernelToJSON(tiled(point)(off)) }]) {
      const remote = await measureJob(readJob(JSON.parse(JSON.stringify(job))));
      const local = await measureVariant({ ref: k, build: () => (job.variant ? tiled(point)(off) : tiled(point)), backend: "js", params: job.params, testParams: job.testParams, repeats: 2 }, point);
      expect(remote.outcome.status).toBe(local.status);
      expect(remote.outcome.pipeline).toEqual(local.pipeline);
      expect(remote.outcome.times).toHaveLength(local.times.length);
      expect(remote.on.machine.id).toMatch(/^[0-9a-f]{16}$/);
    }
  });
});

describe("loom worker's command line", () => {
  const run = async (argv: string[]) => {
    let out = "";
    let err = "";
    const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  };

  it("says what is missing or wrong, exit 1", async () => {
    expect(await run(["worker"])).toMatchObject({ code: 1, err: expect.stringContaining("worker: missing --connection URL") });
    expect(await run(["worker", "--connection", "redis://x", "--concurrency", "0"])).toMatchObject({ code: 1, err: expect.stringContaining("--concurrency needs an integer of at least 1") });
    expect(await run(["worker", "--connection", "ftp://x"])).toMatchObject({ code: 1, err: expect.stringContaining("must be a Redis URL") });
    expect(await run(["worker", "--connection", "redis://x", "--backend", "fortran"])).toMatchObject({ code: 1, err: expect.stringContaining("fortran") });
  });

  it("a refused connection: exit 1 naming the URL, at once", async () => {
    const r = await run(["worker", "--connection", "redis://127.0.0.1:1"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("cannot reach Redis at redis://127.0.0.1:1");
  });
});

describe("the library without a queue", () => {
  it("never loads bullmq or ioredis: no static import reaches them from src/index.ts or src/cli.ts", () => {
    const root = resolve(import.meta.dirname, "../..");
    const seen = new Set<string>();
    const packages = new Map<string, string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      // Static imports and re-exports (not `import type`, not `import("…")`).
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^;]*?from\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']/g)) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith(".")) visit(resolve(dirname(file), spec).replace(/\.js$/, ".ts"));
        else packages.set(spec, file);
      }
    };
    visit(join(root, "src/index.ts"));
    visit(join(root, "src/cli.ts"));
    expect(seen.has(join(root, "src/tune/executor/queue.ts"))).toBe(true); // the walk reaches the executor
    expect([...packages.keys()].filter((p) => /^(bullmq|ioredis)(\/|$)/.test(p))).toEqual([]);
    // Where they are loaded: one dynamic import of each, in connect.ts.
    const connect = readFileSync(join(root, "src/tune/executor/connect.ts"), "utf8");
    expect(connect).toContain('import("bullmq")');
    expect(connect).toContain('import("ioredis")');
  });
});
