/**
 * Fetches remembered by value (issue 21): `addPrefetch` and `precompute` are pure functions of the
 * kernel's content and their arguments, and a tuning sweep asks the same question again and again
 * with a kernel rebuilt as new objects (the splits before a prefetch make a new kernel each time).
 * The answer for a kernel equal in content is returned as the same frozen kernel, so what is
 * remembered by the identity of kernels downstream (`schedule`) is found again too.
 *
 * A kernel's key is its content: its domains and assumptions by their poly content ids, every other
 * field as JSON. JSON would confuse a few values (an absent field and one that is `undefined`,
 * `-0` and `0`, `NaN` and `null`, a `Map` and `{}`): `undefined` gets a marker no real string can
 * equal (a string holding U+0000 makes the kernel unkeyable), and the other values, or a class
 * instance or function anywhere, make the call unkeyed (computed, not remembered). Two kernels
 * whose fields were built in a different order only miss each other. Keys are computed once per
 * frozen kernel (identity of a frozen value, never of something that can change).
 */
import type { Kernel } from "../src/ir/index.js";
import { contentMemo, memoized, setContentId } from "../src/poly/index.js";

/** Answers kept before the memo is emptied: kernels are larger than poly answers. */
const LIMIT = 2_000;

/** Thrown inside JSON.stringify's replacer: the value has no key. */
const UNKEYABLE = Symbol("unkeyable");
const UNDEFINED = "\u0000u";

function replacer(_key: string, v: unknown): unknown {
  switch (typeof v) {
    case "undefined": return UNDEFINED;
    case "number":
      if (!Number.isFinite(v) || Object.is(v, -0)) throw UNKEYABLE;
      return v;
    case "string":
      if (v.includes("\u0000")) throw UNKEYABLE;
      return v;
    case "boolean": return v;
    case "object": {
      if (v === null || Array.isArray(v)) return v;
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw UNKEYABLE;
      return v;
    }
    default: throw UNKEYABLE;
  }
}

/** `x` as JSON with the replacer above; undefined when it has no key. */
export function valueKey(x: unknown): string | undefined {
  try {
    return JSON.stringify(x, replacer);
  } catch (e) {
    if (e === UNKEYABLE) return undefined;
    throw e;
  }
}

const kernelKeys = new WeakMap<Kernel, string | null>();

/** Key texts -> short ids (never reused: forgetting texts only loses sharing, never confuses kernels). */
const interned = new Map<string, string>();
let nextKeyId = 0;

function intern(text: string): string {
  let id = interned.get(text);
  if (id === undefined) {
    if (interned.size >= LIMIT * 8) interned.clear();
    interned.set(text, (id = `#${(nextKeyId++).toString(36)}`));
  }
  return id;
}

// (A step may be handed anything from JavaScript: what is no object has no key, and the step refuses it.)
const isFrozenKernel = (k: Kernel) => typeof k === "object" && k !== null && Object.isFrozen(k) && Array.isArray(k.domains) && Object.isFrozen(k.domains) &&
  Array.isArray(k.instructions) && Object.isFrozen(k.instructions);

/**
 * The content key of a frozen kernel (undefined: not frozen, or a value without a key): a short id
 * standing for its content, or for the derivation that made it (`deriveKernelKey`).
 */
export function kernelKey(k: Kernel): string | undefined {
  if (!isFrozenKernel(k)) return undefined;
  const known = kernelKeys.get(k);
  if (known !== undefined) return known ?? undefined;
  let doms = "";
  for (const d of k.domains) doms += `${setContentId(d)},`;
  const rest = valueKey({ ...k, domains: undefined, assumptions: undefined });
  const key = rest === undefined ? undefined : intern(`${doms}|${setContentId(k.assumptions)}|${rest}`);
  kernelKeys.set(k, key ?? null);
  return key;
}

