/**
 * Pipelines: transformations as data. A step is a function Kernel -> Kernel that also carries the
 * list of transformations it applies (`{ op, args }`), so it can be composed, printed, written to
 * JSON (a tuning record) and replayed exactly.
 *
 *   const p = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.0" }), tag({ j: "unr" }));
 *   const k2 = p(k);                      // apply
 *   const json = toJSON(p);               // [{ op: "splitIname", args: ["i", 16, {…}] }, …]
 *   applyPipeline(k, json);               // the same kernel as p(k)
 */
import { InternalError, LoomError, TransformError } from "../src/errors.js";
import type { Kernel } from "../src/ir/index.js";
import {
  checkArgs, describeArgs, isOpName, OP_NAMES, REGISTRY, signatureText, type Json, type OpName, type Registry,
} from "./registry.js";
import { deriveKernelKey, stepMemo } from "./fetch-memo.js";

export type { Json, OpName } from "./registry.js";
export { OP_NAMES, isRegistered, signatureText } from "./registry.js";

/** One transformation of a pipeline, as data: the direct form's name and its arguments after the kernel. */
export interface StepData {
  readonly op: OpName;
  readonly args: readonly Json[];
}

/** A serializable transformation: apply it with `s(k)`; `s.steps` lists what it does. */
export type Step = ((k: Kernel) => Kernel) & { readonly steps: readonly StepData[] };

/** The JSON form of a step: its transformations in order (plain data, `JSON.stringify`-able). */
export type PipelineJSON = { op: string; args: Json[] }[];

/** A step whose failure names its place in the pipeline; `cause` is the transformation's own error. */
export class PipelineStepError extends TransformError {
  readonly stepIndex: number;
  readonly op: string;
  constructor(message: string, stepIndex: number, op: string, cause: unknown) {
    super(message);
    this.stepIndex = stepIndex;
    this.op = op;
    (this as { cause?: unknown }).cause = cause;
  }
}

/**
 * `x` as canonical JSON data, deep-copied and frozen; a function, a class instance, `undefined`
 * in a list, NaN or a bigint is a TransformError (it would not survive JSON). Undefined object
 * properties are dropped, as JSON.stringify does.
 */
function toJsonValue(x: unknown, path: string, who: string): Json {
  const bad = (what: string) => new TransformError(`${who}: ${path} is ${what}; step arguments must be JSON data (strings, finite numbers, booleans, null, arrays, plain objects)`);
  if (x === null || typeof x === "string" || typeof x === "boolean") return x;
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw bad(`the number ${x}`);
    return Object.is(x, -0) ? 0 : x;
  }
  if (typeof x === "function") throw bad(`a function${x.name ? ` (${x.name})` : ""}`);
  if (typeof x === "undefined") throw bad("undefined");
  if (typeof x !== "object") throw bad(`a ${typeof x}`);
  if (Array.isArray(x)) {
    // (Built by push, not map(): an optimized caller's inlined map() makes arrays of another
    // elements kind than the builtin's, and the functions handed them then deoptimize, again and
    // again over a sweep's first thousands of variants.)
    const out: Json[] = [];
    for (let i = 0; i < x.length; i++) out.push(toJsonValue(x[i], `${path}[${i}]`, who));
    return Object.freeze(out);
  }
  const proto = Object.getPrototypeOf(x);
  if (proto !== Object.prototype && proto !== null) throw bad(`an instance of ${(x as object).constructor?.name ?? "a class"}`);
  const out: Record<string, Json> = {};
  for (const [key, val] of Object.entries(x)) {
    if (val === undefined) continue;
    out[key] = toJsonValue(val, `${path}.${key}`, who);
  }
  return Object.freeze(out);
}

/** The arguments of a step form as JSON: trailing undefined ones dropped, inner ones as null. */
function argsToJson(op: OpName, args: readonly unknown[], who: string): Json[] {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  const out: Json[] = [];
  for (let i = 0; i < end; i++) out.push(args[i] === undefined ? null : toJsonValue(args[i], `argument ${i + 1}`, who));
  checkArgs(op, out, who);
  return out;
}

