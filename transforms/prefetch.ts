/**
 * Prefetch and precompute (loopy/transform/precompute.py, add_prefetch): store the footprint of
 * an array's reads (or of a substitution rule's uses) over some sweep inames into a temporary,
 * and read from it instead.
 *
 * Implemented directly rather than as loopy's extract_subst + precompute: both share one core
 * (`storeFootprint`) that differs only in what is stored (the array's element, or the rule's
 * value) and what is replaced (subscripts, or calls).
 */
import { LoomError, TransformError } from "../src/errors.js";
import {
  accessesInside, accessFootprint, affToExpr, exprToAff, findAccesses, FootprintError, instructionInames, type Access, type Footprint, type UseFilter,
} from "../src/analysis/index.js";
import {
  allInames, assigneeName, c, exprEquals, exprToString, findArg, freeVariables, findSubstitution, findTemporary, insnDefaults, insnWrites,
  iterationDomain, mapExpr, parseDtype, reductionInames, naturalCompare, sub, substitute as substituteExpr, uniqueName, v, withKernel,
  type AddressSpace, type Assignment, type Dtype, type Expr, type Instruction, type Kernel, type SubstitutionRule, type Temporary,
} from "../src/ir/index.js";
import {
  aff, affAdd, affIsConstant, affSub, dimBounds, gist, intersect, isEmptyWith, moveToDims, moveToParams, projectOut, reorderDims, rename, substitute, addConstraints,
  type Aff, type BasicSet, type Constraint,
} from "../src/poly/index.js";
import { inameList, matchInsns, takenNames, type InsnMatch } from "./common.js";
import { parseTemplate } from "./template.js";
import { expandSubst } from "./subst.js";
import { splitIname, tagInames } from "./iname.js";
import { addBarrier } from "./instruction.js";
import { invocationCandidates, invocations, listUses, parseUses, sameExpr, useFilter, type UseRequest } from "./subst-use.js";
import { existingTemporary } from "./reuse-temporary.js";

/** A tag for the new inames: one for all, one per iname (list, or record by name); null = sequential. */
export type FetchTagSpec = string | null | readonly (string | null)[] | Readonly<Record<string, string | null>>;

export interface PrefetchOptions {
  /** Inames whose whole range the footprint covers (`"i_inner,k_inner"` or a list). Default: none. */
  readonly sweepInames?: string | readonly string[];
  /** Names of the fetch inames, one per stored axis (default `a_dim_0`, `a_dim_1`, …). */
  readonly dimArgNames?: string | readonly string[];
  /** Default `${var}_fetch`. */
  readonly temporaryName?: string;
  /** Default "local". */
  readonly temporaryAddressSpace?: AddressSpace;
  /**
   * Tag of the fetch inames. Default "l.auto" for a local (or global) temporary, null (sequential
   * loops) for a private one, whose store runs within one work-item (l/g tags on it are an error).
   * "l.auto": the axis of the array that varies fastest goes on
   * l.0, the next on l.1, …; an iname longer than the work-group's size on that axis is split by
   * that size and its inner part tagged (as loopy's automatic local axes do).
   */
  readonly defaultTag?: FetchTagSpec;
  /** Inames the fetch instruction runs within (default: the non-swept inames the footprint depends on). */
  readonly fetchOuterInames?: string | readonly string[];
  /** Fetch the footprint's bounding box even when the footprint is not a box (default false). */
  readonly fetchBoundingBox?: boolean;
  /** Id of the fetch instruction (default `${var}_fetch_rule`). */
  readonly prefetchInsnId?: string;
  /** Only the reads in these instructions (a match expression or a list) read the fetched copy; the others still read the array. */
  readonly within?: InsnMatch;
}

export interface PrecomputeOptions {
  /** Default `${rule}_0`. */
  readonly temporaryName?: string;
  /** Names of the precompute inames, one per stored axis (default `${rule}_dim_0`, …). */
  readonly precomputeInames?: string | readonly string[];
  /** Inames the compute instruction runs within (default: the non-swept inames the footprint depends on). */
  readonly precomputeOuterInames?: string | readonly string[];
  /** Default "auto" (local when a precompute iname is `l`-tagged, else private). */
  readonly temporaryAddressSpace?: AddressSpace | "auto";
  /** Default null: sequential loops. "l.auto" as in addPrefetch. */
  readonly defaultTag?: FetchTagSpec;
  readonly fetchBoundingBox?: boolean;
  /** Id of the compute instruction (default `compute_${rule}`). */
  readonly computeInsnId?: string;
  /** Only replace the uses in these instruction ids. */
  readonly within?: string | readonly string[];
  /**
   * loopy's storage_axes: the axes of the temporary, in order (the first varies slowest). Each is
   * an argument of the rule (by name, or by position: `0`), or an iname of the instructions that
   * use the rule (its value at each use indexes the temporary). An argument left out is not
   * stored: it must be the same expression at every use, and not vary with the sweep. Default
   * (as loopy's): the swept inames that the rule's value uses, then every argument. Axes of
   * extent 1 are dropped.
   */
  readonly storageAxes?: string | readonly (string | number)[];
  /** Tags of the precompute inames by storage axis (`{ x: "l.0" }`); the others get defaultTag. */
  readonly storageAxisToTag?: Readonly<Record<string, string | null>>;
  /**
   * loopy's dtype: the temporary's type (`"float64"`, `"double"`, …); the compute instruction
   * converts the rule's value to it as C's assignment does. Default: inferred from the rule's value.
   */
  readonly dtype?: string;
}

const nameList = (x: string | readonly string[] | undefined, what: string, who: string): string[] | undefined => {
  if (x === undefined) return undefined;
  const list = typeof x === "string" ? x.split(",").map((s) => s.trim()).filter((s) => s.length > 0) : x;
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string")) {
    throw new TransformError(`${who}: ${what} must be "i,j" or a list of names; got ${JSON.stringify(x)}`);
  }
  return [...list];
};

/** What the core stores and replaces. */
interface StoreRequest {
  readonly who: string;
  /** The array or rule name. */
  readonly name: string;
  /** The stored value at footprint point `idx` (one expression per axis). */
  readonly valueAt: (idx: readonly Expr[]) => Expr;
  readonly insnIds: readonly string[];
  readonly sweep: readonly string[];
  readonly outer: readonly string[] | undefined;
  readonly tempName: string;
  readonly dimNames: readonly string[] | undefined;
  readonly dimBase: string;
  readonly insnId: string;
  readonly space: AddressSpace | "auto";
  readonly tag: FetchTagSpec;
  readonly boundingBox: boolean;
  readonly dtype: Temporary["dtype"];
  readonly order: "C" | "F";
  /** The array's shape, when known: the store never reads outside it. */
  readonly shape?: readonly Expr[] | undefined;
  /** The indices that span the footprint at a use (default: its subscript or arguments). */
  readonly axesOf?: (indices: readonly Expr[]) => Expr[];
  /** A name per footprint axis, the keys of `axisTags`. */
  readonly axisKeys?: readonly string[];
  readonly axisTags?: Readonly<Record<string, string | null>>;
  /** Inames the store runs within besides those the footprint depends on (default outer inames only). */
  readonly extraOuter?: readonly string[];
  /** Whether an "auto" temporary whose extent is a parameter becomes global (precompute); otherwise only an explicit "global" allows it. */
  readonly autoGlobal?: boolean;
  /** Only these uses are replaced (tagged uses, uses inside an invocation's footprint); default every use in the instructions. */
  readonly select?: UseFilter | undefined;
  /**
   * Where the footprint comes from when not from the replaced uses: the uses `uses` keeps and the
   * `invocations` (precompute's footprint generators, which every replaced use lies inside).
   */
  readonly generators?: { readonly uses: UseFilter; readonly invocations: readonly Access[] };
  /** Whether `tempName` may name an existing temporary, which is then reused if it fits (precompute's temporaryName). */
  readonly reuseTemporary?: boolean;
}

