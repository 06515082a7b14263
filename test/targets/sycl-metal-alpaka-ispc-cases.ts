/**
 * The kernels the sycl, metal, alpaka and ispc targets are checked on — loopy's classics (vector
 * add split g/l, tiled matmul with local prefetch, a reduction over an `l` axis, a stencil with a
 * 2-D local tile), a few OCCA examples imported from OKL, atomics — and their check: a C++17
 * syntax-only compile (g++ -fsyntax-only) of device and host code against the declaration headers
 * in headers/, all kernels of a target in one compiler run. None of these compilers is installable
 * here: this checks syntax and types against the APIs as declared, it runs nothing.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel, TargetName } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { compileBudgetMs, has } from "../codegen/compile-helpers.js";
import { CORPUS } from "../okl/corpus-path.js";

export const hasGxx = has("g++", ["--version"]);
export const HEADERS = join(import.meta.dirname, "headers");

/** Loopy's four classics, built as loopy's examples build them (test/codegen/loopy-examples.test.ts). */
export function classics(): Kernel[] {
  const vecadd = splitIname(makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + b[i]", ["a, b: float32[n]", "out: float32[n]", "n: int32"], { name: "vecadd" }),
    "i", 128, { outerTag: "g.0", innerTag: "l.0" });
  const matmul = tagInames(makeKernel([
    "{[i_outer,i_inner,j_outer,j_inner,k_outer,k_inner]: 0<=i_inner,j_inner,k_inner<16 and 0<=16*i_outer+i_inner<n and 0<=16*j_outer+j_inner<n and 0<=16*k_outer+k_inner<n}",
    "{[a_dim_0,a_dim_1,b_dim_0,b_dim_1]: 0<=a_dim_0,a_dim_1,b_dim_0,b_dim_1<16}",
  ], [
    "a_fetch[a_dim_0, a_dim_1] = a[16*i_outer + a_dim_0, 16*k_outer + a_dim_1] {id=a_fetch_rule}",
    "b_fetch[b_dim_0, b_dim_1] = b[16*k_outer + b_dim_0, 16*j_outer + b_dim_1] {id=b_fetch_rule}",
    "c[16*i_outer+i_inner, 16*j_outer+j_inner] = sum((k_outer,k_inner), a_fetch[i_inner,k_inner]*b_fetch[k_inner,j_inner]) {id=insn, dep=a_fetch_rule:b_fetch_rule}",
  ], [temporary("a_fetch", "float32", [16, 16], "local"), temporary("b_fetch", "float32", [16, 16], "local"), "a, b, c: float32[n,n]", "n: int32"],
  { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" }),
  { i_outer: "g.0", i_inner: "l.1", j_outer: "g.1", j_inner: "l.0", a_dim_0: "l.1", a_dim_1: "l.0", b_dim_0: "l.1", b_dim_1: "l.0" });
  const rowsum = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j])", ["a: float32[n,m]", "out: float32[n]", "n, m: int32"], { name: "rowsum" });
  const reduction = splitIname(tagInames(rowsum, { i: "g.0" }), "j", 64, { innerTag: "l.0" });
  let stencil = makeKernel([
    "{[i_outer,i_inner,j_outer,j_inner]: 0<=i_inner,j_inner<16 and 0<=16*i_outer+i_inner<n and 0<=16*j_outer+j_inner<n}",
    "[i_outer,j_outer,n] -> {[a_dim_0,a_dim_1]: 0<=a_dim_0,a_dim_1<=17 and 16*i_outer+a_dim_0<=n+1 and 16*j_outer+a_dim_1<=n+1}",
  ], [
    "a_fetch[a_dim_0, a_dim_1] = a[16*i_outer + a_dim_0, 16*j_outer + a_dim_1] {id=a_fetch_rule}",
    "z[16*i_outer+i_inner+1, 16*j_outer+j_inner+1] = -4*a_fetch[i_inner+1, j_inner+1] + a_fetch[i_inner+1, j_inner] + a_fetch[i_inner+1, j_inner+2] + a_fetch[i_inner, j_inner+1] + a_fetch[i_inner+2, j_inner+1] {id=insn, dep=a_fetch_rule}",
  ], [temporary("a_fetch", "float32", [18, 18], "local"), "a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" });
  stencil = splitIname(stencil, "a_dim_0", 16, { innerTag: "l.1" });
  stencil = splitIname(stencil, "a_dim_1", 16, { innerTag: "l.0" });
  stencil = tagInames(stencil, { i_outer: "g.1", i_inner: "l.1", j_outer: "g.0", j_inner: "l.0" });
  return [vecadd, matmul, reduction, stencil];
}