/** Plain mutable copy of frozen JSON data, for toJSON's callers. */
function thaw(x: Json): Json {
  if (Array.isArray(x)) return x.map(thaw);
  if (x !== null && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, thaw(v)]));
  return x;
}

function applySteps(k: Kernel, steps: readonly StepData[]): Kernel {
  let out = k;
  // (Indexed: the steps and their arguments are frozen, and V8's forEach() and map() over frozen arrays are slow.)
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const fn = REGISTRY[s.op].fn as (k: Kernel, ...args: unknown[]) => Kernel;
    try {
      // A null top-level argument is an absent one: the direct forms take undefined for "default".
      // Remembered by derivation: a sweep's variants share their pipelines' prefixes (stepMemo).
      const k0 = out;
      const next = stepMemo(s.op, k0, s.args, () => {
        const args: unknown[] = [];
        for (let j = 0; j < s.args.length; j++) args.push(s.args[j] === null ? undefined : s.args[j]);
        return fn(k0, ...args);
      });
      // A step is a pure function of the kernel's content and its JSON arguments: the result's
      // content key follows from the derivation (what a later prefetch's memo asks for).
      deriveKernelKey(next, out, s.op, s.args, true);
      out = next;
    } catch (e) {
      if (!(e instanceof LoomError) || e instanceof InternalError) throw e;
      const place = steps.length > 1 ? `step ${i + 1} of ${steps.length}` : "step 1";
      throw new PipelineStepError(`pipeline ${place} (${describeArgs(s.op, s.args)}): ${e.message}`, i, s.op, e);
    }
  }
  return out;
}

function makeStep(steps: readonly StepData[]): Step {
  // (Built by push, not map(): see toJsonValue.)
  const list: StepData[] = [];
  for (let i = 0; i < steps.length; i++) list.push(Object.freeze({ op: steps[i]!.op, args: Object.freeze([...steps[i]!.args]) }));
  const frozen = Object.freeze(list);
  const f = (k: Kernel): Kernel => applySteps(k, frozen);
  Object.defineProperty(f, "steps", { value: frozen, enumerable: true });
  Object.defineProperty(f, "name", { value: frozen.length === 1 ? frozen[0]!.op : "pipeline" });
  return Object.freeze(f) as Step;
}

