/**
 * Work-group tags of the new inames of a prefetch or precompute (transforms/fetch-store.ts): a tag
 * spec, loopy's automatic local axes ("l.auto": split or widened to the work-group's size), and
 * the constraints of a widened iname as predicates.
 */
import { LoomError, TransformError } from "../src/errors.js";
import { iterationDomain, parseInameTag, uniqueName, type Expr, type InameTag, type Instruction, type Kernel } from "../src/ir/index.js";
import { affIsConstant, affSub, dimBounds, factorOf, type BasicSet } from "../src/poly/index.js";
import { replaceInameInInsn } from "./common.js";
import { checkLocalTagHasValues, splitIname, splitValue, tagInames } from "./iname.js";
import { splitDomain } from "./split-origin.js";
import { widenDomain, widenIname } from "./fetch-widen.js";

export { constraintExpr } from "./fetch-widen.js";

/** A tag for the new inames: one for all, one per iname (list, or record by name); null = sequential. */
export type FetchTagSpec = string | null | readonly (string | null)[] | Readonly<Record<string, string | null>>;

/**
 * The set whose bounds of `iname` give its work-group size (sizeOf): the factor of `iname` in its
 * domain (`(i_outer, i_inner)` of a tiled domain, the same object whatever else the kernel holds,
 * and in content the same for every variant of a sweep with that tile size) where that domain is
 * the iname's whole chain (no parameter of it is an iname of another domain): its projection on
 * `iname` is `iterationDomain(k, [iname])`, which projects the same factor (the others only say
 * what holds of the parameters), so the bounds read off it are the same. Else the exact route,
 * `iterationDomain` (parents' domains intersected first).
 */
const localSizesByFactor = { on: true };

/** Tests: the work-group sizes read off the iname's factor (default) or off its iteration domain (the exact route). */
export function useLocalSizesByFactor(on: boolean): void {
  localSizesByFactor.on = on;
}

/** The constant size of the work-group along each local axis the kernel already uses. */
export function localSizes(k: Kernel, exclude: ReadonlySet<string>): Map<number, number> {
  const out = new Map<number, number>();
  const tags = k.inameTags;
  for (const iname in tags) {
    const tag = tags[iname]!;
    if (tag.kind !== "l" || exclude.has(iname) || out.has(tag.axis)) continue;
    const best = sizeOf(k, iname);
    if (best !== undefined) out.set(tag.axis, best);
  }
  return out;
}

/**
 * Sizes read off a domain's factor, by the domain object and the iname (the factor is a function
 * of that object alone): a fetch after another in the same kernel's line (prefetch b
 * after prefetch a) asks of the same domain objects.
 */
const sizesByOwner = new WeakMap<BasicSet, Map<string, number | null>>();

/** The least constant size of `iname`'s range (undefined: none, or not decidable). */
function sizeOf(k: Kernel, iname: string): number | undefined {
  let owner: BasicSet | undefined;
  if (localSizesByFactor.on) {
    // (Indexed loops over the kernel's frozen arrays: V8's some() and for-of over them are slow.)
    const ds = k.domains;
    for (let i = 0; i < ds.length; i++) if (ds[i]!.dims.includes(iname)) owner = ds[i];
    for (let j = 0; owner !== undefined && j < owner.params.length; j++) {
      for (let i = 0; i < ds.length; i++) {
        if (ds[i]!.dims.includes(owner.params[j]!)) {
          owner = undefined;
          break;
        }
      }
    }
  }
  const known = owner === undefined ? undefined : sizesByOwner.get(owner)?.get(iname);
  if (known !== undefined) return known ?? undefined;
  let best: number | undefined;
  try {
    const d = owner !== undefined ? factorOf(owner, iname) : iterationDomain(k, [iname]);
    const b = dimBounds(d, iname, []);
    for (const lo of b.lower) {
      for (const hi of b.upper) {
        if (lo.denom !== 1 || hi.denom !== 1) continue;
        const diff = affSub(hi.aff, lo.aff);
        if (affIsConstant(diff) && (best === undefined || diff.constant + 1 < best)) best = diff.constant + 1;
      }
    }
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
  }
  if (owner !== undefined && Object.isFrozen(owner)) {
    let m = sizesByOwner.get(owner);
    if (m === undefined) sizesByOwner.set(owner, (m = new Map()));
    m.set(iname, best ?? null);
  }
  return best;
}

