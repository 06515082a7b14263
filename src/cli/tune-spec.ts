/**
 * The spec of `loom tune`: a JSON file, or a .js/.ts module exporting the same fields (where
 * `kernel` may be a kernel, `build` a function and restrictions functions). Every mistake is a
 * LoomError naming the field. See docs/tuning.md, "The command line".
 */
import { readFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as lp from "../index.js";
import { compileRestriction } from "./restriction-expr.js";

type Point = lp.TuningPoint;
type AutotuneSpec = Omit<lp.AutotuneOptions, "onProgress" | "signal" | "log">;

export interface LoadedSpec {
  readonly kernel: lp.Kernel;
  readonly options: AutotuneSpec;
  /** The log file, absolute. */
  readonly log: string;
  /** The pipeline template, when the spec gave one (JSON), for the report. */
  readonly pipeline?: unknown;
}

/** lp.autotune's options that a spec passes on as they are (autotune checks them). */
const PASSED = ["space", "params", "testParams", "backend", "strategy", "budget", "seed", "repeats", "remeasure", "compileJobs", "peak", "executor"] as const;
const FIELDS = ["kernel", "pipeline", "build", "restrictions", "log", ...PASSED] as const;

/** A mistake in the spec; the command line prefixes the spec's path. */
export class SpecError extends lp.LoomError {}

function shown(x: unknown): string {
  if (typeof x === "function") return "a function";
  try {
    return (JSON.stringify(x) ?? String(x)).slice(0, 100);
  } catch {
    return String(x);
  }
}

/** Read the spec at `path`: JSON by its extension, else a module (TypeScript through tsx). */
export async function readSpec(path: string, tsxApi?: string): Promise<Record<string, unknown>> {
  const ext = extname(path).toLowerCase();
  const fail = (what: string): never => {
    throw new SpecError(what);
  };
  if (ext === ".json") {
    let text = "";
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      fail(`cannot read the spec: ${(e as Error).message}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      fail(`the spec is not valid JSON: ${(e as Error).message}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) fail(`the spec must be a JSON object { kernel, space, pipeline, params, … }; got ${shown(value)}`);
    return value as Record<string, unknown>;
  }
  if (![".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"].includes(ext)) fail(`a spec is a .json file or a .js/.ts module; got "${ext || "no extension"}"`);
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(resolve(path)).href;
    if (ext.endsWith("ts") && tsxApi !== undefined) {
      const api = (await import(tsxApi)) as { tsImport: (spec: string, parent: string) => Promise<Record<string, unknown>> };
      mod = await api.tsImport(url, import.meta.url);
    } else {
      mod = (await import(url)) as Record<string, unknown>;
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err?.code === "ERR_UNKNOWN_FILE_EXTENSION") {
      return fail("cannot load a TypeScript spec: it needs tsx (npm install --save-dev tsx, then run loom again), or Node with type stripping; or write the spec as .js or .json");
    }
    if (err?.code === "ERR_MODULE_NOT_FOUND" && !String(err.message).includes(basename(path))) fail(`the spec module imports something that cannot be found: ${err.message}`);
    return fail(`cannot load the spec module: ${err instanceof Error ? `${err.name}: ${err.message}` : String(e)}`);
  }
  const spec = (mod.default ?? mod.spec ?? mod) as unknown;
  if (spec === null || typeof spec !== "object") fail(`the spec module must export the spec (export default { kernel, space, build, params, … }); got ${shown(spec)}`);
  return { ...(spec as Record<string, unknown>) };
}

export function isKernel(x: unknown): x is lp.Kernel {
  return x !== null && typeof x === "object" && Array.isArray((x as lp.Kernel).instructions) && Array.isArray((x as lp.Kernel).domains);
}

/** A spec's `kernel` field (a kernel, makeKernel's arguments or { okl, kernel?, defines? }) as a kernel; also `loom run`'s loader. */
export function loadKernel(v: unknown, specDir: string, fail: (what: string) => never): lp.Kernel {
  if (isKernel(v)) return v;
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    return fail(`kernel must be { domains, instructions, args?, options? } (lp.makeKernel's arguments) or { okl: "file.okl", kernel?: name }; got ${shown(v)}`);
  }
  const k = v as Record<string, unknown>;
  try {
    if ("okl" in k) {
      if (typeof k.okl !== "string") fail(`kernel.okl must be the path of an OKL file, relative to the spec; got ${shown(k.okl)}`);
      const file = resolve(specDir, k.okl as string);
      let source = "";
      try {
        source = readFileSync(file, "utf8");
      } catch {
        fail(`kernel.okl: cannot read ${file}`);
      }
      const defines = (k.defines ?? {}) as Record<string, string>;
      if (defines === null || typeof defines !== "object" || Array.isArray(defines)) fail(`kernel.defines must be an object such as { "BS": "16" }; got ${shown(k.defines)}`);
      const kernels = lp.parseOkl(source, { filename: file, defines: Object.fromEntries(Object.entries(defines).map(([n, d]) => [n, String(d)])) });
      const names = kernels.map((x) => x.name);
      if (k.kernel !== undefined) {
        const found = kernels.find((x) => x.name === k.kernel);
        if (!found) fail(`kernel.kernel ${shown(k.kernel)} is not a kernel of ${k.okl}; its kernels are ${names.join(", ")}`);
        return found!;
      }
      if (kernels.length !== 1) fail(`${k.okl} holds ${kernels.length} kernels (${names.join(", ")}); name one with kernel.kernel`);
      return kernels[0]!;
    }
    if (!("domains" in k) || !("instructions" in k)) fail(`kernel needs domains and instructions (or okl); got the fields ${Object.keys(k).join(", ") || "none"}`);
    return lp.makeKernel(k.domains as string, k.instructions as string, k.args as string[] | undefined, k.options as Parameters<typeof lp.makeKernel>[3]);
  } catch (e) {
    if (e instanceof SpecError) throw e;
    if (e instanceof lp.LoomError) fail(`kernel: ${e.message}`);
    throw e;
  }
}

