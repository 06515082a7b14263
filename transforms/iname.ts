/**
 * Iname transformations (loopy/transform/iname.py): split, chunk, tag, prioritize. Each is a pure
 * function Kernel -> Kernel; the input is never changed, and a bad request throws TransformError.
 */
import { TransformError } from "../src/errors.js";
import {
  affToExpr, arith, c, domainIndexOf, findArg, findSubstitution, findTemporary, formatInameTag, NATURAL_ORDER, uniqueName, v, withKernel,
  type Expr, type Instruction, type Kernel,
} from "../src/ir/index.js";
import {
  addConstraints, aff, affSub, dimBounds, intersect, moveToDims, projectOut, rename, reorderDims, splitDim, substitute,
  type Aff, type BasicSet,
} from "../src/poly/index.js";
import { recordSplit } from "./split-origin.js";
import { checkNewTags, isHardware, plainTags, tagInames } from "./iname-tags.js";
import { checkIname, checkInt, checkStoresInStep, inameUsed, matchInsns, rememberTakenNames, replaceInameInInsn, replaceIname, takenNames, type InsnMatch, checkKernel, checkOptions } from "./common.js";

export interface SplitOptions {
  readonly outerIname?: string;
  readonly innerIname?: string;
  readonly outerTag?: string;
  readonly innerTag?: string;
  /** `[head, tail]`: iterations of the outer loop generated separately (recorded in `inameSlabs`). */
  readonly slabs?: readonly [number, number];
  /** Only these instructions (an id glob or a list of ids) use the new inames. */
  readonly within?: InsnMatch;
}

export const SPLIT_OPTIONS: Readonly<Record<keyof SplitOptions, true>> = { outerIname: true, innerIname: true, outerTag: true, innerTag: true, slabs: true, within: true };

/** How an iname is replaced: the new domain of its own domain, and the value of the old iname. */
interface Replacement {
  readonly outer: string;
  readonly inner: string;
  readonly mapDomain: (d: BasicSet) => BasicSet;
  /** The affine value of the old iname, for domains that use it as a parameter (undefined: refuse). */
  readonly paramValue: Aff | undefined;
  readonly value: Expr;
}


/** Validation common to split and chunk: the iname exists and carries no tag (loopy refuses). */
function checkSplittable(k: Kernel, iname: string, who: string): void {
  checkIname(k, iname, who);
  const tag = k.inameTags[iname];
  if (tag !== undefined && tag.kind !== "for") {
    const hw = isHardware(tag) ? "hardware " : "";
    throw new TransformError(`${who}: cannot split iname "${iname}": it has the ${hw}tag ${formatInameTag(tag)}; untag it first (tagInames(k, {${iname}: "for"})) or split before tagging`);
  }
}

/** The names of the new inames: given ones must be free, defaults are uniquified. */
function newNames(k: Kernel, iname: string, opts: SplitOptions, who: string, taken: Set<string> = takenNames(k)): [string, string] {
  const pick = (given: string | undefined, suffix: string): string => {
    if (given === undefined) {
      const name = uniqueName(`${iname}_${suffix}`, taken);
      taken.add(name);
      return name;
    }
    if (typeof given !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(given)) {
      throw new TransformError(`${who}: ${suffix}Iname must be an identifier; got ${JSON.stringify(given)}`);
    }
    if (taken.has(given)) throw new TransformError(`${who}: ${suffix}Iname "${given}" is already a name in kernel "${k.name}"; choose another`);
    taken.add(given);
    return given;
  };
  return [pick(opts.outerIname, "outer"), pick(opts.innerIname, "inner")];
}

/** Replace `iname` by `r` in the domains, instructions, priorities, rules and tags of `k`. */
function applyReplacement(k: Kernel, iname: string, r: Replacement, who: string): Kernel {
  return withKernel(k, replacementChanges(k, iname, r, who));
}

/**
 * The fields of `k` that replacing `iname` by `r` changes (applyReplacement's), as a record the
 * caller may add to before building the kernel once. Lists with nothing to rewrite, and a tag or
 * slab record without `iname`, are kept as they are (the same content: no copy to build and freeze).
 */
