/**
 * Global memory traffic with a simple cache model (kernelCost's bytes): per global array and
 * direction, the distinct elements each work-group touches, summed over the work-groups. A
 * work-group is a point of the kernel's g axes; a kernel with no g axis is one work-group, so a
 * matmul moves 3*n^2 elements, not 2*n^3 + n^2. An instruction that does not use a g axis runs,
 * as the per-work-item counts say, once: in work-group 0 along that axis.
 *
 * The count is exact: the set {(work-group, element)} of each access (the indices' image of the
 * access's iteration domain, the non-g inames projected out, exactly), several accesses to one
 * array united by inclusion–exclusion. Where that cannot be built (a non-affine or indirect
 * subscript, indices of several ranks, too many distinct accesses) the array's traffic is every
 * access, as getMemAccessMap counts it, and its `model` says so.
 *
 *   globalTraffic(matmul)   // a load: n^2 (distinct-per-workgroup), b load: n^2, c store: n^2
 */
import {
  exprToAff, findArg, findTemporary, iterationDomain,
  type Dtype, type Expr, type Kernel,
} from "../../ir/index.js";
import { aff, affSub, extendSet, intersect, isEmpty, isSubset, projectOut, setContentId, type Aff, type BasicSet } from "../../poly/index.js";
import { LoomError } from "../../errors.js";
import { Count, countSet } from "./count.js";
import { domainCounter, elementAccess, statisticsTypeEnv, walkKernel } from "./walk.js";

export type TrafficModel = "distinct-per-workgroup" | "every-access";

/** The global traffic of one array in one direction, in elements. */
export interface ArrayTraffic {
  readonly variable: string;
  readonly direction: "load" | "store";
  readonly dtype: Dtype;
  readonly elements: Count;
  readonly model: TrafficModel;
  /** Every load or store, as getMemAccessMap counts them (`elements` where the model is "every-access"). */
  readonly everyAccess: Count;
}

export interface TrafficOptions {
  /** "every-access": no cache model (each load and store counts, as getMemAccessMap's). Default: the cache model. */
  readonly model?: TrafficModel;
}

interface Use {
  readonly indices: readonly Expr[];
  readonly inames: readonly string[];
}

/** More distinct access sets than this to one array fall back to every access (2^n - 1 intersections). */
const MAX_UNION = 5;

/** Per global array and direction, the elements moved (see the module comment). */
export function globalTraffic(k: Kernel, opts: TrafficOptions = {}): ArrayTraffic[] {
  const env = statisticsTypeEnv(k);
  const points = domainCounter(k, {});
  const groups = new Map<string, { variable: string; direction: "load" | "store"; dtype: Dtype; uses: Use[]; every: Count }>();
  walkKernel(k, env, ({ node: visited, insn, inames, isStore }) => {
    const node = elementAccess(k, visited, insn);
    if (!node) return;
    const arg = findArg(k, node.array);
    if (arg?.kind !== "array") return;
    const direction = isStore ? "store" : "load";
    const key = `${direction}|${node.array}`;
    let g = groups.get(key);
    if (!g) {
      const dtype = env.varType(node.array);
      if (!dtype) throw new LoomError(`kernelCost: the dtype of "${node.array}" is not known; give it (addDtypes) before counting`);
      groups.set(key, (g = { variable: node.array, direction, dtype, uses: [], every: Count.constant(0) }));
    }
    g.uses.push({ indices: node.kind === "linear" ? [node.index] : node.indices, inames });
    g.every = g.every.add(points(inames));
  });
  const out: ArrayTraffic[] = [];
  for (const g of groups.values()) {
    const distinct = opts.model === "every-access" ? undefined : distinctElements(k, g.uses);
    out.push({
      variable: g.variable, direction: g.direction, dtype: g.dtype,
      elements: distinct ?? g.every, model: distinct ? "distinct-per-workgroup" : "every-access", everyAccess: g.every,
    });
  }
  return out.sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : a.direction < b.direction ? -1 : 1));
}

/** The g axes of the kernel (sorted) and, per g-tagged iname, its axis. */
function groupAxes(k: Kernel): { axes: number[]; axisOf: Map<string, number> } {
  const axisOf = new Map<string, number>();
  for (const [iname, t] of Object.entries(k.inameTags)) if (t.kind === "g") axisOf.set(iname, t.axis);
  return { axes: [...new Set(axisOf.values())].sort((a, b) => a - b), axisOf };
}

/** Σ over work-groups of the distinct elements `uses` touch, or undefined where it is not built here. */
function distinctElements(k: Kernel, uses: readonly Use[]): Count | undefined {
  const rank = uses[0]!.indices.length;
  if (uses.some((u) => u.indices.length !== rank)) return undefined;
  const { axes, axisOf } = groupAxes(k);
  const taken = new Set([...Object.keys(k.inameTags), ...k.domains.flatMap((d) => [...d.params, ...d.dims]), ...k.args.map((a) => a.name)]);
  const fresh = (base: string): string => {
    let name = base;
    for (let j = 0; taken.has(name); j++) name = `${base}_${j}`;
    taken.add(name);
    return name;
  };
  const groupDims = axes.map((a) => fresh(`group${a}`));
  const elementDims = Array.from({ length: rank }, (_, r) => fresh(`element${r}`));
  const sets: BasicSet[] = [];
  const counts = new Map<string, Count>();
  try {
    for (const u of uses) {
      const a = accessSet(k, u, axes, axisOf, groupDims, elementDims);
      if (!a) return undefined;
      sets.push(a.set);
      if (a.count) counts.set(setContentId(a.set), a.count);
    }
  } catch (e) {
    if (e instanceof LoomError) return undefined;
    throw e;
  }
  const union = withoutCovered(sets);
  if (union.length > MAX_UNION) return undefined;
  return inclusionExclusion(union, k.assumptions, counts);
}

