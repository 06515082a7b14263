/**
 * Lowering one OKL @kernel, what its loops' launch needs (split out of kernel-loops.ts): values the
 * host computes from the value arguments before the launch (derived arguments: an @outer level's
 * bound or trip count, a pointer argument's `b_passed`), and which @inner levels are work-items and
 * how the launch sizes them.
 *
 *   for (eo = 0; eo < (entries + size - 1) / size; ++eo; @outer)   // eo < eo_end, eo_end a derived argument
 */
import { isFloat, type Dtype, type Expr, type OklDerivedArg } from "../../ir/index.js";
import type { Aff } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import { affineRange, type LoopHead } from "./loop-head.js";
import { affineBound } from "./loop-rows.js";
import { exprToAff } from "./shapes.js";
import { EntryBoundLowering } from "./entry-bounds.js";

export abstract class LaunchLowering extends EntryBoundLowering {
  /** Trip counts the host computes (Kernel.oklOptions.derivedArgs), made value arguments after the kernel's own. */
  protected readonly derivedArgs: OklDerivedArg[] = [];

  /**
   * Whether an @outer level (of a nest with @shared memory or barriers) is sized on the host: its
   * start, bound and step read only value arguments and constants (OCCA's host computes the launch).
   */
  protected hostSized(h: LoopHead): boolean {
    const okl = h.s.okl;
    return this.nestSyncs && (okl?.kind === "outer" || (okl?.kind === "tile" && okl.outer?.kind === "outer")) && this.onlyValueArgs(h);
  }

  /**
   * `h` with a start or bound that is not affine but reads only value arguments (`eo < (entries +
   * size - 1) / size`, `e < nx*ny`) replaced by a value argument the host computes exactly
   * (`eo_end`, Kernel.oklOptions.derivedArgs), for a host-sized level with a constant step: the
   * domain is affine in it, so the level sizes the grid and @tile's check is an affine row.
   */
  protected hostBounds(h: LoopHead): LoopHead | undefined {
    if (h.step === undefined || !this.hostSized(h)) return undefined;
    const end = affineBound(h.end, h.cmp) ? h.end : this.derivedValue(h.end, `${h.name}_end`, `the bound of @outer loop "${h.name}" (line ${h.s.pos.line})`, h.dtype);
    const start = h.startAff ? h.start : this.derivedValue(h.start, `${h.name}_start`, `the start of @outer loop "${h.name}" (line ${h.s.pos.line})`, h.dtype);
    return { ...h, start, end, startAff: exprToAff(start) };
  }

  /** Per byte stride and element size, its derived element count (`okl_elements(s, size)`). */
  private readonly strideElements = new Map<string, Expr>();

  /**
   * The element offset of a byte offset into `size`-byte elements (byte-pointers.ts): a constant
   * must be a multiple of `size` (else an OklError here); `x * s` or `s` with `s` a value argument
   * becomes `x * s_elements`, a value argument the host computes as s / size, refusing a
   * remainder (run's derived arguments); other offsets cannot be checked and are refused.
   */
  protected readonly byteElementsHook = (this.ex.byteElements = (bytes: Expr, size: number, what: string, pos: A.Pos): Expr => {
    const c = (v: number): Expr => ({ kind: "const", value: v, isFloat: false });
    const bare = (x: Expr): Expr => (x.kind === "cast" && !isFloat(x.dtype) ? bare(x.value) : x);
    const b = bare(bytes);
    if (b.kind === "const" && !b.isFloat) {
      if (b.value % size !== 0) this.fail(`pointer "${what}": a byte offset of ${b.value} is not a whole number of ${size}-byte elements; the view would read misaligned bytes, which C leaves undefined`, pos);
      return c(b.value / size);
    }
    if (b.kind === "neg") return { kind: "neg", operand: this.byteElementsHook(b.operand, size, what, pos) };
    const stride = (x: Expr): string | undefined => {
      const v = bare(x);
      return v.kind === "var" && this.valueArgs.has(v.name) && this.args.some((a) => a.kind === "value" && a.name === v.name && a.dtype !== undefined && !isFloat(a.dtype)) ? v.name : undefined;
    };
    const elements = (s: string): Expr => {
      const key = `${s}/${size}`;
      let e = this.strideElements.get(key);
      if (e === undefined) {
        const dtype = this.args.find((a) => a.name === s)!.dtype!;
        e = this.derivedValue({ kind: "call", fn: "okl_elements", args: [{ kind: "var", name: s }, c(size)] }, `${s}_elements`,
          `the byte stride "${s}" in ${size}-byte elements (line ${pos.line})`, dtype);
        this.strideElements.set(key, e);
      }
      return e;
    };
    const whole = stride(b);
    if (whole !== undefined) return elements(whole);
    if (b.kind === "arith" && b.op === "*") {
      const r = stride(b.right);
      if (r !== undefined) return { kind: "arith", op: "*", left: b.left, right: elements(r) };
      const l = stride(b.left);
      if (l !== undefined) return { kind: "arith", op: "*", left: elements(l), right: b.right };
    }
    return this.fail(`pointer "${what}": Loom cannot check that the byte offset is a whole number of ${size}-byte elements (a misaligned view is undefined in C); ` +
      `write it as index * stride with the stride an integer value argument (checked on the host) or a constant multiple of ${size}`, pos);
  });

