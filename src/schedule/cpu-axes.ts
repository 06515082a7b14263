/**
 * One loop per hardware axis for the CPU lowering (cpu.ts): the axis's iname, or a fresh one over
 * the axis's box where several inames share the axis or a lone iname's own bounds read values set
 * per work-item; the other inames are rewritten onto it and guarded by their own domains. The exact
 * elimination of existentials the guards and loop bounds need is exact-existentials.ts.
 */
import { predicateConditions } from "../analysis/footprint.js";
import { ScheduleError } from "../errors.js";
import {
  affToExpr, allInames, c, domainIndexOf, exprToAff, exprToString, findTemporary, insnDefaults, iterationDomain, mapInsnExprs, substitute,
  uniqueName, v,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { addConstraints, dimBounds, gist, intersect, rename, universe, type BasicSet, type Bound } from "../poly/index.js";
import { dropExistentialRows, eliminateExistentials } from "./exact-existentials.js";
import { axisRows, hwAxis } from "./device.js";
import { quoted } from "./source-places.js";
import type { DeviceKernel, HwAxis } from "./types.js";

/** What sharing axes changes in a kernel (made into one kernel with what privatizing changes). */
export type SharedFields = Pick<Kernel, "instructions" | "domains" | "temporaries">;

/** `Σ coef·name + constant` of one domain constraint as an expression (columns: params, dims; no existentials). */
function constraintExpr(d: BasicSet, coeffs: readonly number[], constant: number): Expr {
  const cols = [...d.params, ...d.dims];
  const terms: Record<string, number> = {};
  cols.forEach((name, idx) => {
    if (coeffs[idx]) terms[name] = coeffs[idx]!;
  });
  return affToExpr({ terms, constant });
}

/** Whether the domain of iname `x` has a temporary among its parameters (a bound set inside the kernel). */
function domainReadsTemporary(k: Kernel, x: string): boolean {
  return k.domains[domainIndexOf(k, x)]?.params.some((p) => findTemporary(k, p) !== undefined) === true;
}

/**
 * Whether iname `x`'s range, whatever the other inames, is exactly the box of its hardware axis
 * (how device.ts builds it: constant bounds where a side has any, else bounds of the parameters).
 */
function isWholeBox(k: Kernel, x: string, ax: HwAxis, inames: ReadonlySet<string>): boolean {
  if (!isAxisRange(k, x, ax)) return false;
  const d = k.domains[domainIndexOf(k, x)];
  if (!d || d.exists.length > 0) return false;
  // A domain that reads a temporary (`r_outer_inner` of `s + j + 16*r_outer_outer + 8*r_outer_inner < e`)
  // holds `x` only where the rest of it is not empty: the axis loop runs over a fresh box instead.
  if (domainReadsTemporary(k, x)) return false;
  const b = dimBounds(d, x, d.dims.filter((y) => y !== x));
  if (!b.exact) return false;
  const sideOk = (bs: readonly Bound[]): boolean => {
    const consts = bs.filter((q) => Object.keys(q.aff.terms).length === 0);
    if (consts.length === bs.length) return true;
    // Parametric sides: group axes, and local axes sized at launch (`0 <= j < n`).
    const parametric = ax.tag === "g" || ax.size.kind !== "const";
    return parametric && consts.length === 0 && bs.every((q) => Object.keys(q.aff.terms).every((n) => !inames.has(n)));
  };
  return sideOk(b.lower) && sideOk(b.upper);
}

/**
 * Whether iname `x` spans all of axis `ax`: inames of one axis may differ in size (sibling OKL
 * @inner loops, independent loops split onto one g axis); only one whose own range is the axis's
 * is the axis loop, the others are guarded.
 */
function isAxisRange(k: Kernel, x: string, ax: HwAxis): boolean {
  const own = hwAxis(k, x, ax.tag, ax.axis);
  return exprToString(own.base) === exprToString(ax.base) && exprToString(own.size) === exprToString(ax.size);
}

/**
 * `dom` within `around` without existentials, where `around` has its own (inames projected out
 * of the other instructions' domains: the original of a copy duplicateInames made, `r` beside
 * `r_d`), which the elimination would otherwise carry too: within its rows without them, a wider
 * context where `dom` keeps the rows they imply (`0 <= r_d`). Undefined where that fails.
 */
function withinLooseContext(dom: BasicSet, around: BasicSet): BasicSet | undefined {
  const loose = dropExistentialRows(around, around.dims);
  const d = gist(dom, loose);
  return d.exists.length === 0 ? d : eliminateExistentials(d, loose);
}

/**
 * The constraints of the iteration domain of `within` (an instruction's inames) that mention `x`
 * and are not implied where the instruction runs — the other inames in their domains, `x` over
 * `box` (the range of the axis loop that replaces it), the assumptions — as predicates
 * (`expr >= 0`, `expr == 0`). Inside `for j in 0..15` a `0 <= x < 16` needs no guard.
 */
function domainPredicates(k: Kernel, x: string, within: readonly string[], box: BasicSet, where: string, predicates: readonly Expr[] = []): Expr[] {
  const rest = within.filter((i) => i !== x);
  let around = intersect(intersect(rest.length > 0 ? iterationDomain(k, rest) : universe([], []), box), k.assumptions);
  // The instruction's own affine predicates hold wherever it runs (they are guarded themselves):
  // where a loop got uniform bounds for a barrier, its exact bounds are such predicates, and the
  // domain keeps only their projection (an existential), which they imply.
  const inames = new Set(within);
  const values = new Set(k.args.filter((a) => a.kind === "value").map((a) => a.name));
  const conds = predicates.flatMap((p) => predicateConditions(p, (n) => inames.has(n) || values.has(n)));
  if (conds.length > 0) around = addConstraints(around, conds);
  const dom = iterationDomain(k, within);
  let d = gist(dom, around);
  if (d.exists.length > 0) {
    // The context's existentials first made exact, or left out, so that the elimination need not carry them.
    const exact = around.exists.length > 0 ? eliminateExistentials(around, universe(around.params, around.dims)) : undefined;
    if (exact !== undefined) {
      around = exact;
      d = gist(dom, around);
    }
    const flat = d.exists.length === 0 ? d : (around.exists.length > 0 ? withinLooseContext(dom, around) : undefined) ?? eliminateExistentials(d, around);
    if (flat) d = gist(flat, around);
  }
  const col = d.params.length + d.dims.indexOf(x);
  const out: Expr[] = [];
  for (const con of d.constraints) {
    if (!con.coeffs[col]) continue;
    if (con.coeffs.slice(d.params.length + d.dims.length).some((q) => q !== 0)) {
      throw new ScheduleError(`lowerForCpu: ${where}: the domain of "${x}" has existential constraints; cannot guard it on a shared loop`);
    }
    out.push({ kind: "compare", op: con.eq ? "==" : ">=", left: constraintExpr(d, con.coeffs, con.constant), right: c(0) });
  }
  return out;
}

/**
 * One loop per hardware axis. Preprocessing puts several inames on one axis (the stages of a local
 * tree reduction, `k` and `red_k_s0`…, each over the same range): the axis gets one loop iname —
 * the first (by name) whose range is the whole box, else (local axes) a fresh iname over the box —
 * and every other iname `o` of the axis is replaced by it in the instructions using it (`o := rep -
 * base_rep + base_o`, which is `rep`: the inames of one axis share base and size), and those keep
 * the constraints of `o`'s domain as predicates where the box does not imply them. An axis in
 * `boxed` (`l.1`) gets the same treatment with a single iname: its loop spans the work-group.
 * Returns the kernel with those instructions rewritten and the axes with their loop inames.
 */
export function shareAxes(
  k: Kernel, dk: DeviceKernel, ids: ReadonlySet<string>, boxed: ReadonlySet<string> = new Set(),
): { changes: SharedFields | undefined; groupAxes: HwAxis[]; localAxes: HwAxis[]; sizeInsns: string[]; groupSizeInsns: string[] } {
  const inames = new Set(allInames(k));
  const onAxis = new Map<string, string[]>();
  for (const insn of k.instructions) {
    if (!ids.has(insn.id)) continue;
    const seen = new Map<string, string>();
    for (const i of insn.withinInames) {
      const tag = k.inameTags[i];
      if (tag?.kind !== "g" && tag?.kind !== "l") continue;
      const key = `${tag.kind}.${tag.axis}`;
      const prev = seen.get(key);
      if (prev !== undefined) {
        throw new ScheduleError(`lowerForCpu: instruction ${quoted(k, insn.id)} of device kernel "${dk.name}" runs within inames ${quoted(k, prev)} and ${quoted(k, i)}, both on axis ${key}`);
      }
      seen.set(key, i);
      const list = onAxis.get(key) ?? [];
      if (!list.includes(i)) list.push(i);
      onAxis.set(key, list);
    }
  }
  const subst = new Map<string, string>();
  /** Per guarded iname, the range of the loop that replaces it (over the guarded iname's name). */
  const guarded = new Map<string, BasicSet>();
  const domains = [...k.domains];
  const taken = new Set([...inames, ...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name)]);
  const sizes: { temp: string; size: Expr; group: boolean }[] = [];
  const rewriteAxis = (ax: HwAxis): HwAxis => {
    const key = `${ax.tag}.${ax.axis}`;
    const names = [...(onAxis.get(key) ?? [])].sort();
    // A lone iname keeps its own loop unless its domain reads a temporary (`[s, e] -> …` set per
    // work-item): the axis loop is outside every work-item's code, where no such value is set yet,
    // so it runs over the box and the iname's own constraints become guards inside.
    if (names.length === 0 || (names.length === 1 && !boxed.has(key) && !domainReadsTemporary(k, names[0]!))) return ax;
    let rep = names.find((x) => isWholeBox(k, x, ax, inames));
    let box = (o: string): BasicSet => rename(iterationDomain(k, [rep!]), { [rep!]: o });
    if (rep === undefined) {
      const base = exprToAff(ax.base);
      if (!base) {
        throw new ScheduleError(`lowerForCpu: device kernel "${dk.name}" uses inames ${names.join(", ")} on axis ${key}, none over the whole range of the axis, and its base ${exprToString(ax.base)} is not affine; cannot give them one loop`);
      }
      rep = uniqueName(`${names[0]}_${ax.tag}${ax.axis}`, taken);
      taken.add(rep);
      // base <= o < base + size over the parameters (`16*(o + 1) <= n + 16` for `(n + 16)//16`).
      const over = (o: string, a: HwAxis) => {
        const rows = axisRows(a, o);
        const params = [...new Set(rows.flatMap((r) => Object.keys(r.aff.terms)).filter((x) => x !== o))];
        return rows.length === 2 ? addConstraints(universe(params, [o]), rows) : undefined;
      };
      if (over(rep, ax)) {
        domains.push(over(rep, ax)!);
        box = (o) => over(o, ax)!;
      } else {
        // A size no affine bound states (`max(n, 4)` of sibling loops): computed into a temporary
        // before the axis loop (at the top of each group for a local axis, of the kernel for a
        // group axis), which bounds it (as a trip count does).
        const n = uniqueName(`${rep}_size`, taken);
        taken.add(n);
        sizes.push({ temp: n, size: ax.size, group: ax.tag === "g" });
        const sized: HwAxis = { ...ax, size: v(n) };
        domains.push(over(rep, sized)!);
        box = (o) => over(o, sized)!;
      }
    }
    for (const o of names) {
      if (o === rep) continue;
      // `o := rep - base_rep + base_o`; device.ts checks that the inames of one axis share the base.
      subst.set(o, rep);
      if (!isWholeBox(k, o, ax, inames)) guarded.set(o, box(o));
    }
    return { ...ax, iname: rep };
  };
  const groupAxes = dk.groupAxes.map(rewriteAxis);
  const localAxes = dk.localAxes.map(rewriteAxis);
  if (subst.size === 0) return { changes: undefined, groupAxes, localAxes, sizeInsns: [], groupSizeInsns: [] };
  // An iname replaced by its axis loop's may be a parameter of an inner loop's domain (`r` from
  // `s + n_0`): that domain now reads the loop's iname, or the inner loop's bounds would lose it.
  for (let at = 0; at < domains.length; at++) {
    const d = domains[at]!;
    const map: Record<string, string> = {};
    for (const p of d.params) if (subst.has(p)) map[p] = subst.get(p)!;
    if (Object.keys(map).length > 0) domains[at] = renameParams(d, map, dk.name);
  }
  // What an instruction's rewrite needs depends on its inames only: made once per list of them
  // (a big kernel's thousands of instructions share a few).
  type Rewrite = { readonly mine: readonly string[]; readonly sb: (e: Expr) => Expr; readonly within: readonly string[]; readonly guardedInames: readonly string[] };
  const rewrites = new Map<string, Rewrite | undefined>();
  const rewriteOf = (inames: readonly string[]): Rewrite | undefined => {
    const key = inames.join(" ");
    if (rewrites.has(key)) return rewrites.get(key);
    const mine = inames.filter((i) => subst.has(i));
    let r: Rewrite | undefined;
    if (mine.length > 0) {
      const local = new Map<string, Expr>(mine.map((i) => [i, v(subst.get(i)!)]));
      r = {
        mine, sb: (e: Expr) => substitute(e, local), within: [...new Set(inames.map((i) => subst.get(i) ?? i))].sort(),
        guardedInames: mine.filter((i) => guarded.has(i)),
      };
    }
    rewrites.set(key, r);
    return r;
  };
  const instructions = k.instructions.map((insn): Instruction => {
    if (!ids.has(insn.id)) return insn;
    const r = rewriteOf(insn.withinInames);
    if (r === undefined) return insn;
    const { sb, within, guardedInames } = r;
    // Each constraint once: `16*i_outer + i_inner < n` guards both inames of a split.
    let guards: Expr[] = [];
    if (guardedInames.length > 0) {
      const seen = new Set(insn.predicates.map(exprToString));
      guards = guardedInames
        .flatMap((i) => domainPredicates(k, i, insn.withinInames, guarded.get(i)!, `instruction "${insn.id}" of device kernel "${dk.name}"`, insn.predicates))
        .filter((g) => !seen.has(exprToString(g)) && seen.add(exprToString(g)));
    }
    return { ...mapInsnExprs(guards.length > 0 ? { ...insn, predicates: [...insn.predicates, ...guards] } : insn, sb), withinInames: within };
  });
  const temporaries = [...k.temporaries];
  const sizeInsns: string[] = [];
  const groupSizeInsns: string[] = [];
  const groupInames = groupAxes.map((g) => g.iname).sort();
  for (const { temp, size, group } of sizes) {
    temporaries.push({ name: temp, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
    const id = uniqueName(`${temp}_insn`, new Set([...taken, ...k.instructions.map((x) => x.id)]));
    instructions.push(Object.assign(insnDefaults(id), { kind: "assign" as const, lhs: v(temp), rhs: size, atomicity: "none" as const, withinInames: group ? [] : groupInames }));
    (group ? groupSizeInsns : sizeInsns).push(id);
  }
  return { changes: { instructions, domains, temporaries }, groupAxes, localAxes, sizeInsns, groupSizeInsns };
}

/**
 * Domain `d` with parameters renamed by `map` (an iname of a shared axis to the axis loop's iname);
 * where the new name is already a parameter or an iname of `d`, both must be one value: refused.
 */
function renameParams(d: BasicSet, map: Readonly<Record<string, string>>, dkName: string): BasicSet {
  const clash = Object.entries(map).find(([, to]) => d.params.includes(to) || d.dims.includes(to));
  if (clash) {
    throw new ScheduleError(
      `lowerForCpu: device kernel "${dkName}": the domain of ${d.dims.map((x) => `"${x}"`).join(", ")} has both "${clash[0]}" and "${clash[1]}" as parameters or inames, ` +
      `and CPU targets run both on one loop over "${clash[1]}"; give the inner loop bounds in one of them`);
  }
  return rename(d, map);
}