function replacementChanges(k: Kernel, iname: string, r: Replacement, who: string): { -readonly [K in keyof Kernel]?: Kernel[K] } {
  const idx = domainIndexOf(k, iname);
  // (Indexed loops over the kernel's frozen arrays: V8's map() and some() over them are slow.)
  const domains: BasicSet[] = [];
  for (let i = 0; i < k.domains.length; i++) {
    const d = k.domains[i]!;
    if (i === idx) domains.push(r.mapDomain(d));
    else if (!d.params.includes(iname)) domains.push(d);
    else if (r.paramValue === undefined) throw new TransformError(`${who}: domain ${i} depends on "${iname}", which this transformation cannot express affinely`);
    else domains.push(substitute(d, iname, r.paramValue));
  }
  const pair = [r.outer, r.inner];
  const instructions: Instruction[] = [];
  for (let i = 0; i < k.instructions.length; i++) instructions.push(replaceInameInInsn(k.instructions[i]!, iname, r.value, pair));
  const substitutions = k.substitutions.length === 0 ? k.substitutions : k.substitutions.map((s) =>
    s.params.includes(iname) ? s : { ...s, expr: replaceIname(s.expr, iname, r.value, pair) });
  const loopPriority = k.loopPriority.length === 0 ? k.loopPriority : k.loopPriority.map((p) => p.flatMap((i) => (i === iname ? pair : [i])));
  const inameTags = Object.hasOwn(k.inameTags, iname) ? without(k.inameTags, iname) : k.inameTags;
  // (An absent slab record becomes an empty one, as the kernel has always been given.)
  const inameSlabs = k.inameSlabs === undefined ? {} : Object.hasOwn(k.inameSlabs, iname) ? without(k.inameSlabs, iname) : k.inameSlabs;
  // (Fields set one by one, not spread from fresh objects: V8's slow path, see src/parse/make-kernel.ts.)
  const changes: { -readonly [K in keyof Kernel]?: Kernel[K] } = { domains, instructions, substitutions, loopPriority, inameTags };
  changes.inameSlabs = inameSlabs;
  return changes;
}

/** `r` without `key` (a new record, as `{ [key]: _, ...rest } = r` gives). */
function without<T>(r: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const n in r) if (n !== key && Object.hasOwn(r, n)) out[n] = r[n]!;
  return out;
}

/** Record slabs and tags requested for the new inames. */
function finishSplit(k: Kernel, outer: string, inner: string, opts: SplitOptions, who: string): Kernel {
  let out = k;
  const slabs = slabPair(opts, who);
  if (slabs !== undefined) out = withKernel(out, { inameSlabs: { ...out.inameSlabs, [outer]: slabs } });
  const tags: Record<string, string> = {};
  if (opts.outerTag !== undefined) tags[outer] = opts.outerTag;
  if (opts.innerTag !== undefined) tags[inner] = opts.innerTag;
  return Object.keys(tags).length > 0 ? tagInames(out, tags) : out;
}

/**
 * With `within`, first give the matched instructions their own copy `dup` of `iname` (a new
 * domain dimension with the same constraints), so that splitting `dup` leaves the others alone.
 */
function duplicateFor(k: Kernel, iname: string, within: InsnMatch, who: string): { k: Kernel; dup: string } {
  const ids = matchInsns(k, within, who);
  const idx = domainIndexOf(k, iname);
  const dependent = k.domains.findIndex((d) => d.params.includes(iname));
  if (dependent >= 0) throw new TransformError(`${who}: within is not supported when another domain (${dependent}) depends on "${iname}"`);
  const dup = uniqueName(iname, takenNames(k));
  const d = k.domains[idx]!;
  const both = intersect(d, rename(d, { [iname]: dup }));
  const order = d.dims.flatMap((x) => (x === iname ? [x, dup] : [x]));
  const domains = k.domains.map((dd, i) => (i === idx ? reorderDims(both, order) : dd));
  const instructions = k.instructions.map((insn) => (ids.has(insn.id) ? replaceInameInInsn(insn, iname, v(dup), [dup]) : insn));
  return { k: withKernel(k, { domains, instructions }), dup };
}

/** Drop `iname` from its domain when no instruction uses it any more (after a partial split). */
function dropIfUnused(k: Kernel, iname: string): Kernel {
  if (inameUsed(k, iname) || k.domains.some((d) => d.params.includes(iname))) return k;
  const idx = domainIndexOf(k, iname);
  const domains = k.domains.map((d, i) => (i === idx ? projectOut(d, [iname]) : d));
  const { [iname]: _tag, ...inameTags } = k.inameTags;
  const loopPriority = k.loopPriority.map((p) => p.filter((i) => i !== iname)).filter((p) => p.length > 0);
  return withKernel(k, { domains, inameTags, loopPriority });
}

/** The value of a split iname: `inner + outer*factor`. */
export function splitValue(outer: string, inner: string, factor: number): Expr {
  return arith("+", v(inner), arith("*", v(outer), c(factor)));
}

