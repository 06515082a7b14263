/**
 * A small C-like AST (its printer: codegen/printer.ts). Expressions carry the dtype they compute in, so that one
 * lowering serves C-family targets (which print casts only where C would not convert by itself)
 * and JavaScript (which spells every rounding and wrap, as the interpreter does).
 */
import type { AtomicOp, BitwiseOp, Dtype } from "../src/ir/index.js";
import type { BarrierNode } from "../src/schedule/index.js";

/** The memory a barrier orders (the schedule's `BarrierNode.memory`): OpenCL's fence flags. */
export type BarrierMemory = NonNullable<BarrierNode["memory"]>;

/** `idx`: exact integer index arithmetic (loop bounds, flattened subscripts), never overflowing. */
export type ExDtype = Dtype | "idx";
export type BinOp = "+" | "-" | "*" | "/" | "//" | "%" | "**" | "<" | "<=" | ">" | ">=" | "==" | "!=" | "&&" | "||" | "min" | "max" | BitwiseOp;

export type Ex =
  | { readonly k: "var"; readonly name: string }
  | { readonly k: "lit"; readonly value: number; readonly dtype: ExDtype }
  /**
   * `l op r` computed in `dtype` (for comparisons: the operands' dtype). `nonneg`: `//` or `%` of
   * a value proved non-negative (and within int32) by a positive constant: truncation floors.
   * `countDtype`: of a shift, the dtype of the count `r` (C converts a shift's operands apart).
   */
  | { readonly k: "bin"; readonly op: BinOp; readonly l: Ex; readonly r: Ex; readonly dtype: ExDtype; readonly insn?: string; readonly nonneg?: boolean; readonly countDtype?: Dtype }
  | { readonly k: "neg"; readonly e: Ex; readonly dtype: ExDtype }
  /** `~e`, computed in the integer dtype `dtype`. */
  | { readonly k: "bitnot"; readonly e: Ex; readonly dtype: Dtype }
  | { readonly k: "not"; readonly e: Ex }
  | { readonly k: "call"; readonly fn: string; readonly args: readonly Ex[]; readonly dtype: Dtype }
  /** An element of an array's flat storage. */
  | { readonly k: "load"; readonly array: string; readonly index: Ex; readonly dtype: Dtype }
  | { readonly k: "cond"; readonly c: Ex; readonly t: Ex; readonly f: Ex }
  | { readonly k: "cast"; readonly to: Dtype; readonly from: Dtype; readonly e: Ex }
  /** Group (`g`) or local (`l`) id along `axis`. */
  | { readonly k: "hw"; readonly tag: "g" | "l"; readonly axis: number };

/**
 * An operation the interpreter refuses at run time (an ExecutionError there), which generated code
 * checks and records where it can: an integer division or modulo by 0, a shift count outside
 * 0..width-1 of the (promoted) shifted value, a negative integer exponent. `unsigned`: the
 * recorded value (a shift count) is a uint64's bits.
 */
export interface IntTrapSite {
  readonly insn: string;
  readonly what: "division" | "modulo" | "shift" | "power";
  readonly width?: 32 | 64;
  readonly unsigned?: boolean;
}

/** An atomic read-modify-write (or exchange, op "=") of a cell in global or local memory. */
export interface AtomicStore {
  readonly op: AtomicOp;
  readonly space: "global" | "local";
}

export type Stmt =
  | { readonly k: "block"; readonly body: readonly Stmt[] }
  /** `for (int v = lo; v <= hi; ++v)`, `pragmas` printed on the lines before. */
  | { readonly k: "for"; readonly v: string; readonly lo: Ex; readonly hi: Ex; readonly body: Stmt; readonly pragmas?: readonly string[] }
  | { readonly k: "if"; readonly cond: Ex; readonly then: Stmt; readonly else?: Stmt }
  /** The loops of opaque blocks (`for` loops of blocks are lowered to `while`). */
  | { readonly k: "while"; readonly cond: Ex; readonly body: Stmt }
  | { readonly k: "doWhile"; readonly body: Stmt; readonly cond: Ex }
  | { readonly k: "break" }
  | { readonly k: "continue" }
  /** A variable: `type name[size] = init;`, `space` a qualifier such as `__local`. */
  | { readonly k: "decl"; readonly dtype: ExDtype; readonly name: string; readonly size?: number; readonly init?: Ex; readonly isConst?: boolean; readonly space?: "private" | "local" }
  /** `lhs = rhs;` where lhs is a scalar variable or an array element; with `atomic`, `lhs = lhs op rhs` atomically. */
  | { readonly k: "assign"; readonly array?: string; readonly index?: Ex; readonly name?: string; readonly dtype: Dtype; readonly rhs: Ex; readonly atomic?: AtomicStore }
  | { readonly k: "barrier"; readonly comment: string; readonly memory: BarrierMemory }
  | { readonly k: "comment"; readonly text: string }
  | { readonly k: "raw"; readonly text: string };

// ---- constructors -------------------------------------------------------------------------

export const evar = (name: string): Ex => ({ k: "var", name });
export const ilit = (value: number): Ex => ({ k: "lit", value: value + 0, dtype: "idx" });
/** Exact index arithmetic with constants folded: `iadd(ilit(1), ilit(2))` is `3`. */
export function ibin(op: "+" | "-" | "*", l: Ex, r: Ex): Ex {
  if (l.k === "lit" && r.k === "lit") return ilit(op === "+" ? l.value + r.value : op === "-" ? l.value - r.value : l.value * r.value);
  if (op === "+" && l.k === "lit" && l.value === 0) return r;
  if ((op === "+" || op === "-") && r.k === "lit" && r.value === 0) return l;
  if (op === "*" && ((l.k === "lit" && l.value === 0) || (r.k === "lit" && r.value === 0))) return ilit(0);
  if (op === "*" && l.k === "lit" && l.value === 1) return r;
  if (op === "*" && r.k === "lit" && r.value === 1) return l;
  return { k: "bin", op, l, r, dtype: "idx" };
}
export const block = (body: readonly Stmt[]): Stmt => ({ k: "block", body });
