/**
 * An instruction's inames as the scheduling passes ask for them (issue 21): `insnInames`, with
 * its common case answered here without its memo. An instruction with no reduction and no
 * repeated loop has its `withinInames` as its inames; that is found by an indexed walk of its
 * expressions, the same array returned that `insnInames` returns. Every variant of a sweep brings
 * new instructions: each first `insnInames` adds a WeakMap entry (which the collector traces) and
 * walks with `some()` over the expressions' frozen arrays (a slow path in V8: a callback call
 * through a builtin per element). Instructions with a reduction (before `realizeReductions`)
 * get their names by the same kind of walk (test/schedule/insn-inames.test.ts compares both).
 */
import { hasDuplicate, hasReduce, insnInames, walkExpr, type Expr, type Instruction } from "../ir/index.js";

/**
 * `insnInames(insn)`: the same array where the instruction has no reduction (see the module
 * comment), else the same names in the same order: its loops, then the reduction inames of its
 * right-hand side, left-hand side and predicates, each once.
 */
export function inamesOf(insn: Instruction): readonly string[] {
  const within = insn.withinInames;
  if (!hasDuplicate(within) && !insnHasReduce(insn)) return Object.isFrozen(within) ? within : insnInames(insn);
  const out: string[] = [];
  for (let x = 0; x < within.length; x++) if (!out.includes(within[x]!)) out.push(within[x]!);
  if (insn.kind === "assign") {
    reductionInamesIn(insn.rhs, out);
    reductionInamesIn(insn.lhs, out);
  }
  for (let x = 0; x < insn.predicates.length; x++) reductionInamesIn(insn.predicates[x]!, out);
  return out;
}

/** The reduction inames of `e` in pre-order (walkExpr's, as `reductionInames`), each added to `out` once. */
function reductionInamesIn(e: Expr, out: string[]): void {
  walkExpr(e, (n) => {
    if (n.kind === "reduce") for (let x = 0; x < n.inames.length; x++) if (!out.includes(n.inames[x]!)) out.push(n.inames[x]!);
  });
}

/** Whether a predicate, or an assignment's right- or left-hand side, has a reduction (what `insnInames` looks at). */
function insnHasReduce(insn: Instruction): boolean {
  const ps = insn.predicates;
  for (let x = 0; x < ps.length; x++) if (hasReduce(ps[x]!)) return true;
  return insn.kind === "assign" && (hasReduce(insn.rhs) || hasReduce(insn.lhs));
}


/**
 * `inamesOf(insn)` for an instruction of the (frozen) list `list`, each asked once per list: the
 * passes after preprocessing (linearize's structure, the device kernels) ask of the same kernel's
 * instructions in turn. One list remembered (no WeakMap entry per instruction of every variant).
 */
export function inamesIn(list: readonly Instruction[], insn: Instruction): readonly string[] {
  if (lastList.insns !== list) {
    if (!Object.isFrozen(list)) return inamesOf(insn);
    lastList = { insns: list, inames: new Map() };
  }
  let r = lastList.inames.get(insn);
  if (r === undefined) {
    r = inamesOf(insn);
    // An instruction that is not frozen could change: asked again each time.
    if (Object.isFrozen(insn)) lastList.inames.set(insn, r);
  }
  return r;
}

let lastList: { readonly insns: readonly Instruction[] | undefined; readonly inames: Map<Instruction, readonly string[]> } = { insns: undefined, inames: new Map() };