/**
 * The set {(work-group, element)} of one access, or undefined when an index is not affine in
 * inames and parameters; with its count where the map from the inames it uses to (work-group,
 * element) is one-to-one (`x[2*i]`): the points of those inames, a closed form where the image set
 * has existentials and would be counted point by point.
 */
function accessSet(
  k: Kernel, u: Use, axes: readonly number[], axisOf: ReadonlyMap<string, number>,
  groupDims: readonly string[], elementDims: readonly string[],
): { set: BasicSet; count?: Count } | undefined {
  const dom = iterationDomain(k, u.inames);
  const inames = new Set(dom.dims);
  const params = new Set(dom.params);
  const isIndexVar = (n: string): boolean => !findTemporary(k, n) && (inames.has(n) || !findArg(k, n) || findArg(k, n)!.kind === "value");
  const affs: Aff[] = [];
  for (const ix of u.indices) {
    const a = exprToAff(ix, isIndexVar);
    if (!a) return undefined;
    for (const v of Object.keys(a.terms)) if (!inames.has(v)) params.add(v);
    affs.push(a);
  }
  const cs: { aff: Aff; eq: boolean }[] = affs.map((a, r) => ({ aff: affSub(aff({ [elementDims[r]!]: 1 }), a), eq: true }));
  axes.forEach((axis, x) => {
    const iname = [...inames].find((i) => axisOf.get(i) === axis);
    cs.push({ aff: iname ? affSub(aff({ [groupDims[x]!]: 1 }), aff({ [iname]: 1 })) : aff({ [groupDims[x]!]: 1 }), eq: true });
  });
  const s = extendSet(dom, [...params], [...dom.dims, ...groupDims, ...elementDims], cs);
  const set = projectOut(s, dom.dims);
  const rows = cs.map((c) => c.aff);
  const used = dom.dims.filter((i) => rows.some((r) => (r.terms[i] ?? 0) !== 0));
  if (used.length === 0 || rank(rows.map((r) => used.map((i) => r.terms[i] ?? 0))) < used.length) return { set };
  return { set, count: countSet(iterationDomain(k, used), k.assumptions) };
}

/** The rank of an integer matrix (rows of equal length), by fraction-free elimination. */
function rank(m0: readonly (readonly number[])[]): number {
  const m = m0.map((r) => [...r]);
  let r = 0;
  for (let c = 0; c < (m[0]?.length ?? 0) && r < m.length; c++) {
    const p = m.findIndex((row, i) => i >= r && row[c] !== 0);
    if (p < 0) continue;
    [m[r], m[p]] = [m[p]!, m[r]!];
    for (let i = r + 1; i < m.length; i++) {
      const f = m[i]![c]!;
      if (f === 0) continue;
      const g = m[r]![c]!;
      m[i] = m[i]!.map((x, j) => x * g - m[r]![j]! * f);
    }
    r++;
  }
  return r;
}

/** The sets, each once, without those inside another. */
function withoutCovered(sets: readonly BasicSet[]): BasicSet[] {
  const byContent = new Map<string, BasicSet>();
  for (const s of sets) byContent.set(setContentId(s), s);
  const list = [...byContent.values()];
  return list.filter((s, i) => !list.some((t, j) => j !== i && (j < i || !inside(t, s)) && inside(s, t)));
}

/** `a ⊆ b`, false where containment in `b`'s existentials is undecided (the union then keeps both). */
function inside(a: BasicSet, b: BasicSet): boolean {
  try {
    return isSubset(a, b);
  } catch (e) {
    if (e instanceof LoomError) return false;
    throw e;
  }
}

/** |∪ sets| = Σ over non-empty subsets of (-1)^(size+1) |∩ subset| (`counts`: known counts of single sets). */
function inclusionExclusion(sets: readonly BasicSet[], assumptions: BasicSet, counts: ReadonlyMap<string, Count>): Count {
  let out = Count.constant(0);
  const rec = (from: number, acc: BasicSet | undefined, size: number): void => {
    for (let i = from; i < sets.length; i++) {
      const s = acc ? intersect(acc, sets[i]!) : sets[i]!;
      // An empty intersection (x[2*i] and x[2*i + 1]) adds nothing, nor does any within it.
      if (acc && isEmpty(s)) continue;
      const known = acc ? undefined : counts.get(setContentId(s));
      out = out.add((known ?? countSet(s, assumptions)).scale(size % 2 === 0 ? 1 : -1));
      rec(i + 1, s, size + 1);
    }
  };
  rec(0, undefined, 0);
  return out;
}
