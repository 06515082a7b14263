/**
 * Affine bijections of a domain (loopy's map_domain): new inames replace old ones, and every use
 * of an old iname becomes an affine expression in the new ones.
 */
import { LoomError, TransformError } from "../src/errors.js";
import { affToExpr, domainIndexOf, formatInameTag, withKernel, type Expr, type Kernel } from "../src/ir/index.js";
import {
  addConstraints, aff, affSub, intersect, isEmpty, isSubset, moveToDims, parseMap, projectOut, rename, substitute,
  type Aff, type BasicSet,
} from "../src/poly/index.js";
import { checkIname, checkStoresInStep, takenNames, checkKernel } from "./common.js";
import { reductionsOf, rewriteKernel } from "./rewrite.js";

const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b));

/**
 * Solve the equalities of `m` for `inDims`: each as an affine expression with integer
 * coefficients in the out dims and parameters. Fraction-free Gauss–Jordan on the equality rows.
 */
function inverse(m: BasicSet, inDims: readonly string[], who: string): Map<string, Aff> {
  const names = [...m.params, ...m.dims, ...m.exists];
  const rows = m.constraints.filter((con) => con.eq).map((con) => [...con.coeffs, con.constant]);
  const pivots = new Map<string, number[]>();
  for (const x of inDims) {
    const col = names.indexOf(x);
    const at = rows.findIndex((r) => r[col] !== 0 && ![...pivots.values()].includes(r));
    if (at < 0) throw new TransformError(`${who}: the map is not invertible affinely: its equalities do not determine "${x}" from the new inames (write it as ${x} = …)`);
    const p = rows[at]!;
    for (let n = 0; n < rows.length; n++) {
      const r = rows[n]!;
      if (n === at || r[col] === 0) continue;
      const [a, b] = [p[col]!, r[col]!];
      const next = r.map((val, k) => a * val - b * p[k]!);
      const g = next.reduce((acc, val) => gcd(acc, val), 0) || 1;
      rows[n] = next.map((val) => val / g);
      for (const [key, row] of pivots) if (row === r) pivots.set(key, rows[n]!);
    }
    pivots.set(x, rows[at]!);
  }
  const result = new Map<string, Aff>();
  for (const x of inDims) {
    const r = pivots.get(x)!;
    const col = names.indexOf(x);
    const a = r[col]!;
    const terms: Record<string, number> = {};
    let bad: string | undefined;
    names.forEach((nm, k) => {
      if (k === col || r[k] === 0) return;
      if (k >= m.params.length + m.dims.length) bad = "an existential variable";
      else if (inDims.includes(nm)) bad = `"${nm}"`;
      else if (r[k]! % a !== 0) bad = `a fraction of "${nm}"`;
      else terms[nm] = -r[k]! / a;
    });
    const constant = r[names.length]!;
    if (bad === undefined && constant % a !== 0) bad = "a fractional constant";
    if (bad !== undefined) throw new TransformError(`${who}: the map is not invertible affinely: "${x}" would involve ${bad}; the inverse must be affine with integer coefficients`);
    result.set(x, aff(terms, -constant / a || 0));
  }
  return result;
}

/**
 * Apply an affine bijection, given as an ISL map, to the one domain holding its input inames
 * (loopy's map_domain). The input inames are replaced by the output inames in the domain (at the
 * position of the first input), and every use (indices, predicates, loops, reductions, dependent
 * domains) by the inverse map, which must be affine with integer coefficients. The map must be a
 * bijection between the domain and its image (checked). Tags of the old inames are dropped; a
 * hardware-tagged input iname is an error.
 *
 *   mapDomain(k, "{[i] -> [io, ii]: i = 4*io + ii and 0 <= ii < 4}")   // a split by 4
 *   mapDomain(k, "[n] -> {[i] -> [r]: r = n - 1 - i}")                   // loop reversal
 */