/** The tag of each new iname that `spec` gives (null: none). */
export function perInameTags(spec: FetchTagSpec, inames: readonly string[], who: string): (string | null)[] {
  // (Built by push, not map(): see fetch-store.ts's `stored`.)
  if (spec === null || typeof spec === "string") {
    const out: (string | null)[] = [];
    for (let j = 0; j < inames.length; j++) out.push(spec);
    return out;
  }
  let perIname: (string | null)[];
  if (Array.isArray(spec)) {
    if (spec.length !== inames.length) throw new TransformError(`${who}: defaultTag lists ${spec.length} tags for ${inames.length} inames (${inames.join(", ")})`);
    perIname = [...spec];
  } else if (typeof spec === "object") {
    const rec = spec as Readonly<Record<string, string | null>>;
    for (const key of Object.keys(rec)) if (!inames.includes(key)) throw new TransformError(`${who}: defaultTag names "${key}", which is not one of the new inames ${inames.join(", ")}`);
    perIname = inames.map((n) => rec[n] ?? null);
  } else {
    throw new TransformError(`${who}: defaultTag must be a tag string, null, a list or a record of tags; got ${JSON.stringify(spec)}`);
  }
  return perIname;
}

/** A split or widening of a new iname to the work-group's size on a local axis (a step of a `TagPlan`). */
interface TagStep {
  readonly kind: "split" | "widen";
  readonly iname: string;
  readonly size: number;
  readonly axis: number;
}

/** What `applyTags` does: splits and widenings in order, then the tags (by iname, in insertion order). */
interface TagPlan {
  readonly steps: readonly TagStep[];
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * The plan of `applyTags`: `inameTags` are the kernel's tags, `storeWithin` the store's inames.
 * l.auto: fastest-varying axis first onto l.0, l.1, …, split to the work-group's size (a split's
 * inner iname is tagged by the split), widened when shorter than it.
 */
function tagPlan(
  inameTags: Kernel["inameTags"], storeWithin: readonly string[], inames: readonly string[], extents: readonly number[],
  perIname: readonly (string | null)[], order: "C" | "F", sizes: ReadonlyMap<number, number>,
): TagPlan {
  const steps: TagStep[] = [];
  const explicit: Record<string, string> = {};
  // Local axes taken by an explicit `l.N` (one digit), by bit.
  let used = 0;
  for (let r = 0; r < inames.length; r++) {
    const t = perIname[r];
    if (t === null || t === undefined || t === "l.auto") continue;
    explicit[inames[r]!] = t;
    if (t.length === 3 && t[0] === "l" && t[1] === "." && t[2]! >= "0" && t[2]! <= "9") used |= 1 << Number(t[2]);
  }
  // The store's own outer inames on local axes (a redundant fetch within i_inner) keep theirs.
  for (const o of storeWithin) {
    const t = inameTags[o];
    if (t?.kind === "l" && !inames.includes(o)) used |= 1 << t.axis;
  }
  // l.auto: the fastest-varying axis first (the last in C order).
  let axis = 0;
  const n = inames.length;
  for (let x = 0; x < n; x++) {
    const r = order === "C" ? n - 1 - x : x;
    if (perIname[r] !== "l.auto") continue;
    while ((used >> axis) & 1) axis++;
    const iname = inames[r]!;
    if (axis > 2) {
      explicit[iname] = "l.auto";
      continue;
    }
    const size = sizes.get(axis);
    if (size !== undefined && extents[r]! > size) {
      steps.push({ kind: "split", iname, size, axis });
    } else if (size !== undefined && extents[r]! < size) {
      // Inames on one local axis share its range: run over the whole axis, guarded.
      steps.push({ kind: "widen", iname, size, axis });
      explicit[iname] = `l.${axis}`;
    } else {
      explicit[iname] = `l.${axis}`;
    }
    axis++;
  }
  return { steps, tags: explicit };
}

