/**
 * `JSON.stringify(a) === JSON.stringify(b)` without building the strings (a loop's two bounds are
 * compared so for every loop): the same keys in the same order, undefined fields left out, and
 * primitives compared as JSON prints them.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return JSON.stringify(a) === JSON.stringify(b);
  // AST nodes of different kinds print different JSON (most bounds compared: a literal and a sum).
  const ka0 = (a as { k?: unknown }).k;
  const kb0 = (b as { k?: unknown }).k;
  if (typeof ka0 === "string" && typeof kb0 === "string" && ka0 !== kb0) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  const ka = jsonKeys(a as Record<string, unknown>);
  const kb = jsonKeys(b as Record<string, unknown>);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i] || !sameJson((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!])) return false;
  }
  return true;
}

/** The keys JSON prints of `o`: its own enumerable ones, in order, whose values are neither undefined nor functions. */
function jsonKeys(o: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of Object.keys(o)) if (o[k] !== undefined && typeof o[k] !== "function") out.push(k);
  return out;
}
