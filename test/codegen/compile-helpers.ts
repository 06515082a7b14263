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

export const GCC_FLAGS = ["-c", "-Wall", "-Werror", "-fopenmp"];
