/** Containment and equality of sets, decided exactly with the Omega test: subset, subset of a union, implied row, equality. */
import type { BasicSet } from "./types.js";
import { LoomError } from "../errors.js";
import { type Row, type Sys, toSys } from "./rows.js";
import { finish, isCanonicalEmpty } from "./normalize.js";
import { isEmpty } from "./empty.js";
import { implies } from "./implied.js";
import { addConstraints, intersect, universe } from "./ops.js";
import { aff, affAdd, affSub } from "./affine.js";
import { cached, contentMemo, setKey, cachedBySets, setMemo } from "./memo.js";

/**
 * The existentials of `b` as floor definitions (`e = floor(num/k)`): an equality `k·e = num`,
 * a single upper or lower bound, or a pair `0 <= num - k·e <= w < k`. null when some existential has no such definition.
 */
function floorDefinitions(b: BasicSet): Row[] | null {
  const sys = toSys(b);
  const first = b.params.length + b.dims.length;
  const defs: Row[] = [];
  for (let e = first; e < sys.n; e++) {
    let def: Row | undefined;
    const eq = sys.eqs.find((r) => r[e] !== 0);
    if (eq) def = eq[e]! < 0 ? eq : eq.map((v) => -v || 0);
    // With a single upper (lower) bound, the largest (smallest) candidate is a witness whenever
    // any is: e = floor(U/k) (resp. ceil(L/k)).
    const ups = sys.ineqs.filter((r) => r[e]! < 0);
    const los = sys.ineqs.filter((r) => r[e]! > 0);
    // Sound only when e's rows involve no other existential, and defs use earlier ones only.
    const lone = [...ups, ...los].every((r) => r.every((v, k) => k < first || k === e || k === sys.n || v === 0));
    if (!def && lone && ups.length === 1) def = ups[0]!;
    if (!def && lone && los.length === 1) {
      const k = los[0]![e]!;
      def = los[0]!.map((v) => -v || 0);
      def[sys.n] = def[sys.n]! + k - 1;
    }
    for (const r1 of def ? [] : sys.ineqs) {
      if (r1[e]! >= 0) continue;
      const r2 = sys.ineqs.find((r) => r.every((v, i) => i === sys.n || v === -r1[i]!));
      if (r2 && r1[sys.n]! + r2[sys.n]! < -r1[e]! && r1[sys.n]! + r2[sys.n]! >= 0) def = r1;
    }
    if (!def || def.some((v, k) => k > e && k < sys.n && v !== 0)) return null;
    defs.push(def);
  }
  // num - k·e >= 0 and k·e + k - 1 - num >= 0 define e = floor(num/k) uniquely.
  return defs.flatMap((d, j) => {
    const col = first + j;
    const up = d.map((v) => -v || 0);
    up[sys.n] = up[sys.n]! + -d[col]! - 1;
    return [d, up];
  });
}

/**
 * a ⊆ b, exactly. When `b` has existentials they must be definable as floors (what `mod`,
 * `floor`, `ceil` produce); otherwise a LoomError says the question cannot be decided.
 */
export function isSubset(a: BasicSet, b: BasicSet): boolean {
  if (isCanonicalEmpty(a)) return true;
  return cachedBySets(subsetMemo, a, b, () => computeIsSubset(a, b));
}

const subsetMemo = setMemo<boolean>();

function computeIsSubset(a: BasicSet, b: BasicSet): boolean {
  const defs = floorDefinitions(b);
  if (!defs && isEmpty(a)) return true;
  if (!defs) throw new LoomError(`isSubset: cannot decide containment in a set whose existentials are not floor/mod definitions`);
  // Work in b's columns extended by a's: put a and b's definitions into one space via intersect,
  // with b's existentials exposed as extra dims so its rows can be negated one at a time.
  const bExposed = finishExposed(b);
  const bDefs = finish([...b.params], [...b.dims, ...bExposed.exNames], [], { n: toSys(b).n, eqs: [], ineqs: defs });
  const space = intersect(a, bDefs);
  if (isCanonicalEmpty(space)) return true;
  const bRows = intersect(universe(space.params, space.dims), bExposed.set);
  const base = toSys(space);
  const bs = toSys(bRows);
  // bRows has the same visible columns as space (same names, same order) and no existentials.
  const widen = (r: Row) => {
    const o = r.slice(0, bs.n);
    while (o.length < base.n) o.push(0);
    o.push(r[bs.n]!);
    return o;
  };
  for (const r of bs.eqs) if (!implies(base, widen(r), true)) return false;
  for (const r of bs.ineqs) if (!implies(base, widen(r), false)) return false;
  return true;
}

