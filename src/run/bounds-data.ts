/**
 * What the bounds proof (bounds.ts) may know of values a kernel reads from memory, for one run.
 * Real kernels index through arrays: `q[gatherIds[n]]`, `x[elementIds[e]*Np + n]`, loops from
 * `gatherStarts[g]` to `gatherStarts[g + 1]`. Their subscripts are not affine, but the index arrays
 * are arguments of this run, whose contents are here:
 *
 *   - an argument array of an integer type that no instruction writes, and whose storage shares no
 *     byte with an array the kernel writes, holds for the whole run what it holds now: a read of
 *     it lies between the least and the largest element of the part its index can reach (a flat
 *     or one-axis index bounded over the reader's loops; else the whole array), computed when
 *     first asked, for this run only (contents change);
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
  exprEquals, iterationDomain, walkExpr,
} from "../ir/index.js";
import { instructionInames } from "../analysis/index.js";
import type { QaRange } from "../analysis/piecewise.js";
import { addConstraints, aff, fixValues, type Aff, type BasicSet } from "../poly/index.js";
import { arith, constantBounds, INT_MAX, INT_MIN, type Interval } from "./bounds-interval.js";

/** The storage of an argument array for this run. */
export type ArrayData = ArrayLike<number | bigint> & { readonly buffer?: ArrayBufferLike; readonly byteOffset?: number; readonly byteLength?: number };

