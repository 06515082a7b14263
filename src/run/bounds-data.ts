/**
 * What the bounds proof (bounds.ts) may know of values a kernel reads from memory, for one run.
 * Real kernels index through arrays: `q[gatherIds[n]]`, `x[elementIds[e]*Np + n]`, loops from
 * `gatherStarts[g]` to `gatherStarts[g + 1]`. Their subscripts are not affine, but the index arrays
 * are arguments of this run, whose contents are here:
 *
 *   - an argument array of an integer type that no instruction writes, and whose storage shares no
 *     byte with an array the kernel writes, holds for the whole run values between its least and
 *     its largest element now (computed when first asked, for this run only: contents change);
 *   - a private integer scalar that only plain assignments set, each from such values (`const int
 *     id = gatherIds[n];`), holds their hull where it is read after one of them in the same
 *     work-item: an assignment under no condition the reader lacks, in loops the reader runs in,
 *     that the reader depends on (a subscript) or that sets a loop bound of the reader.
 *
 * Arithmetic on such values is C's: where an intermediate value could leave int32, C's result is
 * not the exact one, so no range is given (the proof then refuses, as before).
 *
 *   const d = new DataRanges(k, arrays);
 *   d.rangeAt(parseExpr("gatherIds[n]"), insn)   // { min: 0, max: 97, key: "gatherIds[n]" }
 */
import {
  dependencyClosure, dtypeKind, exprToString, insnWrites, integerRange, type Dtype, type Expr, type Instruction, type Kernel,
  exprEquals, walkExpr,
} from "../ir/index.js";
import { instructionInames } from "../analysis/index.js";
import type { QaRange } from "../analysis/piecewise.js";

/** An interval of integers; `signed`: no unsigned value took part (C's unsigned arithmetic wraps). */
interface Interval {
  readonly min: number;
  readonly max: number;
  readonly signed: boolean;
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** The storage of an argument array for this run. */
export type ArrayData = ArrayLike<number | bigint> & { readonly buffer?: ArrayBufferLike; readonly byteOffset?: number; readonly byteLength?: number };

export class DataRanges {
  private readonly arrayMemo = new Map<string, Interval | null>();
  private readonly scalarMemo = new Map<string, Interval | null>();
  private readonly inProgress = new Set<string>();
  private readonly writers = new Map<string, Instruction[]>();
  private readonly written = new Set<string>();
  /** Whether a proof used a range (its answer then holds for these contents only). */
  used = false;

  constructor(
    private readonly k: Kernel,
    private readonly data: ReadonlyMap<string, ArrayData>,
    private readonly params: Readonly<Record<string, number>>,
  ) {
    for (const insn of k.instructions) {
      for (const n of insnWrites(insn)) {
        this.written.add(n);
        let ws = this.writers.get(n);
        if (!ws) this.writers.set(n, (ws = []));
        ws.push(insn);
      }
    }
  }

  /** The range of `e` (a read of memory or a scalar the kernel computes) where `reader` reads it, else undefined. */
  rangeAt(e: Expr, reader: Instruction): QaRange | undefined {
    const r = this.leaf(e, reader);
    if (!r) return undefined;
    this.used = true;
    return { min: r.min, max: r.max, key: exprToString(e) };
  }