export function mapDomain(k: Kernel, map: string): Kernel {
  const who = "mapDomain";
  checkKernel(k, who);
  if (typeof map !== "string") throw new TransformError(`${who}: the map must be an ISL map string like "{[i] -> [io, ii]: i = 4*io + ii and 0 <= ii < 4}"; got ${JSON.stringify(map)}`);
  let parsed: ReturnType<typeof parseMap>;
  try {
    parsed = parseMap(map);
  } catch (e) {
    throw e instanceof LoomError ? new TransformError(`${who}: cannot parse the map: ${e.message}`) : e;
  }
  const { set: m, inDims, outDims } = parsed;
  if (inDims.length === 0 || outDims.length === 0) throw new TransformError(`${who}: the map needs input and output inames, as in {[i] -> [io, ii]: …}`);
  for (const x of inDims) checkIname(k, x, who);
  const idx = domainIndexOf(k, inDims[0]!);
  const other = inDims.find((x) => domainIndexOf(k, x) !== idx);
  if (other !== undefined) throw new TransformError(`${who}: the input inames ${inDims.join(", ")} must be in one domain; "${other}" is in another`);
  const taken = takenNames(k);
  const clash = outDims.find((x) => taken.has(x));
  if (clash !== undefined) throw new TransformError(`${who}: output iname "${clash}" is already a name in kernel "${k.name}"; output inames must be new`);
  const unknown = m.params.find((p) => !taken.has(p));
  if (unknown !== undefined) throw new TransformError(`${who}: the map's parameter "${unknown}" is not a name of kernel "${k.name}"`);
  for (const x of inDims) {
    const t = k.inameTags[x];
    if (t !== undefined && (t.kind === "g" || t.kind === "l" || t.kind === "l.auto")) {
      throw new TransformError(`${who}: iname "${x}" has the hardware tag ${formatInameTag(t)}; untag it (tagInames(k, {${x}: "for"})) before mapping and tag the new inames after`);
    }
  }
  for (const insn of k.instructions) {
    for (const used of [insn.withinInames, ...reductionsOf(insn)]) {
      const hit = inDims.filter((x) => used.includes(x));
      if (hit.length > 0 && hit.length < inDims.length) {
        throw new TransformError(`${who}: instruction "${insn.id}" uses ${hit.join(", ")} but not ${inDims.filter((x) => !hit.includes(x)).join(", ")} in its loops or in one reduction; the mapped inames must be used together`);
      }
    }
  }

  const f = inverse(m, inDims, who);
  const d = k.domains[idx]!;
  let image = d;
  let mapImage = m;
  for (const x of inDims) {
    image = substitute(image, x, f.get(x)!);
    mapImage = substitute(mapImage, x, f.get(x)!);
  }
  const pos = Math.min(...inDims.map((x) => d.dims.indexOf(x)));
  const newDomain = intersect(moveToDims(image, outDims.filter((o) => image.params.includes(o)), pos), mapImage);
  checkBijective(d, m, newDomain, inDims, outDims, f, who);

  const domains = k.domains.map((dd, n) => {
    if (n === idx) return newDomain;
    let out = dd;
    for (const x of inDims) if (out.params.includes(x)) out = substitute(out, x, f.get(x)!);
    return out;
  });
  const values = new Map<string, Expr>(inDims.map((x) => [x, affToExpr(f.get(x)!, { order: outDims, coefficientAfter: true })]));
  const r = { values, inames: new Map(inDims.map((x) => [x, outDims])) };
  const out = withKernel(rewriteKernel(k, r), { domains });
  checkStoresInStep(out, who);
  return out;
}

/** Every point of `d` has an image under `m` (surjective inverse), and no two images share a preimage. */
function checkBijective(d: BasicSet, m: BasicSet, image: BasicSet, inDims: readonly string[], outDims: readonly string[], f: ReadonlyMap<string, Aff>, who: string): void {
  try {
    const domainOfMap = projectOut(m, outDims);
    if (!isSubset(d, domainOfMap)) throw new TransformError(`${who}: the map is not defined on every point of the domain of ${inDims.join(", ")}`);
    const primed = Object.fromEntries(outDims.map((o) => [o, `${o}__2`]));
    const pair = intersect(image, rename(image, primed));
    const same = inDims.map((x) => {
      const fx = f.get(x)!;
      const fx2 = aff(Object.fromEntries(Object.entries(fx.terms).map(([nm, cf]) => [primed[nm] ?? nm, cf])), fx.constant);
      return { aff: affSub(fx, fx2), eq: true };
    });
    for (const o of outDims) {
      if (!isEmpty(addConstraints(pair, [...same, { aff: aff({ [primed[o]!]: 1, [o]: -1 }, -1), eq: false }]))) {
        throw new TransformError(`${who}: the map is not one-to-one on the domain: two values of ${outDims.join(", ")} give the same ${inDims.join(", ")}`);
      }
    }
  } catch (e) {
    if (e instanceof TransformError || !(e instanceof LoomError)) throw e;
    throw new TransformError(`${who}: cannot verify that the map is a bijection on the domain (${e.message})`);
  }
}
