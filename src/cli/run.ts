/**
 * `loom run FILE [--backend B] [-D NAME=VALUE]... [-I DIR]... [--library LIB=DIR]... [--opener PREFIX=DIR]... [--kernel NAME] [--size N]
 * [--length ARRAY=N]... [--seed N] [--repeats N] [--check] [--rtol X] [--json]`: run the kernels of
 * an OKL file, a JSON kernel spec or a .js/.ts module on seeded random inputs; print the kernel time
 * (median and min of lp.runTimed's kernelMs after one warm-up) and a checksum of every written
 * array. See docs/running.md, "The loom run command".
 */
import { readFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import * as lp from "../index.js";
import { addLibrary, addOpener, formatError } from "./okl.js";
import { checksum, compareOutputs, isIntegerDtype, memoryProblem, outsideRange, randomArray, storageLength, type Checksum } from "./run-data.js";
import { isKernel, loadKernel, readSpec } from "./tune-spec.js";
import { eachArg, UsageError, type CliIo } from "./usage.js";

interface RunArgs {
  file: string;
  backend: string;
  defines: Record<string, string>;
  includes: string[];
  /** `--library LIB=DIR`: where `#include "occa://LIB/…"` reads. */
  libraries: Record<string, string>;
  /** `--opener PREFIX=DIR`: where `#include "PREFIX…"` reads (a host's file opener). */
  openers: Record<string, string[]>;
  kernel?: string;
  size?: number;
  lengths: Record<string, number>;
  seed: number;
  repeats: number;
  check: boolean;
  rtol?: number;
  json: boolean;
}

const OPTIONS = ["--backend", "--kernel", "--size", "--length", "--seed", "--repeats", "--check", "--rtol", "--json", "-D", "-I", "--library", "--opener"];

/** The closest of `names` to `name` by edit distance, where it is close (a typo). */
function closest(name: string, names: readonly string[]): string | undefined {
  const dist = (a: string, b: string): number => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length]!;
  };
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of names) {
    const d = dist(name, n);
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

const didYouMean = (name: string, names: readonly string[]) => {
  const near = closest(name, names);
  return near ? ` (did you mean "${near}"?)` : "";
};

function parseRunArgs(argv: readonly string[]): RunArgs {
  const a: RunArgs = { file: "", backend: "interp", defines: {}, includes: [], libraries: {}, openers: {}, lengths: {}, seed: 0, repeats: 3, check: false, json: false };
  eachArg(argv, "run: ", ({ flag, arg, value }) => {
    const integer = (s: string, what: string, min: number): number => {
      const v = Number(s);
      if (s.trim() === "" || !Number.isSafeInteger(v) || v < min) throw new UsageError(`run: ${what} must be an integer >= ${min}; got "${s}"`);
      return v;
    };
    if (flag === "--json") a.json = true;
    else if (flag === "--check") a.check = true;
    else if (flag === "--backend") a.backend = value();
    else if (flag === "--kernel") a.kernel = value();
    else if (flag === "--size") a.size = integer(value(), "--size", 0);
    else if (flag === "--seed") a.seed = integer(value(), "--seed", 0);
    else if (flag === "--repeats") a.repeats = integer(value(), "--repeats", 1);
    else if (flag === "--rtol") {
      const s = value();
      a.rtol = Number(s);
      if (s.trim() === "" || !(a.rtol >= 0)) throw new UsageError(`run: --rtol must be a number >= 0; got "${s}"`);
    } else if (flag === "--length") {
      const s = value();
      const at = s.indexOf("=");
      if (at <= 0) throw new UsageError(`run: --length takes ARRAY=N (the number of elements of an array with no shape); got "${s}"`);
      a.lengths[s.slice(0, at)] = integer(s.slice(at + 1), `--length ${s.slice(0, at)}`, 0);
    } else if (arg === "-D" || (arg.startsWith("-D") && arg.length > 2)) {
      const def = arg === "-D" ? value() : arg.slice(2);
      const at = def.indexOf("=");
      a.defines[at < 0 ? def : def.slice(0, at)] = at < 0 ? "1" : def.slice(at + 1);
    } else if (arg === "-I" || (arg.startsWith("-I") && arg.length > 2)) a.includes.push(arg === "-I" ? value() : arg.slice(2));
    else if (flag === "--library") addLibrary(a.libraries, value());
    else if (flag === "--opener") addOpener(a.openers, value());
    else if (flag.startsWith("-")) throw new UsageError(`run: unknown option "${flag}"${didYouMean(flag, OPTIONS)}; options are ${OPTIONS.join(", ")}`);
    else if (a.file === "") a.file = arg;
    else throw new UsageError(`run: unexpected argument "${arg}"`);
  });
  if (a.file === "") throw new UsageError("run: missing FILE (an .okl file, a .json kernel spec or a .js/.ts module)");
  return a;
}

/**
 * The parameter names of the `@kernel` functions of OKL `source`, read from their signatures
 * before preprocessing: a -D naming one gives that argument's value and is no macro (as a macro it
 * would replace the parameter's name in the signature).
 */
export function oklParameterNames(source: string): Set<string> {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ");
  const names = new Set<string>();
  for (const m of text.matchAll(/@kernel\b[^(]*\(/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    const start = i;
    for (; i < text.length && depth > 0; i++) depth += text[i] === "(" ? 1 : text[i] === ")" ? -1 : 0;
    const params = text.slice(start, i - 1);
    // Split at the commas outside parentheses and brackets (`@dim(N, M)`, `a[2]`).
    let level = 0;
    let piece = "";
    const pieces: string[] = [];
    for (const ch of params) {
      if (ch === "(" || ch === "[") level++;
      else if (ch === ")" || ch === "]") level--;
      if (ch === "," && level === 0) {
        pieces.push(piece);
        piece = "";
      } else piece += ch;
    }
    pieces.push(piece);
    for (const p of pieces) {
      const bare = p.replace(/@\w+\s*(\([^)]*\))?/g, " ").replace(/\[[^\]]*\]/g, " ");
      const name = /([A-Za-z_]\w*)\s*$/.exec(bare)?.[1];
      if (name) names.add(name);
    }
  }
  return names;
}

const MODULE_EXTS = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"];

function tsxApiUrl(): string | undefined {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
}

/** The kernels of FILE and the -D names that are macros (OKL) rather than argument values. */
async function loadKernels(a: RunArgs): Promise<{ kernels: lp.Kernel[]; macros: Set<string> }> {
  const ext = extname(a.file).toLowerCase();
  const fail = (what: string): never => {
    throw new lp.ExecutionError(what);
  };
  let kernels: lp.Kernel[];
  const macros = new Set<string>();
  if (ext === ".okl") {
    let source = "";
    try {
      source = readFileSync(a.file, "utf8");
    } catch {
      fail("cannot read the file");
    }
    const params = oklParameterNames(source);
    const defines = Object.fromEntries(Object.entries(a.defines).filter(([n]) => !params.has(n)));
    for (const n of Object.keys(defines)) macros.add(n);
    kernels = lp.parseOkl(source, { filename: a.file, defines, includePaths: a.includes, libraryPaths: a.libraries, fileOpeners: a.openers });
  } else if (ext === ".json" || MODULE_EXTS.includes(ext)) {
    const raw = await readSpec(a.file, ext.endsWith("ts") ? tsxApiUrl() : undefined);
    const v = isKernel(raw) ? raw : "kernel" in raw ? raw.kernel : raw;
    kernels = [loadKernel(v, dirname(resolve(a.file)), fail)];
  } else {
    return fail(`FILE must be an OKL file (.okl), a JSON kernel spec (.json) or a module (${MODULE_EXTS.join(", ")}) exporting a kernel; got "${ext || "no extension"}"`);
  }
  if (a.kernel !== undefined) {
    const names = kernels.map((k) => k.name);
    const found = kernels.filter((k) => k.name === a.kernel);
    if (found.length === 0) fail(`no kernel "${a.kernel}"${didYouMean(a.kernel, names)}; the kernels are ${names.join(", ")}`);
    kernels = found;
  }
  return { kernels, macros };
}

interface Inputs {
  readonly params: Record<string, number>;
  readonly arrays: Record<string, lp.TypedArray>;
}

/** The parameters and seeded random arrays of `k`, or an error listing everything missing. */
function inputsFor(k: lp.Kernel, a: RunArgs): Inputs {
  const params: Record<string, number> = {};
  const missing: string[] = [];
  const problems: string[] = [];
  for (const arg of k.args) {
    if (arg.kind !== "value") continue;
    const given = a.defines[arg.name];
    const integer = isIntegerDtype(arg.dtype);
    if (given !== undefined) {
      const v = Number(given);
      if (given.trim() === "" || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
        problems.push(`-D ${arg.name}=${given}: "${arg.name}" is a ${arg.dtype ?? "integer"} argument; give ${integer ? "an integer" : "a number"}`);
      } else params[arg.name] = v;
    } else if (integer && a.size !== undefined) params[arg.name] = a.size;
    else missing.push(`${arg.name} (${arg.dtype ?? "integer"})`);
    const range = params[arg.name] !== undefined && integer ? outsideRange(params[arg.name]!, arg.dtype ?? "int32") : undefined;
    if (range) problems.push(`${given !== undefined ? `-D ${arg.name}=${given}` : `--size ${a.size}`}: "${arg.name}" is ${arg.dtype ?? "int32"}, ${range}`);
  }
  if (missing.length > 0) {
    problems.push(`kernel "${k.name}" needs values for ${missing.join(", ")}: give each as -D NAME=VALUE${a.size === undefined ? " (--size N gives every integer one the value N)" : ""}`);
  }
  if (problems.length > 0) throw new lp.ExecutionError(problems.join("; "));
  const arrays: Record<string, lp.TypedArray> = {};
  const sizes: { name: string; dtype: lp.Dtype; length: number }[] = [];
  const shapeless: string[] = [];
  for (const arg of k.args) {
    if (arg.kind !== "array") continue;
    let length: number | undefined;
    if (!arg.shape) {
      length = a.lengths[arg.name];
      if (length === undefined) shapeless.push(arg.name);
    } else {
      if (a.lengths[arg.name] !== undefined) {
        problems.push(`--length ${arg.name}: "${arg.name}" has the shape (${arg.shape.map(lp.exprToString).join(", ")}), its length comes from it`);
      }
      length = storageLength(arg, params);
      if (length === undefined) problems.push(`the shape (${arg.shape.map(lp.exprToString).join(", ")}) of "${arg.name}" cannot be evaluated at ${JSON.stringify(params)}`);
    }
    if (length !== undefined && arg.dtype === undefined) problems.push(`array "${arg.name}" has no dtype; give it one in the kernel`);
    else if (length !== undefined) sizes.push({ name: arg.name, dtype: arg.dtype!, length });
  }
  // Sized before any is filled: arrays larger than the machine would be killed by the system, not refused.
  const tooLarge = memoryProblem(sizes);
  if (tooLarge) problems.push(tooLarge);
  if (shapeless.length > 0) {
    problems.push(`kernel "${k.name}": ${shapeless.map((n) => `"${n}"`).join(", ")} ${shapeless.length === 1 ? "has" : "have"} no shape ` +
      `(a pointer whose accesses give no length); give the number of elements with ${shapeless.map((n) => `--length ${n}=N`).join(" ")}`);
  }
  if (problems.length > 0) throw new lp.ExecutionError(problems.join("; "));
  for (const { name, dtype, length } of sizes) arrays[name] = randomArray(dtype, length, a.seed, name);
  return { params, arrays };
}

interface KernelReport {
  readonly kernel: string;
  readonly backend: string;
  readonly params: Record<string, number>;
  readonly repeats: number;
  readonly timesMs: number[];
  readonly medianMs: number;
  readonly minMs: number;
  readonly outputs: Record<string, Checksum>;
  readonly check?: { ok: boolean; maxRelError: number; mismatches: string[] };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function runKernel(k: lp.Kernel, { params, arrays }: Inputs, a: RunArgs): Promise<KernelReport> {
  const args = { ...params, ...arrays };
  const opts = { backend: a.backend as lp.BackendName };
  let last = await lp.runTimed(k, args, opts); // warm-up: compiles native code
  const timesMs: number[] = [];
  for (let r = 0; r < a.repeats; r++) {
    last = await lp.runTimed(k, args, opts);
    timesMs.push(last.kernelMs.reduce((x, y) => x + y, 0));
  }
  const outputs = Object.fromEntries(Object.entries(last.outputs).map(([name, arr]) => [name, checksum(arr, k.args.find((x) => x.name === name)?.dtype)]));
  let check: KernelReport["check"];
  if (a.check) {
    const expected = await lp.run(k, args, { backend: "interp" }); // a run of its own, on interp too
    check = compareOutputs(k, expected, last.outputs, a.rtol);
  }
  return { kernel: k.name, backend: a.backend, params, repeats: a.repeats, timesMs, medianMs: median(timesMs), minMs: Math.min(...timesMs), outputs, ...(check ? { check } : {}) };
}

const num = (x: number) => (Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(8))));
const ms = (x: number) => `${Number(x.toPrecision(3))} ms`;

function reportText(r: KernelReport): string {
  const params = Object.entries(r.params).map(([n, v]) => `${n}=${v}`).join(" ");
  const lines = [`${r.kernel} on ${r.backend}${params ? `: ${params}` : ""}`,
    `  time: median ${ms(r.medianMs)}, min ${ms(r.minMs)} (${r.repeats} run${r.repeats === 1 ? "" : "s"} after a warm-up)`];
  for (const [name, c] of Object.entries(r.outputs)) {
    lines.push(`  ${name} ${c.dtype}[${c.length}]: sum ${num(c.sum)}  sum|x| ${num(c.absSum)}  hash ${c.hash}  nan ${c.nan}  inf ${c.inf}`);
  }
  if (r.check) {
    if (r.check.ok) lines.push(`  check: matches the interpreter (max relative error ${num(r.check.maxRelError)})`);
    else lines.push(`  check: differs from the interpreter (max relative error ${num(r.check.maxRelError)}):`, ...r.check.mismatches.map((m) => `    ${m}`));
  }
  return `${lines.join("\n")}\n`;
}

/** `loom run` with its arguments; the exit status (1 on a user error or a --check mismatch). */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const a = parseRunArgs(argv);
  try {
    const { kernels, macros } = await loadKernels(a);
    if (!a.file.toLowerCase().endsWith(".okl")) {
      const values = new Set(kernels.flatMap((k) => k.args.filter((x) => x.kind === "value").map((x) => x.name)));
      const unused = Object.keys(a.defines).filter((n) => !values.has(n) && !macros.has(n));
      if (unused.length > 0) throw new lp.ExecutionError(`-D ${unused[0]}: the kernel has no argument "${unused[0]}"${didYouMean(unused[0]!, [...values])}; its value arguments are ${[...values].join(", ") || "none"}`);
    }
    const shapeless = new Set(kernels.flatMap((k) => k.args.filter((x) => x.kind === "array" && !x.shape).map((x) => x.name)));
    const arrays = kernels.flatMap((k) => k.args.filter((x) => x.kind === "array").map((x) => x.name));
    const stray = Object.keys(a.lengths).filter((n) => !shapeless.has(n) && !arrays.includes(n));
    if (stray.length > 0) throw new lp.ExecutionError(`--length ${stray[0]}: no kernel has an array "${stray[0]}"${didYouMean(stray[0]!, arrays)}`);
    // Every kernel's inputs before any runs: one message lists what each kernel lacks.
    const inputs = kernels.map((k) => {
      try {
        return inputsFor(k, a);
      } catch (e) {
        if (e instanceof lp.ExecutionError) return e;
        throw e;
      }
    });
    const problems = inputs.filter((x) => x instanceof lp.ExecutionError);
    if (problems.length > 0) throw new lp.ExecutionError(problems.map((e) => e.message).join("; "));
    const reports: KernelReport[] = [];
    for (const [i, k] of kernels.entries()) {
      const r = await runKernel(k, inputs[i] as Inputs, a);
      reports.push(r);
      if (!a.json) io.out(reportText(r));
    }
    if (a.json) io.out(`${JSON.stringify({ file: a.file, backend: a.backend, seed: a.seed, kernels: reports })}\n`);
    const failed = reports.filter((r) => r.check && !r.check.ok);
    for (const r of failed) io.err(`${a.file}: error: kernel "${r.kernel}" on ${r.backend} differs from the interpreter\n`);
    return failed.length > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof lp.LoomError) {
      io.err(`${formatError(e, a.file)}\n`);
      return 1;
    }
    throw e;
  }
}
