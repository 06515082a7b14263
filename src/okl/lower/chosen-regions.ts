/**
 * Ping-pong buffers in one array (a time stepper's `dfloat *src = (it % 2) ? q : q + N; dfloat *dst =
 * (it % 2) ? q + N : q;`, written through `dst`): pointers chosen at run time among targets in one
 * array at different offsets. Writes through them are one conditional store per target as for
 * distinct arrays (choice-writes.ts), which is right where the targets are distinct memory: where
 * no access through one offset can reach a cell that an access through another offset writes. That
 * is proven exactly, over the loops' bounds, once the kernel's domains are known: for each write
 * through one offset and each access (read or write) through another, the pairs of iterations (of
 * any two work-items) at which they would address one cell form an empty integer set. Subscripts
 * that are not affine in the loop indices and value arguments (after following locals assigned
 * once, Assignments), and bounds read from memory, prove nothing: the write is then refused.
 *
 *   src[id] (way q), dst[id] (way q + Nelements*p_Np), 0 <= id < Nelements*p_Np: disjoint, accepted
 *   src[id + 1] reaches q[Nelements*p_Np], which dst[0] writes: refused at the write
 */
import { exprToAff, insnStores, iterationDomain, mapExpr, type Expr, type Instruction, type Kernel } from "../../ir/index.js";
import { addConstraints, affSub, intersect, isEmpty, rename, type Aff, type BasicSet } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";

/** One access through a pointer chosen among targets in one array at different offsets. */
export interface RegionAccess {
  readonly array: string;
  /** The offset of the target it went through (a key: equal offsets are one region). */
  readonly way: string;
  /** The flat subscript into `array`, offset included (undefined: a multi-dimensional subscript, out of the proof's reach). */
  readonly index: Expr | undefined;
  readonly within: readonly string[];
  readonly write: boolean;
  /** The pointer written through, and where, for the refusal. */
  readonly label: string;
  readonly pos: A.Pos;
  /** How many of the kernel's instructions precede it (the assignments its subscript's temporaries may be followed to). */
  readonly before: number;
}

/** Suffix of the second access's inames (the other work-item). */
const OTHER = "__other";

/**
 * Fails (at the write) unless every write in `accesses` through one offset of an array is proven
 * never to address a cell that an access through another offset of that array addresses.
 * `valueArgs` are the kernel's value arguments (parameters of the domains, the same in every work-item).
 */
export function checkChosenRegions(
  shell: Kernel, insns: readonly Instruction[], accesses0: readonly RegionAccess[], valueArgs: ReadonlySet<string>, fail: (detail: string, pos: A.Pos) => never,
): void {
  if (accesses0.length === 0) return;
  const follow = new Assignments(insns, valueArgs);
  const accesses = accesses0.map((a) => (a.index ? { ...a, index: follow.resolve(a.index, a.before, new Set(a.within)) } : a));
  const byArray = new Map<string, RegionAccess[]>();
  for (const a of accesses) byArray.set(a.array, [...(byArray.get(a.array) ?? []), a]);
  for (const [array, list] of byArray) {
    for (const w of list) {
      if (!w.write) continue;
      const other = list.find((a) => a.way !== w.way && !disjoint(shell, w, a, valueArgs));
      if (other === undefined) continue;
      fail(`cannot write through pointer "${w.label}": two of the targets it is chosen among are the same array "${array}" at different offsets, `
        + `and Loom cannot prove from the loop bounds that this write never reaches a cell that ${other.write ? "a write" : "a read"} through "${other.label}" `
        + `(line ${other.pos.line}) addresses through the other offset (subscripts affine in the loop indices and value arguments, offsets at least as far apart as they reach, are accepted); `
        + `write to "${array}" directly with the offset chosen in the subscript (\`${array}[(c ? 0 : n) + i]\`)`, w.pos);
    }
  }
}

