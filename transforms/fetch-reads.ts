/**
 * A fetch's reads redirected (transforms/fetch-store.ts): every chosen read of the array (or call
 * of the rule) in the readers becomes a read of the temporary at the index relative to the
 * footprint box's base, and each reader depends on the store.
 */
import { TransformError } from "../src/errors.js";
import { exprToAff, type BoxAxis, type UseFilter } from "../src/analysis/index.js";
import {
  affToExpr, findArg, findSubstitution, findTemporary, hasReduce, mapExpr, NATURAL_ORDER, sub, v, type Expr, type Instruction, type Kernel,
} from "../src/ir/index.js";
import { affSub } from "../src/poly/index.js";

/** What is redirected: the reads of `name` in `readers` (those `select` keeps) to the temporary `tempName`. */
export interface Redirect {
  readonly who: string;
  readonly name: string;
  readonly tempName: string;
  readonly readers: readonly string[];
  /** The indices that span the footprint at a use (default: its subscript or arguments). */
  readonly axesOf?: ((indices: readonly Expr[]) => Expr[]) | undefined;
  readonly select?: UseFilter | undefined;
}

/**
 * `k`'s instructions with the reads redirected to the temporary: axis `stored[j]` of the box is
 * the temporary's axis j (axes of extent 1 are not stored); `storeId` is the store's id.
 *
 *   redirectReads(k, { who, name: "a", tempName: "a_fetch", readers: ["c"] }, box, [0, 1], "a_fetch_rule")
 *   // c: out[i] = a[i, j]  ->  out[i] = a_fetch[i_inner, j_inner]   (depends on a_fetch_rule)
 */
export function redirectReads(
  k: Kernel, req: Redirect, box: readonly Pick<BoxAxis, "baseAff">[], stored: readonly number[], storeId: string,
  sameInames?: [Instruction, Instruction][],
): Instruction[] {
  const { who, name } = req;
  const isIndexVar = (n: string) => !(findArg(k, n)?.kind === "array") && !findTemporary(k, n);
  // Whether a replaced read held a reduction (in an axis not stored: a stored index is affine).
  let dropped = false;
  const replaceRead = (args: readonly Expr[], insn: string): Expr => {
    const indices = req.axesOf ? req.axesOf(args) : args;
    if (sameInames !== undefined && !dropped) for (let i = 0; i < args.length; i++) if (hasReduce(args[i]!)) dropped = true;
    // (Built by push, not map(): see fetch-store.ts's `stored`.)
    const rel: Expr[] = [];
    for (let j = 0; j < stored.length; j++) {
      const r = stored[j]!;
      const a = exprToAff(indices[r]!, isIndexVar);
      if (!a) throw new TransformError(`${who}: the subscript ${r} of ${name} in instruction "${insn}" is not affine`);
      rel.push(affToExpr(affSub(a, box[r]!.baseAff), NATURAL_ORDER));
    }
    return rel.length > 0 ? sub(req.tempName, ...rel) : v(req.tempName);
  };
  const readerSet = new Set(req.readers);
  const isRule = findSubstitution(k, name) !== undefined && !findArg(k, name) && !findTemporary(k, name);
  const chosen = (insnId: string, indices: readonly Expr[], tag: string | undefined): boolean =>
    req.select === undefined || req.select(tag === undefined ? { insnId, indices } : { insnId, indices, tag });
  const rewrite = (e: Expr, insn: string): Expr => mapExpr(e, (n) => {
    if (!isRule && n.kind === "subscript" && n.array === name && chosen(insn, n.indices, n.tag)) return replaceRead(rewriteEach(n.indices, insn), insn);
    if (isRule && n.kind === "call" && n.fn === name && chosen(insn, n.args, n.tag)) return replaceRead(rewriteEach(n.args, insn), insn);
    return undefined;
  });
  // (Indexed loops over the kernel's frozen arrays: see insnById.)
  const rewriteEach = (xs: readonly Expr[], insn: string): Expr[] => {
    const out: Expr[] = [];
    for (let i = 0; i < xs.length; i++) out.push(rewrite(xs[i]!, insn));
    return out;
  };
  const instructions: Instruction[] = [];
  for (let x = 0; x < k.instructions.length; x++) {
    const insn = k.instructions[x]!;
    if (!readerSet.has(insn.id)) {
      instructions.push(insn);
      continue;
    }
    dropped = false;
    const predicates: Expr[] = [];
    for (let i = 0; i < insn.predicates.length; i++) predicates.push(rewrite(insn.predicates[i]!, insn.id));
    const dependsOn = insn.dependsOn.includes(storeId) ? insn.dependsOn : [...insn.dependsOn, storeId];
    let out: Instruction;
    if (insn.kind === "assign") {
      const lhs = insn.lhs.kind === "subscript"
        ? { ...insn.lhs, indices: rewriteEach(insn.lhs.indices, insn.id) }
        : insn.lhs.kind === "linear" ? { ...insn.lhs, index: rewrite(insn.lhs.index, insn.id) } : insn.lhs;
      out = { ...insn, lhs, rhs: rewrite(insn.rhs, insn.id), predicates, dependsOn };
    } else {
      out = { ...insn, predicates, dependsOn };
    }
    instructions.push(out);
    // Its loops are the reader's, and so are its reductions unless a replaced read held one.
    if (sameInames !== undefined && !dropped) sameInames.push([out, insn]);
  }
  return instructions;
}
