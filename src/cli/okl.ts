/**
 * The OKL commands of `loom`:
 *
 *   loom lower FILE.okl --target cuda [-o OUT] [-D NAME=VALUE] [-I DIR] [--library LIB=DIR] [--opener PREFIX=DIR] [--normalized] [--host] [--kernel-names loom|occa]
 *   loom check FILE.okl [-D …] [-I …] [--library LIB=DIR] [--opener PREFIX=DIR]
 *   loom normalize FILE.okl [-o OUT]
 *
 * Errors are reported as `file:line:col: error: message`, the source line and a caret.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { BUILT_TARGETS, generateCode, LoomError, normalizeOkl, OklError, parseOkl, TARGET_NAMES, type TargetName } from "../index.js";
import { UsageError, type CliIo } from "./usage.js";

/** `normalizeOkl` of the public API (typed loosely: it may still be a planned stub). */
const normalize = normalizeOkl as unknown as (source: string) => string;

interface Parsed {
  command: string;
  file: string;
  target?: string;
  out?: string;
  defines: Record<string, string>;
  includes: string[];
  /** `--library LIB=DIR`: where `#include "occa://LIB/…"` reads (OCCA's occa::io::addLibraryPath). */
  libraries: Record<string, string>;
  /** `--opener PREFIX=DIR`: where `#include "PREFIX…"` reads (a host's occa::io::fileOpener, as mfem's mfem-occa://). */
  openers: Record<string, string[]>;
  normalized: boolean;
  /** `--host`: the host code after the device code (SYCL's submissions, alpaka's exec, ISPC's launch; a listing for the others). */
  host?: boolean;
  kernelNames?: "loom" | "occa";
  /** `--strict`: what OCCA forgives (warnings) is an error. */
  strict?: boolean;
}

function parseArgs(command: string, rest: readonly string[]): Parsed {
  const p: Parsed = { command, file: "", defines: {}, includes: [], libraries: {}, openers: {}, normalized: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = (flag: string): string => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (a === "--target" || a === "-t") p.target = value(a);
    else if (a.startsWith("--target=")) p.target = a.slice(9);
    else if (a === "-o") p.out = value(a);
    else if (a === "--normalized") p.normalized = true;
    else if (a === "--host") p.host = true;
    else if (a === "--strict" || a === "-Werror") p.strict = true;
    else if (a === "--kernel-names" || a.startsWith("--kernel-names=")) {
      const v = a === "--kernel-names" ? value(a) : a.slice("--kernel-names=".length);
      if (v !== "loom" && v !== "occa") throw new UsageError(`--kernel-names must be "occa" or "loom", not "${v}"`);
      p.kernelNames = v;
    }
    else if (a === "-D" || (a.startsWith("-D") && a.length > 2)) {
      const def = a === "-D" ? value(a) : a.slice(2);
      const eq = def.indexOf("=");
      p.defines[eq < 0 ? def : def.slice(0, eq)] = eq < 0 ? "1" : def.slice(eq + 1);
    } else if (a === "-I" || (a.startsWith("-I") && a.length > 2)) p.includes.push(a === "-I" ? value(a) : a.slice(2));
    else if (a === "--library" || a.startsWith("--library=")) addLibrary(p.libraries, a === "--library" ? value(a) : a.slice("--library=".length));
    else if (a === "--opener" || a.startsWith("--opener=")) addOpener(p.openers, a === "--opener" ? value(a) : a.slice("--opener=".length));
    else if (a.startsWith("-")) throw new UsageError(`unknown option "${a}"`);
    else if (p.file === "") p.file = a;
    else throw new UsageError(`unexpected argument "${a}"`);
  }
  if (p.file === "") throw new UsageError(`${command}: missing FILE`);
  if (command === "lower") {
    if (!p.target) throw new UsageError("lower: missing --target");
    if (!(BUILT_TARGETS as readonly string[]).includes(p.target)) {
      const planned = (TARGET_NAMES as readonly string[]).includes(p.target) ? ` ("${p.target}" is planned, not built yet)` : "";
      throw new UsageError(`unknown target "${p.target}"${planned}; targets are ${BUILT_TARGETS.join(", ")}`);
    }
  }
  return p;
}

/** `LIB=DIR` of `--library` into `libraries` (the `libraryPaths` option of parseOkl). */
export function addLibrary(libraries: Record<string, string>, spec: string): void {
  const eq = spec.indexOf("=");
  if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--library needs LIB=DIR (the folder #include "occa://LIB/..." reads from), not "${spec}"`);
  libraries[spec.slice(0, eq)] = spec.slice(eq + 1);
}

/** `PREFIX=DIR` of `--opener` into `openers` (the `fileOpeners` option of parseOkl); a prefix given again adds a folder, searched in order. */
export function addOpener(openers: Record<string, string[]>, spec: string): void {
  const eq = spec.indexOf("=");
  const prefix = spec.slice(0, Math.max(eq, 0));
  if (eq <= 0 || eq === spec.length - 1 || !/^[A-Za-z][\w+.-]*:\/\/$/.test(prefix)) {
    throw new UsageError(`--opener needs PREFIX=DIR, the prefix a scheme such as mfem-occa:// (the folder #include "PREFIX..." reads from), not "${spec}"`);
  }
  (openers[prefix] ??= []).push(spec.slice(eq + 1));
}

/** `file:line:col: error: message`, the source line and a caret (compiler style). */
export function formatError(e: unknown, file: string): string {
  if (e instanceof OklError) {
    const caret = e.excerpt ? `\n${e.excerpt}` : "";
    return `${e.filename ?? file}:${e.line}:${e.column}: error: ${e.detail}${caret}`;
  }
  if (e instanceof LoomError) return `${file}: error: ${e.message}`;
  return `${file}: error: ${e instanceof Error ? e.message : String(e)}`;
}

/** Run `lower`, `check` or `normalize` with its arguments; returns the exit status. */
export function oklCommand(command: string, rest: readonly string[], io: CliIo): number {
  const p = parseArgs(command, rest);
  let source: string;
  try {
    source = readFileSync(p.file, "utf8");
  } catch {
    io.err(`${p.file}: error: cannot read the file\n`);
    return 1;
  }
  const opts = { filename: p.file, defines: p.defines, includePaths: p.includes, libraryPaths: p.libraries, fileOpeners: p.openers, ...(p.strict ? { warnings: "error" as const } : {}) };
  try {
    let text: string;
    if (p.command === "normalize") text = normalize(source);
    else {
      const kernels = parseOkl(source, opts);
      // What OCCA accepts and Loom forgives (an #if left open, `#if X=1`): compiler-style warnings.
      for (const w of kernels.warnings ?? []) io.err(`${w.message}\n`);
      if (p.command === "check") {
        io.out(`${p.file}: ok (${kernels.length} kernel${kernels.length === 1 ? "" : "s"}: ${kernels.map((k) => k.name).join(", ")})\n`);
        return 0;
      }
      text = kernels.map((k) => {
        const code = generateCode(k, p.target as TargetName, { kernelNames: p.kernelNames });
        const device = p.normalized && p.target === "okl" ? normalize(code.deviceCode) : code.deviceCode;
        return p.host && code.hostCode ? `${device.trimEnd()}\n\n${code.hostCode}` : device;
      }).join("\n");
    }
    if (p.out) writeFileSync(p.out, text);
    else io.out(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  } catch (e) {
    if (e instanceof LoomError) {
      io.err(`${formatError(e, p.file)}\n`);
      return 1;
    }
    throw e;
  }
}
