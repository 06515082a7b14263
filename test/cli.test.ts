/** The `loom` command (src/cli.ts): lower, check, errors as file:line:col with a caret. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli.js";

const dir = mkdtempSync(join(tmpdir(), "loom-cli-"));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const cli = (...argv: string[]) => {
  let out = "";
  let err = "";
  const status = main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { status, out, err };
};

const ADD = `@kernel void addVectors(const int entries, const float *a, const float *b, float *ab) {
  for (int i = 0; i < entries; ++i; @tile(BS, @outer, @inner)) {
    ab[i] = a[i] + b[i];
  }
}
`;

describe("loom", () => {
  it("help lists every target, and an unknown one is refused with the list", () => {
    const help = cli("--help");
    expect(help.out + help.err).toMatch(/targets: c, openmp, opencl, cuda, hip, sycl, metal, ispc, okl, alpaka, cucl, js, wgsl\n/);
    expect(help.out + help.err).not.toMatch(/planned/);
    const r = cli("lower", file("add-x.okl", ADD), "--target", "vulkan", "-D", "BS=16");
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/unknown target "vulkan"; targets are c, openmp, opencl, cuda, hip, sycl, metal, ispc, okl, alpaka, cucl, js, wgsl/);
  });

  it("lower --host prints the host code after the device code (SYCL's submission function)", () => {
    const plain = cli("lower", file("add-s.okl", ADD), "--target", "sycl", "-D", "BS=16");
    const both = cli("lower", file("add-s.okl", ADD), "--target", "sycl", "-D", "BS=16", "--host");
    expect(both.status).toBe(0);
    expect(both.out.startsWith(plain.out.trimEnd())).toBe(true);
    expect(both.out.length).toBeGreaterThan(plain.out.length);
    expect(both.out.slice(plain.out.length)).toMatch(/sycl::queue/);
  });

  it("lower --target opencl with -D", () => {
    const r = cli("lower", file("add.okl", ADD), "--target", "opencl", "-D", "BS=16");
    expect(r.err).toBe("");
    expect(r.status).toBe(0);
    expect(r.out).toContain("__kernel");
  });
  it("lower --target okl round-trips through check", () => {
    const r = cli("lower", file("add2.okl", ADD), "--target", "okl", "-DBS=8");
    expect(r.status).toBe(0);
    expect(cli("check", file("back.okl", r.out)).status).toBe(0);
  });
  it("check reports errors as file:line:col: error: with a caret, exit 1", () => {
    const p = file("bad.okl", "@kernel void f(const int n, float *a) {\n  for (int i = 0; i < n; i *= 2; @outer) {\n    for (int j = 0; j < 4; ++j; @inner) a[i] = 1;\n  }\n}\n");
    const r = cli("check", p);
    expect(r.status).toBe(1);
    expect(r.err).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2:\\d+: error: `));
    expect(r.err).toContain("^");
  });
  it("check and lower print OCCA's leniencies as warnings (exit 0); --strict makes them errors (exit 1)", () => {
    const p = file("lenient.okl", `#if OCCA_USE_CUDA=1\n#define X 1\n#endif\n${ADD.replace("BS", "16")}#if 1\n`);
    const r = cli("check", p);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/ok \(1 kernel: addVectors\)/);
    expect(r.err).toMatch(/:1:18: warning: "=" in #if assigns/);
    expect(r.err).toMatch(/:\d+:1: warning: #if without #endif/);
    const lowered = cli("lower", p, "--target", "c");
    expect(lowered.status).toBe(0);
    expect(lowered.err).toMatch(/warning: #if without #endif/);
    const strict = cli("check", p, "--strict");
    expect(strict.status).toBe(1);
    expect(strict.err).toMatch(/:1:18: error: "=" in #if assigns/);
  });
  it("--opener PREFIX=DIR reads a host's file-opener includes (mfem's mfem-occa://), folders in the order given", async () => {
    const first = mkdtempSync(join(dir, "opener-a-"));
    const second = mkdtempSync(join(dir, "opener-b-"));
    writeFileSync(join(second, "defines.okl"), "#define BS 16\n");
    const p = file("opened.okl", `#include "mfem-occa://defines.okl"\n${ADD}`);
    const r = cli("check", p, "--opener", `mfem-occa://=${first}`, `--opener=mfem-occa://=${second}`);
    expect(r.err).toBe("");
    expect(r.out).toMatch(/ok \(1 kernel: addVectors\)/);
    const none = cli("check", p);
    expect(none.status).toBe(1);
    expect(none.err).toMatch(/:1:\d+: error: .*fileOpeners/);
    const bad = cli("check", p, "--opener", "mfem-occa=dir");
    expect(bad.status).not.toBe(0);
    expect(bad.err).toMatch(/--opener needs PREFIX=DIR/);
    let err = "";
    const ran = await main(["run", p, "--opener", `mfem-occa://=${second}`, "--size", "8"], { out: () => {}, err: (t) => (err += t) });
    expect(err).toBe("");
    expect(ran).toBe(0);
  });
  it("names OpenCL/CUDA device kernels as OCCA does (_occa_NAME_K), or Loom's way with --kernel-names loom", () => {
    const two = `@kernel void twoPass(const int n, float *a, float *b) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { a[i] = 2*a[i]; }
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { b[i] = a[i] + 1; }
}
`;
    const p = file("two.okl", two);
    const cuda = cli("lower", p, "--target", "cuda");
    expect(cuda.status).toBe(0);
    const names = (code: string) => [...code.matchAll(/ (\w+)\(int const n/g)].map((m) => m[1]);
    expect(names(cuda.out)).toEqual(["_occa_twoPass_0", "_occa_twoPass_1"]);
    const cl = cli("lower", p, "--target", "opencl", "--kernel-names", "loom");
    expect(names(cl.out)).toEqual(["twoPass", "twoPass_0"]);
    // CPU targets keep the kernel's own name (OCCA's serial and OpenMP outputs do).
    expect(cli("lower", p, "--target", "openmp").out).toMatch(/\bvoid twoPass\(/);
    expect(cli("lower", p, "--target", "cuda", "--kernel-names", "occa2").status).toBe(1);
  });
  it("usage errors exit 1", () => {
    expect(cli("lower", "x.okl").status).toBe(1);
    expect(cli("frobnicate").status).toBe(1);
  });
});
