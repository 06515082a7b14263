/**
 * A fetch's new iname widened to the work-group's size on its local axis (loopy's automatic local
 * axes, transforms/fetch-tags.ts): the iname runs over `0 … size-1`, and the constraints of its
 * domain that involve it become predicates of the store, so the extra iterations do nothing.
 */
import { LoomError, TransformError } from "../src/errors.js";
import { affToExpr, NATURAL_ORDER, withKernel, type Expr, type Kernel } from "../src/ir/index.js";
import { aff, addConstraints, isSubset, type Aff, type BasicSet, type Constraint } from "../src/poly/index.js";

/**
 * Give `iname` the range `0 … size-1`: the constraints of its domain that involve it become
 * predicates of instruction `insnId` (its only user), so the extra iterations do nothing.
 */
export function widenIname(k: Kernel, iname: string, size: number, insnId: string, who: string): Kernel {
  const idx = k.domains.findIndex((d) => d.dims.includes(iname));
  const w = widenDomain(k.domains[idx]!, iname, size, who);
  const instructions = k.instructions.map((insn) => (insn.id === insnId ? { ...insn, predicates: [...insn.predicates, ...w.predicates] } : insn));
  return withKernel(k, { domains: k.domains.map((x, i) => (i === idx ? w.dom : x)), instructions });
}

/**
 * Widenings by the domain object, the iname and the size (a function of these; a refusal is not
 * remembered): the store domains of a sweep's variants that share a tile are one object (memoized
 * by content where they are made), so a never-seen variant widens what a sibling widened.
 */
const widened = new WeakMap<BasicSet, Map<string, { readonly dom: BasicSet; readonly predicates: readonly Expr[] }>>();

/** `d` with `iname` widened to `0 … size-1`, and the predicates its constraints on `iname` become (see widenIname). */
export function widenDomain(d: BasicSet, iname: string, size: number, who: string): { readonly dom: BasicSet; readonly predicates: readonly Expr[] } {
  let m = widened.get(d);
  const key = `${iname}|${size}`;
  const known = m?.get(key);
  if (known !== undefined) return known;
  const w = computeWiden(d, iname, size, who);
  if (Object.isFrozen(d)) {
    if (m === undefined) widened.set(d, (m = new Map()));
    m.set(key, w);
  }
  return w;
}

function computeWiden(d: BasicSet, iname: string, size: number, who: string): { readonly dom: BasicSet; readonly predicates: readonly Expr[] } {
  const names = [...d.params, ...d.dims];
  const col = names.indexOf(iname);
  const keep: Constraint[] = [];
  const moved: { aff: Aff; eq: boolean }[] = [];
  for (let x0 = 0; x0 < d.constraints.length; x0++) {
    const con = d.constraints[x0]!;
    if (con.coeffs[col] === 0) {
      keep.push(con);
      continue;
    }
    let existential = false;
    for (let j = names.length; j < con.coeffs.length; j++) if (con.coeffs[j] !== 0) existential = true;
    if (existential) {
      throw new TransformError(`${who}: cannot widen iname "${iname}" to the work-group size ${size}: its bounds involve existential variables; give defaultTag explicitly`);
    }
    const terms: Record<string, number> = {};
    for (let j = 0; j < names.length; j++) if (con.coeffs[j] !== 0) terms[names[j]!] = con.coeffs[j]!;
    moved.push({ aff: aff(terms, con.constant), eq: con.eq });
  }
  const dom = addConstraints({ params: d.params, dims: d.dims, exists: d.exists, constraints: keep } as BasicSet, [
    { aff: aff({ [iname]: 1 }), eq: false }, { aff: aff({ [iname]: -1 }, size - 1), eq: false },
  ]);
  // A moved row the widened domain implies (`0 <= a_dim_1` within `0 <= a_dim_1 < 32`) guards nothing.
  const implied = (row: { aff: Aff; eq: boolean }): boolean => {
    const names = Object.keys(row.aff.terms);
    if (!row.eq && names.length === 1 && names[0] === iname) {
      // c*x + k >= 0 over 0 <= x < size, decided without a set operation.
      const c0 = row.aff.terms[iname]!;
      const k0 = row.aff.constant;
      return c0 > 0 ? Math.ceil(-k0 / c0) <= 0 : Math.floor(k0 / -c0) >= size - 1;
    }
    // Undecidable (existentials that are no floor definitions): kept as a guard, which is safe.
    try {
      return isSubset(dom, addConstraints(dom, [row]));
    } catch (e) {
      if (e instanceof LoomError) return false;
      throw e;
    }
  };
  // (Built by push, not filter() and map(): see fetch-store.ts's `stored`.)
  const predicates: Expr[] = [];
  for (let x = 0; x < moved.length; x++) if (!implied(moved[x]!)) predicates.push(constraintExpr(moved[x]!.aff, moved[x]!.eq));
  return Object.freeze({ dom, predicates: Object.freeze(predicates) });
}

/** `a >= 0` (or `a = 0`) as a comparison: negative terms on the left, `n - 2*k - d - 1 >= 0` as `d + 2*k < n`. */
export function constraintExpr(a: Aff, eq: boolean): Expr {
  const pos: Record<string, number> = {};
  const neg: Record<string, number> = {};
  for (const [n, x] of Object.entries(a.terms)) (x > 0 ? pos : neg)[n] = Math.abs(x);
  if (eq) return { kind: "compare", op: "==", left: affToExpr(aff(neg, a.constant < 0 ? -a.constant : 0), NATURAL_ORDER), right: affToExpr(aff(pos, a.constant > 0 ? a.constant : 0), NATURAL_ORDER) };
  if (a.constant < 0) return { kind: "compare", op: "<", left: affToExpr(aff(neg, -a.constant - 1), NATURAL_ORDER), right: affToExpr(aff(pos, 0), NATURAL_ORDER) };
  return { kind: "compare", op: "<=", left: affToExpr(aff(neg, 0), NATURAL_ORDER), right: affToExpr(aff(pos, a.constant), NATURAL_ORDER) };
}
