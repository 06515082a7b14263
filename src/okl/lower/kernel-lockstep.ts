/**
 * Lowering one OKL @kernel, the plain loops of an @outer body that all work-items of a group run
 * together (their trips hold @inner loops or barriers) and that jump: `continue` and `break` as the
 * rest of a trip under negated conditions and a flag (loop-jumps.ts), whose conditions must be
 * uniform (uniform.ts, with read-only.ts's `const` arguments and @shared memory); `while` and `do …
 * while` loops around them as a sequential iname bounded by their condition's counter
 * (while-trips.ts), leaving it where the rest of the condition fails.
 */
import { c, exprType, insnStores, isFloat, type Dtype, type Expr } from "../../ir/index.js";
import { aff } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import { someAst } from "./ast-queries.js";
import { constValue, Scope, type Ctx } from "./bindings.js";
import { PointerLowering } from "./kernel-pointers.js";
import { ownJumpOf, withoutContinue, type JumpFree } from "./loop-jumps.js";
import { whileGeometricCount, whileGrowingTrip, whileTruthyTrips } from "./geometric.js";
import { readOnlyArgument } from "./read-only.js";
import { tripCount } from "./trip.js";
import { hostForm, nonUniform, type UniformFacts } from "./uniform.js";
import { changedNames, conjoin, conjuncts, ownContinue, tripCounter } from "./while-trips.js";

/** A jump's condition waiting for its loop to be lowered (checkJumpGuard). */
interface PendingGuard {
  readonly s: A.If;
  readonly cond: Expr;
  readonly ctx: Ctx;
}

export abstract class LockstepLowering extends PointerLowering {
  protected abstract stmt(s: A.Stmt, ctx: Ctx): void;
  /** A value argument run() computes as `e` (kernel-launch.ts). */
  protected abstract derivedValue(e: Expr, base: string, what: string, dtype: Dtype): Expr;
  /** Whether `e` reads only value arguments and constants (kernel-launch.ts). */
  protected abstract valueArgsOnly(e: Expr): boolean;

  /** The `if`s that stand for a `continue` or `break` of a loop holding @inner loops or barriers (loop-jumps.ts), with that jump. */
  private readonly jumpGuards = new Map<A.If, A.Stmt>();

  /**
   * Where instructions, loops and locals come from, by id, iname or temporary: a map of positions
   * while lowering (`in` on an object of thousands of keys and a string per statement were a few
   * percent of an import), made "line:column" once at the end (Kernel.oklOptions.places, placesRecord).
   */
  private readonly places = new Map<string, A.Pos>();

  /** Records that `name` comes from `pos`, unless known already. */
  protected placed(name: string | undefined, pos: A.Pos | undefined): void {
    if (name !== undefined && pos !== undefined && !this.places.has(name)) this.places.set(name, pos);
  }

  /** Where `name` comes from, "line:column", or undefined. */
  protected placeOf(name: string): string | undefined {
    const pos = this.places.get(name);
    return pos && `${pos.line}:${pos.column}`;
  }

  /** Every place recorded, "line:column" by name in the order recorded (Kernel.oklOptions.places); undefined for none. */
  protected placesRecord(): Record<string, string> | undefined {
    if (this.places.size === 0) return undefined;
    const out: Record<string, string> = {};
    for (const [name, pos] of this.places) out[name] = `${pos.line}:${pos.column}`;
    return out;
  }

  /** The local axes of the current @outer nest whose @inner loops all run every work-item (whole-axes.ts). */
  protected wholeAxes = new Set<number>();

  /** The synthesized `break`s that stand for a while loop's condition, with that loop. */
  private readonly conditionBreaks = new Map<A.Stmt, A.While | A.DoWhile | A.For>();

  /**
   * The jump conditions of the outer-most lockstep loop being lowered: checked once it is (every
   * assignment in its body is known then, so a private variable set later in a trip, `res =
   * s_res[0];`, is judged by all its writers); undefined outside one, or inside a sequential loop
   * around it (whose later statements are not lowered yet: each condition is checked at once).
   */
  private pendingGuards: PendingGuard[] | undefined;

