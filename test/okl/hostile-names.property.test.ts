/**
 * Law: for every OKL kernel whose names (kernel, arguments, loop variables, @shared and @exclusive
 * arrays, a device function with its parameters and local, a struct type with its fields, a local
 * of it and an argument of an array of it, a class template with its parameters, constructor,
 * methods and members, an object of it, a typedef, a macro) are drawn from the reserved words of every target, the names Loom's
 * lowering and printers invent, and plain names (hostile-okl.ts):
 *  - parseOkl imports it (or refuses with a LoomError: a word of OKL's own syntax);
 *  - on every target, the generated code is the code of the same kernel with plain names, each
 *    name replaced one for one by a name the target does not reserve; a name Loom invents moves
 *    only where a user name took it (a target that refuses the kernel refuses the plain one too);
 *  - the kernel computes what its shape means (`hostileMeaning`) on the interpreter and js, and
 *    on the c and openmp backends for the first few cases;
 *  - the c and openmp code of every case compiles with gcc -Wall -Werror (one gcc run each), the
 *    opencl code builds on PoCL (one build per batch of distinct kernel names); skipped with the
 *    reason where a toolchain is absent.
 * Not drawn: labels (OKL refuses goto), names of struct-typed value arguments.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { BUILT_TARGETS, generateCode } from "../../codegen/index.js";
import type { GeneratedCode } from "../../codegen/index.js";
import { dialectOf, isReserved } from "../../codegen/names.js";
import { openclContext } from "../../native/index.js";
import { LoomError } from "../../src/errors.js";
import type { Kernel, TargetName } from "../../src/ir/index.js";
import { oklStructArrays, oklStructPack } from "../../src/okl/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { backendAvailability, run } from "../../src/run/index.js";
import { compileBudgetMs, hasGcc } from "../codegen/compile-helpers.js";
import { PLAIN_NAMES, expectRenamed, genNames, hostileMeaning, oklSource, padded, type Names } from "./hostile-okl.js";

const RUNS = Number(process.env.LOOM_HOSTILE_OKL_RUNS ?? 12);
/** Cases also run on the c and openmp backends (each a compile): few. */
const NATIVE_RUNS = Number(process.env.LOOM_HOSTILE_OKL_NATIVE_RUNS ?? 2);
const SEED = Number(process.env.LOOM_HOSTILE_OKL_SEED ?? 20261129);
const opencl = backendAvailability("opencl");
if (!hasGcc) console.warn("[skip] hostile OKL names: gcc is not installed, the c and openmp code is not compiled");
if (!opencl.available) console.warn(`[skip] hostile OKL names: the opencl code is not built: ${opencl.reason}`);
const NATIVE = [...(hasGcc && backendAvailability("c").available ? ["c", "openmp"] as const : [])];

const [PLAIN] = parseOkl(oklSource(PLAIN_NAMES));
const plainCode = new Map<TargetName, GeneratedCode | LoomError>();
function codeOf(k: Kernel, t: TargetName): GeneratedCode | LoomError {
  try {
    return generateCode(k, t);
  } catch (e) {
    if (e instanceof LoomError) return e;
    throw e;
  }
}
const plainOn = (t: TargetName) => plainCode.get(t) ?? plainCode.set(t, codeOf(PLAIN!, t)).get(t)!;

const stats = { cases: 0, refused: [] as string[], targetRefusals: 0, native: 0 };
/** Each imported case's code for the compilers, by target. */
const compiled: Record<"c" | "openmp" | "opencl", { names: Names; code: GeneratedCode }[]> = { c: [], openmp: [], opencl: [] };

const inputs = (n: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7) % 5) - 1.5 + i / 8);

async function lawHolds(x: Names): Promise<void> {
  const src = oklSource(x);
  let k: Kernel;
  try {
    k = parseOkl(src)[0]!;
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    stats.refused.push(e.message.split("\n")[0]!);
    return;
  }
  stats.cases++;
  const taken = new Set(Object.values(x));
  for (const t of BUILT_TARGETS) {
    const [plain, hostile] = [plainOn(t), codeOf(k, t)];
    if (hostile instanceof LoomError) {
      expect(plain, `${t} refuses the hostile kernel (${hostile.message}) but not the plain one\n${src}`).toBeInstanceOf(LoomError);
      stats.targetRefusals++;
      continue;
    }
    expect(plain, `${t} refuses the plain kernel only`).not.toBeInstanceOf(LoomError);
    const p = plain as GeneratedCode;
    const reserved = (w: string) => isReserved(w, dialectOf(t));
    expectRenamed(p.deviceCode, hostile.deviceCode, taken, reserved, `${t} device code of ${JSON.stringify(x)}\n`);
    if (p.hostCode !== undefined) expectRenamed(p.hostCode, hostile.hostCode ?? "", taken, reserved, `${t} host code of ${JSON.stringify(x)}\n`);
    if (t === "c" || t === "openmp" || t === "opencl") compiled[t].push({ names: x, code: hostile });
  }
  const n = 13;
  const a = inputs(n);
  const want = hostileMeaning(a, n, new Float32Array(padded(n)));
  const native = stats.native < NATIVE_RUNS ? NATIVE : [];
  if (native.length > 0) stats.native++;
  for (const backend of ["interp", "js", ...native]) {
    const flags = backend === "interp" || backend === "js" ? {} : { flags: ["-O1", "-fopenmp"] };
    const records = oklStructArrays(k, x.sp, oklStructPack(k, x.sp, [{ [x.f1]: 0.5, [x.f2]: 1 }]));
    const r = await run(k, { [x.n]: n, [x.a]: a, [x.b]: new Float32Array(padded(n)), ...records } as never, { backend, ...flags } as never);
    const got = [...(r[x.b] as Float32Array)];
    got.forEach((g, i) => expect(Math.abs(g - want[i]!) <= 1e-5 * Math.max(1, Math.abs(want[i]!)), `${backend}: ${x.b}[${i}] = ${g}, expected ${want[i]}\n${src}`).toBe(true));
  }
}