function footprintOrThrow(
  k: Kernel, who: string, name: string, insnIds: readonly string[], sweep: readonly string[], dependsOnly = false,
  axesOf?: (indices: readonly Expr[]) => Expr[], select?: UseFilter, generators?: StoreRequest["generators"],
): Footprint {
  try {
    return accessFootprint(k, name, {
      insnIds, sweepInames: sweep, dependsOnly, ...(axesOf ? { mapIndices: (a) => axesOf(a.indices) } : {}),
      ...(generators ? { select: generators.uses, invocations: generators.invocations } : select ? { select } : {}),
    });
  } catch (e) {
    if (e instanceof FootprintError) throw new TransformError(`${who}: ${e.message}`);
    throw e;
  }
}

/** The constant size of the work-group along each local axis the kernel already uses. */
function localSizes(k: Kernel, exclude: ReadonlySet<string>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [iname, tag] of Object.entries(k.inameTags)) {
    if (tag.kind !== "l" || exclude.has(iname) || out.has(tag.axis)) continue;
    try {
      const d = iterationDomain(k, [iname]);
      const b = dimBounds(d, iname, []);
      let best: number | undefined;
      for (const lo of b.lower) {
        for (const hi of b.upper) {
          if (lo.denom !== 1 || hi.denom !== 1) continue;
          const diff = affSub(hi.aff, lo.aff);
          if (affIsConstant(diff) && (best === undefined || diff.constant + 1 < best)) best = diff.constant + 1;
        }
      }
      if (best !== undefined) out.set(tag.axis, best);
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
    }
  }
  return out;
}