/**
 * Split `iname` into `i = i_outer*factor + i_inner` with `0 <= i_inner < factor` (loopy's
 * split_iname). Every use of `iname` (indices, predicates, reductions, within-inames, loop
 * priorities, dependent domains) is rewritten.
 *
 *   splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.0" })
 *   // out[i] = 2*a[i]  becomes  out[i_inner + i_outer*16] = 2*a[i_inner + i_outer*16]
 */
export function splitIname(k: Kernel, iname: string, factor: number, opts: SplitOptions = {}): Kernel {
  const who = "splitIname";
  checkKernel(k, who);
  opts = checkOptions(opts, who, SPLIT_OPTIONS);
  checkSplittable(k, iname, who);
  checkInt(factor, 1, `${who}: factor`);
  const taken = takenNames(k);
  const [outer, inner] = newNames(k, iname, opts, who, taken);
  if (opts.within === undefined) return splitWhole(k, iname, outer, inner, factor, opts, who, taken);
  const { k: base, dup: target } = duplicateFor(k, iname, opts.within, who);
  const r: Replacement = {
    outer, inner, paramValue: aff({ [outer]: factor, [inner]: 1 }),
    value: splitValue(outer, inner, factor),
    mapDomain: (d) => splitDim(d, target, outer, inner, factor),
  };
  return finishSplit(dropIfUnused(applyReplacement(base, target, r, who), iname), outer, inner, opts, who);
}

/**
 * splitIname without `within`: the kernel built once, with its slabs and the new inames' tags
 * where they are plain (`g.0`, `l.1`: tagInames' checks then run on it), and its names known by
 * construction (`taken`: the input's and the new inames, given up here).
 */
function splitWhole(k: Kernel, iname: string, outer: string, inner: string, factor: number, opts: SplitOptions, who: string, taken: Set<string>): Kernel {
  const changes = replacementChanges(k, iname, {
    outer, inner, paramValue: aff({ [outer]: factor, [inner]: 1 }),
    value: splitValue(outer, inner, factor),
    // The split's domain written down at once (splitDim: substitute, moveToDims, addConstraints in one normalization).
    mapDomain: (d) => splitDim(d, iname, outer, inner, factor),
  }, who);
  const slabs = slabPair(opts, who);
  if (slabs !== undefined) changes.inameSlabs = { ...changes.inameSlabs, [outer]: slabs };
  const texts: [string, unknown][] = [];
  if (opts.outerTag !== undefined) texts.push([outer, opts.outerTag]);
  if (opts.innerTag !== undefined) texts.push([inner, opts.innerTag]);
  const before = changes.inameTags!;
  const tags = texts.length === 0 ? undefined : plainTags(before, texts);
  if (tags !== undefined) changes.inameTags = tags;
  let out = withKernel(k, changes);
  const idx = domainIndexOf(k, iname);
  if (out.domains[idx] !== k.domains[idx]) recordSplit(out.domains[idx]!, k.domains[idx]!);
  if (tags !== undefined) checkNewTags(out, before, tags);
  else if (texts.length > 0) out = tagInames(out, Object.fromEntries(texts) as Record<string, string>);
  // The split iname is no name of the kernel any more unless something else bears it.
  let borne = k.assumptions.params.includes(iname) || findArg(k, iname) !== undefined || findTemporary(k, iname) !== undefined || findSubstitution(k, iname) !== undefined;
  for (let i = 0; i < k.instructions.length && !borne; i++) borne = k.instructions[i]!.kind === "block";
  for (let i = 0; i < out.domains.length && !borne; i++) borne = out.domains[i]!.dims.includes(iname) || out.domains[i]!.params.includes(iname);
  if (!borne) {
    taken.delete(iname);
    rememberTakenNames(out, taken);
  }
  return out;
}

/** `opts.slabs` checked: `[head, tail]`, or undefined. */
function slabPair(opts: SplitOptions, who: string): [number, number] | undefined {
  if (opts.slabs === undefined) return undefined;
  const s = opts.slabs;
  if (!Array.isArray(s) || s.length !== 2) throw new TransformError(`${who}: slabs must be a pair [head, tail]; got ${JSON.stringify(s)}`);
  return [checkInt(s[0], 0, `${who}: slabs[0]`), checkInt(s[1], 0, `${who}: slabs[1]`)];
}

/**
 * Split `iname` into `numChunks` chunks of consecutive iterations (loopy's chunk_iname): the outer
 * iname has `numChunks` values. The bounds of `iname` must be single affine expressions in the
 * parameters. A constant extent becomes `splitIname` by `ceil(extent / numChunks)`; a parametric
 * one uses loopy's construction (the first `extent mod numChunks` chunks are one longer).
 *
 *   chunkIname(k, "i", 4, { outerTag: "g.0" })   // 0 <= i < n: four chunks of about n/4
 */
