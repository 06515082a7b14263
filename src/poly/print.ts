/** Sets → ISL text that `parseSet` reads back to the same rows (so printing is idempotent). */
import type { BasicSet } from "./types.js";
import { termsToString } from "./affine.js";
import { isCanonicalEmpty } from "./normalize.js";
import { colNames } from "./rows.js";
import { freshName } from "./ops.js";

interface Piece { subject: number; coef: number; kind: "lo" | "up" | "eq"; rest: string; restConst: number; restText: (c: number) => string }

/**
 * ISL syntax with bounds grouped by their innermost variable:
 * `[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }`; existentials as `exists (e0 : ...)`.
 */
export function printSet(s: BasicSet): string {
  const head = s.params.length > 0 ? `[${s.params.join(", ")}] -> ` : "";
  const tuple = `[${s.dims.join(", ")}]`;
  if (isCanonicalEmpty(s)) return `${head}{ ${tuple} : false }`;
  if (s.constraints.length === 0) return `${head}{ ${tuple} }`;
  const first = s.params.length + s.dims.length;
  const taken = new Set([...s.params, ...s.dims]);
  const exNames = s.exists.map((_, k) => {
    const f = freshName(`e${k}`, taken);
    taken.add(f);
    return f;
  });
  const names = [...colNames(s).slice(0, first), ...exNames];
  const outside: Piece[] = [];
  const inside: Piece[] = [];
  for (const c of s.constraints) {
    let subject = -1;
    for (let k = names.length - 1; k >= 0 && subject < 0; k--) if (c.coeffs[k] !== 0) subject = k;
    const a = c.coeffs[subject]!;
    // subject: a·x + rest >= 0 reads `-rest <= a·x` (a > 0) or `|a|·x <= rest` (a < 0).
    const sign = a > 0 ? -1 : 1;
    const terms: [string, number][] = [];
    for (let k = 0; k < names.length; k++) if (k !== subject && c.coeffs[k] !== 0) terms.push([names[k]!, sign * c.coeffs[k]!]);
    const restConst = sign * c.constant || 0;
    const piece: Piece = {
      subject,
      coef: Math.abs(a),
      kind: c.eq ? "eq" : a > 0 ? "lo" : "up",
      rest: termsToString(terms, restConst),
      restConst,
      restText: (k: number) => termsToString(terms, k),
    };
    (subject >= first && s.exists.length > 0 && hasExist(c.coeffs, first) ? inside : outside).push(piece);
  }
  const render = (ps: Piece[]) => {
    const parts: string[] = [];
    const bySubject = new Map<number, Piece[]>();
    for (const p of ps) bySubject.set(p.subject, [...(bySubject.get(p.subject) ?? []), p]);
    for (const [subject, group] of [...bySubject].sort((a, b) => a[0] - b[0])) {
      const x = (coef: number) => (coef === 1 ? names[subject]! : `${coef}*${names[subject]!}`);
      const los = group.filter((p) => p.kind === "lo");
      const ups = group.filter((p) => p.kind === "up");
      for (const p of group.filter((q) => q.kind === "eq")) parts.push(`${x(p.coef)} = ${p.rest}`);
      const upText = (p: Piece) =>
        p.rest !== String(p.restConst) && p.restConst < 0 ? `< ${p.restText(p.restConst + 1)}` : `<= ${p.rest}`;
      while (los.length > 0 || ups.length > 0) {
        const lo = los[0];
        const up = ups.find((u) => lo !== undefined && u.coef === lo.coef);
        if (lo && up) {
          parts.push(`${lo.rest} <= ${x(lo.coef)} ${upText(up)}`);
          los.shift();
          ups.splice(ups.indexOf(up), 1);
        } else if (lo) {
          parts.push(`${lo.rest} <= ${x(lo.coef)}`);
          los.shift();
        } else {
          const u = ups.shift()!;
          parts.push(`${x(u.coef)} ${upText(u)}`);
        }
      }
    }
    return parts.join(" and ");
  };
  const conds: string[] = [];
  if (outside.length > 0) conds.push(render(outside));
  if (s.exists.length > 0) conds.push(`exists (${exNames.join(", ")} : ${inside.length > 0 ? render(inside) : "true"})`);
  return `${head}{ ${tuple} : ${conds.join(" and ")} }`;
}

function hasExist(coeffs: readonly number[], first: number): boolean {
  for (let k = first; k < coeffs.length; k++) if (coeffs[k] !== 0) return true;
  return false;
}