/**
 * Record that `out` is `op(k, ...args)` for a transformation `op` that is a pure function of the
 * kernel's content and its JSON arguments (every step of a pipeline): `out`'s key is then the
 * derivation (op, arguments, `k`'s key) instead of its content as JSON, which a never-seen variant
 * would otherwise pay for in full before each prefetch. Equal derivations give kernels equal in
 * content; a kernel equal in content but made another way only misses (derivation texts begin
 * with "D|", content texts with a domain id or "|", so the two never meet). `argsAreJson`: the
 * arguments are JSON data already (finite numbers, no undefined), as a pipeline step's are.
 */
export function deriveKernelKey(out: Kernel, k: Kernel, op: string, args: unknown, argsAreJson = false): void {
  if (out === k || kernelKeys.has(out) || !isFrozenKernel(out)) return;
  const kk = kernelKey(k);
  // Arguments checked as JSON data already (a step's) need no replacer: JSON.stringify's fast path.
  const ak = kk === undefined ? undefined : argsAreJson ? JSON.stringify(args) : valueKey(args);
  if (kk === undefined || ak === undefined) return;
  kernelKeys.set(out, intern(`D|${op}|${ak}|${kk}`));
}

const answers = contentMemo<Kernel>();

/**
 * `compute()`, remembered under `who`, the kernel's content and `args` (which must be JSON values;
 * anything else, or a kernel without a key, computes without remembering). A throw stores nothing.
 */
export function fetchMemo(who: string, k: Kernel, args: unknown, compute: () => Kernel): Kernel {
  // A pipeline step on this very kernel keeps the answer itself (stepMemo, under the same kernel
  // key and the step's arguments): a second memo would only key, store and hold it again.
  if (k === stepMemoState.computing) return compute();
  const kk = kernelKey(k);
  const ak = kk === undefined ? undefined : valueKey(args);
  if (kk === undefined || ak === undefined) return compute();
  if (answers.size >= LIMIT) answers.clear();
  return memoized(answers, `${who}|${ak}|${kk}`, compute);
}

const stepAnswers = contentMemo<Kernel>();

/** `computing`: the kernel of the step whose answer stepMemo is computing now (see fetchMemo). */
const stepMemoState: { on: boolean; hits: number; computing: Kernel | undefined } = { on: true, hits: 0, computing: undefined };

/** Tests: the pipeline steps' memo (stepMemo) on (default) or off (every step computed anew). */
export function useStepMemo(on: boolean): void {
  stepMemoState.on = on;
}

/** How many pipeline steps were found in stepMemo (tests: the path is taken). */
export function stepMemoHits(): number {
  return stepMemoState.hits;
}

/**
 * A pipeline step's answer `compute()`, remembered under its derivation: the step `op`, its JSON
 * arguments `args` (checked JSON data, as a step's are) and the kernel's key. Every step is a pure
 * function of the kernel's content and its arguments (see deriveKernelKey), so the variants of a
 * sweep that share a prefix of their pipelines (the same split of i, then of j) share its kernels,
 * the same frozen objects (what is remembered per kernel object downstream is found again too). A
 * kernel without a key computes without remembering; a throw stores nothing.
 */
export function stepMemo(op: string, k: Kernel, args: readonly unknown[], compute: () => Kernel): Kernel {
  const kk = stepMemoState.on ? kernelKey(k) : undefined;
  if (kk === undefined) return compute();
  const key = `${op}|${JSON.stringify(args)}|${kk}`;
  const known = stepAnswers.get(key);
  if (known !== undefined) {
    stepMemoState.hits++;
    return known;
  }
  const outside = stepMemoState.computing;
  stepMemoState.computing = k;
  let out: Kernel;
  try {
    out = compute();
  } finally {
    stepMemoState.computing = outside;
  }
  if (!isFrozenKernel(out)) return out;
  if (stepAnswers.size >= LIMIT) stepAnswers.clear();
  stepAnswers.set(key, out);
  // The answer's key is its derivation, the text just built (deriveKernelKey's, without building it again).
  if (out !== k && !kernelKeys.has(out)) kernelKeys.set(out, intern(`D|${key}`));
  return out;
}