/**
 * a ⊆ b1 ∪ … ∪ bn, exactly: a is inside some bi, or each part of a outside b1 (a with one row of
 * b1 negated) is inside the union of the others. Splitting needs the rows of b1 over named
 * columns: a piece with existentials that covers no part whole cannot be split, and a LoomError
 * says the question cannot be decided. `isSubsetOfUnion(parseSet("{[x]: 0<=x<4}"), [lo, hi])`
 */
export function isSubsetOfUnion(a: BasicSet, bs: readonly BasicSet[]): boolean {
  if (isCanonicalEmpty(a) || isEmpty(a)) return true;
  if (bs.some((b) => isSubset(a, b))) return true;
  if (bs.length < 2) return false;
  const [b, ...rest] = bs as [BasicSet, ...BasicSet[]];
  if (b.exists.length > 0) {
    if (rest.every((r) => r.exists.length > 0)) throw new LoomError(`isSubsetOfUnion: cannot decide containment in a union whose pieces have existentials`);
    return isSubsetOfUnion(a, [...rest, b]);
  }
  const names = [...b.params, ...b.dims];
  for (const con of b.constraints) {
    const terms: Record<string, number> = {};
    con.coeffs.forEach((x, j) => {
      if (x !== 0) terms[names[j]!] = x;
    });
    const e = aff(terms, con.constant);
    // Not (e >= 0) is -1 - e >= 0; not (e = 0) is that or e - 1 >= 0.
    const outside = [affSub(aff({}, -1), e)];
    if (con.eq) outside.push(affAdd(e, aff({}, -1)));
    for (const o of outside) if (!isSubsetOfUnion(addConstraints(a, [{ aff: o, eq: false }]), rest)) return false;
  }
  return true;
}

/** `b` with its existentials turned into ordinary dims (fresh names). */
function finishExposed(b: BasicSet): { set: BasicSet; exNames: string[] } {
  const taken = new Set([...b.params, ...b.dims]);
  const exNames = b.exists.map((_, k) => {
    let nm = `__x${k}`;
    while (taken.has(nm)) nm += "_";
    taken.add(nm);
    return nm;
  });
  const sys = toSys(b);
  return { set: finish(b.params, [...b.dims, ...exNames], [], sys), exNames };
}

/**
 * Whether constraint `index` of `t` (no existentials) follows from the others over the integers:
 * `isSubset(t without it, t)`, decided on the rows alone, without building either set.
 */
export function constraintImplied(t: BasicSet, index: number): boolean {
  if (t.exists.length > 0) {
    const rest = finish(t.params, t.dims, t.exists, withoutRow(toSys(t), t, index));
    return isSubset(rest, t);
  }
  return cached(impliedMemo, `${setKey(t)}#${index}`, () => {
    const c = t.constraints[index]!;
    const sys = withoutRow(toSys(t), t, index);
    const r = [...c.coeffs, c.constant];
    return implies(sys, r, c.eq);
  });
}

const impliedMemo = contentMemo<boolean>();

/** The rows of `t` but the one of constraint `index` (toSys keeps constraint order per kind). */
function withoutRow(sys: Sys, t: BasicSet, index: number): Sys {
  const c = t.constraints[index]!;
  let at = 0;
  for (let k = 0; k < index; k++) if (t.constraints[k]!.eq === c.eq) at++;
  const list = c.eq ? sys.eqs : sys.ineqs;
  list.splice(at, 1);
  return sys;
}

/** Same points (params free). */
export function isEqualSet(a: BasicSet, b: BasicSet): boolean {
  return isSubset(a, b) && isSubset(b, a);
}
