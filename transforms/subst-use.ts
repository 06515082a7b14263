/**
 * Which uses of a substitution rule (or reads of an array) a transformation acts on: loopy's
 * `subst_use` of precompute and the tagged `var_name` of add_prefetch. A use is named by
 *
 *   "f"             every use of rule f
 *   "f$one"         the uses written f$one(…) (loopy's tagged uses)
 *   "f(i, j+1)"     the uses whose arguments are these (as affine expressions: j+1 is 1+j)
 *   "f$one(i, j)"   both: that tag and these arguments
 *   [ …, … ]        a list of the above, all naming the same rule: any of them
 *
 * A name without a tag selects tagged and untagged uses alike (as loopy's).
 */
import { TransformError } from "../src/errors.js";
import { exprEquals, exprToAff, exprToString, type Expr } from "../src/ir/index.js";
import { affIsConstant, affSub } from "../src/poly/index.js";
import type { Access, UseFilter } from "../src/analysis/index.js";
import { parseTemplate } from "./template.js";

/** One form of a use: a tag and/or the arguments, as asked. */
export interface UseForm {
  readonly text: string;
  readonly tag?: string;
  readonly args?: readonly Expr[];
}

/** What a subst_use asks for: the rule (or array) and the forms of its uses. */
export interface UseRequest {
  readonly name: string;
  readonly forms: readonly UseForm[];
}

/**
 * Read a subst_use (a string or a list of strings): `parseUses("f$one", "precompute")` is
 * `{ name: "f", forms: [{ text: "f$one", tag: "one" }] }`. Malformed text, an empty list, or a
 * list naming several rules is a TransformError of `who`.
 */
export function parseUses(spec: unknown, who: string): UseRequest {
  const items: unknown[] = Array.isArray(spec) ? spec : [spec];
  if (items.length === 0) throw new TransformError(`${who}: the list of uses is empty; give a rule name, "name$tag" or an invocation such as "f(i, j)"`);
  const parsed = items.map((item): { name: string; form: UseForm } => {
    if (typeof item !== "string") {
      throw new TransformError(`${who}: a use is a rule name, "name$tag" or an invocation such as "f(i, j)" (or a list of those); got ${JSON.stringify(item)}`);
    }
    const e = parseTemplate(item.trim(), who);
    if (e.kind === "var") return { name: e.name, form: { text: item.trim(), ...(e.tag !== undefined ? { tag: e.tag } : {}) } };
    if (e.kind === "call") return { name: e.fn, form: { text: item.trim(), ...(e.tag !== undefined ? { tag: e.tag } : {}), args: e.args } };
    throw new TransformError(`${who}: "${item}" is not a use: give a rule name, "name$tag" or an invocation such as "f(i, j)"`);
  });
  const names = [...new Set(parsed.map((p) => p.name))];
  if (names.length > 1) throw new TransformError(`${who}: the uses ${JSON.stringify(items)} name several rules (${names.join(", ")}); one step handles the uses of one rule`);
  // A bare name among others selects everything: the other forms add nothing.
  const forms = parsed.map((p) => p.form);
  return { name: names[0]!, forms: forms.some((f) => f.tag === undefined && f.args === undefined) ? [{ text: names[0]! }] : forms };
}

/** Whether the request is for every use (a bare name): no filter then. */
export function selectsAll(req: UseRequest): boolean {
  return req.forms.every((f) => f.tag === undefined && f.args === undefined);
}

/** Equal as expressions: structurally, or as affine expressions of the same value (`j+1`, `1+j`). */
function sameExpr(a: Expr, b: Expr): boolean {
  if (exprEquals(a, b)) return true;
  const [x, y] = [exprToAff(a, () => true), exprToAff(b, () => true)];
  if (x === undefined || y === undefined) return false;
  const d = affSub(x, y);
  return affIsConstant(d) && d.constant === 0;
}

function matches(form: UseForm, use: Pick<Access, "indices" | "tag">): boolean {
  if (form.tag !== undefined && use.tag !== form.tag) return false;
  if (form.args === undefined) return true;
  return form.args.length === use.indices.length && form.args.every((a, r) => sameExpr(a, use.indices[r]!));
}

/** A use as text, for messages: `f$one(i, j + 1)` or `a$x[i]`. */
export function useText(name: string, use: Pick<Access, "indices" | "tag">, brackets: "()" | "[]"): string {
  return `${name}${use.tag !== undefined ? `$${use.tag}` : ""}${brackets[0]}${use.indices.map(exprToString).join(", ")}${brackets[1]}`;
}

/**
 * The filter that keeps the uses `req` asks for among `uses` (all of `req.name`), or undefined
 * when it asks for all of them. Every form must select at least one use: otherwise a
 * TransformError names it and lists the uses there are.
 *
 *   useFilter(parseUses("f$one", who), accesses, "rule f", "()", who)
 */
export function useFilter(req: UseRequest, uses: readonly Access[], what: string, brackets: "()" | "[]", who: string): UseFilter | undefined {
  if (selectsAll(req)) return undefined;
  for (const form of req.forms) {
    if (uses.some((u) => matches(form, u))) continue;
    const listed = uses.slice(0, 8).map((u) => `${useText(req.name, u, brackets)} in "${u.insnId}"`);
    if (uses.length > 8) listed.push(`and ${uses.length - 8} more`);
    const tags = [...new Set(uses.flatMap((u) => (u.tag !== undefined ? [u.tag] : [])))];
    const why = form.args === undefined
      ? `no use of ${what} carries the tag "${form.tag}" (tags used: ${tags.join(", ") || "none"})`
      : `no use of ${what} matches the invocation ${form.text}`;
    throw new TransformError(`${who}: ${why}; the uses are ${listed.join(", ") || "(none)"}`);
  }
  return (use) => req.forms.some((f) => matches(f, use));
}
