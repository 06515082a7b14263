/**
 * Atomic updates shared by the GPU dialects: the compare-and-swap loop that does any update of a
 * word the hardware has no instruction for, and the C operator of each atomic operation.
 */
import { CodegenError } from "../../src/errors.js";
import type { AtomicOp, Dtype } from "../../src/ir/index.js";

/** How a dialect spells a compare-and-swap loop on the bit pattern of one value. */
export interface CasSpelling {
  /** The pointed-to type of the word pointer, qualifiers included (`volatile __global unsigned int`). */
  readonly pointee: string;
  readonly word: string;
  readonly valueType: string;
  /** The compare-and-swap function: `cas(p, expected, desired)` returns the old word. */
  readonly cas: string;
  readonly toWord: (x: string) => string;
  readonly fromWord: (x: string) => string;
}

/**
 * `target = combine(target)` atomically: the new bit pattern is swapped in with compare-and-swap
 * until no other work-item changed the word meanwhile. `combine` gets the old value's code.
 */
export function casLoop(s: CasSpelling, target: string, value: string, combine: (old: string, v: string) => string): string {
  return `{ ${s.pointee} *loopy_p = (${s.pointee} *) &${target}; ${s.valueType} loopy_v = ${value}; `
    + `${s.word} loopy_seen, loopy_old = *loopy_p; do { loopy_seen = loopy_old; `
    + `loopy_old = ${s.cas}(loopy_p, loopy_seen, ${s.toWord(combine(s.fromWord("loopy_seen"), "loopy_v"))}); } while (loopy_old != loopy_seen); }`;
}

/** `old op v` in C for a float CAS loop, with the float min/max functions `fmin`, `fmax` named by the caller. */
export function floatCombine(op: AtomicOp, minMax: (fn: "min" | "max") => string): (old: string, v: string) => string {
  switch (op) {
    case "+": case "-": return (old, v) => `${old} ${op} ${v}`;
    case "min": case "max": return (old, v) => `${minMax(op)}(${old}, ${v})`;
    case "=": return (_, v) => v;
    default: throw new CodegenError(`atomic "${op}" needs integer operands`);
  }
}

/** The error for an atomic update a target cannot do. */
export function noAtomic(target: string, op: AtomicOp, d: Dtype, has: string): CodegenError {
  const what = op === "=" ? "exchange" : `"${op}" update`;
  return new CodegenError(`the ${target} target has no atomic ${what} of ${d}; it has ${has}`);
}