  /** A value argument (after the kernel's own) that run() computes from the others as `e`. */
  protected derivedValue(e: Expr, base: string, what: string, dtype: Dtype): Expr {
    const name = this.fresh(base);
    this.valueArgs.add(name);
    this.argKeys.set(name, [this.f.params.length + this.derivedArgs.length]);
    this.args.push({ kind: "value", name, dtype: dtype === "int64" || dtype === "uint64" ? "int64" : "int32" });
    this.derivedArgs.push({ name, expr: e, what });
    return { kind: "var", name };
  }

  /** Whether start, bound and step of `h` read only the kernel's value arguments and constants. */
  protected onlyValueArgs(h: LoopHead): boolean {
    const amount = h.update?.amount;
    const exprs: Expr[] = [h.start, h.end, ...(amount === undefined ? [] : [this.ex.expr(amount, h.ctx)])];
    return exprs.every((e) => this.valueArgsOnly(e));
  }

  /** Whether `e` reads only value arguments and constants, with operations the host evaluates exactly (evalSizeExpr). */
  protected valueArgsOnly(e: Expr): boolean {
    switch (e.kind) {
      case "const": return true;
      case "var": return this.valueArgs.has(e.name);
      case "neg": return this.valueArgsOnly(e.operand);
      case "arith": return ["+", "-", "*", "/", "//", "%"].includes(e.op) && this.valueArgsOnly(e.left) && this.valueArgsOnly(e.right);
      case "compare": return this.valueArgsOnly(e.left) && this.valueArgsOnly(e.right);
      case "if": return this.valueArgsOnly(e.cond) && this.valueArgsOnly(e.then) && this.valueArgsOnly(e.else);
      case "call": return (e.fn === "min" || e.fn === "max") && e.args.every((a) => this.valueArgsOnly(a));
      case "cast": return !isFloat(e.dtype) && this.valueArgsOnly(e.value);
      default: return false;
    }
  }

  /**
   * Whether an @inner loop becomes work-items: always where its trip count is a compile-time
   * constant or an affine expression of the kernel's arguments (`j < n`: the launch sizes the
   * work-group, OCCA's runtime-sized @inner). Other trip counts (`j <= i`, bounds of enclosing
   * loops) differ between work-items of one group, so such a loop runs sequentially in each
   * work-item, which means the same where the nest has no barrier and no @shared memory (work-items
   * then never observe one another); with them, it stays a work-item loop and scheduling refuses it.
   */
  protected workItems(h: LoopHead, launch = true): boolean {
    const r = affineRange(h);
    return (r !== undefined && Object.keys(r.span.terms).length === 0) || (launch && this.launchSized(h)) || this.nestSyncs;
  }

  /**
   * An @inner loop that starts at an enclosing loop's value and runs a constant trip count
   * (`for (j = i; j < i + 16; ++j; @inner)`): its work-items count from 0 (`j = i + id`, as OCCA's
   * do), so the work-group has the trip count's size rather than the hull of `j` over every `i`.
   */
  protected offsetInner(h: LoopHead): boolean {
    const r = affineRange(h);
    return r !== undefined && Object.keys(r.span.terms).length === 0 && Object.keys(r.start.terms).some((n) => !this.valueArgs.has(n));
  }

  /** Start and bound of the loop are affine in the kernel's value arguments only, not constant apart: the launch evaluates its extent. */
  protected launchSized(h: LoopHead): boolean {
    const r = affineRange(h);
    if (!r || h.step === undefined || Object.keys(r.span.terms).length === 0) return false;
    return [...Object.keys(r.end.terms), ...Object.keys(r.start.terms)].every((n) => this.valueArgs.has(n));
  }

  /**
   * Sibling @inner loops on one axis must have the same range in Loom (one launch extent); OCCA
   * accepts different trip counts without guards (OKL.md §11.9). Not supported yet.
   */
  protected checkInnerRange(iname: string, rows: readonly { aff: Aff; eq: boolean }[], pos: A.Pos): void {
    const tag = this.tags[iname] as { kind: "l"; axis: number };
    const key = `${this.nests}:${tag.axis}`;
    const range = JSON.stringify(rows.map((r) => [Object.entries(r.aff.terms).map(([n, c0]) => [n === iname ? "@" : n, c0]).sort(), r.aff.constant, r.eq]));
    const prev = this.innerRanges.get(key);
    if (prev !== undefined && prev !== range) {
      this.fail(`sibling @inner loops on axis ${tag.axis} have different ranges; Loom needs one launch extent per axis (guarding the shorter loops is not supported yet)`, pos);
    }
    this.innerRanges.set(key, range);
  }
}
