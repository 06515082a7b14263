/**
 * Floor atoms: `floor(A/d)` with `A` affine in the parameters, a variable of a counting polynomial
 * (a quasi-polynomial: a polynomial in the parameters and such floors). Named `floor#ID` inside
 * polynomials (names without `*` or `^`), printed `floor((n - 15)/16)`, valued from the parameters.
 */
import { affEval, affToString, type Aff } from "../../poly/index.js";

interface Atom {
  readonly aff: Aff;
  readonly denom: number;
  readonly text: string;
}

const byName = new Map<string, Atom>();
const byText = new Map<string, string>();

/** The atom name of floor(aff / denom) (denom > 1). */
export function floorAtom(aff: Aff, denom: number): string {
  const text = `floor((${affToString(aff)})/${denom})`;
  let name = byText.get(text);
  if (name === undefined) {
    name = `floor#${byName.size}`;
    byName.set(name, { aff, denom, text });
    byText.set(text, name);
  }
  return name;
}

export function isAtom(v: string): boolean {
  return byName.has(v);
}

/** The parameters an atom (or a parameter itself) depends on. */
export function atomParams(v: string): string[] {
  const a = byName.get(v);
  return a ? Object.keys(a.aff.terms) : [v];
}

/** `params` with the value of every atom among `vars` added. */
export function withAtomValues(vars: Iterable<string>, params: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = { ...params };
  for (const v of vars) {
    const a = byName.get(v);
    if (a) out[v] = Math.floor(affEval(a.aff, params) / a.denom);
  }
  return out;
}

/** `text` with atom names replaced by their floor expressions. */
export function atomsToText(text: string): string {
  return text.replace(/floor#\d+/g, (name) => byName.get(name)?.text ?? name);
}