export function chunkIname(k: Kernel, iname: string, numChunks: number, opts: SplitOptions = {}): Kernel {
  const who = "chunkIname";
  checkKernel(k, who);
  opts = checkOptions(opts, who, SPLIT_OPTIONS);
  checkSplittable(k, iname, who);
  checkInt(numChunks, 1, `${who}: numChunks`);
  const d = k.domains[domainIndexOf(k, iname)]!;
  const others = d.dims.filter((x) => x !== iname);
  const col = d.params.length + d.dims.indexOf(iname);
  const coupled = d.constraints.some((con) => con.coeffs[col] !== 0 && con.coeffs.some((x, j) => j >= d.params.length && j !== col && x !== 0));
  const b = dimBounds(d, iname, others);
  if (coupled || !b.exact || b.lower.length !== 1 || b.upper.length !== 1 || b.lower[0]!.denom !== 1 || b.upper[0]!.denom !== 1) {
    throw new TransformError(`${who}: the bounds of "${iname}" must be one affine lower and one affine upper bound in the parameters alone (as in 0 <= ${iname} < n)`);
  }
  const lo = b.lower[0]!.aff;
  const size = affSub(b.upper[0]!.aff, affSub(lo, aff({}, 1)));
  if (Object.keys(size.terms).length === 0) {
    const factor = Math.max(1, Math.ceil(size.constant / numChunks));
    try {
      return splitIname(k, iname, factor, opts);
    } catch (e) {
      throw e instanceof TransformError ? new TransformError(e.message.replace(/^splitIname/, who)) : e;
    }
  }
  if (opts.within !== undefined) throw new TransformError(`${who}: within is not supported yet for a parametric extent`);
  const [outer, inner] = newNames(k, iname, opts, who);
  // Domain: i = lo + numChunks*inner + outer, so outer o has ceil((size - o)/numChunks) points;
  // the value maps them onto consecutive chunks, the first (size mod numChunks) one longer.
  const sizeE = affToExpr(size, NATURAL_ORDER);
  const floorLen = arith("//", sizeE, c(numChunks));
  const mod = arith("%", sizeE, c(numChunks));
  const chunkStart: Expr = {
    kind: "if", cond: { kind: "compare", op: "<", left: v(outer), right: mod },
    then: arith("*", v(outer), arith("+", floorLen, c(1))),
    else: arith("+", arith("*", mod, arith("+", floorLen, c(1))), arith("*", arith("-", v(outer), mod), floorLen)),
  };
  const loE = affToExpr(lo, NATURAL_ORDER);
  const offset = loE.kind === "const" && loE.value === 0 ? v(inner) : arith("+", loE, v(inner));
  const r: Replacement = {
    outer, inner, paramValue: undefined,
    value: arith("+", offset, chunkStart),
    mapDomain: (dd) => {
      const pos = dd.dims.indexOf(iname);
      const s = moveToDims(substitute(dd, iname, { terms: { ...lo.terms, [inner]: numChunks, [outer]: 1 }, constant: lo.constant }), [outer, inner], pos);
      return addConstraints(s, [{ aff: aff({ [outer]: 1 }), eq: false }, { aff: aff({ [outer]: -1 }, numChunks - 1), eq: false }]);
    },
  };
  return finishSplit(applyReplacement(k, iname, r, who), outer, inner, opts, who);
}

export { checkLocalTagHasValues, tagInames, type TagSpec } from "./iname-tags.js";
export { checkPrivateStaysInWorkItem } from "./private-checks.js";

/**
 * Add a preferred loop nesting, outermost first (loopy's prioritize_loops); calls accumulate.
 *
 *   prioritizeLoops(k, "i_outer,j_outer,i_inner")
 */
export function prioritizeLoops(k: Kernel, order: string | readonly string[]): Kernel {
  const who = "prioritizeLoops";
  checkKernel(k, who);
  const names = typeof order === "string" ? order.split(",").map((s) => s.trim()).filter((s) => s.length > 0) : order;
  if (!Array.isArray(names) || names.length === 0) throw new TransformError(`${who}: order must be "i,j" or a non-empty list of inames; got ${JSON.stringify(order)}`);
  for (const n of names) checkIname(k, n, who);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) throw new TransformError(`${who}: iname "${dup}" appears twice in ${names.join(",")}`);
  const out = withKernel(k, { loopPriority: [...k.loopPriority, [...names]] });
  checkStoresInStep(out, who);
  return out;
}