  /**
   * The interval of `e` where `reader` evaluates it: constants, this run's values, ranged leaves,
   * `inames` (their bounds), and C's integer arithmetic on them while every value stays in int32.
   */
  intervalOf(e: Expr, reader: Instruction, inames?: (name: string) => { min: number; max: number } | undefined): Interval | undefined {
    const iv = (x: Expr): Interval | undefined => this.intervalOf(x, reader, inames);
    let out: Interval | undefined;
    switch (e.kind) {
      case "const":
        out = !e.isFloat && Number.isInteger(e.value) ? { min: e.value, max: e.value, signed: true } : undefined;
        break;
      case "var": {
        const v = this.params[e.name];
        if (v !== undefined) out = Number.isInteger(v) ? { min: v, max: v, signed: true } : undefined;
        else {
          const b = inames?.(e.name);
          out = b ? { ...b, signed: true } : this.leaf(e, reader);
        }
        break;
      }
      case "subscript": case "linear":
        out = this.leaf(e, reader);
        break;
      case "neg": {
        const a = iv(e.operand);
        out = a && { min: -a.max, max: -a.min, signed: a.signed };
        break;
      }
      case "cast": {
        const a = iv(e.value);
        const r = integerRange(e.dtype as Dtype);
        out = a && r && a.min >= Number(r.lo) && a.max <= Number(r.hi) ? { ...a, signed: a.signed && dtypeKind(e.dtype as Dtype) === "int" } : undefined;
        break;
      }
      case "arith": {
        const [a, b] = [iv(e.left), iv(e.right)];
        if (!a || !b || !a.signed || !b.signed) return undefined;
        out = arith(e.op, a, b);
        break;
      }
      case "call": {
        if ((e.fn !== "min" && e.fn !== "max") || e.args.length === 0) return undefined;
        const xs = e.args.map(iv);
        if (xs.some((x) => !x || !x.signed)) return undefined;
        const f = e.fn === "min" ? Math.min : Math.max;
        out = { min: f(...xs.map((x) => x!.min)), max: f(...xs.map((x) => x!.max)), signed: true };
        break;
      }
      case "if": {
        const [a, b] = [iv(e.then), iv(e.else)];
        out = a && b ? { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max), signed: a.signed && b.signed } : undefined;
        break;
      }
      default:
        return undefined;
    }
    return out && out.min >= INT_MIN && out.max <= INT_MAX ? out : undefined;
  }

  /** What the proof took from the arrays' contents, for messages: ` (gatherIds holds 0…10 this run)`, or "". */
  describe(): string {
    const held = [...this.arrayMemo].filter(([, r]) => r).map(([n, r]) => `${n} holds ${r!.min}…${r!.max}`);
    return this.used && held.length > 0 ? ` (with what this run's index arrays hold: ${held.join(", ")})` : "";
  }

  /** Whether `e` reads a value this proof bounds by the arrays' contents (marks nothing used). */
  reads(e: Expr, reader: Instruction): boolean {
    let found = false;
    walkExpr(e, (n) => void (found ||= (n.kind === "subscript" || n.kind === "linear" || n.kind === "var") && this.leaf(n, reader) !== undefined));
    return found;
  }

  /** A read of an index array, or a scalar the kernel computes from such reads, where `reader` reads it. */
  private leaf(e: Expr, reader: Instruction): Interval | undefined {
    if (e.kind === "subscript" || e.kind === "linear") return this.arrayRange(e.array);
    if (e.kind !== "var" || !this.initializedAt(e.name, reader)) return undefined;
    return this.scalarRange(e.name);
  }

  private arrayRange(name: string): Interval | undefined {
    let r = this.arrayMemo.get(name);
    if (r === undefined) this.arrayMemo.set(name, (r = this.computeArrayRange(name) ?? null));
    return r ?? undefined;
  }