/** The tag of each new iname that `spec` gives (null: none). */
function perInameTags(spec: FetchTagSpec, inames: readonly string[], who: string): (string | null)[] {
  if (spec === null) return inames.map(() => null);
  let perIname: (string | null)[];
  if (typeof spec === "string") perIname = inames.map(() => spec);
  else if (Array.isArray(spec)) {
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

/**
 * Tag (or split and tag) the new inames as `perIname` says. `extents`: Infinity where the extent
 * is a parameter (an l.auto iname then is split by the work-group's size, when known).
 */
function applyTags(k: Kernel, inames: readonly string[], extents: readonly number[], perIname: readonly (string | null)[], order: "C" | "F", insnId: string, who: string): Kernel {
  if (inames.length === 0 || perIname.every((t) => t === null)) return k;
  // l.auto: fastest-varying axis first onto l.0, l.1, …, split to the work-group's size.
  const auto = inames.map((_, r) => r).filter((r) => perIname[r] === "l.auto");
  const fastestFirst = order === "C" ? [...auto].reverse() : auto;
  const sizes = localSizes(k, new Set(inames));
  let out = k;
  const explicit: Record<string, string> = {};
  inames.forEach((n, r) => {
    const t = perIname[r];
    if (t !== null && t !== undefined && t !== "l.auto") explicit[n] = t;
  });
  const usedExplicit = new Set(Object.values(explicit).flatMap((t) => (/^l\.\d$/.test(t) ? [Number(t[2])] : [])));
  let axis = 0;
  for (const r of fastestFirst) {
    while (usedExplicit.has(axis)) axis++;
    const iname = inames[r]!;
    if (axis > 2) {
      explicit[iname] = "l.auto";
      continue;
    }
    const size = sizes.get(axis);
    if (size !== undefined && extents[r]! > size) {
      out = splitIname(out, iname, size, { innerTag: `l.${axis}` });
    } else if (size !== undefined && extents[r]! < size) {
      // Inames on one local axis share its range: run over the whole axis, guarded.
      out = widenIname(out, iname, size, insnId, who);
      explicit[iname] = `l.${axis}`;
    } else {
      explicit[iname] = `l.${axis}`;
    }
    axis++;
  }
  return Object.keys(explicit).length > 0 ? tagInames(out, explicit) : out;
}

/**
 * Give `iname` the range `0 … size-1`: the constraints of its domain that involve it become
 * predicates of instruction `insnId` (its only user), so the extra iterations do nothing.
 */
function widenIname(k: Kernel, iname: string, size: number, insnId: string, who: string): Kernel {
  const idx = k.domains.findIndex((d) => d.dims.includes(iname));
  const d = k.domains[idx]!;
  const names = [...d.params, ...d.dims];
  const col = names.indexOf(iname);
  const keep: Constraint[] = [];
  const preds: Expr[] = [];
  for (const con of d.constraints) {
    if (con.coeffs[col] === 0) {
      keep.push(con);
      continue;
    }
    if (con.coeffs.some((x, j) => j >= names.length && x !== 0)) {
      throw new TransformError(`${who}: cannot widen iname "${iname}" to the work-group size ${size}: its bounds involve existential variables; give defaultTag explicitly`);
    }
    const terms: Record<string, number> = {};
    con.coeffs.forEach((x, j) => {
      if (x !== 0 && j < names.length) terms[names[j]!] = x;
    });
    preds.push(constraintExpr(aff(terms, con.constant), con.eq));
  }
  const dom = addConstraints({ params: d.params, dims: d.dims, exists: d.exists, constraints: keep } as BasicSet, [
    { aff: aff({ [iname]: 1 }), eq: false }, { aff: aff({ [iname]: -1 }, size - 1), eq: false },
  ]);
  const instructions = k.instructions.map((insn) => (insn.id === insnId ? { ...insn, predicates: [...insn.predicates, ...preds] } : insn));
  return withKernel(k, { domains: k.domains.map((x, i) => (i === idx ? dom : x)), instructions });
}

/** The shared core of addPrefetch and precompute. */
function storeFootprint(k: Kernel, req: StoreRequest): Kernel {
  const { who, name } = req;
  const readers = req.insnIds;
  // The inames of the readers, and those the footprint generators mention (invocations).
  const readerInames = new Set([
    ...readers.flatMap((id) => instructionInames(k.instructions.find((i) => i.id === id)!)),
    ...(req.generators?.invocations ?? []).flatMap((g) => g.inames),
  ]);
  const kernelInames = new Set(allInames(k));
  for (const s of req.sweep) {
    if (!kernelInames.has(s)) throw new TransformError(`${who}: sweep iname "${s}" is not an iname of kernel "${k.name}"; inames are ${inameList(k)}`);
    if (!readerInames.has(s)) throw new TransformError(`${who}: sweep iname "${s}" is not an iname of the instructions that read ${name} (${readers.join(", ")}); their inames are ${[...readerInames].sort(naturalCompare).join(", ") || "(none)"}`);
  }
  // The footprint with every non-swept iname fixed tells which of them it depends on.
  const first = footprintOrThrow(k, who, name, readers, req.sweep, true, req.axesOf, req.select, req.generators);
  let outer: string[];
  if (req.outer !== undefined) {
    for (const o of req.outer) if (!kernelInames.has(o)) throw new TransformError(`${who}: outer iname "${o}" is not an iname of kernel "${k.name}"; inames are ${inameList(k)}`);
    outer = [...req.outer];
  } else {
    outer = first.dependsOn.filter((n) => !req.sweep.includes(n));
    for (const n of req.extraOuter ?? []) if (!outer.includes(n) && !req.sweep.includes(n)) outer.push(n);
  }
  const priorities: [string, string][] = [];
  // The store must run in the same iteration of every loop around a reader that it depends on.
  // The scheduler nests a store only in the loops of its own inames, so when the store runs within
  // a sequential loop or a reduction of a reader, it also runs within that reader's other
  // (non-swept, sequential) loops: those could otherwise be nested outside it, and the store would
  // run once for all of their iterations. A reduction iname puts the store inside the (realized)
  // reduction loop, which every loop of the reader encloses; one of a reduction in a predicate
  // cannot host it.
  {
    const isHw = (n: string) => ["g", "l", "l.auto"].includes(k.inameTags[n]?.kind ?? "for");
    const swept = new Set(req.sweep);
    const add = new Set<string>();
    for (const id of readers) {
      const insn = k.instructions.find((i) => i.id === id)!;
      const reds = new Set<string>();
      if (insn.kind === "assign") reductionInames(insn.rhs, reds);
      const predReds = new Set<string>();
      for (const p of insn.predicates) reductionInames(p, predReds);
      if (insn.kind === "assign" && insn.lhs.kind !== "var") reductionInames(insn.lhs, predReds);
      const hosted = outer.filter((o) => predReds.has(o));
      if (hosted.length > 0) {
        throw new TransformError(`${who}: the footprint of ${name} in instruction "${id}" depends on the iname(s) ${hosted.join(", ")} of a reduction ` +
          `outside its right-hand side, which the store "${req.insnId}" cannot run inside; add ${hosted.join(", ")} to sweepInames`);
      }
      const inRed = outer.some((o) => reds.has(o) && !isHw(o));
      const inLoop = outer.some((o) => insn.withinInames.includes(o) && !isHw(o));
      if (!inRed && !inLoop) continue;
      for (const n of insn.withinInames) if (!swept.has(n) && !isHw(n)) add.add(n);
      if (inRed) for (const n of reds) if (!swept.has(n) && !isHw(n)) add.add(n);
    }
    for (const n of [...add].sort(naturalCompare)) if (!outer.includes(n)) outer.push(n);
    // The swept loops of a reader must be nested inside the store's sequential loops: impossible
    // for a loop around a reduction the store runs inside; otherwise a loop priority says so.
    for (const id of readers) {
      const insn = k.instructions.find((i) => i.id === id)!;
      const reds = new Set<string>();
      if (insn.kind === "assign") reductionInames(insn.rhs, reds);
      const seqOuter = outer.filter((o) => !isHw(o) && (reds.has(o) || insn.withinInames.includes(o)));
      if (seqOuter.length === 0) continue;
      const inRed = seqOuter.filter((o) => reds.has(o));
      const sweptLoops = req.sweep.filter((x) => !isHw(x) && insn.withinInames.includes(x));
      if (inRed.length > 0 && sweptLoops.length > 0) {
        throw new TransformError(`${who}: the store "${req.insnId}" must run inside the reduction over ${inRed.join(", ")} of instruction "${id}" ` +
          `(the footprint of ${name} depends on ${inRed.length > 1 ? "them" : "it"}), so it cannot sweep ${sweptLoops.join(", ")}, a loop around that reduction; ` +
          `add ${inRed.join(", ")} to sweepInames, or do not sweep ${sweptLoops.join(", ")}`);
      }
      for (const x of req.sweep.filter((y) => !isHw(y) && (insn.withinInames.includes(y) || reds.has(y)))) {
        for (const o of seqOuter) {
          if (k.loopPriority.some((p) => p.includes(x) && p.includes(o) && p.indexOf(x) < p.indexOf(o))) {
            throw new TransformError(`${who}: the store "${req.insnId}" runs within ${o} and sweeps ${x}, so ${x} must be nested inside ${o}, but the loop priorities put ${x} outside ${o}`);
          }
          if (!priorities.some((p) => p[0] === o && p[1] === x)) priorities.push([o, x]);
        }
      }
    }
  }
  const outerSet = new Set(outer);
  const projected = [...readerInames].filter((n) => !outerSet.has(n));
  const fp = footprintOrThrow(k, who, name, readers, projected, false, req.axesOf, req.select, req.generators);

  // Shape: constant extents, or (in a global temporary) extents in the kernel's parameters; axes
  // of extent 1 are not stored (loopy drops them).
  let space = req.space;
  const parametric = fp.box.map((b) => typeof b.extent !== "number");
  fp.box.forEach((b, r) => {
    if (typeof b.extent === "number") return;
    const inames = Object.keys(b.extentAff.terms).filter((n) => kernelInames.has(n));
    const why = `axis ${r} of the footprint of ${name} has extent ${printExpr(b.extent)}, which is not a constant ` +
      `(base ${printExpr(b.base)}; the footprint's bounds along that axis depend on ${Object.keys(b.extentAff.terms).join(", ")})`;
    if (inames.length > 0) {
      throw new TransformError(`${who}: ${why}; a temporary's shape cannot depend on the iname(s) ${inames.join(", ")}: ` +
        `sweep fewer inames, or split them so that the swept range has a constant size`);
    }
    if (space === "auto" && req.autoGlobal === true) space = "global";
    if (space !== "global") {
      throw new TransformError(`${who}: ${why}; only a global temporary (temporaryAddressSpace "global") may have a parametric shape, not a ${space} one: ` +
        `sweep fewer inames, or split them so that the swept range has a constant size`);
    }
  });
  const extents = fp.box.map((b) => (typeof b.extent === "number" ? b.extent : Number.POSITIVE_INFINITY));
  const stored = extents.map((e, r) => (e !== 1 ? r : -1)).filter((r) => r >= 0);
  // `0 <= n <= extent - 1` for the new iname `n` of footprint axis `r`.
  const dimBoundsOf = (n: string, r: number): { aff: Aff; eq: boolean }[] => [
    { aff: aff({ [n]: 1 }), eq: false },
    parametric[r] ? { aff: affSub(fp.box[r]!.extentAff, aff({ [n]: 1 }, 1)), eq: false } : { aff: aff({ [n]: -1 }, extents[r]! - 1), eq: false },
  ];

  // Names.
  const taken = takenNames(k);
  const shape = stored.map((r) => (parametric[r] ? affToExpr(fp.box[r]!.extentAff) : c(extents[r]!)));
  // An existing temporary is reused when asked by name and it fits (loopy's precompute does so).
  const reused = req.reuseTemporary === true && findTemporary(k, req.tempName)
    ? existingTemporary(k, req.tempName, { shape, dtype: req.dtype, value: req.valueAt(fp.box.map((b) => affToExpr(b.baseAff))), space, readers }, who)
    : undefined;
  if (reused) space = reused.addressSpace;
  else if (findArg(k, req.tempName) || findTemporary(k, req.tempName) || findSubstitution(k, req.tempName) || kernelInames.has(req.tempName)) {
    throw new TransformError(`${who}: temporary name "${req.tempName}" is already used in kernel "${k.name}"`);
  }
  taken.add(req.tempName);
  let dimNames: string[];
  if (req.dimNames !== undefined) {
    if (req.dimNames.length !== stored.length) {
      throw new TransformError(`${who}: ${req.dimNames.length} iname names given for ${stored.length} stored axes (extents ${fp.box.map((b) => printExpr(b.extent)).join(" x ")}; axes of extent 1 are not stored)`);
    }
    for (const n of req.dimNames) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new TransformError(`${who}: iname name must be an identifier; got ${JSON.stringify(n)}`);
      if (taken.has(n)) throw new TransformError(`${who}: iname name "${n}" is already a name in kernel "${k.name}"`);
      taken.add(n);
    }
    dimNames = [...req.dimNames];
  } else {
    dimNames = stored.map((_, j) => {
      const n = uniqueName(`${req.dimBase}_${j}`, taken);
      taken.add(n);
      return n;
    });
  }
  const insnId = req.insnId;
  if (k.instructions.some((i) => i.id === insnId)) throw new TransformError(`${who}: instruction id "${insnId}" is already used`);

  // Write races: the stored cell does not depend on the outer inames.
  if (space === "local" || space === "global") {
    const racing = outer.filter((o) => {
      const t = k.inameTags[o]?.kind;
      // An ilp iname runs its lanes side by side (each instruction for all lanes in turn), so a
      // shared cell written within it is a race too.
      return t === "l" || t === "l.auto" || t === "ilp" || (space === "global" && t === "g");
    });
    if (racing.length > 0) {
      throw new TransformError(`${who}: temporary "${req.tempName}" cannot be made ${space} because a write race across the iname(s) ${racing.join(", ")} would emerge: ` +
        `instruction "${insnId}" runs within ${racing.length > 1 ? "them" : "it"} (the footprint of ${name} depends on ${racing.length > 1 ? "them" : "it"}) but does not index ${req.tempName} by ${racing.length > 1 ? "them" : "it"}; ` +
        `add ${racing.join(", ")} to the sweep inames, or use the private address space`);
    }
  }

  // A private temporary belongs to one work-item: its store must not be spread across work-items.
  if (space === "private") {
    const hw = [...tagStrings(req.tag), ...tagStrings(req.axisTags ?? null)].filter((t) => /^(l|g)(\.|$)/.test(t));
    if (hw.length > 0) {
      throw new TransformError(`${who}: temporary "${req.tempName}" is private, so its store "${insnId}" runs within one work-item; ` +
        `the hardware tag(s) ${[...new Set(hw)].join(", ")} would spread it across work-items (each would fill only its part); ` +
        `use the local address space, or sequential fetch loops (defaultTag null)`);
    }
  }

  // The domain of the new inames: the footprint (or its box) shifted to start at 0.
  const useBox = req.boundingBox || !fp.isBox;
  let dom: BasicSet = useBox ? fp.boxSet : fp.set[0]!;
  // Existentials renamed apart from the new inames (constraints name columns, existentials included).
  const exRename: Record<string, string> = {};
  for (const e of dom.exists) if (taken.has(e) || dimNames.includes(e)) exRename[e] = uniqueName(`${e}_ex`, new Set([...taken, ...dom.exists, ...dimNames]));
  if (Object.keys(exRename).length > 0) dom = rename(dom, exRename);
  fp.dims.forEach((d, r) => {
    const j = stored.indexOf(r);
    dom = substitute(dom, d, j >= 0 ? affAdd(fp.box[r]!.baseAff, aff({ [dimNames[j]!]: 1 })) : fp.box[r]!.baseAff);
  });
  // 0 <= a_dim_j < extent (also names every new iname in the set), then make them dimensions.
  dom = addConstraints(dom, dimNames.flatMap((n, j) => dimBoundsOf(n, stored[j]!)));
  dom = moveToDims(dom, dimNames.filter((n) => dom.params.includes(n)));
  dom = reorderDims(dom, dimNames);
  // Constraints on the parameters alone say when a reader runs, not what to fetch.
  // So are those the outer inames' own domain (the loops around the store) implies.
  let ctx: BasicSet | undefined;
  if (dimNames.length > 0) {
    ctx = projectOut(dom, dimNames);
    const outerHere = outer.filter((o) => ctx!.params.includes(o));
    if (outerHere.length > 0) ctx = intersect(ctx, moveToParams(iterationDomain(k, outerHere), outerHere));
    if (k.assumptions.constraints.length > 0) ctx = intersect(ctx, k.assumptions);
    dom = gist(dom, ctx);
  }
  dom = projectOutStray(dom, outerSet, kernelInames);
  // The store never reads outside the array: each bound of the shape that the store's domain
  // (in the context of its outer loops) does not imply becomes a predicate.
  const clip: Expr[] = [];
  if (req.shape !== undefined && req.shape.length === fp.box.length) {
    let where = ctx === undefined ? dom : intersect(dom, ctx);
    if (k.assumptions.constraints.length > 0) where = intersect(where, k.assumptions);
    const intNames = new Set([...kernelInames, ...k.domains.flatMap((d) => d.params)]);
    fp.box.forEach((b, r) => {
      const ext = exprToAff(req.shape![r]!, (n) => intNames.has(n));
      if (!ext) return;
      const j = stored.indexOf(r);
      const idx = j >= 0 ? affAdd(b.baseAff, aff({ [dimNames[j]!]: 1 })) : b.baseAff;
      for (const cond of [idx, affSub(affSub(ext, idx), aff({}, 1))]) {
        // Implied when no point of the domain has cond < 0.
        if (!isEmptyWith(where, affSub(aff({}, -1), cond))) clip.push(constraintExpr(cond, false));
      }
    });
  }
  // Constraints that tie a new iname to an outer iname that is a loop (not a g iname) become
  // predicates of the store: in the domain they would make that loop's bounds depend on the new
  // (often local) inames, and a loop with a barrier in it must be the same for all work-items.
  const predicates: Expr[] = [];
  {
    const loopOuter = new Set(outer.filter((o) => k.inameTags[o]?.kind !== "g"));
    const np = dom.params.length;
    const nd = dom.dims.length;
    const keep: Constraint[] = [];
    const moved: Constraint[] = [];
    for (const con of dom.constraints) {
      const hasEx = con.coeffs.some((x, j) => j >= np + nd && x !== 0);
      const tiesLoop = con.coeffs.some((x, j) => j < np && x !== 0 && loopOuter.has(dom.params[j]!));
      const hasDim = con.coeffs.some((x, j) => j >= np && j < np + nd && x !== 0);
      (tiesLoop && hasDim && !hasEx ? moved : keep).push(con);
    }
    if (moved.length > 0) {
      const names = [...dom.params, ...dom.dims];
      for (const con of moved) {
        const terms: Record<string, number> = {};
        con.coeffs.forEach((x, j) => {
          if (x !== 0 && j < names.length) terms[names[j]!] = x;
        });
        predicates.push(constraintExpr(aff(terms, con.constant), con.eq));
      }
      dom = { ...dom, constraints: keep } as BasicSet;
      // The gist may have dropped a new iname's own bounds as implied by the moved rows: restore them.
      dom = addConstraints(dom, dimNames.flatMap((n, j) => dimBoundsOf(n, stored[j]!)));
    }
  }

  // The store instruction.
  const srcIdx = fp.box.map((b, r) => {
    const j = stored.indexOf(r);
    return affToExpr(j >= 0 ? affAdd(b.baseAff, aff({ [dimNames[j]!]: 1 })) : b.baseAff);
  });
  const store: Assignment = {
    ...insnDefaults(insnId), kind: "assign",
    ...(reused ? { dependsOn: reused.after } : {}),
    lhs: dimNames.length > 0 ? sub(req.tempName, ...dimNames.map((n) => v(n))) : v(req.tempName),
    rhs: req.valueAt(srcIdx),
    atomicity: "none",
    withinInames: [...new Set([...outer, ...dimNames])].sort(naturalCompare),
    predicates: [...predicates, ...clip],
  };

  // Replace the reads.
  const isIndexVar = (n: string) => !(findArg(k, n)?.kind === "array") && !findTemporary(k, n);
  const replaceRead = (args: readonly Expr[], insn: string): Expr => {
    const indices = req.axesOf ? req.axesOf(args) : args;
    const rel = stored.map((r) => {
      const a = exprToAff(indices[r]!, isIndexVar);
      if (!a) throw new TransformError(`${who}: the subscript ${r} of ${name} in instruction "${insn}" is not affine`);
      return affToExpr(affSub(a, fp.box[r]!.baseAff));
    });
    return rel.length > 0 ? sub(req.tempName, ...rel) : v(req.tempName);
  };
  const readerSet = new Set(readers);
  const isRule = findSubstitution(k, name) !== undefined && !findArg(k, name) && !findTemporary(k, name);
  const chosen = (insnId: string, indices: readonly Expr[], tag: string | undefined): boolean =>
    req.select === undefined || req.select(tag === undefined ? { insnId, indices } : { insnId, indices, tag });
  const rewrite = (e: Expr, insn: string): Expr => mapExpr(e, (n) => {
    if (!isRule && n.kind === "subscript" && n.array === name && chosen(insn, n.indices, n.tag)) return replaceRead(n.indices.map((x) => rewrite(x, insn)), insn);
    if (isRule && n.kind === "call" && n.fn === name && chosen(insn, n.args, n.tag)) return replaceRead(n.args.map((x) => rewrite(x, insn)), insn);
    return undefined;
  });
  const instructions: Instruction[] = [];
  for (const insn of k.instructions) {
    if (!readerSet.has(insn.id)) {
      instructions.push(insn);
      continue;
    }
    const predicates = insn.predicates.map((p) => rewrite(p, insn.id));
    const dependsOn = insn.dependsOn.includes(insnId) ? insn.dependsOn : [...insn.dependsOn, insnId];
    if (insn.kind === "assign") {
      const lhs = insn.lhs.kind === "subscript"
        ? { ...insn.lhs, indices: insn.lhs.indices.map((x) => rewrite(x, insn.id)) }
        : insn.lhs.kind === "linear" ? { ...insn.lhs, index: rewrite(insn.lhs.index, insn.id) } : insn.lhs;
      instructions.push({ ...insn, lhs, rhs: rewrite(insn.rhs, insn.id), predicates, dependsOn });
    } else {
      instructions.push({ ...insn, predicates, dependsOn });
    }
  }
  // The store goes before its first reader.
  const at = instructions.findIndex((i) => readerSet.has(i.id));
  instructions.splice(at < 0 ? instructions.length : at, 0, store);

  const temp: Temporary = reused?.temporary ?? { name: req.tempName, dtype: req.dtype, shape, addressSpace: space, order: "C", dimTags: undefined };
  let out = withKernel(k, {
    domains: [...k.domains, dom],
    instructions,
    temporaries: reused ? k.temporaries.map((t) => (t.name === req.tempName ? temp : t)) : [...k.temporaries, temp],
    ...(priorities.length > 0 ? { loopPriority: [...k.loopPriority, ...priorities] } : {}),
  });
  if (dimNames.length > 0) {
    let tags = perInameTags(req.tag, dimNames, who);
    if (req.axisTags !== undefined) {
      const keys = stored.map((r) => req.axisKeys?.[r] ?? String(r));
      for (const key of Object.keys(req.axisTags)) {
        if (!req.axisKeys?.includes(key)) throw new TransformError(`${who}: storageAxisToTag names "${key}", which is not a storage axis; storage axes are ${req.axisKeys?.join(", ") || "(none)"}`);
      }
      tags = tags.map((t, j) => (Object.hasOwn(req.axisTags!, keys[j]!) ? req.axisTags![keys[j]!] ?? null : t));
    }
    out = applyTags(out, dimNames, stored.map((r) => extents[r]!), tags, req.order, insnId, who);
  }
  return out;
}

/** The tag strings a tag spec names. */
function tagStrings(spec: FetchTagSpec): string[] {
  if (spec === null || spec === undefined) return [];
  if (typeof spec === "string") return [spec];
  if (Array.isArray(spec)) return spec.filter((t): t is string => typeof t === "string");
  if (typeof spec === "object") return Object.values(spec as Record<string, string | null>).filter((t): t is string => typeof t === "string");
  return [];
}

/** Project out parameters that are inames but not outer inames (cannot happen after projection; kept for safety). */
function projectOutStray(dom: BasicSet, outer: ReadonlySet<string>, inames: ReadonlySet<string>): BasicSet {
  const stray = dom.params.filter((p) => inames.has(p) && !outer.has(p));
  return stray.length > 0 ? projectOut(dom, stray) : dom;
}

/** `a >= 0` (or `a = 0`) as a comparison: negative terms on the left, `n - 2*k - d - 1 >= 0` as `d + 2*k < n`. */
function constraintExpr(a: Aff, eq: boolean): Expr {
  const pos: Record<string, number> = {};
  const neg: Record<string, number> = {};
  for (const [n, x] of Object.entries(a.terms)) (x > 0 ? pos : neg)[n] = Math.abs(x);
  if (eq) return { kind: "compare", op: "==", left: affToExpr(aff(neg, a.constant < 0 ? -a.constant : 0)), right: affToExpr(aff(pos, a.constant > 0 ? a.constant : 0)) };
  if (a.constant < 0) return { kind: "compare", op: "<", left: affToExpr(aff(neg, -a.constant - 1)), right: affToExpr(aff(pos, 0)) };
  return { kind: "compare", op: "<=", left: affToExpr(aff(neg, 0)), right: affToExpr(aff(pos, a.constant)) };
}

function printExpr(e: Expr | number): string {
  if (typeof e === "number") return String(e);
  const a = exprToAff(e);
  if (!a) return "(non-affine)";
  const parts = Object.entries(a.terms).sort((x, y) => naturalCompare(x[0], y[0])).map(([n, k]) => (k === 1 ? n : `${k}*${n}`));
  if (a.constant !== 0 || parts.length === 0) parts.push(String(a.constant));
  return parts.join(" + ").replace(/\+ -/g, "- ");
}

/**
 * loopy's add_prefetch: copy the footprint of the reads of `varName` (`"a"`, `"a[:, k]"`, or
 * `"a$x"` for only the reads tagged `a$x[…]`) swept over `sweepInames`
 * into a temporary (`a_fetch`, local by default) with a fetch instruction `a_fetch_rule` over new
 * inames `a_dim_0…`, and read from it instead. The readers depend on the fetch; the scheduler
 * inserts the barriers.
 *
 *   addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] })
 *   // a_fetch[a_dim_0, a_dim_1] = a[a_dim_0 + 16*i_outer, a_dim_1 + 16*k_outer]   {id=a_fetch_rule}
 *   // c[…] = sum((k_outer, k_inner), a_fetch[i_inner, k_inner]*b[…])
 */
/** The reads of `name` (findAccesses), a FootprintError becoming a TransformError of `who`. */
function accessesOrThrow(k: Kernel, name: string, who: string): Access[] {
  try {
    return findAccesses(k, name);
  } catch (e) {
    if (e instanceof FootprintError) throw new TransformError(`${who}: ${e.message}`);
    throw e;
  }
}

export function addPrefetch(k: Kernel, varName: string, opts: PrefetchOptions = {}): Kernel {
  const who = "addPrefetch";
  if (typeof varName !== "string") throw new TransformError(`${who}: the variable must be a name; got ${JSON.stringify(varName)}`);
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\$([A-Za-z_][A-Za-z0-9_]*))?\s*(?:\[(.*)\])?\s*$/s.exec(varName);
  if (!m) throw new TransformError(`${who}: "${varName}" is not an array name (as "a", "a$x", "a[:,:]" or "f[ifeat,:,:]")`);
  const name = m[1]!;
  const subscript = m[3];
  const arg = findArg(k, name);
  const tmp = findTemporary(k, name);
  if (!(arg?.kind === "array") && !tmp) {
    const arrays = [...k.args.filter((a) => a.kind === "array").map((a) => a.name), ...k.temporaries.map((t) => t.name)];
    throw new TransformError(`${who}: no array "${name}" in kernel "${k.name}"; arrays are ${arrays.join(", ") || "(none)"}`);
  }
  const writers = k.instructions.filter((i) => insnWrites(i).includes(name));
  if (writers.length > 0) {
    throw new TransformError(`${who}: ${name} is written by instruction(s) ${writers.map((w) => `"${w.id}"`).join(", ")}; prefetching an array the kernel writes is not supported`);
  }
  const all = accessesOrThrow(k, name, who);
  if (all.length === 0) throw new TransformError(`${who}: no instruction of kernel "${k.name}" reads ${name}`);
  // "a$x": only the reads tagged x (loopy's tagged variables); the others still read the array.
  const select = m[2] === undefined ? undefined : useFilter({ name, forms: [{ text: `${name}$${m[2]}`, tag: m[2] }] }, all, `array ${name}`, "[]", who);
  const accesses = select ? all.filter(select) : all;
  let insnIds = [...new Set(accesses.map((a) => a.insnId))];
  if (opts.within !== undefined) {
    const selected = matchInsns(k, opts.within, who);
    insnIds = insnIds.filter((id) => selected.has(id));
    if (insnIds.length === 0) throw new TransformError(`${who}: no instruction that within ${JSON.stringify(opts.within)} selects (${[...selected].join(", ")}) reads ${name}; readers are ${[...new Set(accesses.map((a) => a.insnId))].join(", ")}`);
  }
  let sweep = nameList(opts.sweepInames, "sweepInames", who) ?? [];
  if (subscript !== undefined && subscript.split(",").some((x) => x.trim() !== ":" && x.trim() !== "")) {
    ({ insnIds, sweep } = partialSubscript(k, name, subscript, insnIds, sweep, who, m[2]));
  }
  const space = opts.temporaryAddressSpace ?? "local";
  if (!["private", "local", "global"].includes(space)) throw new TransformError(`${who}: temporaryAddressSpace must be private, local or global; got ${JSON.stringify(space)}`);
  const tempName = opts.temporaryName ?? uniqueName(`${name}_fetch`, takenNames(k));
  const insnIdsTaken = new Set(k.instructions.map((i) => i.id));
  const insnId = opts.prefetchInsnId ?? uniqueName(`${name}_fetch_rule`, insnIdsTaken);
  return storeFootprint(k, {
    who, name, insnIds,
    valueAt: (idx) => sub(name, ...idx),
    sweep,
    outer: nameList(opts.fetchOuterInames, "fetchOuterInames", who),
    tempName, dimNames: nameList(opts.dimArgNames, "dimArgNames", who), dimBase: `${name}_dim`, insnId,
    space, tag: opts.defaultTag === undefined ? (space === "private" ? null : "l.auto") : opts.defaultTag,
    boundingBox: opts.fetchBoundingBox === true,
    dtype: (arg?.kind === "array" ? arg.dtype : tmp?.dtype),
    order: arg?.kind === "array" ? arg.order : tmp?.order ?? "C",
    shape: arg?.kind === "array" ? arg.shape : tmp?.shape,
    select,
  });
}