  /**
   * A plain loop in an @outer body (outside @inner loops) whose trips hold @inner loops or barriers
   * and that jumps: `continue` becomes the rest of the trip under the negated condition, `break` also
   * sets a flag (0 before the loop) that guards every later trip (loop-jumps.ts; the conditions must
   * be uniform, checked in ifStmt); a `while` or `do` loop around them is a loop over its trips
   * bounded by its counter (lockstepWhile). False where `s` is no such loop.
   */
  protected lockstepJumps(s: A.For | A.While | A.DoWhile, ctx: Ctx): boolean {
    if (!ctx.outer || ctx.inner || (s.kind === "for" && s.okl !== undefined)) return false;
    if (!someAst(s.body, (n) => n.kind === "barrier" || (n.kind === "for" && n.okl?.kind === "inner"))) return false;
    if (s.kind !== "for") return this.judged(ctx, () => this.lockstepWhile(s, ctx));
    const asWhile = this.forAsWhile(s);
    if (asWhile) {
      this.stmt(asWhile, ctx);
      return true;
    }
    const loop = this.headerConjunct(s) ?? s;
    if (ownJumpOf(loop.body) === undefined) return false;
    const r = this.jumpFree(loop, loop.body);
    return this.judged(ctx, () => this.stmt({ ...loop, body: r.body }, this.withFlag(r, loop, ctx)));
  }

  /**
   * `for (init; cond; update) body` whose init declares no iterator (`int s = n/2; for (; s > 0; s >>=
   * 1)`, `for (s = n/2; …)`) as `{ init; while (cond) { body update; } }`, bounded by the while loop's
   * counter (lockstepWhile). A `continue` would skip the update in that form: refused. Undefined for
   * loops that declare their iterator or lack a condition or update.
   */
  private forAsWhile(s: A.For): A.Stmt | undefined {
    if (s.init?.kind === "declaration" || !s.cond || !s.update) return undefined;
    const items = s.body.kind === "compound" ? s.body.items : [s.body];
    const skip = items.find(ownContinue);
    if (skip) this.fail(`loop at ${s.pos.line}:${s.pos.column}: a "continue" in a loop holding @inner loops or barriers whose iterator is declared before it is not supported (declare the iterator in the loop, \`for (int s = …; …)\`)`, skip.pos);
    const stmt = (e: A.Expr): A.Stmt => ({ kind: "expr", expr: e, attributes: [], pos: e.pos } as A.Stmt);
    const body: A.Stmt = { kind: "compound", items: [s.body, stmt(s.update)], attributes: [], pos: s.body.pos };
    const loop: A.While = { kind: "while", cond: s.cond, body, attributes: [], pos: s.pos };
    return { kind: "compound", items: [...(s.init ? [stmt(s.init)] : []), loop], attributes: [], pos: s.pos };
  }

  /**
   * `for (int i = S; i CMP E && rest; i ±= d) body` (the header's comparison one conjunct of the
   * condition) as `for (int i = S; i CMP E; i ±= d) { if (!(rest)) break; body }`: C tests `rest` at the
   * start of each trip the header's comparison allows, after the update (a `continue` runs it too).
   * Undefined where `s` has no such condition.
   */
  private headerConjunct(s: A.For): A.For | undefined {
    const d = s.init?.kind === "declaration" && s.init.declarators.length === 1 ? s.init.declarators[0]! : undefined;
    const u = s.update;
    if (!d || !s.cond || !u) return undefined;
    const isIt = (e: A.Expr) => e.kind === "ident" && e.name === d.name;
    const steps = ((u.kind === "unary" || u.kind === "postfix") && (u.op === "++" || u.op === "--") && isIt(u.operand)) || (u.kind === "assign" && (u.op === "+=" || u.op === "-=") && isIt(u.target));
    const parts = conjuncts(s.cond);
    const k = parts.findIndex((p) => p.kind === "binary" && ["<", "<=", ">", ">="].includes(p.op) && (isIt(p.left) !== isIt(p.right)));
    if (!steps || parts.length < 2 || k < 0 || changedNames(s.cond).size > 0) return undefined;
    const rest = conjoin(parts.filter((_, j) => j !== k))!;
    const brk: A.Stmt = { kind: "break", attributes: [], pos: rest.pos } as A.Stmt;
    this.conditionBreaks.set(brk, s);
    const test: A.Stmt = { kind: "if", cond: { kind: "unary", op: "!", operand: rest, pos: rest.pos }, then: brk, else: undefined, attributes: [], pos: rest.pos };
    return { ...s, cond: parts[k]!, body: { kind: "compound", items: [test, s.body], attributes: [], pos: s.body.pos } };
  }

