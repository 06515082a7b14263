/**
 * The interpreter's code for a block instruction (interp.ts compiles everything else): its
 * statements as JavaScript, run at each point of the block's domain.
 */
import { assertNever, ExecutionError } from "../errors.js";
import { blockLocals, blockTypeEnv, checkBlock, type BlockInsn, type BlockStmt, type Dtype, type Expr, type Instruction, type Kernel } from "../ir/index.js";
import { expandSubstitutions } from "../schedule/index.js";
import { literalCode } from "./arith-helpers.js";
import { compileExpr, type ExprContext } from "./compile-expr.js";

/** What block code needs of the kernel compiler. */
export interface BlockHost {
  readonly k: Kernel;
  exprCtx(insnId: string, scope: readonly string[]): ExprContext;
  /** When the instruction runs at a point of its loops (its domain's guard and predicates). */
  conditions(insn: Instruction, scope: readonly string[], ctx: ExprContext): string[];
  /** A store of `rhs` to a scalar variable or an array element. */
  plainStore(insnId: string, lhs: Expr, rhs: Expr, ctx: ExprContext, what: "instruction" | "block"): string;
}

/**
 * A block runs its statements as JavaScript at each point of its domain: locals are JS variables
 * (`b$x`) holding values of their dtype, stores go through the same bounds checks and race
 * trackers as assignments, `exit` is a labeled `break` (codegen lowers it to flags instead).
 */
export function blockCode(c: BlockHost, insn: BlockInsn, ind: string): string[] {
  const problem = checkBlock(insn.body);
  if (problem) throw new ExecutionError(`block "${insn.id}": ${problem}`);
  const scope = [...insn.withinInames];
  const locals = blockLocals(insn.body);
  const outer = c.exprCtx(insn.id, scope);
  const env = outer.env;
  const ctx: ExprContext = {
    ...outer,
    env: blockTypeEnv(env, locals),
    varCode: (n) => (locals.has(n) ? { code: `b$${n}`, dtype: locals.get(n)! } : outer.varCode(n)),
  };
  const cond = (e: Expr) => `${compileExpr(expandSubstitutions(c.k, e), "bool", ctx)} !== 0`;
  const value = (e: Expr, d: Dtype) => compileExpr(expandSubstitutions(c.k, e), d, ctx);
  let labels = 0;
  // `cont`: how a `continue` of the innermost loop is spelled (a `for` runs its step first).
  const stmts = (list: readonly BlockStmt[], ind2: string, cont: string): string[] => list.flatMap((s): string[] => {
    switch (s.kind) {
      case "decl": return [`${ind2}let b$${s.name} = ${s.init ? value(s.init, s.dtype) : literalCode(0, s.dtype)};`];
      case "assign": return [`${ind2}{ ${blockStore(c, insn.id, s.lhs, s.rhs, locals, ctx)} }`];
      case "if": return [`${ind2}if (${cond(s.cond)}) {`, ...stmts(s.then, ind2 + "  ", cont), ...(s.else.length > 0 ? [`${ind2}} else {`, ...stmts(s.else, ind2 + "  ", cont)] : []), `${ind2}}`];
      case "while": return [`${ind2}while (${cond(s.cond)}) {`, ...stmts(s.body, ind2 + "  ", "continue;"), `${ind2}}`];
      case "doWhile": return [`${ind2}do {`, ...stmts(s.body, ind2 + "  ", "continue;"), `${ind2}} while (${cond(s.cond)});`];
      case "for": {
        const label = `C$${labels++}`;
        return [
          `${ind2}{`, ...stmts(s.init, ind2 + "  ", cont),
          `${ind2}  for (;;) {`, `${ind2}    if (!(${cond(s.cond)})) break;`,
          `${ind2}    ${label}: {`, ...stmts(s.body, ind2 + "      ", `break ${label};`), `${ind2}    }`,
          ...stmts(s.step, ind2 + "    ", cont), `${ind2}  }`, `${ind2}}`,
        ];
      }
      case "break": return [`${ind2}break;`];
      case "continue": return [`${ind2}${cont}`];
      case "labeled": return [`${ind2}X$${s.label}: {`, ...stmts(s.body, ind2 + "  ", cont), `${ind2}}`];
      case "exit": return [`${ind2}break X$${s.label};`];
      default: return assertNever(s, "block statement");
    }
  });
  const conds = c.conditions(insn, scope, outer);
  const body = stmts(insn.body, ind + "  ", "continue;");
  return [`${ind}// ${JSON.stringify(insn.id)}`, conds.length > 0 ? `${ind}if (${conds.join(" && ")}) {` : `${ind}{`, ...body, `${ind}}`];
}

/** A store of a block: to a local, a scalar variable or an array element, converted to its dtype. */
function blockStore(c: BlockHost, insnId: string, lhs: Expr, rhs: Expr, locals: ReadonlyMap<string, Dtype>, ctx: ExprContext): string {
  if (lhs.kind === "var" && locals.has(lhs.name)) return `b$${lhs.name} = ${compileExpr(expandSubstitutions(c.k, rhs), locals.get(lhs.name)!, ctx)};`;
  return c.plainStore(insnId, expandSubstitutions(c.k, lhs), rhs, ctx, "block");
}
