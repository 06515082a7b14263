/** Compiling generated code in tests: which compilers exist, and a compile step that fails the test with the compiler's message. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel, TargetName } from "../../src/ir/index.js";

export function has(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
export const hasGcc = has("gcc", ["--version"]);
export const hasNvcc = has("nvcc", ["--version"]);
const dir = mkdtempSync(join(tmpdir(), "loom-codegen-"));

/** Generate `k` for `target` and compile it with `cmd flags`; a compiler error fails the test. */
export function compile(k: Kernel, target: TargetName, ext: string, cmd: string, flags: string[]): void {
  const file = join(dir, `${k.name}_${target}.${ext}`);
  writeFileSync(file, generateCode(k, target).deviceCode);
  try {
    execFileSync(cmd, [...flags, file, "-o", file + ".out"], { stdio: "pipe" });
  } catch (e) {
    const err = e as { stderr?: Buffer };
    expect.fail(`${cmd} failed on ${target} code for ${k.name}:\n${err.stderr?.toString() ?? String(e)}`);
  }
}

/**
 * Generate each kernel for `target` and compile them all with one `cmd` process (`nvcc -ptx
 * --output-directory DIR a.cu b.cu …`): one compiler start-up instead of one per kernel. A
 * compiler error fails the test with its message, which names the file (`NAME_target.ext`).
 * The time budget scales with the number of kernels (a loaded machine compiles slowly).
 */
export function compileAll(ks: readonly Kernel[], target: TargetName, ext: string, cmd: string, flags: string[]): void {
  const out = mkdtempSync(join(dir, `${target}-`));
  const files = ks.map((k) => {
    const file = join(out, `${k.name}_${target}.${ext}`);
    writeFileSync(file, generateCode(k, target).deviceCode);
    return file;
  });
  try {
    execFileSync(cmd, [...flags, "--output-directory", out, ...files], { stdio: "pipe", timeout: compileBudgetMs(ks.length) });
  } catch (e) {
    const err = e as { stderr?: Buffer };
    expect.fail(`${cmd} failed on ${target} code of ${ks.map((k) => k.name).join(", ")}:\n${err.stderr?.toString() ?? String(e)}`);
  }
}

/** A compiler's time budget for `n` files: 60 s plus 30 s each (vitest's own timeout must exceed it). */
export function compileBudgetMs(n: number): number {
  return 60_000 + 30_000 * n;
}

export const GCC_FLAGS = ["-c", "-Wall", "-Werror", "-fopenmp"];
