/**
 * The registry of transformations that pipelines may name: for each, its direct form, the shapes
 * of its arguments (checked when a step is made or read back from JSON) and a one-line reading.
 *
 *   REGISTRY.splitIname.fn(k, "i", 16)          // the direct form
 *   describeArgs("splitIname", ["i", 16, { outerTag: "g.0" }])  // "splitIname i by 16 (outer g.0)"
 */
import { TransformError } from "../src/errors.js";
import { checkOptions } from "./common.js";
import type { Kernel } from "../src/ir/index.js";
import { setTemporaryAddressSpace } from "./data.js";
import { chunkIname, prioritizeLoops, splitIname, tagInames, SPLIT_OPTIONS } from "./iname.js";
import { joinInames, tile, JOIN_OPTIONS, TILE_OPTIONS } from "./iname-join.js";
import { duplicateInames, removeUnusedInames, renameIname, RENAME_OPTIONS } from "./iname-rename.js";
import { addBarrier, addDependency, removeInstructions, setInstructionPriority, BARRIER_OPTIONS } from "./instruction.js";
import { dimOrder, tagArrayAxes } from "./layout.js";
import { privatize } from "./privatize.js";
import { splitArrayAxis, SPLIT_AXIS_OPTIONS } from "./split-array-axis.js";
import { assume, fixParameters, FIX_OPTIONS } from "./parameters.js";
import { addPrefetch, PREFETCH_OPTIONS } from "./prefetch.js";
import { saveAndReloadTemporaries } from "./save-reload.js";
import { precompute, PRECOMPUTE_OPTIONS } from "./precompute.js";
import { mapDomain } from "./map-domain.js";
import { assignmentToSubst, expandSubst, extractSubst, EXTRACT_OPTIONS } from "./subst.js";
import { makeReductionInamesUnique, splitReductionInward, splitReductionOutward, REDUCTION_OPTIONS, UNIQUE_OPTIONS } from "./reduction.js";

/** A JSON value as stored in a step: strings, finite numbers, booleans, null, arrays, plain objects. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/**
 * The shape of one positional argument. `?` marks an optional one (absent: `null` in JSON).
 * `strings`: a name, a comma-separated list or an array of names; `ints`: an array of integers;
 * `sizes`: an integer or a list of integers; `tags`: a TagSpec (`{i: "g.0"}`, `"i:g.0"`, `[["i", "g.0"]]`); `json`: any JSON value.
 */
export type ArgShape = "string" | "int" | "number" | "boolean" | "strings" | "ints" | "sizes" | "object" | "tags" | "json";
export type ArgSpecText = ArgShape | `${ArgShape}?`;

// `any` here only so that one entry type fits every direct form; each step form is typed from `fn`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type DirectForm = (k: Kernel, ...args: any[]) => Kernel;

export interface Entry<F extends DirectForm = DirectForm> {
  readonly fn: F;
  /** Positional argument shapes after the kernel. */
  readonly args: readonly ArgSpecText[];
  /** The words after the name in `describe`: `i by 16 (outer g.0, inner l.0)`. */
  readonly describe?: (args: readonly Json[]) => string;
  /** The option names its options object (the `object?` argument) may have. */
  readonly options?: Readonly<Record<string, true>>;
}

function entry<F extends DirectForm>(
  fn: F, args: readonly ArgSpecText[], describe?: (args: readonly Json[]) => string, options?: Readonly<Record<string, true>>,
): Entry<F> {
  return options === undefined ? { fn, args, describe } : { fn, args, describe, options };
}

/** A JSON value as short text: strings bare, lists comma-separated, the rest as JSON. */
export function showArg(x: Json | undefined): string {
  if (typeof x === "string") return x;
  if (Array.isArray(x) && x.every((y) => typeof y === "string" || typeof y === "number")) return x.join(", ");
  return JSON.stringify(x) ?? "undefined";
}

const obj = (x: Json | undefined): Readonly<Record<string, Json>> =>
  x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, Json>) : {};

/** A name or a list of names: `i, j`. */
const list = (x: Json | undefined): string => (typeof x === "string" ? x.split(",").map((y) => y.trim()).join(", ") : showArg(x));

