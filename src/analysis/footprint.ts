/**
 * Access footprints (ALGORITHMS.md §2): the set of array indices that the reads of an array (or
 * the calls of a substitution rule) touch when some inames sweep their ranges and every other
 * iname of the accessing instructions is held fixed, as a parameter. The footprint is a union of
 * basic sets (one per access), over dimensions that stand for the array's axes; its bounding box
 * gives, per axis, a base (affine in the fixed inames and parameters) and an extent.
 *
 *   accessFootprint(k, "a", { sweepInames: ["i_inner", "k_inner"] }).box
 *   // [{ base: 16*i_outer, extent: 16 }, { base: 16*k_outer, extent: 16 }]
 */
import { LoomError } from "../errors.js";
import {
  allInames, blockAccesses, findArg, findSubstitution, findTemporary, insnInames, naturalCompare, walkExpr, type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { isEmpty, isSubsetOfUnion, universe, type BasicSet } from "../poly/index.js";
import { footprintBox, type BoxAxis } from "./footprint-box.js";

export { FootprintError, predicateConditions, type Access, type AffCondition } from "./footprint-piece.js";
import { accessPiece, factsOf, FootprintError, sameWhenWider, type Access, type PieceNote } from "./footprint-piece.js";
export { exprToAff } from "../ir/index.js";
export type { BoxAxis } from "./footprint-box.js";

// ---- accesses ----------------------------------------------------------------------------------


/** Which uses count (precompute of "f$one", addPrefetch of "a$x"): asked about each read or call. */
export type UseFilter = (use: Pick<Access, "insnId" | "indices" | "tag">) => boolean;

/** Every iname an instruction uses: its loops and reduction inames. */
export function instructionInames(insn: Instruction): string[] {
  return [...sortedInsnInames(insn)];
}

/**
 * instructionInames as one frozen array per insnInames answer (a frozen array, shared by the
 * instructions a fetch rewrites without changing their inames: src/ir's sameInsnInames).
 */
function sortedInsnInames(insn: Instruction): readonly string[] {
  const names = insnInames(insn);
  let sorted = sortedInames.get(names);
  if (sorted === undefined) {
    sorted = Object.freeze([...names].sort(naturalCompare));
    if (Object.isFrozen(names)) sortedInames.set(names, sorted);
  }
  return sorted;
}

const sortedInames = new WeakMap<readonly string[], readonly string[]>();

/**
 * The reads of `name` (subscripts `name[...]`, or calls `name(...)` when `name` is a substitution
 * rule) in the instructions `insnIds` (default: all). A linear subscript `name[[...]]` is a
 * FootprintError: its footprint is not a function of the array's axes.
 */
export function findAccesses(k: Kernel, name: string, insnIds?: Iterable<string>, select?: UseFilter): Access[] {
  const ids = insnIds === undefined ? undefined : new Set(insnIds);
  const isRule = findSubstitution(k, name) !== undefined && !findArg(k, name) && !findTemporary(k, name);
  const out: Access[] = [];
  // (Indexed loops over the kernel's frozen arrays: V8 takes a slow generic path for for-of over them.)
  for (let x = 0; x < k.instructions.length; x++) {
    const insn = k.instructions[x]!;
    if (ids && !ids.has(insn.id)) continue;
    if (insn.kind === "block" && !isRule) {
      const { reads, writes } = blockAccesses(insn.body);
      if (reads.has(name) || writes.has(name)) {
        throw new FootprintError(`block "${insn.id}" ${writes.has(name) ? "writes" : "reads"} ${name}; accesses inside a block are not affine, so the footprint of ${name} is unknown`);
      }
    }
    // The instruction's inames, sorted once it is found to read `name` (most instructions do not).
    let inamesOf: readonly string[] | undefined;
    const use = (indices: readonly Expr[], tag: string | undefined): void => {
      const inames = (inamesOf ??= sortedInsnInames(insn));
      const acc: Access = tag === undefined ? { insnId: insn.id, indices, inames } : { insnId: insn.id, indices, inames, tag };
      if (!select || select(acc)) out.push(acc);
    };
    // One visitor per instruction (not a closure per node), over readExprs' expressions in its order.
    const visit = (n: Expr): void => {
      if (!isRule && n.kind === "subscript" && n.array === name) use(n.indices, n.tag);
      else if (!isRule && n.kind === "linear" && n.array === name) {
        if (select && !select({ insnId: insn.id, indices: [n.index], ...(n.tag !== undefined ? { tag: n.tag } : {}) })) return;
        throw new FootprintError(`instruction "${insn.id}" reads ${name} through a linear subscript ${name}[[...]]; its footprint over the axes of ${name} is unknown`);
      } else if (isRule && n.kind === "call" && n.fn === name) use(n.args, n.tag);
    };
    for (let i = 0; i < insn.predicates.length; i++) walkExpr(insn.predicates[i]!, visit);
    if (insn.kind === "assign") {
      walkExpr(insn.rhs, visit);
      if (insn.lhs.kind === "subscript") for (let i = 0; i < insn.lhs.indices.length; i++) walkExpr(insn.lhs.indices[i]!, visit);
      else if (insn.lhs.kind === "linear") walkExpr(insn.lhs.index, visit);
    }
  }
  return out;
}

/** Ids of the instructions that read `name` (subscripts, or calls when it is a rule). */
export function readersOf(k: Kernel, name: string): string[] {
  return [...new Set(findAccesses(k, name).map((a) => a.insnId))];
}

// ---- footprint -----------------------------------------------------------------------------------

export interface FootprintOptions {
  /** Only the accesses in these instructions (default: every instruction that reads the array). */
  readonly insnIds?: Iterable<string>;
  /** Inames that sweep their whole range; every other iname of an accessing instruction is fixed. */
  readonly sweepInames: readonly string[];
  /**
   * Only `dependsOn` (and `dims`, `accesses`) is wanted: the box is left empty and `isBox` false,
   * which saves its bounds and containment tests, and `set` has the fixed inames that no row ties
   * to an index projected out too (see `accessPiece`).
   */
  readonly dependsOnly?: boolean;
  /**
   * The indices that span the footprint, per access (default: its subscript or rule arguments);
   * precompute's storage axes (some arguments, some inames) use it.
   */
  readonly mapIndices?: (acc: Access) => readonly Expr[];
  /** Only the uses this filter keeps (default: every use in the instructions). */
  readonly select?: UseFilter;
  /**
   * Footprint generators that are no read of an instruction (precompute's invocations `f(i, j)`),
   * added to the reads found: `inames` are those they mention, and no predicate guards them.
   */
  readonly invocations?: readonly Access[];
  /**
   * A `dependsOnly` footprint of the same reads (the same kernel, and these options but for the
   * sweep) over sweep inames that this footprint's sweep holds, as a fetch asks one before this:
   * its pieces are this footprint's where the wider sweep cannot change them (see
   * `sameWhenWider`), and are then not computed again. Otherwise it is ignored.
   */
  readonly from?: Footprint;
}

export interface Footprint {
  /** The set dimensions' names, one per axis of the array (internal, distinct from every kernel name). */
  readonly dims: readonly string[];
  /** The footprint as a union of basic sets over `dims` (parameters: fixed inames and kernel parameters). */
  readonly set: readonly BasicSet[];
  /** Its bounding box, one entry per axis. */
  readonly box: readonly BoxAxis[];
  /** The box as a basic set over `dims`: every face of `box`. */
  readonly boxSet: BasicSet;
  /** Whether the footprint equals its bounding box (one piece, and the box adds no point). */
  readonly isBox: boolean;
  /** The fixed inames the footprint's constraints involve (together with an index dimension). */
  readonly dependsOn: readonly string[];
  readonly accesses: readonly Access[];
}


/** The set dimensions of a footprint of `array`, one per index, named apart from the kernel's names. */
function footprintDims(k: Kernel, array: string, accesses: readonly Access[]): string[] {
  const rank = accesses[0]!.indices.length;
  const bad = accesses.find((a) => a.indices.length !== rank);
  if (bad) throw new FootprintError(`${array} is accessed with ${rank} and with ${bad.indices.length} indices (instruction "${bad.insnId}")`);
  const taken = new Set([...allInames(k), ...k.domains.flatMap((d) => d.params), ...k.args.map((a) => a.name)]);
  const dims: string[] = [];
  for (let r = 0; r < rank; r++) {
    let name = `${array}_index${r}`;
    for (let j = 0; taken.has(name); j++) name = `${array}_index${r}_${j}`;
    dims.push(name);
  }
  return dims;
}

/**
 * Whether the footprint of each of `uses` (reads in instructions, guarded by their predicates)
 * lies inside the footprint of the `invocations` (precompute's footprint generators), both swept
 * over `sweepInames` with every other iname fixed: exactly, for every value of the fixed inames
 * and parameters (loopy's test of a use against the footprint). Where containment cannot be
 * decided (generator pieces with existentials that no single piece covers) or the use's footprint
 * is unknown (non-affine arguments), the use counts as outside, which only leaves it calling the rule.
 *
 *   accessesInside(k, "f", [gen("f(i, j)")], uses, { sweepInames: ["j"] })   // [true, false, …]
 */
export function accessesInside(
  k: Kernel, array: string, invocations: readonly Access[], uses: readonly Access[],
  opts: Pick<FootprintOptions, "sweepInames" | "mapIndices">,
): boolean[] {
  if (invocations.length === 0 || uses.length === 0) return uses.map(() => false);
  const map = (a: Access): Access => (opts.mapIndices === undefined ? a : { ...a, indices: opts.mapIndices(a) });
  const gens = invocations.map(map);
  const dims = footprintDims(k, array, gens);
  const sweep = new Set(opts.sweepInames);
  const genPieces = gens.map((g) => accessPiece(k, g, dims, sweep, array, false, false)).filter((p) => !isEmpty(p));
  return uses.map((u0) => {
    const u = map(u0);
    if (u.indices.length !== dims.length) return false;
    try {
      return isSubsetOfUnion(accessPiece(k, u, dims, sweep, array), genPieces);
    } catch (e) {
      // A use whose footprint is unknown (non-affine arguments) is not inside either.
      if (!(e instanceof LoomError)) throw e;
      return false;
    }
  });
}

/**
 * The footprint of the reads of `array` (an array, or a substitution rule's calls) in the
 * instructions `insnIds` swept over `sweepInames`; every other iname of those instructions is a
 * parameter. Non-affine subscripts, or an axis without affine bounds, are a FootprintError.
 */
export function accessFootprint(k: Kernel, array: string, opts: FootprintOptions): Footprint {
  const reused = reusedPieces(k, array, opts);
  if (reused !== undefined) return footprintOf(k, array, reused.dims, reused.set, reused.accesses, opts, undefined);
  const found = findAccesses(k, array, opts.insnIds, opts.select);
  // Invocations beside reads are swept in one domain with them (as loopy sweeps all generators in
  // one domain): the box's faces in the readers' inames then hold for the invocations too.
  const given = opts.invocations ?? [];
  let invocations = given;
  if (found.length > 0 && given.length > 0) {
    const scope = [...new Set([...found, ...given].flatMap((a) => a.inames))].sort(naturalCompare);
    invocations = given.map((a) => ({ ...a, inames: scope }));
  }
  const mapped = (list: readonly Access[]) => (opts.mapIndices === undefined ? list : list.map((a) => ({ ...a, indices: opts.mapIndices!(a) })));
  const accesses = [...mapped(found), ...mapped(invocations)];
  if (accesses.length === 0) throw new FootprintError(`no instruction${opts.insnIds ? " of those given" : ""} reads ${array}`);
  const dims = footprintDims(k, array, accesses);
  const sweep = new Set(opts.sweepInames);
  const lean = opts.dependsOnly === true;
  const notes: PieceNote[] | undefined = lean ? [] : undefined;
  const all = accesses.map((a, x) => accessPiece(k, a, dims, sweep, array, lean, x < found.length, notes));
  const pieces = all.filter((p) => !isEmpty(p));
  if (pieces.length === 0) throw new FootprintError(`the footprint of ${array} is empty: no access runs`);
  return footprintOf(k, array, dims, pieces, accesses, opts, notes);
}

/** What a lean footprint was computed from, for a wider one to reuse its pieces (`FootprintOptions.from`). */
interface LeanRecord {
  readonly k: Kernel;
  readonly array: string;
  readonly opts: FootprintOptions;
  readonly notes: readonly PieceNote[];
}

const leanRecords = new WeakMap<Footprint, LeanRecord>();

/**
 * Whether two insnIds options name the same instructions in the same order. Only arrays are
 * compared: another iterable may be an iterator that reading here would use up.
 */
function sameIds(a: Iterable<string> | undefined, b: Iterable<string> | undefined): boolean {
  if (a === b) return a === undefined || Array.isArray(a);
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `opts.from`'s pieces, when they are this footprint's (see `FootprintOptions.from`). */
function reusedPieces(k: Kernel, array: string, opts: FootprintOptions): Footprint | undefined {
  const from = opts.from;
  const rec = from === undefined || opts.dependsOnly === true ? undefined : leanRecords.get(from);
  if (rec === undefined || rec.k !== k || rec.array !== array) return undefined;
  const o = rec.opts;
  if (o.select !== opts.select || o.mapIndices !== opts.mapIndices || o.invocations !== opts.invocations || !sameIds(o.insnIds, opts.insnIds)) return undefined;
  const sweep = new Set(o.sweepInames);
  const wider = new Set(opts.sweepInames);
  for (const s of sweep) if (!wider.has(s)) return undefined;
  // One note per access, each piece empty or not alike: every one must be the same.
  if (rec.notes.length !== from!.accesses.length || !rec.notes.every((n) => sameWhenWider(n, sweep, wider))) return undefined;
  reuses++;
  return from;
}

let reuses = 0;

/** How many full footprints reused a lean one's pieces (tests: the fast path is taken). */
export function footprintReuses(): number {
  return reuses;
}

function footprintOf(
  k: Kernel, array: string, dims: readonly string[], pieces: readonly BasicSet[], accesses: readonly Access[], opts: FootprintOptions, notes: PieceNote[] | undefined,
): Footprint {
  const kernelInames = factsOf(k).inames;
  const dependsOn = new Set<string>();
  for (const p of pieces) {
    const np = p.params.length;
    const end = np + p.dims.length;
    for (const con of p.constraints) {
      const cs = con.coeffs;
      let hasIndex = false;
      for (let j = np; j < end && !hasIndex; j++) if (cs[j] !== 0) hasIndex = true;
      if (!hasIndex) continue;
      for (let j = 0; j < np; j++) if (cs[j] !== 0) dependsOn.add(p.params[j]!);
    }
  }
  const dependsOnList = [...dependsOn].filter((n) => kernelInames.has(n)).sort(naturalCompare);
  if (opts.dependsOnly === true) {
    const fp: Footprint = { dims, set: pieces, box: [], boxSet: universe([], dims), isBox: false, dependsOn: dependsOnList, accesses };
    if (notes !== undefined) leanRecords.set(fp, { k, array, opts, notes });
    return fp;
  }
  const { box, boxSet, isBox } = footprintBox(pieces, dims);
  return { dims, set: pieces, box, boxSet, isBox, dependsOn: dependsOnList, accesses };
}