/** OCCA examples from the OKL corpus (vector add, shared-memory and atomic reductions, powers of pi, a device function). */
export const OKL_EXAMPLES: readonly { readonly rel: string; readonly defines?: Readonly<Record<string, number>> }[] = [
  { rel: "occa/examples/cpp/01_add_vectors/addVectors.okl" },
  // The example's host sets the defines (`block` is the work-group size; 06's main uses 256).
  { rel: "occa/examples/cpp/06_shared_memory/reduction.okl", defines: { block: 256 } },
  { rel: "occa/examples/cpp/18_nonblocking_streams/powerOfPi.okl", defines: { group: 8, block: 64 } },
  { rel: "occa/examples/cpp/30_device_function/addVectors.okl" },
];

export function oklExamples(): Kernel[] {
  return OKL_EXAMPLES.flatMap(({ rel, defines }) => {
    const file = join(CORPUS, rel);
    return parseOkl(readFileSync(file, "utf8"), { filename: file, ...(defines ? { defines } : {}) });
  });
}

/** Atomic updates of every dtype the targets share, in global and local memory (`atomicKernel("+", "int32")`). */
export function atomicKernel(op: "+" | "min" | "|" | "=", dtype: "int32" | "float32", local = false): Kernel {
  const update = op === "=" ? "=" : op === "+" ? "+=" : op === "|" ? "|=" : undefined;
  const rhs = op === "min" ? `min(${local ? "h" : "out"}[0], a[i])` : "a[i]";
  const target = local ? "h[0]" : "out[0]";
  const insn = update === "+=" || update === "|=" ? `${target} = ${target} ${op} a[i] {id=u, atomic}` : `${target} = ${rhs} {id=u, atomic}`;
  const insns = local ? ["h[0] = 0 {id=z}", `${insn.replace("{id=u, atomic}", "{id=u, atomic, dep=z}")}`, "out[i] = h[0] {id=w, dep=u}"] : [insn];
  const args = [`a: ${dtype}[16]`, `out: ${dtype}[16]`, ...(local ? [temporary("h", dtype, [1], "local")] : [])];
  return tagInames(makeKernel("{[i]: 0<=i<16}", insns, args, { name: `atomic_${dtype}${local ? "_local" : ""}` }), { i: "l.0" });
}

/** The prelude the check puts before each file's code, given the device code (per target). */
export interface CheckSpelling {
  /** Code after device and host code: ISPC nothing; alpaka an explicit instantiation of the host template. */
  readonly after?: (hostCode: string) => string;
  /** A rewrite of what the C++ compiler cannot read (ISPC's `launch[…]`, `2.5d`); identity elsewhere. */
  readonly rewrite?: (code: string) => string;
  /** Lines before the code (the ISPC shim's include). */
  readonly before?: string;
  /** Whether the host code is C++ to check with the device code (metal's is a listing of the launches). */
  readonly withHost?: boolean;
}

/**
 * Device and host code of each kernel on `target`, one file each, all checked by one
 * `g++ -std=c++17 -fsyntax-only` run; a compiler error fails the test with its message.
 */
export function syntaxCheck(ks: readonly Kernel[], target: TargetName, spelling: CheckSpelling = {}): string[] {
  const dir = mkdtempSync(join(tmpdir(), `loom-${target}-`));
  const rewrite = spelling.rewrite ?? ((s: string) => s);
  const files = ks.map((k, n) => {
    const code = generateCode(k, target);
    const file = join(dir, `${n}_${k.name}.cpp`);
    const host = spelling.withHost === false ? "" : code.hostCode ?? "";
    const text = [spelling.before ?? "", code.deviceCode, host, spelling.after?.(host) ?? ""].join("\n");
    writeFileSync(file, rewrite(text));
    return file;
  });
  try {
    execFileSync("g++", ["-std=c++17", "-fsyntax-only", "-Wall", "-Wno-unknown-pragmas", "-Wno-attributes", "-Wno-unused", "-I", HEADERS, ...files],
      { stdio: "pipe", timeout: compileBudgetMs(Math.ceil(files.length / 4)) });
  } catch (e) {
    const err = e as { stderr?: Buffer };
    expect.fail(`g++ -fsyntax-only failed on ${target} code of ${ks.map((k) => k.name).join(", ")}:\n${err.stderr?.toString() ?? String(e)}`);
  }
  return files;
}