/**
 * A partial subscript `f[ifeat,:,:]` (loopy's footprint subscripts): the readers are the
 * instructions whose every read of `name` has the given index expressions on the fixed axes (an
 * instruction that also reads `name` elsewhere is refused), and the `:` axes are swept over every
 * iname their indices use, so the fixed axes are not stored and the fetch runs once per value of
 * the inames the fixed indices use. (loopy sweeps a `:` axis over its whole extent; the part the
 * reads touch is fetched here, which is all of it when they cover the axis.)
 */
function partialSubscript(
  k: Kernel, name: string, text: string, insnIds: readonly string[], sweep: readonly string[], who: string, tag?: string,
): { insnIds: string[]; sweep: string[] } {
  const items = text.split(",").map((x) => x.trim());
  const arr = findArg(k, name);
  const rank = arr?.kind === "array" ? arr.shape?.length : findTemporary(k, name)?.shape.length;
  if (rank !== undefined && items.length !== rank) throw new TransformError(`${who}: "${name}[${text}]" has ${items.length} indices, but ${name} has ${rank} axes`);
  const fixed = items.map((x, r) => {
    if (x === ":") return undefined;
    if (x === "") throw new TransformError(`${who}: index ${r} of "${name}[${text}]" is empty; use ":" for an axis to fetch`);
    return parseTemplate(x, who);
  });
  const inames = new Set(allInames(k));
  const fixedInames = new Set(fixed.flatMap((e) => (e ? [...freeVariables(e)].filter((x) => inames.has(x)) : [])));
  const same = (a: Expr, b: Expr): boolean => {
    const [x, y] = [exprToAff(a, () => true), exprToAff(b, () => true)];
    return x && y ? affIsConstant(affSub(x, y)) && affSub(x, y).constant === 0 : JSON.stringify(a) === JSON.stringify(b);
  };
  const readers: string[] = [];
  const swept = new Set(sweep);
  for (const id of insnIds) {
    const insn = k.instructions.find((i) => i.id === id)!;
    const reads: Expr[][] = [];
    const collect = (e: Expr) => mapExpr(e, (n) => ((n.kind === "subscript" && n.array === name && (tag === undefined || n.tag === tag) && reads.push([...n.indices])), undefined));
    insn.predicates.forEach(collect);
    if (insn.kind === "assign") {
      collect(insn.rhs);
      if (insn.lhs.kind === "subscript") insn.lhs.indices.forEach(collect);
    }
    const matching = reads.filter((idx) => fixed.every((f, r) => f === undefined || same(f, idx[r]!)));
    if (matching.length === 0) continue;
    if (matching.length < reads.length) {
      const other = reads.find((idx) => !matching.includes(idx))!;
      throw new TransformError(`${who}: instruction "${id}" reads ${name}[${other.map(exprToString).join(", ")}] besides reads matching ${name}[${text}]; it can read only one of them from the fetched copy (select the instruction out with within)`);
    }
    readers.push(id);
    for (const idx of matching) fixed.forEach((f, r) => {
      if (f !== undefined) return;
      for (const x of freeVariables(idx[r]!)) if (inames.has(x) && !fixedInames.has(x)) swept.add(x);
    });
  }
  if (readers.length === 0) throw new TransformError(`${who}: no read of ${name} matches ${name}[${text}] in instructions ${insnIds.join(", ")}`);
  const clash = [...swept].filter((x) => fixedInames.has(x));
  if (clash.length > 0) throw new TransformError(`${who}: ${clash.join(", ")} ${clash.length > 1 ? "are" : "is"} used by a fixed index of ${name}[${text}] and cannot be swept`);
  return { insnIds: readers, sweep: [...swept] };
}