/** Whether `w` and `a` never address one cell, in any two iterations (of any two work-items). */
function disjoint(shell: Kernel, w: RegionAccess, a: RegionAccess, valueArgs: ReadonlySet<string>): boolean {
  const one = affineAccess(shell, w, valueArgs);
  const two = affineAccess(shell, a, valueArgs);
  if (one === undefined || two === undefined) return false;
  const renames = Object.fromEntries(two.domain.dims.map((d) => [d, d + OTHER]));
  const theirs: Aff = { terms: Object.fromEntries(Object.entries(two.index.terms).map(([n, c]) => [renames[n] ?? n, c])), constant: two.index.constant };
  const pairs = intersect(one.domain, rename(two.domain, renames));
  return isEmpty(addConstraints(pairs, [{ aff: affSub(one.index, theirs), eq: true }]));
}

/** The access's subscript as an affine expression and its iteration domain, or undefined where either is out of the model's reach. */
function affineAccess(shell: Kernel, x: RegionAccess, valueArgs: ReadonlySet<string>): { index: Aff; domain: BasicSet } | undefined {
  const inames = new Set(x.within);
  const index = x.index && exprToAff(x.index, (n) => inames.has(n) || valueArgs.has(n));
  if (index === undefined) return undefined;
  const domain = iterationDomain(shell, x.within);
  // A bound read from a temporary may differ per work-item in ways the domain does not say.
  return domain.params.some((p) => !valueArgs.has(p)) ? undefined : { index, domain };
}

/** The region of a target: the one it was tagged with where its pointer was chosen, else its offset's (equal offsets: one region). */
export function wayKey(t: { readonly offset?: Expr; readonly region?: string }): string {
  return t.region ?? JSON.stringify(t.offset ?? null);
}

/** The arrays that two of `targets` (each a name with an optional offset) share at different offsets. */
export function sharedArrays(targets: readonly { readonly name?: string; readonly offset?: Expr; readonly region?: string }[]): ReadonlySet<string> {
  const seen = new Map<string, string>();
  const out = new Set<string>();
  for (const t of targets) {
    if (t.name === undefined) continue;
    const at = wayKey(t);
    const prev = seen.get(t.name);
    if (prev !== undefined && prev !== at) out.add(t.name);
    seen.set(t.name, at);
  }
  return out;
}

/** The access `place` (an element of `array`, target `t`, after `before` instructions) as a RegionAccess. */
export function regionAccess(
  place: Expr, array: string, t: { readonly offset?: Expr; readonly region?: string }, within: readonly string[], write: boolean, label: string, pos: A.Pos, before: number,
): RegionAccess {
  const flat = place.kind === "subscript" && place.indices.length === 1 ? place.indices[0] : undefined;
  return { array, way: wayKey(t), index: flat, within, write, label, pos, before };
}

/**
 * Private temporaries a subscript reads, followed to their value (`int id = e * p_Np + n;` before
 * `dst[id] = …`): a temporary assigned by exactly one instruction of the kernel, unconditionally,
 * before the access and inside loops that all enclose it, holds that assignment's right-hand side
 * at the access (itself followed the same way). Anything else is left as it is (no affine value).
 */
class Assignments {
  private readonly writers = new Map<string, number[]>();

  constructor(private readonly insns: readonly Instruction[], private readonly valueArgs: ReadonlySet<string>) {
    insns.forEach((insn, k) => {
      for (const st of insnStores(insn)) {
        const name = st.kind === "var" ? st.name : st.kind === "subscript" || st.kind === "linear" ? st.array : undefined;
        if (name !== undefined) this.writers.set(name, [...(this.writers.get(name) ?? []), insn.kind === "assign" && st.kind === "var" ? k : -1]);
      }
    });
  }

  /** `e` with each temporary that has one value at an access after `before` instructions, within `within`, replaced by it. */
  resolve(e: Expr, before: number, within: ReadonlySet<string>): Expr {
    return mapExpr(e, (n) => {
      if (n.kind !== "var" || within.has(n.name) || this.valueArgs.has(n.name)) return undefined;
      const w = this.writers.get(n.name);
      const k = w?.length === 1 ? w[0]! : -1;
      const insn = k >= 0 && k < before ? this.insns[k] : undefined;
      if (insn?.kind !== "assign" || insn.atomicity !== "none" || insn.predicates.length > 0 || !insn.withinInames.every((i) => within.has(i))) return undefined;
      return this.resolve(insn.rhs, k, within);
    });
  }
}
