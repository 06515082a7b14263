/**
 * Reshaping reductions (loopy's split_reduction_inward/outward, make_reduction_inames_unique).
 */
import { TransformError } from "../src/errors.js";
import { domainIndexOf, mapExpr, uniqueName, v, withKernel, type Expr, type Instruction, type Kernel, type Reduce } from "../src/ir/index.js";
import { checkIname, matchInsns, takenNames, type InsnMatch, checkKernel, checkOptions } from "./common.js";
import { duplicateAxes } from "./iname-rename.js";
import { nameList, rewriteExpr } from "./rewrite.js";

export interface ReductionOptions {
  /** Only reductions in these instructions (an id glob or a list of ids). */
  readonly within?: InsnMatch;
}

export const REDUCTION_OPTIONS: Readonly<Record<keyof ReductionOptions, true>> = { within: true };

/** `f` applied to every reduction of the selected instructions (bodies first rewritten by `f` too). */
function mapReductions(k: Kernel, ids: ReadonlySet<string> | undefined, f: (r: Reduce, insn: Instruction) => Expr | undefined): Kernel {
  const mapE = (e: Expr, insn: Instruction): Expr => mapExpr(e, (n) => {
    if (n.kind !== "reduce") return undefined;
    const inner = { ...n, body: mapE(n.body, insn) };
    return f(inner, insn) ?? (inner.body === n.body ? n : inner);
  });
  const instructions = k.instructions.map((insn) =>
    insn.kind !== "assign" || (ids !== undefined && !ids.has(insn.id)) ? insn : { ...insn, lhs: mapE(insn.lhs, insn), rhs: mapE(insn.rhs, insn) });
  return withKernel(k, { instructions });
}

function splitReduction(k: Kernel, inames: string | readonly string[], direction: "in" | "out", opts: ReductionOptions, who: string): Kernel {
  const list = nameList(inames, `${who}: inames`);
  for (const i of list) checkIname(k, i, who);
  const ids = opts.within === undefined ? undefined : matchInsns(k, opts.within, who);
  let hits = 0;
  const out = mapReductions(k, ids, (r) => {
    if (!list.every((i) => r.inames.includes(i))) return undefined;
    const named = r.inames.filter((i) => list.includes(i));
    const rest = r.inames.filter((i) => !list.includes(i));
    if (rest.length === 0) return undefined;
    hits++;
    const [outer, inner] = direction === "in" ? [rest, named] : [named, rest];
    return { kind: "reduce", op: r.op, inames: outer, body: { kind: "reduce", op: r.op, inames: inner, body: r.body } };
  });
  if (hits === 0) {
    throw new TransformError(`${who}: no reduction of kernel "${k.name}" reduces over ${list.join(", ")} and other inames besides; nothing to split`);
  }
  return out;
}

/**
 * `sum((i, j, k), e)` with inames `i` becomes `sum((j, k), sum(i, e))`: the named inames form
 * the inner reduction (loopy's split_reduction_inward).
 *
 *   splitReductionInward(k, "i")
 */
export function splitReductionInward(k: Kernel, inames: string | readonly string[], opts: ReductionOptions = {}): Kernel {
  const who = "splitReductionInward";
  checkKernel(k, who);
  return splitReduction(k, inames, "in", checkOptions(opts, who, REDUCTION_OPTIONS), who);
}

/**
 * `sum((i, j, k), e)` with inames `i` becomes `sum(i, sum((j, k), e))`: the named inames form
 * the outer reduction (loopy's split_reduction_outward).
 *
 *   splitReductionOutward(k, "i")
 */
export function splitReductionOutward(k: Kernel, inames: string | readonly string[], opts: ReductionOptions = {}): Kernel {
  const who = "splitReductionOutward";
  checkKernel(k, who);
  return splitReduction(k, inames, "out", checkOptions(opts, who, REDUCTION_OPTIONS), who);
}

export interface UniqueOptions extends ReductionOptions {
  /** Only these reduction inames get copies. */
  readonly inames?: string | readonly string[];
}

export const UNIQUE_OPTIONS: Readonly<Record<keyof UniqueOptions, true>> = { within: true, inames: true };

/**
 * Give each reduction its own reduction inames (loopy's make_reduction_inames_unique): the first
 * reduction over `k` keeps it, later ones get copies `k_0`, `k_1`, … with the same domain
 * constraints. An iname that is also a loop iname of some instruction is copied for every
 * reduction over it.
 *
 *   // a[i] = sum(k, x[k]) and b[i] = sum(k, y[k])  become  … sum(k, …) and … sum(k_0, …)
 *   makeReductionInamesUnique(k)
 */
export function makeReductionInamesUnique(k: Kernel, opts: UniqueOptions = {}): Kernel {
  const who = "makeReductionInamesUnique";
  checkKernel(k, who);
  opts = checkOptions(opts, who, UNIQUE_OPTIONS);
  const only = opts.inames === undefined ? undefined : nameList(opts.inames, `${who}: inames`);
  for (const i of only ?? []) checkIname(k, i, who);
  const ids = opts.within === undefined ? undefined : matchInsns(k, opts.within, who);
  const loops = new Set(k.instructions.flatMap((insn) => insn.withinInames));
  const seen = new Set<string>();
  const taken = takenNames(k);
  const copies: [string, string][] = [];
  // Count in instruction order, outer reductions first (as loopy's walk).
  const out = rename(k, ids, (r) => {
    const fresh = new Map<string, string>();
    for (const i of r.inames) {
      const repeated = seen.has(i) || loops.has(i);
      seen.add(i);
      if (!repeated || (only !== undefined && !only.includes(i))) continue;
      const name = uniqueName(i, taken);
      taken.add(name);
      copies.push([i, name]);
      fresh.set(i, name);
    }
    return fresh;
  });
  if (copies.length === 0) return k;
  const dependent = k.domains.findIndex((d) => d.params.some((p) => copies.some(([o]) => o === p)));
  if (dependent >= 0) throw new TransformError(`${who}: domain ${dependent} depends on a reduction iname that needs a copy; not supported`);
  let domains = out.domains;
  for (const [old, name] of copies) {
    const idx = domainIndexOf(out, old);
    domains = domains.map((d, n) => (n === idx ? duplicateAxes(d, [old], [name]) : d));
  }
  return withKernel(out, { domains });
}

/** Rewrite reductions outermost first; `fresh` gives each reduction's renamings. */
function rename(k: Kernel, ids: ReadonlySet<string> | undefined, fresh: (r: Reduce) => ReadonlyMap<string, string>): Kernel {
  const mapE = (e: Expr): Expr => mapExpr(e, (n) => {
    if (n.kind !== "reduce") return undefined;
    const m = fresh(n);
    const body = m.size === 0 ? n.body : rewriteExpr(n.body, { values: new Map([...m].map(([o, x]) => [o, v(x)])), inames: new Map() });
    const inames = n.inames.map((i) => m.get(i) ?? i);
    const inner = mapE(body);
    return m.size === 0 && inner === n.body ? n : { ...n, inames, body: inner };
  });
  const instructions = k.instructions.map((insn) =>
    insn.kind !== "assign" || (ids !== undefined && !ids.has(insn.id)) ? insn : { ...insn, lhs: mapE(insn.lhs), rhs: mapE(insn.rhs) });
  return withKernel(k, { instructions });
}