/** Generated sources in one directory, compiled by one `gcc -c` run. */
function gccAll(target: "c" | "openmp"): void {
  const dir = mkdtempSync(join(tmpdir(), `loom-hostile-okl-${target}-`));
  const files = compiled[target].map(({ code }, n) => {
    const file = join(dir, `case${n}.c`);
    writeFileSync(file, code.deviceCode);
    return file;
  });
  try {
    execFileSync("gcc", ["-c", "-Wall", "-Werror", ...(target === "openmp" ? ["-fopenmp"] : []), ...files], { cwd: dir, stdio: "pipe", timeout: compileBudgetMs(1) });
  } catch (e) {
    expect.fail(`gcc failed on the ${target} code of hostile OKL names (${dir}):\n${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The opencl code of the cases as few programs as their device kernels' names allow (a name
 * twice is two batches): each program's preludes (the `lid`/`gid` macros, helpers) once.
 */
function openclBatches(): string[] {
  const batches: { names: Set<string>; prelude: string[]; kernels: string[] }[] = [];
  for (const { code } of compiled.opencl) {
    const names = code.kernels.map((kn) => kn.name);
    let b = batches.find((x) => names.every((nm) => !x.names.has(nm)));
    if (b === undefined) batches.push((b = { names: new Set(), prelude: [], kernels: [] }));
    names.forEach((nm) => b.names.add(nm));
    const at = code.deviceCode.search(/^__kernel /m);
    for (const chunk of code.deviceCode.slice(0, at).split(/\n\s*\n/)) if (chunk.trim() !== "" && !b.prelude.includes(chunk)) b.prelude.push(chunk);
    b.kernels.push(code.deviceCode.slice(at));
  }
  return batches.map((b) => [...b.prelude, ...b.kernels].join("\n\n"));
}

describe("hostile names in OKL", () => {
  afterAll(() => console.log(`hostile OKL names: ${stats.cases} imported, ${stats.native} run natively; refused by parseOkl: ${JSON.stringify(stats.refused)}; target refusals (the plain kernel's too): ${stats.targetRefusals}`));

  it(`import, print renamed on every target and compute the kernel's meaning (${RUNS} cases)`, async () => {
    // No shrinking (each step prints 13 targets twice): the message names the case's every name.
    await fc.assert(fc.asyncProperty(genNames, lawHolds), { numRuns: RUNS, seed: SEED, endOnFailure: true });
    // The words drawn are names OKL can spell: most import.
    expect(stats.cases).toBeGreaterThanOrEqual(Math.ceil(RUNS * 0.75));
    if (NATIVE.length > 0) expect(stats.native).toBe(Math.min(NATIVE_RUNS, stats.cases));
  }, 60_000 + 30_000 * NATIVE_RUNS);

  it.skipIf(!hasGcc)("the c and openmp code of every case compiles (gcc -Wall -Werror, one run each)", () => {
    expect(compiled.c.length).toBeGreaterThan(0);
    gccAll("c");
    gccAll("openmp");
  }, 2 * compileBudgetMs(1));

  it.skipIf(!opencl.available)("the opencl code of every case builds on PoCL", () => {
    expect(compiled.opencl.length).toBeGreaterThan(0);
    const ctx = openclContext();
    try {
      for (const program of openclBatches()) {
        try {
          ctx.build(program, []);
        } catch (e) {
          expect.fail(`PoCL failed on the opencl code of hostile OKL names:\n${(e as Error).message.slice(0, 4000)}\n--- program ---\n${program}`);
        }
      }
    } finally {
      ctx.release();
    }
  }, compileBudgetMs(1));
});

describe("found by the law", () => {
  it("a device function named like a math function or a loopy helper is the file's, not the built-in", async () => {
    for (const name of ["sqrt", "fma", "loopy_min_int32"]) {
      const [k] = parseOkl(`float ${name}(float x, int k) { return x * k + 1; }
@kernel void f(const int n, const float *a, float *out) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) out[i] = ${name}(a[i], 2);
}`);
      const a = Float32Array.from([1, 4, 9, 16]);
      const r = await run(k!, { n: 4, a, out: new Float32Array(4) });
      expect([...(r.out as Float32Array)], name).toEqual([3, 9, 19, 33]);
    }
  });

  it("the host listing prints an argument as the device code does (main, loopy_p on c; threadIdx on cuda)", () => {
    const [k] = parseOkl(`@kernel void f(const int main, const float *loopy_p, float *threadIdx) {
  for (int i = 0; i < main; ++i; @tile(4, @outer, @inner)) threadIdx[i] = loopy_p[i];
}`);
    expect(generateCode(k!, "c").hostCode).toContain("f(main_0, loopy_p_0, threadIdx);");
    expect(generateCode(k!, "cuda").hostCode).toMatch(/<<<dim3\(\(main_0 \+ 3\) \/ 4\), dim3\(4\)>>>\(main_0, loopy_p_0, threadIdx_0\);/);
    // OKL is compiled by OCCA into OpenCL and CUDA too: their words are renamed there.
    expect(generateCode(k!, "okl").deviceCode).toContain("float *threadIdx_0");
  });
});