/**
 * Tag (or split and tag) the new inames as `perIname` says. `extents`: Infinity where the extent
 * is a parameter (an l.auto iname then is split by the work-group's size, when known).
 */
export function applyTags(
  k: Kernel, inames: readonly string[], extents: readonly number[], perIname: readonly (string | null)[], order: "C" | "F", insnId: string, who: string,
  sizes: ReadonlyMap<number, number> = localSizes(k, new Set(inames)),
): Kernel {
  if (inames.length === 0 || perIname.every((t) => t === null)) return k;
  const within = k.instructions.find((i) => i.id === insnId)?.withinInames ?? [];
  const plan = tagPlan(k.inameTags, within, inames, extents, perIname, order, sizes);
  let out = k;
  for (const s of plan.steps) {
    out = s.kind === "split" ? splitIname(out, s.iname, s.size, { innerTag: `l.${s.axis}` }) : widenIname(out, s.iname, s.size, insnId, who);
  }
  return Object.keys(plan.tags).length > 0 ? tagInames(out, plan.tags) : out;
}

const storeAlone = { on: true, taken: 0 };

/** How many fetches were tagged on the store alone (tests: the fast path is taken). */
export function storeAloneTaggings(): number {
  return storeAlone.taken;
}

/** Tests: `tagStoreAlone` on (default) or off, so that a fetch takes the exact route (tagging the built kernel). */
export function useStoreAloneTagging(on: boolean): void {
  storeAlone.on = on;
}

/** A store's domain and instruction, and the kernel's tags and slabs, once its new inames are tagged. */
export interface TaggedStore {
  readonly dom: BasicSet;
  readonly store: Instruction;
  readonly inameTags: Kernel["inameTags"];
  /** Undefined: as the kernel's (no split made new ones). */
  readonly inameSlabs: Kernel["inameSlabs"] | undefined;
}

/**
 * `applyTags` on the store alone, before its kernel is built. The new inames are the store's own:
 * dims of its domain only (no other domain's parameters: their names are new), in no other
 * instruction and no loop priority. So splitting, widening and tagging them changes only that
 * domain, the store and the tags, and is done here on the store and its domain directly: the plan
 * `applyTags` follows (`tagPlan`), each split the domain's splitDim and the store's rewrite that
 * splitIname makes, each widening widenIname's (`widenDomain`), each tag tagInames' (its check
 * that a local iname has values; the others cannot fire: the new inames have no tag yet, and a
 * private temporary written within one is checked on the built kernel by the caller). No kernel
 * is built or frozen for it, step by step. `k`: the
 * kernel before the store is added, whose local sizes the built one shares (no domain of `k` has
 * a new iname). `taken`: every name the built kernel holds; a split's new names are picked from
 * it, as splitIname picks them from that kernel. Undefined where this does not hold: rules, which
 * could mention any name, and tags other than `l.N`, `g.N` and `l.auto` (`like.i` names an iname
 * of the whole kernel); the caller then tags the built kernel. `hasPoints`: the caller knows that
 * `dom` has points (a fetch's domain holds its footprint's): tagInames' test that a local iname has
 * values then cannot fire (splits keep points, widenings only add), and is not asked.
 */
