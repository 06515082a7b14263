/**
 * Which uses of a substitution rule (or reads of an array) a transformation acts on: loopy's
 * `subst_use` of precompute and the tagged `var_name` of add_prefetch. A use is named by
 *
 *   "f"             every use of rule f
 *   "f$one"         the uses written f$one(…) (loopy's tagged uses)
 *   "f(i, j+1)"     a footprint generator (loopy's meaning): the footprint is that of these
 *                   arguments swept over the sweep inames, and the uses inside it are selected
 *   "f$one(i, j)"   both: the uses tagged one inside the footprint of f(i, j)
 *   [ …, … ]        a list of the above, all naming the same rule: any of them
 *
 * A name without a tag selects tagged and untagged uses alike (as loopy's). An invocation
 * selects what lies inside its footprint, so one equal to a use selects that use.
 */
import { TransformError } from "../src/errors.js";
import { allInames, exprEquals, exprToAff, exprToString, freeVariables, naturalCompare, type Expr, type Kernel } from "../src/ir/index.js";
import { affIsConstant, affSub } from "../src/poly/index.js";
import type { Access, UseFilter } from "../src/analysis/index.js";
import { parseTemplate } from "./template.js";
import { kernelParameters } from "./parameters.js";

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
function selectsAll(req: UseRequest): boolean {
  return req.forms.every((f) => f.tag === undefined && f.args === undefined);
}

/** Equal as expressions: structurally, or as affine expressions of the same value (`j+1`, `1+j`). */
export function sameExpr(a: Expr, b: Expr): boolean {
  if (exprEquals(a, b)) return true;
  const [x, y] = [exprToAff(a, () => true), exprToAff(b, () => true)];
  if (x === undefined || y === undefined) return false;
  const d = affSub(x, y);
  return affIsConstant(d) && d.constant === 0;
}

/** Whether a name or name$tag form names the use. */
function matches(form: UseForm, use: Pick<Access, "tag">): boolean {
  return form.tag === undefined || use.tag === form.tag;
}

/** A use as text, for messages: `f$one(i, j + 1)` or `a$x[i]`. */
function useText(name: string, use: Pick<Access, "indices" | "tag">, brackets: "()" | "[]"): string {
  return `${name}${use.tag !== undefined ? `$${use.tag}` : ""}${brackets[0]}${use.indices.map(exprToString).join(", ")}${brackets[1]}`;
}

/** The uses listed for a message: `f$one(i) in "u", f(i + 1) in "u"`, at most eight. */
export function listUses(name: string, uses: readonly Access[], brackets: "()" | "[]"): string {
  const listed = uses.slice(0, 8).map((u) => `${useText(name, u, brackets)} in "${u.insnId}"`);
  if (uses.length > 8) listed.push(`and ${uses.length - 8} more`);
  return listed.join(", ") || "(none)";
}

/** A tag that no use carries is a TransformError of `who` listing the tags and uses there are. */
function checkTag(req: UseRequest, form: UseForm, uses: readonly Access[], what: string, brackets: "()" | "[]", who: string): void {
  if (form.tag === undefined || uses.some((u) => u.tag === form.tag)) return;
  const tags = [...new Set(uses.flatMap((u) => (u.tag !== undefined ? [u.tag] : [])))];
  throw new TransformError(`${who}: no use of ${what} carries the tag "${form.tag}" (tags used: ${tags.join(", ") || "none"}); the uses are ${listUses(req.name, uses, brackets)}`);
}

/**
 * The filter that keeps the uses that the names and tags among `req`'s forms ask for (among
 * `uses`, all of `req.name`), or undefined when it asks for all of them. Invocations are not
 * filters but footprint generators (`invocations`, `invocationCandidates`); a list of invocations alone keeps no use
 * here. Every tag must be carried by some use: otherwise a TransformError names it and lists the
 * uses there are.
 *
 *   useFilter(parseUses("f$one", who), accesses, "rule f", "()", who)
 */
export function useFilter(req: UseRequest, uses: readonly Access[], what: string, brackets: "()" | "[]", who: string): UseFilter | undefined {
  if (selectsAll(req)) return undefined;
  for (const form of req.forms) checkTag(req, form, uses, what, brackets, who);
  const named = req.forms.filter((f) => f.args === undefined);
  return (use) => named.some((f) => matches(f, use));
}

/**
 * The invocations among `req`'s forms as accesses of no instruction (`insnId` is the
 * invocation's text), for the footprint: each in the domain of the inames they all mention. A name in an argument that
 * is neither an iname of the kernel nor a parameter is a TransformError naming it.
 *
 *   invocations(k, parseUses("f(i, j+1)", who), who)   // [{ insnId: "f(i, j+1)", indices: [i, j + 1], inames: [i, j] }]
 */
export function invocations(k: Kernel, req: UseRequest, who: string): Access[] {
  const inames = new Set(allInames(k));
  const params = new Set(kernelParameters(k));
  // As loopy's, every invocation is swept in one domain: that of all the inames they mention.
  const used = new Set<string>();
  const forms = req.forms.filter((f) => f.args !== undefined);
  for (const f of forms) {
    for (const a of f.args!) {
      for (const n of freeVariables(a)) {
        if (inames.has(n)) used.add(n);
        else if (!params.has(n)) {
          throw new TransformError(`${who}: the invocation ${f.text} mentions "${n}", which is neither an iname of kernel "${k.name}" nor a parameter; ` +
            `inames are ${[...inames].sort(naturalCompare).join(", ") || "(none)"}; parameters are ${[...params].sort(naturalCompare).join(", ") || "(none)"}`);
        }
      }
      if (exprToAff(a, (n) => inames.has(n) || params.has(n)) === undefined) {
        throw new TransformError(`${who}: the argument ${exprToString(a)} of the invocation ${f.text} is not affine in the inames and parameters, so its footprint is unknown`);
      }
    }
  }
  const scope = [...used].sort(naturalCompare);
  return forms.map((f): Access => {
    const acc = { insnId: f.text, indices: f.args!, inames: scope };
    return f.tag === undefined ? acc : { ...acc, tag: f.tag };
  });
}

/**
 * The uses an invocation may claim: those carrying the tag of some invocation (any tag, for one
 * without a tag). Each invocation's tag must be carried by some use.
 */
export function invocationCandidates(req: UseRequest, uses: readonly Access[], what: string, brackets: "()" | "[]", who: string): Access[] {
  const forms = req.forms.filter((f) => f.args !== undefined);
  for (const f of forms) checkTag(req, f, uses, what, brackets, who);
  return uses.filter((u) => forms.some((f) => f.tag === undefined || f.tag === u.tag));
}
