/**
 * `loom run FILE`: kernels from OKL (-D as macro and as argument value), a JSON kernel spec and a
 * TypeScript module, run on seeded random inputs; the time and checksum report, --json, --check,
 * the errors (missing parameters and lengths, OKL positions, unknown options suggested); the data
 * helpers (random arrays, checksums, comparison) as properties; one spawned run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../src/index.js";
import { main } from "../src/cli.js";
import { oklParameterNames } from "../src/cli/run.js";
import { checksum, compareOutputs, memoryProblem, randomArray, storageLength } from "../src/cli/run-data.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "loom-run-"));
writeFileSync(join(dir, "package.json"), "{ \"type\": \"module\" }\n");
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

async function loom(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(["run", ...argv], { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

interface JsonReport {
  kernels: { kernel: string; backend: string; params: Record<string, number>; timesMs: number[]; medianMs: number; minMs: number;
    outputs: Record<string, { dtype: string; length: number; sum: number; absSum: number; hash: string; nan: number; inf: number }>;
    check?: { ok: boolean; maxRelError: number; mismatches: string[] } }[];
}
const json = (out: string) => JSON.parse(out) as JsonReport;

const spec = (instructions: string, args: string[], name = "k") => file(`${name}.json`, JSON.stringify({ domains: "{[i]: 0<=i<n}", instructions, args, options: { name } }));
const twice = spec("out[i] = 2*a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], "twice");

const SCALED = `#ifndef SCALE
#define SCALE 1
#endif
// SCALE is a macro; n is an argument
@kernel void scaled(const int n, const float *src, float *dst) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
    dst[i] = SCALE * src[i];
  }
}
`;

describe("loom run: kernels and reports", { timeout: 60_000 }, () => {
  it("runs a JSON kernel spec: the parameters, the time and each written array's checksums", async () => {
    const r = await loom(twice, "-D", "n=37", "--repeats", "2");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^twice on interp: n=37\n  time: median [\d.e+-]+ ms, min [\d.e+-]+ ms \(2 runs after a warm-up\)\n/);
    expect(r.out).toMatch(/ {2}out float32\[37\]: sum -?[\d.e+-]+ {2}sum\|x\| [\d.e+-]+ {2}hash [0-9a-f]{8} {2}nan 0 {2}inf 0\n$/);
  });

  it("--json: the output of a constant kernel sums to n times the constant; min <= median; one time per repeat", async () => {
    const k = spec("out[i] = 1.5", ["out: float64[n]", "n: int32"], "const15");
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 3 }), async (n, repeats) => {
      const r = await loom(k, "--size", String(n), "--json", "--repeats", String(repeats));
      expect(r.code).toBe(0);
      const [rep] = json(r.out).kernels;
      expect(rep!.params).toEqual({ n });
      expect(rep!.timesMs).toHaveLength(repeats);
      expect(rep!.minMs).toBeLessThanOrEqual(rep!.medianMs);
      expect(rep!.outputs.out).toMatchObject({ dtype: "float64", length: n, sum: 1.5 * n, absSum: 1.5 * n, nan: 0, inf: 0 });
    }), { numRuns: 8 });
  });

  it("inputs depend on the seed only: the same seed gives the same hash on interp and js; out = a - a sums to 0", async () => {
    const a = json((await loom(twice, "--size", "50", "--json", "--seed", "7", "--repeats", "1")).out).kernels[0]!.outputs.out!;
    const b = json((await loom(twice, "--size", "50", "--json", "--seed", "7", "--repeats", "1", "--backend", "js")).out).kernels[0]!.outputs.out!;
    const c = json((await loom(twice, "--size", "50", "--json", "--seed", "8", "--repeats", "1")).out).kernels[0]!.outputs.out!;
    expect(b).toEqual(a);
    expect(c.hash).not.toBe(a.hash);
    const zero = spec("out[i] = a[i] - a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], "zero");
    const z = json((await loom(zero, "--size", "20", "--json", "--repeats", "1")).out).kernels[0]!.outputs.out!;
    expect([z.sum, z.absSum]).toEqual([0, 0]);
  });

  it("OKL: -D gives a macro its text and an argument its value; SCALE=3 triples the checksum sums", async () => {
    const okl = file("scaled.okl", SCALED);
    const one = json((await loom(okl, "-D", "n=24", "--json", "--repeats", "1")).out).kernels[0]!;
    const r3 = await loom(okl, "-D", "n=24", "-DSCALE=3", "--json", "--repeats", "1");
    expect(r3.err).toBe("");
    const three = json(r3.out).kernels[0]!;
    expect(three.params).toEqual({ n: 24 });
    expect(three.outputs.dst!.sum).toBeCloseTo(3 * one.outputs.dst!.sum, 4);
    expect(three.outputs.dst!.absSum).toBeCloseTo(3 * one.outputs.dst!.absSum, 4);
  });

  it("--check on js: matches the interpreter; an OKL pointer with no derived shape takes --length", async () => {
    const okl = file("gather.okl", `@kernel void gather(const int n, const int *idx, const float *src, float *dst) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
    dst[i] = src[idx[i] & 7];
  }
}
`);
    const missing = await loom(okl, "-D", "n=20");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`gather.okl: error: kernel "gather": "src" has no shape`);
    expect(missing.err).toContain("--length src=N");
    const r = await loom(okl, "-D", "n=20", "--length", "src=8", "--backend", "js", "--check");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("gather on js: n=20");
    expect(r.out).toContain("check: matches the interpreter");
  });

  it("OKL with two kernels: every kernel runs; what any lacks is listed before anything runs; --kernel picks one", async () => {
    const okl = file("two.okl", `@kernel void f(const int n, float *a) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { a[i] = 1.0f; }
}
@kernel void g(const int m, float *b) {
  for (int i = 0; i < m; ++i; @tile(4, @outer, @inner)) { b[i] = 2.0f; }
}
`);
    const lack = await loom(okl, "-D", "n=4");
    expect(lack.code).toBe(1);
    expect(lack.out).toBe("");
    expect(lack.err).toContain(`kernel "g" needs values for m (int32)`);
    expect(lack.err).not.toContain(`kernel "f"`);
    const both = json((await loom(okl, "-D", "n=4", "-D", "m=6", "--json", "--repeats", "1")).out).kernels;
    expect(both.map((r) => [r.kernel, r.params, r.outputs[r.kernel === "f" ? "a" : "b"]!.sum])).toEqual([["f", { n: 4 }, 4], ["g", { m: 6 }, 12]]);
    const one = json((await loom(okl, "--size", "3", "--kernel", "g", "--json", "--repeats", "1")).out).kernels;
    expect(one.map((r) => r.kernel)).toEqual(["g"]);
  });

  it("a TypeScript module exporting `kernel`; a float argument needs -D even with --size", async () => {
    const mod = file("scale.ts", `import * as lp from ${JSON.stringify(pathToFileURL(join(root, "src/index.ts")).href)};
export const kernel = lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "c[i,j] = alpha*a[i,j]",
  ["a: float64[n,m]", "c: float64[n,m]", "n: int32", "m: int32", "alpha: float64"], { name: "scale" });
`);
    const miss = await loom(mod, "--size", "3");
    expect(miss.code).toBe(1);
    expect(miss.err).toContain(`kernel "scale" needs values for alpha (float64)`);
    const r = await loom(mod, "--size", "3", "-D", "m=5", "-D", "alpha=0", "--json");
    expect(r.err).toBe("");
    const rep = json(r.out).kernels[0]!;
    expect(rep.params).toEqual({ n: 3, m: 5, alpha: 0 });
    expect(rep.outputs.c).toMatchObject({ length: 15, sum: 0, absSum: 0 });
  });

  it("openmp gives the interpreter's bytes for an exact kernel (skipped where openmp cannot run)", async (ctx) => {
    if (!lp.backendAvailability("openmp").available) ctx.skip();
    const ref = json((await loom(twice, "--size", "64", "--json", "--repeats", "1")).out).kernels[0]!.outputs.out!;
    const r = await loom(twice, "--size", "64", "--json", "--repeats", "1", "--backend", "openmp", "--check");
    expect(r.err).toBe("");
    const rep = json(r.out).kernels[0]!;
    expect(rep.backend).toBe("openmp");
    expect(rep.outputs.out).toEqual(ref);
    expect(rep.check!.ok).toBe(true);
  });
});

describe("loom run: errors", { timeout: 60_000 }, () => {
  it("lists every missing parameter, and says --size fills the integer ones", async () => {
    const k = spec("out[i] = x*a[i] + m", ["a: float32[n]", "out: float32[n]", "n: int32", "m: int32", "x: float32"], "many");
    const r = await loom(k);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("needs values for n (int32), m (int32), x (float32)");
    expect(r.err).toContain("--size N");
    const bad = await loom(k, "-D", "n=2.5", "-D", "m=1", "-D", "x=1");
    expect(bad.err).toContain(`-D n=2.5: "n" is a int32 argument; give an integer`);
  });

  it("OKL syntax errors carry the file's line and column; unknown kernels and -D names are suggested", async () => {
    const okl = file("bad.okl", "@kernel void f(const int n, float *a) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {\n    a[i] = b[i];\n  }\n}\n");
    const r = await loom(okl, "--size", "4");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bad\.okl:3:12: error: unknown identifier "b"/);
    const k = await loom(file("scaled2.okl", SCALED), "--size", "4", "--kernel", "scaled_");
    expect(k.err).toContain(`no kernel "scaled_" (did you mean "scaled"?); the kernels are scaled`);
    const d = await loom(twice, "-D", "m=3");
    expect(d.err).toContain(`-D m: the kernel has no argument "m" (did you mean "n"?)`);
    const len = await loom(twice, "--size", "4", "--length", "a=9");
    expect(len.err).toContain(`--length a: "a" has the shape (n)`);
  });

  it("unknown options and backends are suggested; a FILE of another kind is refused", async () => {
    const o = await loom(twice, "--bakend", "js");
    expect(o.code).toBe(1);
    expect(o.err).toContain(`unknown option "--bakend" (did you mean "--backend"?)`);
    expect(o.err).toContain("loom run FILE");
    const b = await loom(twice, "--size", "4", "--backend", "jss");
    expect(b.err).toContain(`unknown backend "jss" (did you mean "js"?)`);
    const f = await loom(file("k.txt", "x"));
    expect(f.err).toContain(`k.txt: error: FILE must be an OKL file (.okl), a JSON kernel spec (.json) or a module`);
    expect((await loom(twice, "--repeats", "0")).err).toContain("--repeats must be an integer >= 1");
  });

  it("sizes outside a parameter's dtype, or arrays larger than the machine, are refused before anything is allocated", async () => {
    // Before, `--size 3000000000` filled three 12 GB arrays until the system killed the process.
    const r = await loom(twice, "--size", "3000000000");
    expect(r.code).toBe(1);
    expect(r.err).toContain(`--size 3000000000: "n" is int32, 3000000000 is outside its range -2147483648…2147483647`);
    const d = await loom(twice, "-D", "n=-2147483649");
    expect(d.err).toContain(`-D n=-2147483649: "n" is int32`);
    const wide = spec("out[i] = 2*a[i]", ["a: float64[n]", "out: float64[n]", "n: int64"], "wide");
    const big = await loom(wide, "--size", String(2 ** 40));
    expect(big.code).toBe(1);
    expect(big.err).toMatch(/input "a" needs 1099511627776 float64 elements \(8796093022208 bytes \(8\.80e\+3 GB\)\), more than the \d+ elements a JavaScript typed array can hold; give smaller sizes/);
    expect(memoryProblem([{ name: "a", dtype: "float32", length: 1000 }, { name: "b", dtype: "float64", length: 1000 }], 11_999)).toBe(
      `the run needs 12000 bytes of memory for input "a" (4000 bytes), input "b" (8000 bytes), more than this machine has (11999 bytes, os.totalmem()); give smaller sizes`);
    expect(memoryProblem([{ name: "a", dtype: "float32", length: 1000 }, { name: "b", dtype: "float64", length: 1000 }], 12_000)).toBeUndefined();
  });
});

describe("loom run: data helpers", () => {
  it("random arrays: the same (seed, name) gives the same values, within the documented ranges", () => {
    fc.assert(fc.property(fc.constantFrom<lp.Dtype>(...lp.DTYPES), fc.nat(200), fc.nat(), fc.string(), (d, n, seed, name) => {
      const a = randomArray(d, n, seed, name);
      expect(randomArray(d, n, seed, name)).toEqual(a);
      expect(a.length).toBe(n);
      const c = checksum(a, d);
      expect(c.nan + c.inf).toBe(0);
      const bound = d.startsWith("float") ? 1 : d === "bool" ? 1 : d.startsWith("u") ? 16 : 8;
      expect(c.absSum).toBeLessThanOrEqual(bound * n);
    }));
  });

  it("checksums: sum and sum of absolute values of the finite elements, NaN and Inf counted apart", () => {
    const elem = fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom(NaN, Infinity, -Infinity));
    fc.assert(fc.property(fc.array(elem, { maxLength: 50 }), (xs) => {
      const c = checksum(Float64Array.from(xs), "float64");
      const finite = xs.filter(Number.isFinite);
      expect(c.nan).toBe(xs.filter(Number.isNaN).length);
      expect(c.inf).toBe(xs.length - finite.length - c.nan);
      expect(c.sum).toBeCloseTo(finite.reduce((s, x) => s + x, 0), 3);
      expect(c.absSum).toBeCloseTo(finite.reduce((s, x) => s + Math.abs(x), 0), 3);
      const flipped = Float64Array.from(xs);
      if (xs.length > 0) {
        flipped[0] = Number.isFinite(xs[0]!) ? xs[0]! + 1 : 0;
        expect(checksum(flipped, "float64").hash).not.toBe(c.hash);
      }
    }));
  });

  it("comparison: equal outputs match; one element moved beyond the tolerance is reported at its index", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"]);
    fc.assert(fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), fc.nat(), (n, seed, at) => {
      const e = randomArray("float32", n, seed, "out") as Float32Array;
      expect(compareOutputs(k, { out: e }, { out: Float32Array.from(e) }).ok).toBe(true);
      const g = Float32Array.from(e);
      const i = at % n;
      g[i] = e[i]! + 0.5;
      const r = compareOutputs(k, { out: e }, { out: g });
      expect(r.ok).toBe(false);
      expect(r.mismatches[0]).toMatch(new RegExp(`^out\\[${i}\\]: interpreter `));
    }));
  });

  it("storage length is the product of the extents at the parameters; shapeless arrays have none", () => {
    const k = lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "c[i,j] = a[i*m + j]", ["a: float32[n*m]", "c: float32[n, m + 1]", "n: int32", "m: int32"]);
    fc.assert(fc.property(fc.nat(20), fc.nat(20), (n, m) => {
      const arr = (name: string) => k.args.find((x) => x.name === name) as lp.ArrayArg;
      expect(storageLength(arr("a"), { n, m })).toBe(n * m);
      expect(storageLength(arr("c"), { n, m })).toBe(n * (m + 1));
      expect(storageLength({ ...arr("a"), shape: undefined }, { n, m })).toBeUndefined();
    }));
  });

  it("OKL parameter names are read from the @kernel signatures", () => {
    expect([...oklParameterNames(SCALED)]).toEqual(["n", "src", "dst"]);
    expect([...oklParameterNames("@kernel void f(const int N /* , x */, @restrict float *a @dim(N, 2), int b[4]) {}")]).toEqual(["N", "a", "b"]);
  });
});

describe("loom run (spawned)", { timeout: 240_000 }, () => {
  it("runs from the command line: the report on stdout, exit 0; a user error on stderr, exit 1", async () => {
    const spawnLoom = (args: string[]) => new Promise<{ code: number | null; out: string; err: string }>((res, rej) => {
      const child = spawn(process.execPath, ["--import", "tsx", join(root, "test/cli-run.ts"), "run", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("error", rej);
      child.on("close", (code) => res({ code, out, err }));
    });
    const ok = await spawnLoom([twice, "--size", "16", "--backend", "js", "--check"]);
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("twice on js: n=16");
    expect(ok.out).toContain("check: matches the interpreter");
    const bad = await spawnLoom([twice]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("needs values for n (int32)");
  });
});
