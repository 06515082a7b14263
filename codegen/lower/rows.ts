/**
 * Affine rows: the constraints of a set as `aff >= 0` / `aff = 0` over named variables, and how
 * rows become index code (`128 * gid(0) + lid(0) < n`). Substituted inames (hardware ids, unrolled
 * copies' values) are written as their code; constant ones fold.
 */
import { CodegenError } from "../../src/errors.js";
import { addConstraints, aff, affIsConstant, extendSet, type Aff, type BasicSet } from "../../src/poly/index.js";
import { ibin, ilit, evar, type Ex } from "../ast.js";

/** One constraint: `aff = 0` when `eq`, else `aff >= 0`. */
export type Row = { readonly aff: Aff; readonly eq: boolean };

/** Inames written as code rather than by name: `i` is `base + gid(0)`, an unrolled copy's `j` is `3`. */
export type Subst = ReadonlyMap<string, Ex>;

/** Rows made by `rowsOf` remember their key (computed on first use). */
type KeyedRow = { readonly aff: Aff; readonly eq: boolean; key?: string };

/** A key equal for two rows exactly when they have the same relation, terms and constant. */
export function rowKey(r: Row): string {
  const kr = r as KeyedRow;
  if (kr.key !== undefined) return kr.key;
  const t = r.aff.terms;
  const ns = Object.keys(t);
  if (ns.length > 1) ns.sort();
  let k = `${r.eq ? "=" : ">"}${r.aff.constant}|`;
  for (const n of ns) k += `${n},${t[n]};`;
  if (Object.isExtensible(kr)) kr.key = k;
  return k;
}

/** The rows of a set without existentials, and whether it has rows with existentials. */
export interface SetRows {
  readonly rows: readonly Row[];
  readonly existential: boolean;
}

/** Sets are frozen values: their rows are computed once per set. */
const rowsMemo = new WeakMap<BasicSet, SetRows>();

/** The constraints of `s` as affine rows; rows with existentials are returned apart. */
export function rowsOf(s: BasicSet): SetRows {
  let r = rowsMemo.get(s);
  if (!r) {
    r = computeRowsOf(s);
    rowsMemo.set(s, r);
  }
  return r;
}

function computeRowsOf(s: BasicSet): { rows: readonly Row[]; existential: boolean } {
  const np = s.params.length;
  const nv = np + s.dims.length;
  const rows: Row[] = [];
  let existential = false;
  for (const c of s.constraints) {
    const cs = c.coeffs;
    let ex = false;
    for (let k = nv; k < cs.length; k++) if (cs[k] !== 0) ex = true;
    if (ex) {
      existential = true;
      continue;
    }
    const terms: Record<string, number> = {};
    for (let k = 0; k < nv; k++) if (cs[k] !== 0) terms[k < np ? s.params[k]! : s.dims[k - np]!] = cs[k]!;
    const row: KeyedRow = { aff: aff(terms, c.constant), eq: c.eq, key: undefined };
    rows.push(row);
  }
  return { rows: Object.freeze(rows), existential };
}

/** The variables of `rows`, in order of first use. */
export function rowVars(rows: readonly { aff: Aff }[]): string[] {
  const out: string[] = [];
  for (const r of rows) for (const n in r.aff.terms) if (!out.includes(n)) out.push(n);
  return out;
}

/** `ctx` with `dims` as dimensions and `rows` added; other names of the rows become parameters. */
export function withRowsSet(ctx: BasicSet, dims: readonly string[], rows: readonly Row[]): BasicSet {
  const have = new Set([...ctx.params, ...ctx.dims]);
  if (dims.every((d) => ctx.dims.includes(d)) && rowVars(rows).every((n) => have.has(n))) return rows.length > 0 ? addConstraints(ctx, rows) : ctx;
  const allDims = [...new Set([...ctx.dims, ...dims])];
  const params = [...new Set([...ctx.params, ...rowVars(rows)])].filter((n) => !allDims.includes(n));
  return extendSet(ctx, params, allDims, rows);
}

