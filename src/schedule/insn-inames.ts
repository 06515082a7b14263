/**
 * An instruction's inames as the scheduling passes ask for them (issue 21): `insnInames`, with
 * its common case answered here without its memo. An instruction with no reduction and no
 * repeated loop has its `withinInames` as its inames; that is found by an indexed walk of its
 * expressions, the same array returned that `insnInames` returns. Every variant of a sweep brings
 * new instructions: each first `insnInames` adds a WeakMap entry (which the collector traces) and
 * walks with `some()` over the expressions' frozen arrays (a slow path in V8: a callback call
 * through a builtin per element). Instructions with a reduction (before `realizeReductions`) go
 * to `insnInames`.
 */
import { assertNever } from "../errors.js";
import { insnInames, type Expr, type Instruction } from "../ir/index.js";

/** `insnInames(insn)`: the same array (see the module comment). */
export function inamesOf(insn: Instruction): readonly string[] {
  const within = insn.withinInames;
  if (Object.isFrozen(within) && !hasDuplicate(within) && !insnHasReduce(insn)) return within;
  return insnInames(insn);
}

/** Whether a predicate, or an assignment's right- or left-hand side, has a reduction (what `insnInames` looks at). */
function insnHasReduce(insn: Instruction): boolean {
  const ps = insn.predicates;
  for (let x = 0; x < ps.length; x++) if (hasReduce(ps[x]!)) return true;
  return insn.kind === "assign" && (hasReduce(insn.rhs) || hasReduce(insn.lhs));
}

/** Whether `e` has a reduction: a plain walk, indexed loops over the (frozen) children. */
function hasReduce(e: Expr): boolean {
  switch (e.kind) {
    case "var": case "const": return false;
    case "reduce": return true;
    case "arith": case "compare": case "logical": return hasReduce(e.left) || hasReduce(e.right);
    case "neg": case "bitnot": case "not": return hasReduce(e.operand);
    case "if": return hasReduce(e.cond) || hasReduce(e.then) || hasReduce(e.else);
    case "call":
      for (let x = 0; x < e.args.length; x++) if (hasReduce(e.args[x]!)) return true;
      return false;
    case "subscript":
      for (let x = 0; x < e.indices.length; x++) if (hasReduce(e.indices[x]!)) return true;
      return false;
    case "linear": return hasReduce(e.index);
    case "cast": return hasReduce(e.value);
    default: return assertNever(e, "expression");
  }
}

function hasDuplicate(xs: readonly string[]): boolean {
  for (let i = 1; i < xs.length; i++) for (let j = 0; j < i; j++) if (xs[i] === xs[j]) return true;
  return false;
}
