/**
 * Rewriting inames in a whole kernel: free uses get a value, reductions get new inames. Shared by
 * joinInames, renameIname, duplicateInames, makeReductionInamesUnique and mapDomain.
 */
import { TransformError } from "../src/errors.js";
import {
  mapExpr, naturalCompare, reductionInames, walkExpr, withKernel,
  type Expr, type Instruction, type Kernel, mapInsnExprs,
} from "../src/ir/index.js";

/** How inames change: `values` replaces free uses, `inames` maps an iname to its replacement list. */
export interface InameRewrite {
  readonly values: ReadonlyMap<string, Expr>;
  readonly inames: ReadonlyMap<string, readonly string[]>;
}

const dedupe = (xs: readonly string[]): string[] => xs.filter((x, k) => xs.indexOf(x) === k);

/** `e` with free inames replaced by their values and reduction inames by their replacements. */
export function rewriteExpr(e: Expr, r: InameRewrite): Expr {
  return mapExpr(e, (n) => {
    if (n.kind === "var") return r.values.get(n.name) ?? n;
    if (n.kind === "reduce" && n.inames.some((i) => r.inames.has(i))) {
      const inames = dedupe(n.inames.flatMap((i) => r.inames.get(i) ?? [i]));
      return { ...n, inames, body: rewriteExpr(n.body, r) };
    }
    return undefined;
  });
}

/** `insn` rewritten: expressions, predicates and within-inames. */
export function rewriteInsn(insn: Instruction, r: InameRewrite): Instruction {
  const f = (e: Expr) => rewriteExpr(e, r);
  const changed = insn.withinInames.some((i) => r.inames.has(i));
  const withinInames = changed ? dedupe(insn.withinInames.flatMap((i) => r.inames.get(i) ?? [i])).sort(naturalCompare) : insn.withinInames;
  return { ...mapInsnExprs(insn, f), withinInames };
}

/**
 * `k` with instructions (all, or those in `only`), substitution rules (unless a rule parameter
 * shadows a rewritten iname), loop priorities, tags and slabs rewritten. Domains are the caller's.
 */
export function rewriteKernel(k: Kernel, r: InameRewrite, only?: ReadonlySet<string>): Kernel {
  const instructions = k.instructions.map((insn) => (only === undefined || only.has(insn.id) ? rewriteInsn(insn, r) : insn));
  if (only !== undefined) return withKernel(k, { instructions });
  const substitutions = k.substitutions.map((s) =>
    s.params.some((p) => r.inames.has(p) || r.values.has(p)) ? s : { ...s, expr: rewriteExpr(s.expr, r) });
  const loopPriority = k.loopPriority.map((p) => dedupe(p.flatMap((i) => r.inames.get(i) ?? [i]))).filter((p) => p.length > 0);
  const inameTags = Object.fromEntries(Object.entries(k.inameTags).filter(([i]) => !r.inames.has(i)));
  const inameSlabs = Object.fromEntries(Object.entries(k.inameSlabs ?? {}).filter(([i]) => !r.inames.has(i)));
  return withKernel(k, { instructions, substitutions, loopPriority, inameTags, inameSlabs });
}

/** Every iname an instruction loops over or reduces over, and the reduction inames of rules. */
export function usedInames(k: Kernel): Set<string> {
  const used = new Set<string>();
  for (const insn of k.instructions) {
    for (const i of insn.withinInames) used.add(i);
    if (insn.kind === "assign") (reductionInames(insn.lhs, used), reductionInames(insn.rhs, used));
  }
  for (const s of k.substitutions) reductionInames(s.expr, used);
  return used;
}

/** Each reduction of `insn` (lhs, rhs), outermost first. */
export function reductionsOf(insn: Instruction): readonly (readonly string[])[] {
  const out: string[][] = [];
  if (insn.kind !== "assign") return out;
  for (const e of [insn.lhs, insn.rhs]) walkExpr(e, (n) => void (n.kind === "reduce" && out.push([...n.inames])));
  return out;
}

/** Identifier check for a user-given name. */
export function checkIdentifier(name: unknown, what: string): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new TransformError(`${what} must be an identifier; got ${JSON.stringify(name) ?? String(name)}`);
  }
  return name;
}

/** A comma-separated list or an array of names, non-empty and without repeats. */
export function nameList(x: unknown, what: string): string[] {
  const list = typeof x === "string" ? x.split(",").map((s) => s.trim()).filter((s) => s.length > 0) : x;
  if (!Array.isArray(list) || list.length === 0 || list.some((s) => typeof s !== "string")) {
    throw new TransformError(`${what} must be "i,j" or a non-empty list of names; got ${JSON.stringify(x) ?? String(x)}`);
  }
  const dup = list.find((n, k) => list.indexOf(n) !== k);
  if (dup !== undefined) throw new TransformError(`${what}: "${dup}" appears twice in ${list.join(",")}`);
  return list as string[];
}