/** Options as ` (key value, key value)`, or "" when there are none. */
function opts(x: Json | undefined): string {
  const parts = Object.entries(obj(x)).map(([key, val]) => `${key} ${showArg(val)}`);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** `(outer io g.0, inner l.0, slabs 0/1, within s*)` for split and chunk options, or "". */
function splitDetails(o: Readonly<Record<string, Json>>): string {
  const parts: string[] = [];
  const side = (which: string, name: Json | undefined, tag: Json | undefined) => {
    const words = [name, tag].filter((w) => w !== undefined && w !== null).map(showArg);
    if (words.length > 0) parts.push(`${which} ${words.join(" ")}`);
  };
  side("outer", o.outerIname, o.outerTag);
  side("inner", o.innerIname, o.innerTag);
  if (Array.isArray(o.slabs)) parts.push(`slabs ${o.slabs.join("/")}`);
  if (o.within !== undefined && o.within !== null) parts.push(`within ${showArg(o.within)}`);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

function tagsText(t: Json | undefined): string {
  if (typeof t === "string") return t.split(",").map((s) => s.trim()).filter((s) => s.length > 0).join(", ");
  if (Array.isArray(t)) return t.map((p) => (Array.isArray(p) ? `${showArg(p[0])}:${p[1] ?? "for"}` : showArg(p))).join(", ");
  return Object.entries(obj(t)).map(([i, tag]) => `${i}:${tag ?? "for"}`).join(", ");
}

/**
 * Every transformation a pipeline may name. Modules added later register here with an import and
 * one line; the step form `step.X` and the JSON reader follow from this table.
 */
export const REGISTRY = {
  splitIname: entry(splitIname, ["string", "int", "object?"], (a) => `${showArg(a[0])} by ${showArg(a[1])}${splitDetails(obj(a[2]))}`, SPLIT_OPTIONS),
  chunkIname: entry(chunkIname, ["string", "int", "object?"], (a) => `${showArg(a[0])} into ${showArg(a[1])} chunks${splitDetails(obj(a[2]))}`, SPLIT_OPTIONS),
  tagInames: entry(tagInames, ["tags"], (a) => tagsText(a[0])),
  prioritizeLoops: entry(prioritizeLoops, ["strings"], (a) => (typeof a[0] === "string" ? a[0].split(",").map((s) => s.trim()).join(", ") : showArg(a[0]))),
  setTemporaryAddressSpace: entry(setTemporaryAddressSpace, ["strings", "string"], (a) => `${showArg(a[0])} ${showArg(a[1])}`),
  joinInames: entry(joinInames, ["strings", "string?", "object?"], (a) => `${list(a[0])}${a[1] ? ` into ${showArg(a[1])}` : ""}${opts(a[2])}`, JOIN_OPTIONS),
  tile: entry(tile, ["strings", "sizes", "object?"], (a) => `${list(a[0])} by ${typeof a[1] === "number" ? a[1] : list(a[1]).replace(/, /g, "x")}${opts(a[2])}`, TILE_OPTIONS),
  renameIname: entry(renameIname, ["string", "string", "object?"], (a) => `${showArg(a[0])} to ${showArg(a[1])}${opts(a[2])}`, RENAME_OPTIONS),
  duplicateInames: entry(duplicateInames, ["strings", "strings", "strings?"], (a) => `${list(a[0])} within ${showArg(a[1])}${a[2] ? ` as ${list(a[2])}` : ""}`),
  removeUnusedInames: entry(removeUnusedInames, ["strings?"], (a) => (a[0] ? list(a[0]) : "")),
  splitReductionInward: entry(splitReductionInward, ["strings", "object?"], (a) => `${list(a[0])}${opts(a[1])}`, REDUCTION_OPTIONS),
  splitReductionOutward: entry(splitReductionOutward, ["strings", "object?"], (a) => `${list(a[0])}${opts(a[1])}`, REDUCTION_OPTIONS),
  makeReductionInamesUnique: entry(makeReductionInamesUnique, ["object?"], (a) => opts(a[0]).trim(), UNIQUE_OPTIONS),
  mapDomain: entry(mapDomain, ["string"], (a) => showArg(a[0])),
  extractSubst: entry(extractSubst, ["string", "json", "strings?", "object?"], (a) => `${showArg(a[0])} := ${showArg(a[1])}${a[2] ? ` over ${list(a[2])}` : ""}${opts(a[3])}`, EXTRACT_OPTIONS),
  assignmentToSubst: entry(assignmentToSubst, ["string"], (a) => showArg(a[0])),
  expandSubst: entry(expandSubst, ["strings?"], (a) => (a[0] ? `within ${list(a[0])}` : "")),
  assume: entry(assume, ["string"], (a) => showArg(a[0])),
  fixParameters: entry(fixParameters, ["object", "object?"], (a) => `${Object.entries(obj(a[0])).map(([p, x]) => `${p}=${showArg(x)}`).join(", ")}${opts(a[1])}`, FIX_OPTIONS),
  tagArrayAxes: entry(tagArrayAxes, ["strings", "strings"], (a) => `${list(a[0])} ${list(a[1])}`),
  dimOrder: entry(dimOrder, ["strings", "ints"], (a) => `${list(a[0])} [${list(a[1])}]`),
  splitArrayAxis: entry(splitArrayAxis, ["strings", "int", "int", "object?"], (a) => `${list(a[0])} axis ${showArg(a[1])} into ${showArg(a[2])}${opts(a[3])}`, SPLIT_AXIS_OPTIONS),
  privatize: entry(privatize, ["string", "strings"], (a) => `${showArg(a[0])} over ${list(a[1])}`),
  addPrefetch: entry(addPrefetch, ["string", "object?"], (a) => `${showArg(a[0])}${opts(a[1])}`, PREFETCH_OPTIONS),
  // The uses: a rule name, "f$tag", an invocation "f(i, j+1)", or a list of those (never split at commas).
  precompute: entry(precompute, ["strings", "strings?", "object?"], (a) => `${typeof a[0] === "string" ? a[0] : (a[0] as string[]).join(" and ")}${a[1] ? ` sweeping ${list(a[1])}` : ""}${opts(a[2])}`, PRECOMPUTE_OPTIONS),
  addDependency: entry(addDependency, ["strings", "strings"], (a) => `${list(a[0])} on ${list(a[1])}`),
  saveAndReloadTemporaries: entry(saveAndReloadTemporaries, []),
  addBarrier: entry(addBarrier, ["strings", "strings", "string", "object?"], (a) => `${showArg(a[2])} between ${list(a[0])} and ${list(a[1])}${opts(a[3])}`, BARRIER_OPTIONS),
  removeInstructions: entry(removeInstructions, ["strings"], (a) => list(a[0])),
  setInstructionPriority: entry(setInstructionPriority, ["strings", "int"], (a) => `${list(a[0])} to ${showArg(a[1])}`),
} as const satisfies Record<string, Entry>;

export type Registry = typeof REGISTRY;
export type OpName = keyof Registry;

/** The registered names, in table order. */
export const OP_NAMES: readonly OpName[] = Object.keys(REGISTRY) as OpName[];

export function isOpName(x: unknown): x is OpName {
  return typeof x === "string" && Object.prototype.hasOwnProperty.call(REGISTRY, x);
}

/** Whether a transformation of this name is registered (families of the random pipelines test this). */
export function isRegistered(name: string): boolean {
  return isOpName(name);
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === "object" && !Array.isArray(x) && [Object.prototype, null].includes(Object.getPrototypeOf(x));

function fits(shape: ArgShape, x: Json): boolean {
  switch (shape) {
    case "string": return typeof x === "string";
    case "int": return typeof x === "number" && Number.isSafeInteger(x);
    case "number": return typeof x === "number";
    case "boolean": return typeof x === "boolean";
    case "strings": return typeof x === "string" || (Array.isArray(x) && x.every((y) => typeof y === "string"));
    case "ints": return Array.isArray(x) && x.every((y) => typeof y === "number" && Number.isSafeInteger(y));
    case "sizes": return (typeof x === "number" && Number.isSafeInteger(x)) || fits("ints", x);
    case "object": return isPlainObject(x);
    case "tags": return typeof x === "string" || isPlainObject(x) || (Array.isArray(x) && x.every((p) => Array.isArray(p) && p.length === 2));
    case "json": return true;
  }
}

const SHAPE_WORDS: Record<ArgShape, string> = {
  string: "a string", int: "an integer", number: "a number", boolean: "true or false",
  strings: "a name, \"a,b\" or a list of names", ints: "a list of integers", sizes: "an integer or a list of integers", object: "an options object {…}",
  tags: "tags as {i: \"g.0\"}, \"i:g.0, j:l.0\" or [[\"i\", \"g.0\"]]", json: "any JSON value",
};

/** The accepted arguments of `op`, for error messages: `splitIname(iname: a string, …)`. */
export function signatureText(op: OpName): string {
  const e: Entry = REGISTRY[op];
  const parts = e.args.map((s) => (s.endsWith("?") ? `[${SHAPE_WORDS[s.slice(0, -1) as ArgShape]}]` : SHAPE_WORDS[s as ArgShape]));
  return `${op}(${parts.join("; ")})`;
}

/** Throws TransformError unless `args` (already JSON-safe) fit the shapes registered for `op`. */
export function checkArgs(op: OpName, args: readonly Json[], where: string): void {
  const e: Entry = REGISTRY[op];
  const required = e.args.filter((s) => !s.endsWith("?")).length;
  const bad = (what: string) => new TransformError(`${where}: ${what}; accepted: ${signatureText(op)}`);
  if (args.length < required) throw bad(`${op} takes at least ${required} argument${required === 1 ? "" : "s"} after the kernel, got ${args.length}`);
  if (args.length > e.args.length) throw bad(`${op} takes at most ${e.args.length} arguments after the kernel, got ${args.length}`);
  args.forEach((x, i) => {
    const spec = e.args[i]!;
    const optional = spec.endsWith("?");
    const shape = (optional ? spec.slice(0, -1) : spec) as ArgShape;
    if (x === null && optional) return;
    if (!fits(shape, x)) throw bad(`argument ${i + 1} of ${op} must be ${SHAPE_WORDS[shape]}, got ${JSON.stringify(x)}`);
    // A misspelt option in a step or a tuning log is refused when it is read, not ignored.
    if (optional && shape === "object" && e.options !== undefined) checkOptions(x as object, `${where}: ${op}`, e.options);
  });
}

/** The readable line of one step: `splitIname i by 16 (outer g.0, inner l.0)`. */
export function describeArgs(op: OpName, args: readonly Json[]): string {
  const e: Entry = REGISTRY[op];
  const words = e.describe ? e.describe(args) : args.map(showArg).join(" ");
  return words.length > 0 ? `${op} ${words}` : op;
}
