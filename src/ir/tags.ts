/** Iname implementation tags (`g.0`, `l.1`, `unr`, `ilp`, …) as in loopy's `parse_tag`. */
import { LoomError } from "../errors.js";

export type InameTag =
  | { readonly kind: "for" }
  | { readonly kind: "ord" }
  | { readonly kind: "g"; readonly axis: number }
  | { readonly kind: "l"; readonly axis: number }
  | { readonly kind: "l.auto" }
  | { readonly kind: "unr" }
  | { readonly kind: "unr_hint"; readonly max?: number }
  | { readonly kind: "ilp" }
  | { readonly kind: "ilp.seq" }
  | { readonly kind: "vec" };

/**
 * What a user may write when tagging: a tag, or the sugar `like.INAME` / `unused.g` / `unused.l`
 * that `tagInames` resolves against the kernel.
 */
export type InameTagRequest =
  | InameTag
  | { readonly kind: "like"; readonly iname: string }
  | { readonly kind: "unused"; readonly space: "g" | "l" };

export const INAME_TAG_SYNTAX =
  "for, ord, g.N, l.N, l.auto, unused.g, unused.l, unr, unr_hint, unr_hint.N, ilp, ilp.unr, ilp.seq, vec, like.INAME";

/** The tags spelled by a word alone: frozen, shared by every parse (a Map: `toString` is no tag). */
const SIMPLE_TAGS: ReadonlyMap<string, InameTag> = new Map(
  ([
    ["for", { kind: "for" }], ["None", { kind: "for" }], ["null", { kind: "for" }], ["ord", { kind: "ord" }],
    ["l.auto", { kind: "l.auto" }], ["unr", { kind: "unr" }], ["unr_hint", { kind: "unr_hint" }],
    ["ilp", { kind: "ilp" }], ["ilp.unr", { kind: "ilp" }], ["ilp.seq", { kind: "ilp.seq" }], ["vec", { kind: "vec" }],
  ] as [string, InameTag][]).map(([k, t]) => [k, Object.freeze(t)]),
);

/**
 * Parse a tag string: `lp.parseInameTag("g.0")` is `{kind: "g", axis: 0}`. `None`/`null`/`for`
 * are the sequential loop. Throws a LoomError listing the accepted spellings.
 */
export function parseInameTag(text: string): InameTagRequest {
  const s = text.trim();
  const known = SIMPLE_TAGS.get(s);
  if (known) return known;
  let m = /^([gl])\.(\d)$/.exec(s);
  if (m) return Object.freeze({ kind: m[1] as "g" | "l", axis: Number(m[2]) });
  m = /^unr_hint\.(\d+)$/.exec(s);
  if (m) return { kind: "unr_hint", max: Number(m[1]) };
  m = /^unused\.([gl])$/.exec(s);
  if (m) return { kind: "unused", space: m[1] as "g" | "l" };
  m = /^like\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(s);
  if (m) return { kind: "like", iname: m[1]! };
  throw new LoomError(`unknown iname tag "${text}"; expected one of ${INAME_TAG_SYNTAX}`);
}

/** The string form of a tag, as accepted by `parseInameTag`. */
export function formatInameTag(t: InameTagRequest): string {
  switch (t.kind) {
    case "g": case "l": return `${t.kind}.${t.axis}`;
    case "unr_hint": return t.max === undefined ? "unr_hint" : `unr_hint.${t.max}`;
    case "like": return `like.${t.iname}`;
    case "unused": return `unused.${t.space}`;
    default: return t.kind;
  }
}