/**
 * `x` with every string "$name" replaced by the point's value of `name` (its number or string);
 * "$$…" is a literal "$…".
 */
export function instantiate(x: unknown, point: Point): unknown {
  if (typeof x === "string") {
    if (x.startsWith("$$")) return x.slice(1);
    return x.startsWith("$") ? point[x.slice(1)] : x;
  }
  if (Array.isArray(x)) return x.map((y) => instantiate(y, point));
  if (x !== null && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, instantiate(y, point)]));
  return x;
}

/** The placeholders of a template and where they are ("pipeline[0].args[1]"). */
function placeholders(x: unknown, where: string): [string, string][] {
  if (typeof x === "string") return x.startsWith("$") && !x.startsWith("$$") ? [[x.slice(1), where]] : [];
  if (Array.isArray(x)) return x.flatMap((y, i) => placeholders(y, `${where}[${i}]`));
  if (x !== null && typeof x === "object") return Object.entries(x).flatMap(([k, y]) => placeholders(y, `${where}.${k}`));
  return [];
}

/** Check a spec's fields and turn them into a kernel and lp.autotune's options. */
export function checkSpec(raw: Record<string, unknown>, specPath: string): LoadedSpec {
  const fail = (what: string): never => {
    throw new SpecError(what);
  };
  const unknown = Object.keys(raw).filter((f) => !(FIELDS as readonly string[]).includes(f));
  if (unknown.length > 0) fail(`unknown field "${unknown[0]}"; a spec has ${FIELDS.join(", ")}`);
  const specDir = dirname(resolve(specPath));
  if (raw.kernel === undefined) fail("the spec has no kernel");
  const kernel = loadKernel(raw.kernel, specDir, fail);
  const space = raw.space;
  if (space === null || typeof space !== "object" || Array.isArray(space)) fail(`space must be an object of value lists such as { "ti": [1, 2, 4] }; got ${shown(space)}`);
  const names = Object.keys(space as object);
  const firstPoint = Object.fromEntries(Object.entries(space as Record<string, unknown>).map(([n, vs]) => [n, Array.isArray(vs) ? vs[0] : undefined])) as Point;

  let build: lp.AutotuneOptions["build"];
  if (raw.build !== undefined && raw.pipeline !== undefined) fail("give either build (a module spec's function) or pipeline (a template), not both");
  if (raw.build !== undefined) {
    if (typeof raw.build !== "function") fail(`build must be a function (kernel, point) => kernel or step; a JSON spec gives pipeline instead; got ${shown(raw.build)}`);
    build = raw.build as lp.AutotuneOptions["build"];
  } else {
    const template = raw.pipeline;
    if (!Array.isArray(template)) fail(`pipeline must be an array of steps in lp.toJSON's form, such as [{ "op": "splitIname", "args": ["i", "$ti"] }]; got ${shown(template)}`);
    for (const [name, where] of placeholders(template, "pipeline")) {
      if (!names.includes(name)) fail(`${where} is "$${name}" but the space has no parameter "${name}"; parameters are ${names.join(", ")} (write "$$" for a literal "$")`);
    }
    try {
      lp.fromJSON(instantiate(template, firstPoint));
    } catch (e) {
      if (e instanceof lp.LoomError) fail(`pipeline: ${e.message}`);
      throw e;
    }
    build = (_k, p) => lp.fromJSON(instantiate(template, p));
  }

  let restrictions: ((p: Point) => boolean)[] | undefined;
  if (raw.restrictions !== undefined) {
    if (!Array.isArray(raw.restrictions)) fail(`restrictions must be an array of expressions such as "ti * tj <= 64"; got ${shown(raw.restrictions)}`);
    restrictions = (raw.restrictions as unknown[]).map((r, i) => {
      if (typeof r === "function") return r as (p: Point) => boolean;
      if (typeof r !== "string") return fail(`restrictions[${i}] must be an expression (a string) such as "ti * tj <= 64"; got ${shown(r)}`);
      try {
        return compileRestriction(r, names, `restrictions[${i}]`);
      } catch (e) {
        return fail((e as Error).message);
      }
    });
  }
  if (raw.log !== undefined && (typeof raw.log !== "string" || raw.log === "")) fail(`log must be the path of the tuning log (JSON lines), relative to the spec; got ${shown(raw.log)}`);
  const log = raw.log !== undefined ? resolve(specDir, raw.log as string) : join(specDir, `${basename(specPath, extname(specPath))}.jsonl`);
  const options = Object.fromEntries(PASSED.filter((f) => raw[f] !== undefined).map((f) => [f, raw[f]])) as Partial<AutotuneSpec>;
  return {
    kernel, log,
    options: { ...options, build, ...(restrictions ? { restrictions } : {}) } as AutotuneSpec,
    ...(raw.pipeline !== undefined ? { pipeline: raw.pipeline } : {}),
  };
}