export function tagStoreAlone(
  k: Kernel, dom: BasicSet, store: Instruction, inames: readonly string[], extents: readonly number[],
  perIname: readonly (string | null)[], order: "C" | "F", who: string, taken: ReadonlySet<string>, hasPoints = false,
): TaggedStore | undefined {
  if (!storeAlone.on || k.substitutions.length > 0) return undefined;
  // (Indexed loops, not every(): see fetch-store.ts's `stored`.)
  let none = true;
  let auto = false;
  for (let j = 0; j < perIname.length; j++) {
    const t = perIname[j]!;
    if (t === null) continue;
    if (t !== "l.auto" && !/^[lg]\.\d$/.test(t)) return undefined;
    none = false;
    if (t === "l.auto") auto = true;
  }
  if (inames.length === 0 || none) return { dom, store, inameTags: k.inameTags, inameSlabs: undefined };
  // The work-group's sizes are read only for l.auto (tagPlan's automatic axes).
  const sizes = auto ? localSizes(k, new Set(inames)) : new Map<number, number>();
  const plan = tagPlan(k.inameTags, store.withinInames, inames, extents, perIname, order, sizes);
  // The kernel's names, copied at the first split that picks new ones (most fetches split nothing).
  let names: Set<string> | undefined;
  const pick = (base: string): string => {
    const n = uniqueName(base, (names ??= new Set(taken)));
    names.add(n);
    return n;
  };
  // The plan's steps on the store and its domain, as splitIname, widenIname and tagInames do them
  // on a kernel that holds only these (tests compare with that route, field order included).
  let d = dom;
  let s = store;
  // (A for-in copy, not a spread: spreading a frozen record is V8's slow path; same order.)
  const tags: Record<string, InameTag> = {};
  for (const n in k.inameTags) tags[n] = k.inameTags[n]!;
  let slabs: Kernel["inameSlabs"] | undefined;
  const tag = (iname: string, text: string): void => {
    const t = parsedTag(text);
    tags[iname] = t;
    if (!hasPoints && (t.kind === "l" || t.kind === "l.auto")) checkLocalTagHasValues(d, iname, t, "tagInames");
  };
  for (const step of plan.steps) {
    if (step.kind === "split") {
      const outer = pick(`${step.iname}_outer`);
      const inner = pick(`${step.iname}_inner`);
      // The split iname is no name of the kernel any more (the next pick may take it).
      names!.delete(step.iname);
      d = splitDomain(d, step.iname, outer, inner, step.size);
      s = replaceInameInInsn(s, step.iname, splitValue(outer, inner, step.size), [outer, inner]);
      // splitIname gives the kernel slabs without the split iname's (a new record, as it does).
      const { [step.iname]: _slab, ...rest } = slabs ?? k.inameSlabs ?? {};
      slabs = rest;
      tag(inner, `l.${step.axis}`);
    } else {
      const w = widenDomain(d, step.iname, step.size, who);
      d = w.dom;
      const predicates: Expr[] = [];
      for (let j = 0; j < s.predicates.length; j++) predicates.push(s.predicates[j]!);
      for (let j = 0; j < w.predicates.length; j++) predicates.push(w.predicates[j]!);
      s = { ...s, predicates };
    }
  }
  // tagInames checks the new local tags in the order of the kernel's tags, after the splits' own.
  for (const iname in plan.tags) tags[iname] = parsedTag(plan.tags[iname]!);
  for (const iname of Object.keys(plan.tags)) {
    const t = tags[iname]!;
    if (!hasPoints && (t.kind === "l" || t.kind === "l.auto")) checkLocalTagHasValues(d, iname, t, "tagInames");
  }
  storeAlone.taken++;
  return { dom: d, store: s, inameTags: tags, inameSlabs: slabs };
}

/** The plan's tags (`l.N`, `g.N`, `l.auto`, as tagStoreAlone takes them) parsed once each: frozen, shared. */
const parsedTags = new Map<string, InameTag>();

function parsedTag(text: string): InameTag {
  let t = parsedTags.get(text);
  if (t === undefined) {
    t = Object.freeze(parseInameTag(text)) as InameTag;
    if (text === "l.auto" || /^[lg]\.\d$/.test(text)) parsedTags.set(text, t);
  }
  return t;
}

/** The tag strings a tag spec names. */
export function tagStrings(spec: FetchTagSpec): string[] {
  if (spec === null || spec === undefined) return [];
  if (typeof spec === "string") return [spec];
  if (Array.isArray(spec)) return spec.filter((t): t is string => typeof t === "string");
  if (typeof spec === "object") return Object.values(spec as Record<string, string | null>).filter((t): t is string => typeof t === "string");
  return [];
}
