/**
 * loopy's tuple reductions `argmax` and `argmin` with two assignees:
 *
 *   max_val, max_idx = argmax(i, abs(a[i]), i)
 *
 * is the extremum of the operand and the index expression at the first iname value (in iteration
 * order) where the operand reaches it. Written here as three plain statements, so realization,
 * scheduling and every target handle it as ordinary max/min reductions:
 *
 *   max_val = max(i, abs(a[i]))                                   {id=<id>_val}
 *   <int32> max_idx_argfirst = min(i, if(abs(a[i]) == max_val, i, 2147483647))  {id=<id>_first}
 *   max_idx = i   with i replaced by max_idx_argfirst               {id=<id>}
 *
 * The operand is evaluated twice and compared exactly with the extremum it produced (the same
 * expression on the same target). Over no iname value at all, the index is that of the sentinel.
 */
import type { InsnOptions, Pattern } from "./attributes.js";
import type { RExpr, RStatement } from "./raw.js";
import type { Fail } from "./syntax.js";

/** What of a parsed instruction (statements.ts's ParsedInsn) the expansion reads and rewrites. */
interface ParsedLike {
  readonly stmt: Extract<RStatement, { k: "assign" | "special" }>;
  readonly fail: Fail;
  readonly options: InsnOptions;
}

const OPS: Readonly<Record<string, "max" | "min">> = { argmax: "max", argmin: "min" };
const INT32_MAX = "2147483647";

type AssignStmt = Extract<RStatement, { k: "assign" }>;

/** Whether `stmt` assigns an argmax/argmin to two assignees (`v, i = argmax(k, e, idx)`). */
export function isArgExtremum(stmt: Extract<RStatement, { k: "assign" | "special" }>): boolean {
  return stmt.k === "assign" && stmt.lhs.length > 1 && stmt.rhs.k === "call" && OPS[stmt.rhs.fn] !== undefined;
}

/** `e` with every read of the name `from` replaced by the name `to`. */
function renameRaw(e: RExpr, from: string, to: string): RExpr {
  const go = (x: RExpr): RExpr => renameRaw(x, from, to);
  switch (e.k) {
    case "num": return e;
    case "name": return e.name === from ? { ...e, name: to } : e;
    case "bin": return { ...e, a: go(e.a), b: go(e.b) };
    case "neg": case "not": case "bitnot": return { ...e, e: go(e.e) };
    case "call": return { ...e, args: e.args.map(go) };
    case "sub": return { ...e, idx: e.idx.map(go) };
    case "lin": return { ...e, idx: go(e.idx) };
    case "tuple": return { ...e, items: e.items.map(go) };
  }
}

const nameOf = (e: RExpr): string | undefined => (e.k === "name" ? e.name : e.k === "sub" || e.k === "lin" ? e.name : undefined);

/** The three statements of `v, i = argmax(k, e, idx)`; anything else as it is. */
export function expandArgExtremum<P extends ParsedLike>(insn: P): P[] {
  if (!isArgExtremum(insn.stmt)) return [insn];
  const stmt = insn.stmt as AssignStmt;
  const fail: Fail = insn.fail;
  const call = stmt.rhs as Extract<RExpr, { k: "call" }>;
  const op = OPS[call.fn]!;
  if (stmt.lhs.length !== 2) fail(`${call.fn} has two results (value, index); got ${stmt.lhs.length} assignees`, stmt.lhs[0]!.at);
  if (call.args.length !== 3) fail(`${call.fn} takes an iname, an operand and an index expression, as in ${call.fn}(i, abs(a[i]), i); got ${call.args.length} arguments`, call.at);
  const [over, operand, index] = call.args as [RExpr, RExpr, RExpr];
  const iname = over.k === "name" ? over.name : over.k === "tuple" && over.items.length === 1 && over.items[0]!.k === "name" ? over.items[0]!.name : undefined;
  if (iname === undefined) fail(`${call.fn} over several inames is not supported; reduce over one iname (split the reduction in two, or join the inames first)`, over.at);
  const [valLhs, idxLhs] = stmt.lhs as [RExpr, RExpr];
  const idxName = nameOf(idxLhs);
  if (idxName === undefined || nameOf(valLhs) === undefined) fail(`cannot assign to this expression`, valLhs.at);
  const at = stmt.at;
  const base = insn.options.id?.name ?? `${idxName}_${call.fn}`;
  const first = `${idxName}_argfirst`;
  const id = (name: string) => ({ name, at, fail });
  const dep = (pattern: string): Pattern => ({ pattern, at, fail });
  const assign = (lhs: RExpr, rhs: RExpr, temp: AssignStmt["temp"]): AssignStmt => ({ ...stmt, lhs: [lhs], rhs, temp });
  const name = (n: string): RExpr => ({ k: "name", name: n, at });
  const value: P = {
    ...insn, stmt: assign(valLhs, { k: "call", fn: op, args: [over, operand], at: call.at }, stmt.temp),
    options: { ...insn.options, id: id(`${base}_val`) },
  };
  const reached: RExpr = { k: "bin", op: "==", a: operand, b: valLhs, at };
  const firstAt: P = {
    ...insn,
    stmt: assign(name(first), { k: "call", fn: "min", args: [over, { k: "call", fn: "if", args: [reached, name(iname!), { k: "num", text: INT32_MAX, at }], at }], at }, { dtype: { name: "int32", at }, at }),
    options: { ...insn.options, id: id(`${base}_first`), deps: [...insn.options.deps, dep(`${base}_val`)] },
  };
  const result: P = {
    ...insn, stmt: assign(idxLhs, renameRaw(index, iname!, first), stmt.temp),
    options: { ...insn.options, deps: [...insn.options.deps, dep(`${base}_first`)] },
  };
  return [value, firstAt, result];
}