function isStep(x: unknown): x is Step {
  return typeof x === "function" && Array.isArray((x as { steps?: unknown }).steps);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ArgsAfterKernel<F> = F extends (k: Kernel, ...args: infer A) => any ? A : never;

/** The step forms: `step.splitIname("i", 16, opts)` is `(k) => splitIname(k, "i", 16, opts)`, as data. */
export type StepForms = { readonly [N in OpName]: (...args: ArgsAfterKernel<Registry[N]["fn"]>) => Step };

/** Make a one-transformation step by name (for generators and readers that choose the op at run time). */
export function makeStepOf(op: string, ...args: unknown[]): Step {
  if (!isOpName(op)) throw new TransformError(`step: no transformation named ${JSON.stringify(op)}; known: ${OP_NAMES.join(", ")}`);
  return makeStep([{ op, args: argsToJson(op, args, `step.${op}`) }]);
}

/**
 * A step form for every registered transformation.
 *
 *   const s = step.splitIname("i", 16, { outerTag: "g.0" });  s(k)  // splitIname(k, "i", 16, …)
 */
export const step: StepForms = Object.freeze(Object.fromEntries(
  OP_NAMES.map((op) => [op, (...args: unknown[]) => makeStepOf(op, ...args)]),
)) as unknown as StepForms;

/** `split("i", 16, { outerTag: "g.0", innerTag: "l.0" })`: the step form of splitIname. */
export const split: StepForms["splitIname"] = step.splitIname;
/** `tag({ i_inner: "l.0" })` or `tag("i_outer:g.0, i_inner:l.0")`: the step form of tagInames. */
export const tag: StepForms["tagInames"] = step.tagInames;
/** `prioritize("i_outer,j_outer,i_inner")`: the step form of prioritizeLoops. */
export const prioritize: StepForms["prioritizeLoops"] = step.prioritizeLoops;
/** `join(["i", "j"], "ij")`: the step form of joinInames. */
export const join: StepForms["joinInames"] = step.joinInames;
/** `prefetch("a", { sweepInames: ["i_inner"] })`: the step form of addPrefetch. */
export const prefetch: StepForms["addPrefetch"] = step.addPrefetch;

/**
 * One step applying `steps` in order; nested pipelines are flattened.
 *
 *   pipeline(split("i", 16), pipeline(tag({ i_inner: "l.0" }))).steps.length   // 2
 */
export function pipeline(...steps: readonly (Step | readonly Step[])[]): Step {
  const flat: StepData[] = [];
  const add = (s: unknown, where: string): void => {
    if (Array.isArray(s)) s.forEach((x, i) => add(x, `${where}[${i}]`));
    else if (isStep(s)) flat.push(...s.steps);
    else throw new TransformError(`pipeline: ${where} is not a step (${typeof s}); make steps with step.X(…), split(…), tag(…) or fromJSON(…)`);
  };
  steps.forEach((s, i) => add(s, `argument ${i + 1}`));
  return makeStep(flat);
}

/**
 * The JSON form of a step: a fresh array of `{ op, args }`, safe to `JSON.stringify` and to store
 * in a tuning record. `toJSON(fromJSON(toJSON(s)))` deep-equals `toJSON(s)`.
 */
export function toJSON(s: Step): PipelineJSON {
  if (!isStep(s)) throw new TransformError(`toJSON: expected a step (from step.X(…), pipeline(…) or fromJSON(…)); got ${typeof s}`);
  return s.steps.map((d) => ({ op: d.op, args: d.args.map(thaw) }));
}

/**
 * Rebuild a step from its JSON form (the value of toJSON, or that value as a JSON string; a single
 * `{ op, args }` is accepted too). Unknown ops and ill-shaped arguments are TransformErrors that
 * say what is accepted.
 */
export function fromJSON(json: unknown): Step {
  const who = "fromJSON";
  let data = json;
  if (typeof data === "string") {
    try {
      data = JSON.parse(data);
    } catch (e) {
      throw new TransformError(`${who}: not valid JSON: ${(e as Error).message}`);
    }
  }
  const list = Array.isArray(data) ? data : data !== null && typeof data === "object" && "op" in data ? [data] : undefined;
  if (list === undefined) throw new TransformError(`${who}: expected a list of steps [{ op, args }, …]; got ${JSON.stringify(data) ?? typeof data}`);
  const steps = list.map((item: unknown, i): StepData => {
    const where = `${who}: step ${i}`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      throw new TransformError(`${where} must be an object { op, args }; got ${JSON.stringify(item) ?? typeof item}`);
    }
    const extra = Object.keys(item).filter((key) => key !== "op" && key !== "args");
    if (extra.length > 0) throw new TransformError(`${where} has unknown key${extra.length > 1 ? "s" : ""} ${extra.join(", ")}; accepted keys are op and args`);
    const { op, args = [] } = item as { op?: unknown; args?: unknown };
    if (!isOpName(op)) throw new TransformError(`${where}: unknown op ${JSON.stringify(op) ?? String(op)}; accepted ops are ${OP_NAMES.join(", ")}`);
    if (!Array.isArray(args)) throw new TransformError(`${where} (${op}): args must be a list; accepted: ${signatureText(op)}`);
    const jsonArgs = args.map((a, j) => toJsonValue(a, `argument ${j + 1}`, `${where} (${op})`));
    checkArgs(op, jsonArgs, `${where} (${op})`);
    return { op, args: jsonArgs };
  });
  return makeStep(steps);
}

/** Apply a pipeline given in its JSON form: `applyPipeline(k, record.pipeline)`. */
export function applyPipeline(k: Kernel, json: unknown): Kernel {
  return fromJSON(json)(k);
}

/**
 * One readable line per transformation:
 *
 *   splitIname i by 16 (outer g.0, inner l.0)
 *   tagInames j_inner:unr
 */
export function describe(s: Step): string {
  if (!isStep(s)) throw new TransformError(`describe: expected a step; got ${typeof s}`);
  return s.steps.map((d) => describeArgs(d.op, d.args)).join("\n");
}