/** The rules whose bodies call `name`, directly or through other rules. */
function rulesCalling(k: Kernel, name: string): string[] {
  const found = new Set<string>([name]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of k.substitutions) {
      if (found.has(r.name)) continue;
      let calls = false;
      mapExpr(r.expr, (n) => ((calls ||= n.kind === "call" && found.has(n.fn)), undefined));
      if (calls) (found.add(r.name), (grew = true));
    }
  }
  found.delete(name);
  return [...found];
}

/**
 * loopy's precompute: evaluate the substitution rule `substRule` over the footprint of its uses
 * swept over `sweepInames` into a temporary (`${rule}_0`), computed by instruction
 * `compute_${rule}` over new inames `${rule}_dim_0…`, and replace the uses by reads of it.
 * Supported: uses whose arguments are affine in the inames and parameters; a rule without
 * arguments (stored in a scalar); a rule used inside other rules (those are expanded where they
 * are called first, so that the uses are in instructions); `storageAxes` (loopy's storage_axes:
 * which arguments and inames index the temporary, in order); an extent that is a parameter (the
 * temporary is then global, with a global barrier after the compute when work-items or groups
 * read it). The rule stays in the kernel (unused rules are harmless).
 *
 * `substUse` is loopy's subst_use (transforms/subst-use.ts): the rule's name (every use),
 * `"f$tag"` (the uses written `f$tag(…)`), an invocation `"f(i, j+1)"`, or a list of those; the
 * uses not selected keep calling the rule. Invocations are loopy's footprint generators: the
 * footprint is that of their arguments swept over `sweepInames`, and the uses (of their tag)
 * whose own footprint lies inside it are replaced; one equal to a use selects that use. A
 * `temporaryName` that names an existing temporary reuses it when its shape, dtype and address
 * space fit (transforms/reuse-temporary.ts).
 *
 *   precompute(k, "f", ["i_inner"], { defaultTag: "l.auto" })
 *   precompute(k, "f", ["i", "j"], { storageAxes: "y, x" })   // f_0[y, x], global of shape (m, n)
 *   precompute(k, ["f$one", "f(i, j+1)"], ["i"])              // only those uses read f_0
 *   precompute(k, "f(i, k)", ["j", "k"])                      // the uses inside the footprint of f(i, k) read f_0
 */
