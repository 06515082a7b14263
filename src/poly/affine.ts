/** Affine expressions over named variables (the user-facing form; operations use dense rows). */
import type { Aff } from "./types.js";
import { add, mul, checkInt } from "./int.js";

/** Build an affine expression, dropping zero terms. `aff({ i: 2, n: -1 }, 3)` is `2i - n + 3`. */
export function aff(terms: Readonly<Record<string, number>> = {}, constant = 0): Aff {
  // (A hot path: no entries array, and the error message is built only when it is needed.)
  const t: Record<string, number> = {};
  for (const k in terms) {
    if (!Object.hasOwn(terms, k)) continue;
    const v = terms[k]!;
    if (!Number.isSafeInteger(v)) checkInt(v, () => `aff: coefficient of ${k}`);
    if (v !== 0) t[k] = v;
  }
  if (!Number.isSafeInteger(constant)) checkInt(constant, "aff: constant");
  return Object.freeze({ terms: isEmptyRecord(t) ? NO_TERMS : Object.freeze(t), constant });
}

/** The terms of every constant form: one frozen empty record (freezing is a runtime call). */
const NO_TERMS: Readonly<Record<string, number>> = Object.freeze({});

function isEmptyRecord(t: Readonly<Record<string, number>>): boolean {
  for (const _ in t) return false;
  return true;
}

const varAffs = new Map<string, Aff>();

/**
 * `aff({ [name]: 1 })`, one frozen object per name (forms are values): the form of every variable
 * occurrence that `exprToAff` reads.
 */
export function varAff(name: string): Aff {
  let a = varAffs.get(name);
  if (a === undefined) {
    a = aff({ [name]: 1 });
    if (varAffs.size >= 10_000) varAffs.clear();
    varAffs.set(name, a);
  }
  return a;
}

/** An Aff from terms built here (integers already checked): zero terms dropped, then frozen. */
function owned(t: Record<string, number>, zeros: boolean, constant: number): Aff {
  let terms = t;
  if (zeros) {
    terms = {};
    for (const k in t) if (t[k] !== 0) terms[k] = t[k]!;
  }
  return Object.freeze({ terms: isEmptyRecord(terms) ? NO_TERMS : Object.freeze(terms), constant });
}

/** a + b. */
export function affAdd(a: Aff, b: Aff): Aff {
  return combineAffs(a, b, 1);
}

/** a - b. */
export function affSub(a: Aff, b: Aff): Aff {
  return combineAffs(a, b, -1);
}

/** a + sign·b (sign ±1), one new object (a hot path: bounds and faces are built from these). */
function combineAffs(a: Aff, b: Aff, sign: 1 | -1): Aff {
  const t: Record<string, number> = {};
  for (const k in a.terms) t[k] = a.terms[k]!;
  let zeros = false;
  for (const k in b.terms) {
    const v = add(t[k] ?? 0, sign * b.terms[k]!);
    t[k] = v;
    if (v === 0) zeros = true;
  }
  return owned(t, zeros, add(a.constant, sign * b.constant));
}

/** k * a. */
export function affScale(a: Aff, k: number): Aff {
  if (k === 0) return aff({}, 0);
  const t: Record<string, number> = {};
  for (const n in a.terms) t[n] = mul(a.terms[n]!, k);
  return owned(t, false, mul(a.constant, k));
}

/** Value of `a` at `values`; a missing variable is an error. `affEval(aff({i: 2}, 1), {i: 3}) === 7` */
export function affEval(a: Aff, values: Readonly<Record<string, number>>): number {
  let r = a.constant;
  for (const [k, v] of Object.entries(a.terms)) {
    const x = values[k];
    if (x === undefined) throw new RangeError(`affEval: no value for "${k}"`);
    r = add(r, mul(v, x));
  }
  return r;
}

/** true when `a` has no variable terms. */
export function affIsConstant(a: Aff): boolean {
  // (No Object.keys array: asked of every bound and fact in lowering.)
  for (const k in a.terms) if (Object.hasOwn(a.terms, k)) return false;
  return true;
}

/** ISL-style text: `2*i - n + 3`, `0` for the zero expression. */
export function affToString(a: Aff): string {
  return termsToString(Object.entries(a.terms), a.constant);
}

/** Render `Σ coef·name + constant` with names in the given order. */
export function termsToString(terms: readonly (readonly [string, number])[], constant: number): string {
  let s = "";
  for (const [name, c] of terms) {
    if (c === 0) continue;
    const mag = Math.abs(c);
    const t = mag === 1 ? name : `${mag}*${name}`;
    s += s === "" ? (c < 0 ? `-${t}` : t) : c < 0 ? ` - ${t}` : ` + ${t}`;
  }
  if (s === "") return String(constant);
  if (constant !== 0) s += constant < 0 ? ` - ${-constant}` : ` + ${constant}`;
  return s;
}