/** An affine expression as code: positive terms, then negative ones, then the constant. */
export function affEx(a: Aff, subst: Subst): Ex {
  let constant = a.constant;
  let out: Ex | undefined;
  // Positive terms, then negative ones, each in the form's order (substituted constants folded).
  const term = (ex: Ex, coef: number): void => {
    const mag = Math.abs(coef);
    const t = mag === 1 ? ex : ibin("*", ilit(mag), ex);
    out = out === undefined ? (coef > 0 ? t : ibin("-", ilit(0), t)) : ibin(coef > 0 ? "+" : "-", out, t);
  };
  const t = a.terms;
  let negatives = false;
  for (const n in t) {
    const coef = t[n]!;
    const ex = subst.get(n);
    if (ex !== undefined && ex.k === "lit") constant += coef * ex.value;
    else if (coef > 0) term(ex ?? evar(n), coef);
    else negatives = true;
  }
  if (negatives) {
    for (const n in t) {
      const coef = t[n]!;
      if (coef > 0) continue;
      const ex = subst.get(n);
      if (ex === undefined || ex.k !== "lit") term(ex ?? evar(n), coef);
    }
  }
  if (out === undefined) return ilit(constant);
  if (out.k === "bin" && out.op === "-" && out.l.k === "lit" && out.l.value === 0) out = { k: "neg", e: out.r, dtype: "idx" };
  return constant > 0 ? ibin("+", out, ilit(constant)) : constant < 0 ? ibin("-", out, ilit(-constant)) : out;
}

/** `floor(a / d)` as index code. */
export function floorEx(a: Aff, d: number, subst: Subst): Ex {
  if (d === 1) return affEx(a, subst);
  if (affIsConstant(a)) return ilit(Math.floor(a.constant / d));
  return { k: "bin", op: "//", l: affEx(a, subst), r: ilit(d), dtype: "idx" };
}

/** `rows` as one condition: `128 * gid(0) + lid(0) < n` for `n - 1 - 128*gid(0) - lid(0) >= 0`. */
export function condOf(rows: readonly Row[], subst: Subst): Ex {
  const conds = rows.map((r): Ex => {
    const pos: Record<string, number> = {};
    const neg: Record<string, number> = {};
    for (const [n, c] of Object.entries(r.aff.terms)) (c > 0 ? pos : neg)[n] = Math.abs(c);
    const c = r.aff.constant;
    if (r.eq) return { k: "bin", op: "==", l: affEx(aff(neg, c < 0 ? -c : 0), subst), r: affEx(aff(pos, c > 0 ? c : 0), subst), dtype: "idx" };
    if (c < 0) return { k: "bin", op: "<", l: affEx(aff(neg, -c - 1), subst), r: affEx(aff(pos, 0), subst), dtype: "idx" };
    return { k: "bin", op: "<=", l: affEx(aff(neg, 0), subst), r: affEx(aff(pos, c), subst), dtype: "idx" };
  });
  return joinEx("&&", conds, "idx");
}

/**
 * `xs[0] op xs[1] op …`, left to right: `a && b && c`, `min(min(a, b), c)`. An empty list has no
 * such expression (a lowering that asks for one lost its bounds or conditions): a CodegenError.
 */
export function joinEx(op: "&&" | "||" | "min" | "max", xs: readonly Ex[], dtype: "idx" | "bool"): Ex {
  if (xs.length === 0) throw new CodegenError(`internal: code generation joined no expressions with ${op}; please report the kernel`);
  return xs.reduce((a, x) => ({ k: "bin", op, l: a, r: x, dtype }));
}

/** true/false when the row's variables are all substituted constants, else undefined. */
export function foldRow(r: Row, subst: Subst): boolean | undefined {
  let c = r.aff.constant;
  for (const [n, coef] of Object.entries(r.aff.terms)) {
    const ex = subst.get(n);
    if (ex?.k !== "lit") return undefined;
    c += coef * ex.value;
  }
  return r.eq ? c === 0 : c >= 0;
}