  /** `body` of loop `s` without its jumps (loop-jumps.ts), each guard recorded for checkJumpGuard. */
  private jumpFree(s: A.Stmt, body: A.Stmt): JumpFree {
    const r = withoutContinue(body, flagOf(s));
    if ("refuse" in r) this.fail(`loop at ${s.pos.line}:${s.pos.column}: ${r.refuse}`, r.pos);
    for (const [g, at] of r.guarded) this.jumpGuards.set(g, at);
    return r;
  }

  /** `ctx` with the flag of loop `s`'s `break` bound to a fresh int temporary set to 0 here, where its body breaks. */
  private withFlag(r: JumpFree, s: A.Stmt, ctx: Ctx): Ctx {
    if (!r.breaks) return ctx;
    const name = this.fresh("broke");
    this.temps.push({ name, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
    this.emit({ kind: "var", name }, c(0), ctx, false, s.pos);
    const inner = { ...ctx, scope: new Scope(ctx.scope) };
    inner.scope.set(flagOf(s), { kind: "temp", name, rank: 0 });
    return inner;
  }

  /** Runs `lower` (a lockstep loop at `ctx`), then checks the jump conditions it deferred (see pendingGuards). */
  private judged(ctx: Ctx, lower: () => void): true {
    if (this.pendingGuards !== undefined || this.uniformFacts(ctx).sequential !== undefined) {
      lower();
      return true;
    }
    const pending: PendingGuard[] = [];
    this.pendingGuards = pending;
    try {
      lower();
    } finally {
      this.pendingGuards = undefined;
    }
    const facts = this.uniformFacts(ctx);
    for (const g of pending) this.judgeGuard(g, facts);
    return true;
  }

  /**
   * `while (cond) body` / `do body while (cond)` around @inner loops or barriers: a sequential iname
   * `0 <= t < cap`, cap the trip bound of the condition's counter (while-trips.ts) computed before
   * the loop, and the body `{ if (!(rest)) break; body }` (do-while: `t > 0 && !(rest)`) lowered as a
   * loop with jumps. The counter's bound must be uniform; so must the rest (checkJumpGuard).
   */
  private lockstepWhile(s: A.While | A.DoWhile, ctx: Ctx): void {
    const what = `${s.kind === "while" ? "while" : "do-while"} loop at ${s.pos.line}:${s.pos.column}`;
    const counter = tripCounter(s, (n) => this.counterTemp(n, ctx) !== undefined, (e) => constValue(e, ctx.scope));
    if ("refuse" in counter) {
      this.fail(`a ${what} holding @inner loops or barriers: all work-items of a group run its trips together, and ${counter.refuse}`, counter.pos);
    }
    const it = this.counterTemp(counter.name, ctx)!;
    const t = this.fresh(`${counter.name}_trip`);
    let rest = counter.rest;
    const g = counter.geometric;
    if (g) {
      // geometric.ts: a growing counter, and `while (s)` halved from a start the host knows, are counted by
      // the host from the counter's test (the rest of the condition deciding each trip); the others are
      // bounded by the counter's width, the whole condition deciding each trip.
      const dtype = this.tempNamed(it)!.dtype!;
      const facts = this.uniformFacts(ctx);
      const host = (e: Expr) => hostForm(e, facts, (x) => this.valueArgsOnly(x));
      const growing = g.op === "<<" || g.op === "*";
      const start = growing || counter.truthy ? host({ kind: "var", name: it }) : undefined;
      const b = growing ? whileGrowingTrip(g, dtype, counter.cmp, s.kind === "doWhile", start, host(this.ex.expr(counter.end, ctx)))
        : counter.truthy ? whileTruthyTrips(g, dtype, s.kind === "doWhile", start)
        : whileGeometricCount(g, dtype, counter.cmp, constValue(counter.end, ctx.scope));
      if (typeof b === "string") this.fail(`${what}: its counter "${counter.name}" changes by \`${counter.name} ${g.op}= ${g.k}\` each trip, and ${b}`, counter.end.pos);
      const rows = [{ aff: aff({ [t]: 1 }), eq: false }, { aff: aff({ [t]: -1 }, Math.max(1, b.count) - 1), eq: false }];
      if (b.trip) {
        // Counted from the counter's test alone: the rest of the condition and breaks are known only on the device.
        const alone = counter.rest !== undefined || ownJumpOf(s.body) !== undefined ? `, from its test \`${counter.truthy ? counter.name : `${counter.name} ${counter.cmp} …`}\` alone` : "";
        const n = (this.derivedValue(b.trip, `${counter.name}_trips`, `the trip count of the ${what}${alone}`, "int32") as { name: string }).name;
        rows.push({ aff: aff({ [t]: -1, [n]: 1 }, -1), eq: false });
      } else rest = s.cond;
      this.addDomain([t], rows);
    } else {
      const end = this.ex.expr(counter.end, ctx);
      const endType = exprType(end, { varType: (n) => this.tempNamed(n)?.dtype ?? this.argNamed(n)?.dtype })?.dtype;
      if (this.floatTyped(end) || (endType !== undefined && (isFloat(endType) || endType.startsWith("u")))) {
        this.fail(`${what}: the bound of its counter "${counter.name}" must have a signed integer type${endType ? ` (it has ${endType})` : ""}`, counter.end.pos);
      }
      const why = nonUniform(end, this.uniformFacts(ctx), ctx.within, ctx.preds);
      if (why !== undefined) {
        this.fail(`${what}: the bound of its counter "${counter.name}" reads ${why}, which may differ between the work-items of a group; all of them run its trips together, so the bound must read only value arguments, constants, block indices, private variables assigned from those and \`const\` arguments the kernel only reads`, counter.end.pos);
      }
      // The bound on the trips, computed before the loop in 64 bits (the counter's span may pass int32's range), at most 2^31 - 1.
      const wide = (e: Expr): Expr => ({ kind: "cast", dtype: "int64", value: e });
      let n: Expr = tripCount(wide(this.entryValue(it, ctx)), wide(end), c(counter.amount), counter.cmp);
      if (s.kind === "doWhile") n = { kind: "call", fn: "max", args: [n, c(1, "int64")] };
      const capped: Expr = { kind: "cast", dtype: "int32", value: { kind: "call", fn: "min", args: [n, c(2 ** 31 - 1, "int64")] } };
      const cap = this.fresh(`${counter.name}_trips`);
      this.temps.push({ name: cap, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      this.placed(cap, s.pos);
      this.emit({ kind: "var", name: cap }, capped, ctx, false, s.pos);
      this.addDomain([t], [{ aff: aff({ [t]: 1 }), eq: false }, { aff: aff({ [t]: -1, [cap]: 1 }, -1), eq: false }]);
      this.boundTemps.set(t, [cap]);
    }
    // The body after the condition's test; C's `continue` goes to the test, the next trip's first statement.
    const at = s.cond.pos;
    const trip = `trip ${s.pos.line}:${s.pos.column}`;
    const not = (e: A.Expr): A.Expr => ({ kind: "unary", op: "!", operand: e, pos: at });
    const later: A.Expr = { kind: "binary", op: ">", left: { kind: "ident", name: trip, pos: at }, right: { kind: "int", value: 0, text: "0", suffix: "", pos: at }, pos: at };
    const stop = rest === undefined ? undefined : s.kind === "while" ? not(rest) : { kind: "binary", op: "&&", left: later, right: not(rest), pos: at } as A.Expr;
    const brk: A.Stmt = { kind: "break", attributes: [], pos: at } as A.Stmt;
    const head: A.Stmt[] = stop ? [{ kind: "if", cond: stop, then: brk, else: undefined, attributes: [], pos: at }] : [];
    if (stop) this.conditionBreaks.set(brk, s);
    const body: A.Stmt = { kind: "compound", items: [...head, s.body], attributes: [], pos: s.body.pos };
    const r = ownJumpOf(body) === undefined ? { body, guarded: new Map(), breaks: false } : this.jumpFree(s, body);
    const inner = this.withFlag(r, s, ctx);
    const scope = new Scope(inner.scope);
    scope.set(trip, { kind: "expr", expr: { kind: "var", name: t } });
    this.stmt(r.body, { ...inner, scope, within: [...ctx.within, t], seqLoop: true });
  }

  /**
   * The value of private scalar `name` at this point: its one assignment so far where that is
   * unconditional, in the loops of `ctx` and reads neither memory nor temporaries (`int it = 0;`),
   * so that the trip bound reads no temporary (CPU targets then compute it once per work-group);
   * else the variable.
   */
  private entryValue(name: string, ctx: Ctx): Expr {
    const ws = this.log.insns.filter((i) => insnStores(i).some((x) => x.kind === "var" && x.name === name));
    const w = ws.length === 1 ? ws[0]! : undefined;
    const same = w !== undefined && w.withinInames.length === ctx.within.length && w.withinInames.every((i) => ctx.within.includes(i));
    if (w?.kind === "assign" && same && w.atomicity === "none" && w.predicates.length === 0 && this.pure(w.rhs)) return w.rhs;
    return { kind: "var", name };
  }

  /** The private integer temporary a local `name` is at `ctx`, where it is one (a while loop's counter). */
  private counterTemp(name: string, ctx: Ctx): string | undefined {
    const b = ctx.scope.get(name);
    if (b?.kind !== "temp" || b.rank !== 0 || "struct" in b && b.struct !== undefined) return undefined;
    const t = this.tempNamed(b.name);
    return t && t.shape.length === 0 && t.addressSpace === "private" && /^int(8|16|32|64)$/.test(t.dtype ?? "") ? b.name : undefined;
  }

  /** What uniform.ts needs to know of the kernel at a point of an @outer body. */
  protected uniformFacts(ctx: Ctx): UniformFacts {
    return {
      valueArgs: this.valueArgs, workItem: (i) => this.tags[i]?.kind === "l", insns: this.log.insns,
      privateScalar: (n) => this.tempNamed(n)?.shape.length === 0 && this.tempNamed(n)?.addressSpace === "private",
      sequential: ctx.within.find((i) => this.tags[i]?.kind !== "g"), readOnlyArray: (a) => this.readOnlyArray(a),
    };
  }
  /**
   * Whether `array` is a pointer argument to `const` that the kernel's body only reads by subscript
   * (read-only.ts): its elements at uniform subscripts are uniform (uniform.ts).
   */
  protected readOnlyArray(array: string): boolean {
    const memo = this.readOnlyMemo.get(array);
    if (memo !== undefined) return memo;
    const p = this.f.params.find((q) => q.declarator.name === array);
    const ok = p !== undefined && this.arrayArgs.has(array) && p.spec.qualifiers.includes("const") && this.f.body !== undefined && readOnlyArgument(this.f.body, array);
    this.readOnlyMemo.set(array, ok);
    return ok;
  }

  private readonly readOnlyMemo = new Map<string, boolean>();

  /**
   * Fails where `s` stands for a jump (lockstepJumps) and its condition `cond` may differ between the
   * work-items; inside a lockstep loop not itself in a sequential loop, once that loop is lowered.
   */
  protected checkJumpGuard(s: A.If, cond: Expr, ctx: Ctx): void {
    if (!this.jumpGuards.has(s)) return;
    if (this.pendingGuards) this.pendingGuards.push({ s, cond, ctx });
    else this.judgeGuard({ s, cond, ctx }, this.uniformFacts(ctx));
  }

  private judgeGuard(g: PendingGuard, facts0: UniformFacts): void {
    const jump = this.jumpGuards.get(g.s)!;
    // @shared memory is uniform in a condition read once, into a private temporary (ifStmt).
    const facts: UniformFacts = {
      ...facts0, localArray: (a) => this.tempNamed(a)?.addressSpace === "local",
      wholeGroup: (i) => { const tag = this.tags[i]; return tag?.kind === "l" && this.wholeAxes.has(tag.axis); },
    };
    const why = nonUniform(g.cond, facts, g.ctx.within, g.ctx.preds);
    if (why === undefined) return;
    const uniform = "a condition of block indices, value arguments, @shared memory, `const` arguments the kernel only reads and private variables assigned from those outside @inner loops is uniform";
    const loop = this.conditionBreaks.get(jump);
    if (loop) {
      this.fail(`the condition of the ${loop.kind === "doWhile" ? "do-while" : loop.kind} loop at ${loop.pos.line}:${loop.pos.column} decides for a loop holding @inner loops or barriers, which all work-items of a group run together, but it reads ${why}, which may differ between them (${uniform})`, loop.cond!.pos);
    }
    this.fail(`"${jump.kind}" at ${jump.pos.line}:${jump.pos.column} skips the rest of ${jump.kind === "break" ? "the loop" : "a trip"} of a loop holding @inner loops or barriers, which all work-items of a group run together, but its condition reads ${why}, which may differ between them (${uniform})`, g.s.cond.pos);
  }
}

/** The name a loop's `break` flag has in its body's scope (no user name holds a space). */
const flagOf = (s: A.Stmt): string => `break flag ${s.pos.line}:${s.pos.column}`;