export function precompute(k: Kernel, substUse: string | readonly string[], sweepInames: string | readonly string[] = [], opts: PrecomputeOptions = {}): Kernel {
  const who = "precompute";
  const asked = parseUses(substUse, who);
  const name = asked.name;
  const rule = findSubstitution(k, name);
  if (!rule) {
    const rules = k.substitutions.map((s) => s.name).join(", ") || "(none)";
    throw new TransformError(`${who}: no substitution rule "${name}" in kernel "${k.name}"; rules are ${rules} (use extractSubst first, or addPrefetch for an array)`);
  }
  // A rule used inside other rules: those rules are expanded where they are called (in the
  // selected instructions), so that every use is a call in an instruction.
  const callers = rulesCalling(k, name);
  if (callers.length > 0) {
    const within0 = nameList(opts.within, "within", who);
    const where = within0 ? `(${within0.map((id) => `id:${id}`).join(" or ")})` : "*";
    try {
      k = expandSubst(k, `${where} > ... > (${callers.map((c0) => `id:${c0}`).join(" or ")}) $`);
    } catch (e) {
      if (!(e instanceof TransformError) || !/selects no rule call/.test(e.message)) throw e;
    }
  }
  const accesses = accessesOrThrow(k, name, who);
  let insnIds = [...new Set(accesses.map((a) => a.insnId))];
  const within = nameList(opts.within, "within", who);
  if (within) insnIds = insnIds.filter((id) => within.includes(id));
  if (insnIds.length === 0) throw new TransformError(`${who}: no instruction${within ? " of those in within" : ""} uses rule "${name}"`);
  const space = opts.temporaryAddressSpace ?? "auto";
  if (!["auto", "private", "local", "global"].includes(space)) throw new TransformError(`${who}: temporaryAddressSpace must be auto, private, local or global; got ${JSON.stringify(space)}`);
  const tempName = opts.temporaryName ?? uniqueName(`${name}_0`, takenNames(k));
  const insnId = opts.computeInsnId ?? uniqueName(`compute_${name}`, new Set(k.instructions.map((i) => i.id)));
  const sweep = nameList(sweepInames, "sweepInames", who) ?? [];
  const { select, uses, plan, generators } = chooseUses(k, rule, asked, accesses.filter((a) => insnIds.includes(a.insnId)), sweep, opts.storageAxes, who);
  insnIds = insnIds.filter((id) => uses.some((u) => u.insnId === id));
  if (opts.storageAxisToTag !== undefined && (opts.storageAxisToTag === null || typeof opts.storageAxisToTag !== "object" || Array.isArray(opts.storageAxisToTag))) {
    throw new TransformError(`${who}: storageAxisToTag must be a record of tags by storage axis ({ x: "l.0" }); got ${JSON.stringify(opts.storageAxisToTag)}`);
  }
  const out = storeFootprint(k, {
    who, name, insnIds,
    valueAt: plan.valueAt,
    sweep,
    outer: nameList(opts.precomputeOuterInames, "precomputeOuterInames", who),
    tempName, dimNames: nameList(opts.precomputeInames, "precomputeInames", who), dimBase: `${name}_dim`, insnId,
    space, tag: opts.defaultTag === undefined ? null : opts.defaultTag,
    boundingBox: opts.fetchBoundingBox === true,
    dtype: precomputeDtype(opts.dtype, who), order: "C",
    ...(plan.axesOf ? { axesOf: plan.axesOf } : {}),
    axisKeys: plan.keys,
    ...(opts.storageAxisToTag !== undefined ? { axisTags: opts.storageAxisToTag } : {}),
    extraOuter: plan.extraOuter,
    autoGlobal: true,
    select,
    ...(generators ? { generators } : {}),
    reuseTemporary: opts.temporaryName !== undefined,
  });
  return globalBarrierAfter(out, tempName, insnId, insnIds, who);
}