  private computeArrayRange(name: string): Interval | undefined {
    const arg = this.k.args.find((a) => a.name === name);
    const d = this.data.get(name);
    if (arg?.kind !== "array" || !arg.dtype || !d || d.length === 0 || this.written.has(name)) return undefined;
    const kind = dtypeKind(arg.dtype);
    if (kind !== "int" && kind !== "uint") return undefined;
    for (const [other, od] of this.data) if (this.written.has(other) && overlap(d, od)) return undefined;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < d.length; i++) {
      const x = Number(d[i]!);
      if (x < min) min = x;
      if (x > max) max = x;
    }
    return Number.isSafeInteger(min) && Number.isSafeInteger(max) ? { min, max, signed: kind === "int" } : undefined;
  }

  /** The hull of what the assignments of the private integer scalar `name` compute, if each is known. */
  private scalarRange(name: string): Interval | undefined {
    let r = this.scalarMemo.get(name);
    if (r !== undefined) return r ?? undefined;
    if (this.inProgress.has(name)) return undefined;
    this.inProgress.add(name);
    r = this.computeScalarRange(name) ?? null;
    this.inProgress.delete(name);
    this.scalarMemo.set(name, r);
    return r ?? undefined;
  }

  private computeScalarRange(name: string): Interval | undefined {
    const t = this.k.temporaries.find((x) => x.name === name);
    const ws = this.writers.get(name);
    if (!t || t.shape.length > 0 || t.addressSpace === "global" || !t.dtype || !ws) return undefined;
    const kind = dtypeKind(t.dtype);
    const range = integerRange(t.dtype);
    if ((kind !== "int" && kind !== "uint") || !range) return undefined;
    let min = Infinity;
    let max = -Infinity;
    let signed = kind === "int";
    for (const w of ws) {
      if (w.kind !== "assign" || w.lhs.kind !== "var" || w.atomicity !== "none") return undefined;
      const v = this.intervalOf(w.rhs, w);
      // A value the scalar's type cannot hold is converted (wraps): not the exact one.
      if (!v || v.min < Number(range.lo) || v.max > Number(range.hi)) return undefined;
      min = Math.min(min, v.min);
      max = Math.max(max, v.max);
      signed &&= v.signed;
    }
    return { min, max, signed };
  }

  /**
   * Whether the scalar `name` has been assigned, in this work-item, wherever `reader` reads it: an
   * assignment under a subset of the reader's conditions, in loops the reader runs in (it then
   * runs wherever the reader does), before the reader (the reader depends on it, or the scalar
   * bounds one of the reader's loops, which the schedule computes before the loop).
   */
  private initializedAt(name: string, reader: Instruction): boolean {
    const ws = this.writers.get(name);
    if (!ws) return false;
    const readerInames = new Set(instructionInames(reader));
    const deps = dependencyClosure(this.k.instructions).get(reader.id);
    const boundsALoop = this.k.domains.some((d) => d.params.includes(name) && d.dims.some((i) => readerInames.has(i)));
    return ws.some((w) =>
      w !== reader
      && w.predicates.every((p) => reader.predicates.some((q) => exprEquals(p, q)))
      && instructionInames(w).every((i) => readerInames.has(i))
      && (deps?.has(w.id) === true || boundsALoop));
  }
}

/** C's integer operation on intervals (`/` truncates, `//` floors, `%` takes the divisor's sign), or undefined. */
function arith(op: string, a: Interval, b: Interval): Interval | undefined {
  const hull = (xs: number[]): Interval => ({ min: Math.min(...xs), max: Math.max(...xs), signed: true });
  switch (op) {
    case "+": return { min: a.min + b.min, max: a.max + b.max, signed: true };
    case "-": return { min: a.min - b.max, max: a.max - b.min, signed: true };
    case "*": return hull([a.min * b.min, a.min * b.max, a.max * b.min, a.max * b.max]);
    case "//": case "/": {
      if (b.min !== b.max || b.min === 0) return undefined;
      const f = op === "//" ? Math.floor : Math.trunc;
      return hull([f(a.min / b.min), f(a.max / b.min)]);
    }
    case "%":
      return b.min === b.max && b.min > 0 ? { min: 0, max: b.min - 1, signed: true } : undefined;
    default:
      return undefined;
  }
}

/** Whether two arrays' storages share a byte. */
function overlap(a: ArrayData, b: ArrayData): boolean {
  if (a === b) return true;
  if (!a.buffer || a.buffer !== b.buffer) return false;
  const [a0, b0] = [a.byteOffset ?? 0, b.byteOffset ?? 0];
  return a0 < b0 + (b.byteLength ?? 0) && b0 < a0 + (a.byteLength ?? 0);
}
