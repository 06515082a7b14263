/**
 * Privatizing a temporary (loopy's privatize_temporaries_with_inames, transform/privatize.py):
 * one slot per iteration of some inames, with every access indexed by the inames. Pure
 * Kernel -> Kernel; a bad request throws TransformError.
 */
import { TransformError } from "../src/errors.js";
import {
  affToExpr, arith, c, iterationDomain, mapExpr, v, withKernel,
  type DimTag, type Expr, type Instruction, type Kernel, mapInsnExprs,
} from "../src/ir/index.js";
import { affSub, dimBounds, intersect, type Aff } from "../src/poly/index.js";
import { checkIname, checkKernel } from "./common.js";

/**
 * Give the temporary `name` one slot per value of `inames` (loopy's
 * privatize_temporaries_with_inames): new leading axes of the inames' extents, and every access
 * indexed by `iname - lower`. Each iname needs a constant extent, and every access of the
 * temporary must be inside all of them (in their loops or reductions).
 *
 *   privatize(k, "acc", "i")            // <> acc = 0 ... acc = acc + a[i,j]  ->  acc[i] = 0 ... acc[i] = acc[i] + a[i,j]
 */
export function privatize(k: Kernel, name: string, inames: string | readonly string[]): Kernel {
  const who = "privatize";
  checkKernel(k, who);
  const temp = k.temporaries.find((t) => t.name === name);
  if (!temp) {
    const temps = k.temporaries.map((t) => t.name).join(", ") || "(none)";
    const isArg = k.args.some((a) => a.name === name);
    throw new TransformError(`${who}: ${isArg ? `"${name}" is an argument; only temporaries can be privatized` : `no temporary "${name}" in kernel "${k.name}"`}; temporaries are ${temps}`);
  }
  const list = typeof inames === "string" ? inames.split(",").map((s) => s.trim()).filter((s) => s !== "") : inames;
  if (!Array.isArray(list) || list.length === 0) throw new TransformError(`${who}: expected an iname, a comma-separated list or an array of inames; got ${JSON.stringify(inames)}`);
  for (const i of list) checkIname(k, i, who);
  if (new Set(list).size !== list.length) throw new TransformError(`${who}: inames ${list.join(", ")} name one iname twice`);
  if (k.domains.some((d) => d.params.includes(name))) throw new TransformError(`${who}: "${name}" is used in a loop bound; a temporary that bounds a loop cannot be privatized`);

  const ranges = list.map((i) => constantRange(k, i, who));
  const prefix = ranges.map((r, x) => (Object.keys(r.lower.terms).length === 0 && r.lower.constant === 0 ? v(list[x]!) : arith("-", v(list[x]!), affToExpr(r.lower, { coefficientAfter: true }))));
  const p = list.length;
  const tags = temp.dimTags;
  const newTags: DimTag[] | undefined = tags && [
    ...Array.from({ length: p }, (_, x): DimTag => ({ kind: "nest", level: tags.filter((t) => t.kind === "nest").length + p - 1 - x })),
    ...tags,
  ];
  const shape = [...ranges.map((r) => c(r.size)), ...temp.shape];
  // F order puts the first axis fastest: keep the new axes outermost with explicit tags.
  const dimTags = newTags ?? (temp.order === "F" ? [
    ...Array.from({ length: p }, (_, x): DimTag => ({ kind: "nest", level: temp.shape.length + p - 1 - x })),
    ...temp.shape.map((_, x): DimTag => ({ kind: "nest", level: x })),
  ] : undefined);
  const out = withKernel(k, { temporaries: k.temporaries.map((t) => (t.name === name ? { ...t, shape, dimTags } : t)) });

  if (k.substitutions.some((s) => mentions(s.expr, name))) {
    throw new TransformError(`${who}: "${name}" is used in a substitution rule; expand the rules first (expandSubst)`);
  }
  return mapAccessesInScope(out, name, (n, scope, insn) => {
    const missing = list.filter((i) => !scope.has(i));
    if (missing.length > 0) {
      throw new TransformError(`${who}: instruction "${insn.id}" uses "${name}" outside the loop over ${missing.join(", ")}; every access of the temporary must be inside all of ${list.join(", ")}`);
    }
    if (n.kind === "linear") throw new TransformError(`${who}: instruction "${insn.id}" uses a linear subscript ${name}[[…]]; privatize cannot rewrite it`);
    if (n.kind === "var") return { kind: "subscript", array: name, indices: prefix };
    if (n.kind === "subscript") return { ...n, indices: [...prefix, ...n.indices] };
    return n;
  });
}

/** Whether `e` reads `name`, as a variable or as a subscripted array. */
function mentions(e: Expr, name: string): boolean {
  let found = false;
  mapExpr(e, (n) => {
    if ((n.kind === "var" && n.name === name) || ((n.kind === "subscript" || n.kind === "linear") && n.array === name)) found = true;
    return undefined;
  });
  return found;
}

/** Like mapAccesses, tracking the inames in scope at each access: the loops around it and enclosing reductions. */
function mapAccessesInScope(k: Kernel, name: string, f: (node: Expr, scope: ReadonlySet<string>, insn: Instruction) => Expr): Kernel {
  const instructions = k.instructions.map((insn): Instruction => {
    const rewrite = (e: Expr, scope: ReadonlySet<string>): Expr => mapExpr(e, (n) => {
      if (n.kind === "reduce") return { ...n, body: rewrite(n.body, new Set([...scope, ...n.inames])) };
      if (n.kind === "subscript" && n.array === name) return f({ ...n, indices: n.indices.map((i) => rewrite(i, scope)) }, scope, insn);
      if (n.kind === "linear" && n.array === name) return f(n, scope, insn);
      if (n.kind === "var" && n.name === name) return f(n, scope, insn);
      return undefined;
    });
    const scope = new Set(insn.withinInames);
    const g = (e: Expr) => rewrite(e, scope);
    return mapInsnExprs(insn, g);
  });
  return withKernel(k, { instructions });
}

/** `lower … lower + size - 1` holding `iname`, with constant `size` and `lower` over parameters only. */
function constantRange(k: Kernel, iname: string, who: string): { lower: Aff; size: number } {
  const d = intersect(iterationDomain(k, [iname]), k.assumptions);
  const b = dimBounds(d, iname, []);
  let best: { lower: Aff; size: number } | undefined;
  for (const lo of b.lower) {
    if (lo.denom !== 1) continue;
    for (const hi of b.upper) {
      if (hi.denom !== 1) continue;
      const diff = affSub(hi.aff, lo.aff);
      if (Object.keys(diff.terms).length > 0) continue;
      const size = Math.max(0, diff.constant + 1);
      if (!best || size < best.size) best = { lower: lo.aff, size };
    }
  }
  if (!best) throw new TransformError(`${who}: iname "${iname}" has no constant extent in kernel "${k.name}"; privatize needs one (split the iname and privatize over the inner part)`);
  return best;
}
