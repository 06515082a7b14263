/**
 * The `loom` command (API.md "Command line"), on the public API only:
 *
 *   loom lower FILE.okl --target cuda [-o OUT] [-D NAME=VALUE] [-I DIR] [--normalized] [--kernel-names loom|occa]
 *   loom check FILE.okl [-D …] [-I …]
 *   loom normalize FILE.okl [-o OUT]
 *
 * Exit status 0 on success, 1 on a user error, reported as `file:line:col: error: message`
 * followed by the source line and a caret.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { BUILT_TARGETS, generateCode, LoomError, normalizeOkl, OklError, parseOkl, TARGET_NAMES, type TargetName } from "./index.js";

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const USAGE = `usage:
  loom lower FILE.okl --target TARGET [-o OUT] [-D NAME=VALUE]... [-I DIR]... [--normalized]
             [--kernel-names occa|loom]   (OpenCL/CUDA device kernels: _occa_NAME_K, the default, or NAME, NAME_0, …)
  loom check FILE.okl [-D NAME=VALUE]... [-I DIR]...
  loom normalize FILE.okl [-o OUT]
targets: ${BUILT_TARGETS.join(", ")} (planned: ${TARGET_NAMES.filter((t) => !BUILT_TARGETS.includes(t)).join(", ")})`;

class UsageError extends Error {}

/** `normalizeOkl` of the public API (typed loosely: it may still be a planned stub). */
const normalize = normalizeOkl as unknown as (source: string) => string;

interface Parsed {
  command: string;
  file: string;
  target?: string;
  out?: string;
  defines: Record<string, string>;
  includes: string[];
  normalized: boolean;
  kernelNames?: "loom" | "occa";
}

function parseArgs(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (!command || command === "-h" || command === "--help") throw new UsageError("");
  if (!["lower", "check", "normalize"].includes(command)) throw new UsageError(`unknown command "${command}"`);
  const p: Parsed = { command, file: "", defines: {}, includes: [], normalized: false };
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

/** `file:line:col: error: message`, the source line and a caret (compiler style). */
export function formatError(e: unknown, file: string): string {
  if (e instanceof OklError) {
    const caret = e.excerpt ? `\n${e.excerpt}` : "";
    return `${e.filename ?? file}:${e.line}:${e.column}: error: ${e.detail}${caret}`;
  }
  if (e instanceof LoomError) return `${file}: error: ${e.message}`;
  return `${file}: error: ${e instanceof Error ? e.message : String(e)}`;
}

/** Run the command line `argv` (without `node loom`); returns the exit status. */
export function main(argv: readonly string[], io: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }): number {
  let p: Parsed;
  try {
    p = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message ? `loom: error: ${e.message}\n` : ""}${USAGE}\n`);
    return e.message ? 1 : 0;
  }
  let source: string;
  try {
    source = readFileSync(p.file, "utf8");
  } catch {
    io.err(`${p.file}: error: cannot read the file\n`);
    return 1;
  }
  const opts = { filename: p.file, defines: p.defines, includePaths: p.includes };
  try {
    let text: string;
    if (p.command === "normalize") text = normalize(source);
    else {
      const kernels = parseOkl(source, opts);
      if (p.command === "check") {
        io.out(`${p.file}: ok (${kernels.length} kernel${kernels.length === 1 ? "" : "s"}: ${kernels.map((k) => k.name).join(", ")})\n`);
        return 0;
      }
      text = kernels.map((k) => {
        const code = generateCode(k, p.target as TargetName, { kernelNames: p.kernelNames });
        return p.normalized && p.target === "okl" ? normalize(code.deviceCode) : code.deviceCode;
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