/**
 * The uses precompute replaces, the storage plan, and where the footprint comes from. Without
 * invocations the selected uses are the footprint (loopy: "the uses generate the footprint").
 * Invocations are loopy's footprint generators: the footprint is theirs (with the uses a name or
 * tag names), and a use of their tag is replaced where it lies inside their footprint (swept over
 * `sweep`, the other inames fixed) and its unstored arguments are the stored ones; the others
 * keep calling the rule. Invocations that cover no use are a TransformError listing the uses.
 */
function chooseUses(
  k: Kernel, rule: SubstitutionRule, asked: UseRequest, inScope: readonly Access[], sweep: readonly string[],
  storageAxes: PrecomputeOptions["storageAxes"], who: string,
): { select: UseFilter | undefined; uses: Access[]; plan: StoragePlan; generators?: StoreRequest["generators"] } {
  const what = `rule "${rule.name}"`;
  const select0 = useFilter(asked, inScope, what, "()", who);
  const gens = invocations(k, asked, who);
  if (gens.length === 0) {
    const uses = inScope.filter((a) => !select0 || select0(a));
    return { select: select0, uses, plan: storagePlan(k, rule, uses, sweep, storageAxes, who) };
  }
  const named = select0 ?? (() => false);
  const candidates = invocationCandidates(asked, inScope, what, "()", who);
  const isGen = new Set<RuleUse>(gens);
  const where = (u: RuleUse) => (isGen.has(u) ? `the invocation ${u.insnId}` : inInstruction(u));
  const plan = storagePlan(k, rule, [...gens, ...inScope.filter(named)], sweep, storageAxes, who, where, candidates);
  let inside: boolean[];
  try {
    inside = accessesInside(k, rule.name, gens, candidates, { sweepInames: sweep, ...(plan.axesOf ? { mapIndices: (a: Access) => plan.axesOf!(a.indices) } : {}) });
  } catch (e) {
    if (e instanceof FootprintError) throw new TransformError(`${who}: ${e.message}`);
    throw e;
  }
  const covered = candidates.filter((u, x) => inside[x] && [...plan.fixedArgs].every(([j, e]) => sameExpr(u.indices[j]!, e)));
  if (covered.length === 0) {
    const texts = gens.map((g) => g.insnId);
    throw new TransformError(`${who}: the invocation${texts.length > 1 ? "s" : ""} ${texts.join(", ")} cover${texts.length > 1 ? "" : "s"} no use of ${what}: ` +
      `no use's arguments${sweep.length > 0 ? `, swept over ${sweep.join(", ")},` : ""} lie inside ${texts.length > 1 ? "their" : "its"} footprint; the uses are ${listUses(rule.name, candidates, "()")}`);
  }
  const key = (u: Pick<Access, "insnId" | "indices" | "tag">) => `${u.insnId}|${u.tag ?? ""}|${u.indices.map(exprToString).join(", ")}`;
  const keys = new Set(covered.map(key));
  const select: UseFilter = (u) => (select0 !== undefined && select0(u)) || keys.has(key(u));
  return { select, uses: inScope.filter(select), plan, generators: { uses: named, invocations: gens } };
}

function precomputeDtype(d: unknown, who: string): Dtype | undefined {
  if (d === undefined || d === null) return undefined;
  if (typeof d !== "string") throw new TransformError(`${who}: dtype must be a dtype name such as "float64"; got ${JSON.stringify(d)}`);
  try {
    return parseDtype(d);
  } catch (e) {
    throw new TransformError(`${who}: ${(e as Error).message}`);
  }
}

/**
 * As loopy's precompute into a global temporary: when its readers run across work-items or
 * work-groups, a global barrier (`${compute}_barrier`) after the compute instruction makes every
 * value visible to all of them (the kernel is split there). It must be outside every loop.
 */
function globalBarrierAfter(k: Kernel, tempName: string, insnId: string, readers: readonly string[], who: string): Kernel {
  if (findTemporary(k, tempName)?.addressSpace !== "global") return k;
  const hw = (n: string) => ["g", "l", "l.auto"].includes(k.inameTags[n]?.kind ?? "for");
  const byId = new Map(k.instructions.map((i) => [i.id, i]));
  if (!readers.some((id) => byId.get(id)!.withinInames.some(hw))) return k;
  const loops = byId.get(insnId)!.withinInames.filter((n) => !hw(n) && readers.some((id) => byId.get(id)!.withinInames.includes(n)));
  if (loops.length > 0) {
    throw new TransformError(`${who}: the global temporary "${tempName}" is read across work-items, so a global barrier must follow its compute instruction "${insnId}", ` +
      `but that runs within the loop(s) ${loops.join(", ")} of its readers, and a global barrier must be outside every loop; sweep ${loops.join(", ")} too, or use a local or private temporary`);
  }
  const id = uniqueName(`${insnId}_barrier`, new Set(k.instructions.map((i) => i.id)));
  return addBarrier(k, `id:${insnId}`, readers.map((r) => `id:${r}`).join(" or "), "global", { id });
}

