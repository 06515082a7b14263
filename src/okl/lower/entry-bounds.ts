/**
 * A plain (or @inner, or @tile) loop's bounds as C reads them: the start once, at loop entry, the bound before
 * every trip. A loop's domain takes a private scalar it reads (`i < counter`) as a parameter, which the
 * scheduler orders after every write of it, so a scalar written again after the loop
 * (libParanumal's `counter = cc;`) made a dependency cycle, or ran the loop with the later value.
 * Such a scalar is copied into a fresh temporary just before the loop (`counter_entry`), and the
 * domain reads the copy; a bound the loop's own body writes is refused, since C re-reads it every
 * trip.
 *
 *   int counter = N; for (int i = 0; i < counter; ++i) cc += a[i]; counter = cc;
 *   // counter_entry = counter; for i in [0, counter_entry): cc += a[i]; counter = cc;
 */
import { mapExpr, walkExpr, insnWrites, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { someAst, walkAst } from "./ast-queries.js";
import type { Ctx, Scope } from "./bindings.js";
import { StatementLowering } from "./kernel-statements.js";
import { affineRange, type LoopHead } from "./loop-head.js";
import { exprToAff } from "./shapes.js";

/** A statement list being lowered, and which of its items is. */
interface Frame {
  readonly items: readonly A.Stmt[];
  readonly scope: Scope;
  /** The statement nesting depth at which `block` lowers the items. */
  readonly depth: number;
  index: number;
  /** Per name some item may write, the last such item's index (made on first use). */
  lastWrite?: Map<string, number>;
}

/** A plain loop's head with its bounds read at entry, and the check to make once its body is lowered. */
export interface EntryHead {
  readonly head: LoopHead;
  /** The temporaries copied for the loop (its iname's domain reads them). */
  readonly copies: readonly string[];
  /** Fails where an instruction lowered since `before` writes a scalar the bound reads. */
  readonly checkBody: (before: number) => void;
}

/** The root variable an assignment's target names (`x`, `x[i]`, `x.f`, `*x`), if any. */
function rootName(x: A.Expr): string | undefined {
  switch (x.kind) {
    case "ident": return x.name;
    case "index": case "member": return rootName(x.target);
    case "unary": return x.op === "*" ? rootName(x.operand) : undefined;
    case "cast": return rootName(x.operand);
    default: return undefined;
  }
}

/**
 * The places in `s` that may change a variable: assignment targets, `++`/`--` operands, `&x`, and
 * names passed to a device function's reference or pointer parameter (it writes the caller's
 * variable or array).
 */
export function mayWrite(s: A.Stmt | A.Expr, functions: ReadonlyMap<string, A.FunctionDef>, visit: (name: string, at: A.Expr) => void): void {
  walkAst(s, (n) => {
    const target = n.kind === "assign" ? n.target
      : (n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--") ? n.operand
      : n.kind === "unary" && n.op === "&" ? n.operand : undefined;
    const r = target && rootName(target);
    if (r !== undefined) visit(r, target!);
    if (n.kind !== "call" || n.callee.kind !== "ident") return;
    const f = functions.get(n.callee.name);
    n.args.forEach((a, k) => {
      const d = f?.params[k]?.declarator;
      if (a.kind === "ident" && d !== undefined && (d.reference || d.pointers.length > 0 || d.arrayDims.length > 0)) visit(a.name, a);
    });
  });
}

/** The IR storage a name stands for in `scope` (a temporary's or reference's variable), else the name. */
function storage(scope: Scope, name: string): string {
  const b = scope.get(name);
  if (b?.kind === "temp" || b?.kind === "array" || b?.kind === "value") return b.name;
  if (b?.kind === "ref" && b.place.kind === "var") return b.place.name;
  return name;
}

export abstract class EntryBoundLowering extends StatementLowering {
  /** The statement lists being lowered, outer first. */
  private readonly frames: Frame[] = [];
  private depth = 0;

  protected override block(items: readonly A.Stmt[], ctx: Ctx): void {
    this.frames.push({ items, scope: ctx.scope, depth: this.depth, index: -1 });
    try {
      super.block(items, ctx);
    } finally {
      this.frames.pop();
    }
  }

  protected override stmt(s: A.Stmt, ctx: Ctx): void {
    const top = this.frames.at(-1);
    // A statement `block` lowers as one of its items (not one a loop lowers in place of another).
    if (top !== undefined && top.depth === this.depth) top.index = top.items[top.index + 1] === s ? top.index + 1 : top.items.indexOf(s);
    this.depth++;
    try {
      super.stmt(s, ctx);
    } finally {
      this.depth--;
    }
  }

  /** The storage of every variable that a statement after the current one (in any enclosing list) may write. */
  private writtenLater(): Set<string> {
    const out = new Set<string>();
    for (const f of this.frames) {
      if (f.index < 0) continue;
      if (f.lastWrite === undefined) {
        const last = new Map<string, number>();
        f.items.forEach((s, k) => mayWrite(s, this.file.functions, (name) => void last.set(name, k)));
        f.lastWrite = last;
      }
      for (const [name, k] of f.lastWrite) if (k > f.index) out.add(storage(f.scope, name));
    }
    return out;
  }

  /** The private scalar temporaries `e` reads. */
  private scalarTemps(e: Expr): Set<string> {
    const out = new Set<string>();
    walkExpr(e, (n) => {
      if (n.kind === "var" && this.tempNamed(n.name)?.shape.length === 0) out.add(n.name);
    });
    return out;
  }

  /** Where the body of plain loop `s` (head `h`) may change a private scalar its bound reads (C re-reads the bound every trip). */
  protected boundWrittenInBody(s: A.For, h: LoopHead, ctx: Ctx): { readonly name: string; readonly at: A.Expr } | undefined {
    const endTemps = this.scalarTemps(h.end);
    let found: { name: string; at: A.Expr } | undefined;
    if (endTemps.size > 0) mayWrite(s.body, this.file.functions, (name, at) => void (found ??= endTemps.has(storage(ctx.scope, name)) ? { name, at } : undefined));
    return found;
  }

  /**
   * Plain loop `s` (head `h`) with each private scalar its start or bound reads copied before the
   * loop where a later statement may write it, or (the start, read once) the loop's body: a
   * temporary `<scalar>_entry` the loop's domain reads instead.
   */
  protected entryBounds(s: A.For, h: LoopHead, ctx: Ctx): EntryHead {
    const endTemps = this.scalarTemps(h.end);
    const startTemps = this.scalarTemps(h.start);
    if (endTemps.size === 0 && startTemps.size === 0) return { head: h, copies: [], checkBody: () => undefined };
    const inBody = new Set<string>();
    mayWrite(s.body, this.file.functions, (name) => void inBody.add(storage(ctx.scope, name)));
    const later = this.writtenLater();
    const copies = new Map<string, Expr>();
    for (const t of new Set([...endTemps, ...startTemps])) {
      if (!later.has(t) && !(startTemps.has(t) && inBody.has(t))) continue;
      const name = this.fresh(`${t}_entry`);
      this.temps.push({ ...this.tempNamed(t)!, name });
      this.emit({ kind: "var", name }, { kind: "var", name: t }, ctx, false, s.pos);
      copies.set(t, { kind: "var", name });
    }
    const swap = (e: Expr) => (copies.size === 0 ? e : mapExpr(e, (n) => (n.kind === "var" ? copies.get(n.name) : undefined)));
    const start = swap(h.start);
    const head = { ...h, start, end: swap(h.end), startAff: exprToAff(start) };
    // What mayWrite cannot see (a device function writing through a pointer it was passed in a struct): refused after the fact.
    const checkBody = (before: number) => {
      for (const insn of this.log.insns.slice(before)) {
        const w = insnWrites(insn).find((n) => endTemps.has(n));
        if (w !== undefined) this.boundWritten(h, w, s.pos, this.placeOf(insn.id));
      }
    };
    return { head, copies: [...copies.values()].map((e) => (e as { name: string }).name), checkBody };
  }

  /**
   * Fails where a @tile loop with an @outer level (which sizes the grid, before any instruction runs)
   * is bounded by a private scalar the kernel computes (a @tile nested in another @outer loop).
   */
  protected checkTileLaunch(s: A.For, h: LoopHead): void {
    const okl = s.okl;
    this.checkInnerLaunch(s, h);
    if (okl?.kind !== "tile" || (okl.outer?.kind !== "outer" && okl.inner?.kind !== "outer")) return;
    const t = [...this.scalarTemps(h.end)][0] ?? [...this.scalarTemps(h.start)][0];
    if (t === undefined) return;
    this.fail(`@tile loop "${h.name}": its @outer level sizes the launch, before the kernel runs, but its ${this.scalarTemps(h.end).has(t) ? "bound" : "start"} reads "${t}", ` +
      "a value the kernel computes; bound it by value arguments and constants (host scalars declared before the @outer loops are such), or make the level @inner", s.pos);
  }

  /**
   * Fails where an @inner level (`@inner`, the block level of `@tile(K, @inner, …)`) of a nest with
   * @shared memory or barriers, a work-group axis whose size the launch needs, runs over a range whose
   * length reads a private scalar the kernel computes (`for (n = 0; n < Nactive; ++n; @tile(4, @inner,
   * @inner))`). Outside such nests the level runs sequentially; a bound read from memory is tripLoop's
   * refusal. Before, each backend's scheduler refused it at run time naming the generated copy.
   */
  private checkInnerLaunch(s: A.For, h: LoopHead): void {
    const okl = s.okl;
    if (!this.nestSyncs || !(okl?.kind === "inner" || (okl?.kind === "tile" && okl.outer?.kind === "inner"))) return;
    const r = affineRange(h);
    const t = r && Object.keys(r.span.terms).find((n) => this.tempNamed(n)?.shape.length === 0);
    if (t === undefined) return;
    const what = okl.kind === "tile" ? `@tile loop "${h.name}": its @inner block level is` : `@inner loop "${h.name}": its work-items are`;
    this.fail(`${what} a work-group axis in this nest with @shared memory or barriers, whose size the launch must know before the kernel runs, but its range's length reads "${t}", ` +
      `a value the kernel computes; bound it by value arguments and constants (a \`const\` local initialized from them is such, and so are host scalars declared before the @outer loops), ` +
      `or run a constant range and guard the work-items (\`for (int n = 0; n < p_max; ++n; @inner) if (n < ${t}) …\`)`, s.pos);
  }

  /** Whether plain loop `s` runs on all work-items of a group together: it holds barriers or @inner loops, inside an @outer loop. */
  protected holdsSyncs(s: A.For, ctx: Ctx): boolean {
    return ctx.outer && !ctx.inner && someAst(s.body, (n) => n.kind === "barrier" || (n.kind === "for" && n.okl?.kind === "inner"));
  }

  /** Fails: the body of the loop of head `h` writes `name` (at `pos`, or at instruction place `at`), which the loop's bound reads. */
  protected boundWritten(h: LoopHead, name: string, pos: A.Pos, at?: string): never {
    const kind = h.s.okl?.kind;
    return this.fail(
      `loop "${h.name}": its body writes "${name}"${at === undefined ? "" : ` (at ${at})`}, which its bound \`${h.name} ${h.cmp} …\` reads; ` +
      (kind === "inner" ? "OCCA's serial mode re-reads the bound before every trip, its GPU modes read it once for all work-items. Accepted: an @inner loop whose body does not write its bound"
        : kind === "tile" ? "OCCA expands @tile into a block loop and an in-tile loop that both re-read the bound before every trip. Accepted: a @tile loop whose body does not write its bound"
        : "C re-reads the bound before every trip. Accepted: such a loop without barriers or @inner loops inside (an ordinary C loop), or a bound its body does not write"), pos);
  }
}