export class DataRanges {
  private readonly arrayMemo = new Map<string, Interval | null>();
  /** The ranges a proof took, per array (for messages). */
  private taken = new Map<string, Interval>();
  /** The arrays each scalar's range took. */
  private readonly sources = new Map<string, Map<string, Interval>>();
  private readonly boxMemo = new Map<Instruction, Map<string, { min: number; max: number } | undefined>>();
  private readonly scalarMemo = new Map<string, Interval | null>();
  private readonly inProgress = new Set<string>();
  private readonly writers = new Map<string, Instruction[]>();
  private readonly written = new Set<string>();
  /** Whether a proof used a range (its answer then holds for these contents only). */
  used = false;
  /** Whether this access's proof used a range (ranged), or a scalar's definition (touched). */
  ranged = false;
  touched = false;
  private readonly defMemo = new Map<string, Expr | null>();

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
    this.used = this.ranged = this.touched = true;
    return { min: r.min, max: r.max, key: exprToString(e) };
  }

  /**
   * What the scalar `e` holds where `reader` reads it, as an expression the reader can evaluate:
   * the right-hand side of its one assignment, where that runs before the reader in the same trip
   * of the loops it runs in (initializedAt), and reads only its loops' inames, this run's values,
   * index arrays and other such scalars (`const int id = i + j*Nq;`). Signed 32- or 64-bit only (a
   * narrower type would convert the value).
   */
  definition(e: Expr, reader: Instruction): Expr | undefined {
    if (e.kind !== "var") return undefined;
    const key = `${e.name} ${reader.id}`;
    let d = this.defMemo.get(key);
    if (d === undefined) {
      if (this.inProgress.has(key)) return undefined;
      this.inProgress.add(key);
      d = this.computeDefinition(e.name, reader) ?? null;
      this.inProgress.delete(key);
      this.defMemo.set(key, d);
    }
    if (d) this.touched = true;
    return d ?? undefined;
  }

  private computeDefinition(name: string, reader: Instruction): Expr | undefined {
    const t = this.k.temporaries.find((x) => x.name === name);
    const ws = this.writers.get(name);
    if (!t || t.shape.length > 0 || t.addressSpace === "global" || (t.dtype !== "int32" && t.dtype !== "int64") || ws?.length !== 1) return undefined;
    const w = ws[0]!;
    if (w.kind !== "assign" || w.lhs.kind !== "var" || w.atomicity !== "none" || !this.precedes(w, name, reader)) return undefined;
    const inames = new Set(instructionInames(w));
    let ok = true;
    walkExpr(w.rhs, (n) => {
      if (!ok || n.kind !== "var") return;
      ok = inames.has(n.name) || this.params[n.name] !== undefined || this.definition(n, w) !== undefined || this.leaf(n, w) !== undefined;
    });
    return ok ? w.rhs : undefined;
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
        const def = v === undefined && !inames?.(e.name) ? this.definition(e, reader) : undefined;
        if (v !== undefined) out = Number.isInteger(v) ? { min: v, max: v, signed: true } : undefined;
        else if (def) out = iv(def);
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

  /** A new access's proof: describe() then names what it took. */
  begin(): void {
    this.taken.clear();
    this.partial.clear();
    this.ranged = this.touched = false;
  }

  /** What the proof took from the arrays' contents, for messages: ` (gatherIds holds 0…10 this run)`, or "". */
  describe(): string {
    const held = [...this.taken].map(([n, r]) => `${n} holds ${r.min}…${r.max}${this.partial.has(n) ? " where read" : ""}`);
    return held.length > 0 ? ` (with what this run's index arrays hold: ${held.join(", ")})` : "";
  }

  /** Whether `e` reads a value this proof bounds by the arrays' contents or a scalar's definition. */
  reads(e: Expr, reader: Instruction): boolean {
    let found = false;
    walkExpr(e, (n) => void (found ||= (n.kind === "subscript" || n.kind === "linear" || n.kind === "var") && (this.leaf(n, reader) !== undefined || this.definition(n, reader) !== undefined)));
    return found;
  }

  private readonly partial = new Set<string>();

  /** A read of an index array, or a scalar the kernel computes from such reads, where `reader` reads it. */
  private leaf(e: Expr, reader: Instruction): Interval | undefined {
    if (e.kind === "subscript" || e.kind === "linear") {
      const d = this.indexData(e.array);
      if (!d) return undefined;
      // The part of the array the index reaches over the reader's loops (a flat or one-axis index).
      const index = e.kind === "linear" ? e.index : e.indices.length === 1 ? e.indices[0]! : undefined;
      const at = index && this.intervalOf(index, reader, (n) => this.box(reader).get(n));
      const lo = Math.max(0, at ? at.min : 0);
      const hi = Math.min(d.data.length - 1, at ? at.max : d.data.length - 1);
      // No element reachable: any read is outside, which the array's own access check refuses.
      if (lo > hi) return undefined;
      const r = this.slice(e.array, d, lo, hi);
      if (r) {
        if (lo > 0 || hi < d.data.length - 1) this.partial.add(e.array);
        this.take(e.array, r);
      }
      return r;
    }
    if (e.kind !== "var" || !this.initializedAt(e.name, reader)) return undefined;
    return this.scalarRange(e.name);
  }

  /** An index array's storage and signedness, where its contents may be used. */
  private indexData(name: string): { data: ArrayData; signed: boolean } | undefined {
    const arg = this.k.args.find((a) => a.name === name);
    const d = this.data.get(name);
    if (arg?.kind !== "array" || !arg.dtype || !d || d.length === 0 || this.written.has(name)) return undefined;
    const kind = dtypeKind(arg.dtype);
    if (kind !== "int" && kind !== "uint") return undefined;
    for (const [other, od] of this.data) if (this.written.has(other) && overlap(d, od)) return undefined;
    return { data: d, signed: kind === "int" };
  }

  /** The least and largest of `d`'s elements lo … hi. */
  private slice(name: string, d: { data: ArrayData; signed: boolean }, lo: number, hi: number): Interval | undefined {
    const key = `${name} ${lo} ${hi}`;
    let r = this.arrayMemo.get(key);
    if (r !== undefined) return r ?? undefined;
    let min = Infinity;
    let max = -Infinity;
    for (let i = lo; i <= hi; i++) {
      const x = Number(d.data[i]!);
      if (x < min) min = x;
      if (x > max) max = x;
    }
    r = Number.isSafeInteger(min) && Number.isSafeInteger(max) ? { min, max, signed: d.signed } : null;
    this.arrayMemo.set(key, r);
    return r ?? undefined;
  }

  /** Constant bounds of the loops `reader` runs in, for this run. */
  private box(reader: Instruction): Map<string, { min: number; max: number } | undefined> {
    let b = this.boxMemo.get(reader);
    if (!b) {
      this.boxMemo.set(reader, (b = new Map()));
      const { dom, ranges } = this.runDomain(iterationDomain(this.k, instructionInames(reader)), reader);
      for (const n of dom.dims) b.set(n, constantBounds(dom, n, ranges));
    }
    return b;
  }

  /**
   * `dom` with this run's values fixed. A parameter the kernel computes (a loop bound read from
   * memory: `r < cnt[b]`) lies between the least and largest value its index array holds where
   * read; one that is not so known stays free (the proof then covers every value it could take,
   * which is safe, and says so where it fails).
   */
  runDomain(dom: BasicSet, insn: Instruction): { dom: BasicSet; free: string[]; ranges: ReadonlyMap<string, QaRange> } {
    const fix: Record<string, number> = {};
    const free: string[] = [];
    const ranged: { aff: Aff; eq: boolean }[] = [];
    const ranges = new Map<string, QaRange>();
    for (const p of dom.params) {
      const v = this.params[p];
      const r = v === undefined ? this.rangeAt({ kind: "var", name: p }, insn) : undefined;
      if (v !== undefined) fix[p] = v;
      else if (r) {
        ranged.push({ aff: aff({ [p]: 1 }, -r.min), eq: false }, { aff: aff({ [p]: -1 }, r.max), eq: false });
        ranges.set(p, r);
      } else free.push(p);
    }
    const fixed = fixValues(dom, fix);
    return { dom: ranged.length > 0 ? addConstraints(fixed, ranged) : fixed, free, ranges };
  }

  /** The hull of what the assignments of the private integer scalar `name` compute, if each is known. */
  private scalarRange(name: string): Interval | undefined {
    let r = this.scalarMemo.get(name);
    if (r === undefined) {
      if (this.inProgress.has(name)) return undefined;
      this.inProgress.add(name);
      // The arrays its range comes from, named by messages wherever it is used.
      const outer = this.taken;
      this.taken = new Map();
      r = this.computeScalarRange(name) ?? null;
      this.sources.set(name, this.taken);
      this.taken = outer;
      this.inProgress.delete(name);
      this.scalarMemo.set(name, r);
    }
    if (r) for (const [a, x] of this.sources.get(name) ?? []) this.take(a, x);
    return r ?? undefined;
  }

  private take(array: string, r: Interval): void {
    const seen = this.taken.get(array);
    this.taken.set(array, seen ? { min: Math.min(seen.min, r.min), max: Math.max(seen.max, r.max), signed: r.signed } : r);
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
      const v = this.intervalOf(w.rhs, w, (n) => this.box(w).get(n));
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
    return this.writers.get(name)?.some((w) => this.precedes(w, name, reader)) ?? false;
  }

  /** Whether `w`, an assignment of `name`, runs before `reader` wherever it runs, in the same trip of the reader's loops. */
  private precedes(w: Instruction, name: string, reader: Instruction): boolean {
    const readerInames = new Set(instructionInames(reader));
    const deps = dependencyClosure(this.k.instructions).get(reader.id);
    const boundsALoop = this.k.domains.some((d) => d.params.includes(name) && d.dims.some((i) => readerInames.has(i)));
    return w !== reader
      && w.predicates.every((p) => reader.predicates.some((q) => exprEquals(p, q)))
      && instructionInames(w).every((i) => readerInames.has(i))
      && (deps?.has(w.id) === true || boundsALoop);
  }
}

/** Whether two arrays' storages share a byte. */
function overlap(a: ArrayData, b: ArrayData): boolean {
  if (a === b) return true;
  if (!a.buffer || a.buffer !== b.buffer) return false;
  const [a0, b0] = [a.byteOffset ?? 0, b.byteOffset ?? 0];
  return a0 < b0 + (b.byteLength ?? 0) && b0 < a0 + (a.byteLength ?? 0);
}