/** Where a storage axis of precompute's temporary comes from: an argument of the rule (by position), or an iname. */
type AxisSource = { readonly arg: number } | { readonly iname: string };

interface StoragePlan {
  readonly keys: readonly string[];
  /** Undefined when the axes are the rule's arguments in order. */
  readonly axesOf: ((args: readonly Expr[]) => Expr[]) | undefined;
  readonly valueAt: (idx: readonly Expr[]) => Expr;
  readonly extraOuter: readonly string[];
  /** The arguments that are not stored, by position: the same expression at every use. */
  readonly fixedArgs: ReadonlyMap<number, Expr>;
}

type RuleUse = { readonly insnId: string; readonly indices: readonly Expr[]; readonly inames: readonly string[] };

/** Where a use is, for messages: `instruction "u"`. */
const inInstruction = (u: RuleUse): string => `instruction "${u.insnId}"`;

/** `e` with every call of a substitution rule replaced by the rule's body, recursively. */
function expandRules(k: Kernel, e: Expr, who: string, depth = 0): Expr {
  return mapExpr(e, (n) => {
    if (n.kind !== "call") return undefined;
    const r = findSubstitution(k, n.fn);
    if (!r || r.params.length !== n.args.length) return undefined;
    if (depth > 64) throw new TransformError(`${who}: substitution rule "${n.fn}" expands without end`);
    const args = n.args.map((a) => expandRules(k, a, who, depth + 1));
    return expandRules(k, substituteExpr(r.expr, new Map(r.params.map((p, j) => [p, args[j]!]))), who, depth + 1);
  });
}

/**
 * The storage axes of precompute (loopy's storage_axes): which arguments of the rule and which
 * inames index the temporary, what spans the footprint at a use, and the value at a point of it.
 */
function storagePlan(
  k: Kernel, rule: { readonly name: string; readonly params: readonly string[]; readonly expr: Expr },
  uses: readonly RuleUse[], sweep: readonly string[], given: PrecomputeOptions["storageAxes"], who: string,
  where: (u: RuleUse) => string = inInstruction, others: readonly RuleUse[] = [],
): StoragePlan {
  const params = rule.params;
  const kernelInames = new Set(allInames(k));
  for (const u of [...uses, ...others]) {
    if (u.indices.length !== params.length) {
      throw new TransformError(`${who}: rule "${rule.name}" takes ${params.length} argument(s) (${params.join(", ")}) but ${where(u)} calls it with ${u.indices.length}`);
    }
  }
  // The inames the rule's value uses besides its arguments (through other rules too).
  const body = expandRules(k, rule.expr, who);
  const valueInames = [...freeVariables(body)].filter((n) => kernelInames.has(n) && !params.includes(n)).sort(naturalCompare);
  let sources: AxisSource[];
  if (given === undefined) {
    // loopy's default: the swept inames the value uses (slowest), then every argument.
    sources = [...sweep.filter((s) => valueInames.includes(s)).map((s) => ({ iname: s })), ...params.map((_, j) => ({ arg: j }))];
  } else {
    const list: unknown = typeof given === "string" ? given.split(",").map((x) => x.trim()).filter((x) => x.length > 0) : given;
    if (!Array.isArray(list)) throw new TransformError(`${who}: storageAxes must be "x,j" or a list of argument names, argument positions and inames; got ${JSON.stringify(given)}`);
    const useInames = new Set([...uses, ...others].flatMap((u) => u.inames));
    sources = list.map((x: unknown): AxisSource => {
      if (typeof x === "number") {
        if (!Number.isInteger(x) || x < 0 || x >= params.length) {
          throw new TransformError(`${who}: storage axis ${x} is not an argument position of rule "${rule.name}", which takes ${params.length} argument(s) (${params.join(", ") || "none"})`);
        }
        return { arg: x };
      }
      if (typeof x !== "string") throw new TransformError(`${who}: a storage axis must be an argument name, an argument position or an iname; got ${JSON.stringify(x)}`);
      const p = params.indexOf(x);
      if (p >= 0) return { arg: p };
      if (useInames.has(x)) return { iname: x };
      throw new TransformError(`${who}: storage axis "${x}" is neither an argument of rule "${rule.name}" (${params.join(", ") || "none"}) ` +
        `nor an iname of the instructions that use it (${[...useInames].sort(naturalCompare).join(", ") || "none"})`);
    });
  }
  const keys = sources.map((s) => ("arg" in s ? params[s.arg]! : s.iname));
  const dup = keys.find((x, j) => keys.indexOf(x) !== j);
  if (dup !== undefined) throw new TransformError(`${who}: storage axis "${dup}" is given twice in ${JSON.stringify(given)}`);
  const storedArgs = new Set(sources.flatMap((s) => ("arg" in s ? [s.arg] : [])));
  const inameAxes = new Set(sources.flatMap((s) => ("iname" in s ? [s.iname] : [])));
  for (const s of sweep) {
    if (valueInames.includes(s) && !inameAxes.has(s)) {
      throw new TransformError(`${who}: the value of rule "${rule.name}" uses the swept iname ${s}, which is not a storage axis (storage axes are ${keys.join(", ") || "none"}); add ${s} to storageAxes, or do not sweep it`);
    }
  }
  // An argument without storage is fixed: one expression at every use, not varying with the sweep.
  const fixed = new Map<string, Expr>();
  const sameValue = (a: Expr, b: Expr): boolean => {
    if (exprEquals(a, b)) return true;
    const [x, y] = [exprToAff(a, () => true), exprToAff(b, () => true)];
    return x !== undefined && y !== undefined && affIsConstant(affSub(x, y)) && affSub(x, y).constant === 0;
  };
  params.forEach((p, j) => {
    if (storedArgs.has(j)) return;
    const first = uses[0]!.indices[j]!;
    const other = uses.find((u) => !sameValue(u.indices[j]!, first));
    if (other) {
      throw new TransformError(`${who}: argument ${p} of rule "${rule.name}" is not a storage axis, so it must be the same at every use; ` +
        `it is ${exprToString(first)} in ${where(uses[0]!)} and ${exprToString(other.indices[j]!)} in ${where(other)}; add ${p} to storageAxes`);
    }
    const swept = [...freeVariables(first)].filter((n) => sweep.includes(n));
    if (swept.length > 0) {
      throw new TransformError(`${who}: argument ${p} of rule "${rule.name}" is not a storage axis, but its value ${exprToString(first)} varies with the swept iname(s) ${swept.join(", ")}; add ${p} to storageAxes`);
    }
    fixed.set(p, first);
  });
  const extraOuter = [...new Set([
    ...valueInames.filter((n) => !sweep.includes(n)),
    ...[...fixed.values()].flatMap((e) => [...freeVariables(e)].filter((n) => kernelInames.has(n))),
  ])].sort(naturalCompare);
  const identity = sources.length === params.length && sources.every((s, j) => "arg" in s && s.arg === j);
  const valueBody = inameAxes.size > 0 ? body : rule.expr;
  return {
    keys,
    axesOf: identity ? undefined : (args) => sources.map((s) => ("arg" in s ? args[s.arg]! : v(s.iname))),
    valueAt: (idx) => substituteExpr(valueBody, new Map<string, Expr>([
      ...sources.map((s, r): [string, Expr] => ["arg" in s ? params[s.arg]! : s.iname, idx[r]!]),
      ...fixed,
    ])),
    extraOuter,
    fixedArgs: new Map([...fixed].map(([p, e]) => [params.indexOf(p), e])),
  };
}
