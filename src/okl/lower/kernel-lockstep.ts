/**
 * Lowering one OKL @kernel, the plain loops of an @outer body that all work-items of a group run
 * together (their trips hold @inner loops or barriers) and that jump: `continue` and `break` as the
 * rest of a trip under negated conditions and a flag (loop-jumps.ts), whose conditions must be
 * uniform (uniform.ts, with read-only.ts's `const` arguments); `while` loops around them refused.
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { someAst } from "./ast-queries.js";
import { Scope, type Ctx } from "./bindings.js";
import { PointerLowering } from "./kernel-pointers.js";
import { ownJumpOf, withoutContinue } from "./loop-jumps.js";
import { readOnlyArgument } from "./read-only.js";
import { nonUniform, type UniformFacts } from "./uniform.js";

export abstract class LockstepLowering extends PointerLowering {
  protected abstract stmt(s: A.Stmt, ctx: Ctx): void;

  /** The `if`s that stand for a `continue` or `break` of a loop holding @inner loops or barriers (loop-jumps.ts), with that jump. */
  private readonly jumpGuards = new Map<A.If, A.Stmt>();

  /**
   * A plain loop in an @outer body (outside @inner loops) whose trips hold @inner loops or barriers
   * and that jumps: `continue` becomes the rest of the trip under the negated condition, `break` also
   * sets a flag (0 before the loop) that guards every later trip (loop-jumps.ts; the conditions must
   * be uniform, checked in ifStmt); a `while` or `do` loop around them is refused naming it. False
   * where `s` is no such loop.
   */
  protected lockstepJumps(s: A.For | A.While | A.DoWhile, ctx: Ctx): boolean {
    if (!ctx.outer || ctx.inner || (s.kind === "for" && s.okl !== undefined)) return false;
    if (!someAst(s.body, (n) => n.kind === "barrier" || (n.kind === "for" && n.okl?.kind === "inner"))) return false;
    if (s.kind !== "for") {
      this.fail(`a ${s.kind === "while" ? "while" : "do-while"} loop holding @inner loops or barriers: all work-items of a group run its trips together, and Loom counts such a loop's trips before it runs; a loop whose end is decided by its trips is not supported: write it as a \`for\` loop with a bound every work-item computes alike (value arguments, block indices), leaving it early with \`break\` under a condition every work-item computes alike`, s.pos);
    }
    if (ownJumpOf(s.body) === undefined) return false;
    // The flag of a `break` (no user name can be "break flag": it holds a space).
    const flag = `break flag ${s.pos.line}:${s.pos.column}`;
    const r = withoutContinue(s.body, flag);
    if ("refuse" in r) this.fail(`loop at ${s.pos.line}:${s.pos.column}: ${r.refuse}`, r.pos);
    for (const [g, at] of r.guarded) this.jumpGuards.set(g, at);
    let inner = ctx;
    if (r.breaks) {
      const name = this.fresh("broke");
      this.temps.push({ name, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      this.emit({ kind: "var", name }, c(0), ctx, false, s.pos);
      inner = { ...ctx, scope: new Scope(ctx.scope) };
      inner.scope.set(flag, { kind: "temp", name, rank: 0 });
    }
    this.stmt({ ...s, body: r.body }, inner);
    return true;
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

  /** Fails where `s` stands for a jump (lockstepJumps) and its condition `cond` may differ between the work-items. */
  protected checkJumpGuard(s: A.If, cond: Expr, ctx: Ctx): void {
    const jump = this.jumpGuards.get(s);
    if (!jump) return;
    const why = nonUniform(cond, this.uniformFacts(ctx), ctx.within, ctx.preds);
    if (why !== undefined) {
      this.fail(`"${jump.kind}" at ${jump.pos.line}:${jump.pos.column} skips the rest of ${jump.kind === "break" ? "the loop" : "a trip"} of a loop holding @inner loops or barriers, which all work-items of a group run together, but its condition reads ${why}, which may differ between them (a condition of block indices, value arguments, \`const\` arguments the kernel only reads and private variables assigned from those, in the same trip, is uniform)`, s.cond.pos);
    }
  }
}
