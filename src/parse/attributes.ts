/**
 * The attribute block after a statement, `{id=x, dep=a:b*, nosync=c@local, inames=+i, if=p,
 * priority=2, tags=t, groups=g, conflicts=h, atomic, atomic=init, mem_kind=local}`, and the
 * merging of `with {…}` blocks into the statements they enclose (loopy's parse_insn_options).
 */
import type { SyncScope } from "../ir/insn.js";
import type { RAttrs, RExpr, RName } from "./raw.js";
import { parseExprRaw, type Fail } from "./syntax.js";

/** A raw expression with the error reporter for its offsets. */
export interface Located {
  readonly raw: RExpr;
  readonly fail: Fail;
}

export interface Pattern {
  readonly pattern: string;
  readonly at: number;
  readonly fail: Fail;
}

/** What attribute blocks (and enclosing `with` blocks) say about one statement. */
export interface InsnOptions {
  readonly id?: RName & { readonly fail: Fail };
  readonly idPrefix?: string;
  readonly deps: readonly Pattern[];
  /** A leading `*` in `dep=`: the list is exhaustive (no single-writer heuristic). */
  readonly depsFinal: boolean;
  readonly noSync: readonly (Pattern & { readonly scope: SyncScope })[];
  /** `inames=i:j` (add false) or `inames=+i` (add true). */
  readonly inames?: { readonly names: readonly (RName & { readonly fail: Fail })[]; readonly add: boolean };
  readonly predicates: readonly Located[];
  readonly priority?: number;
  readonly tags: readonly string[];
  readonly groups: readonly string[];
  readonly conflicts: readonly string[];
  readonly atomic?: "update" | "init";
  readonly memKind?: "local" | "global";
}

export const NO_OPTIONS: InsnOptions = { deps: [], depsFinal: false, noSync: [], predicates: [], tags: [], groups: [], conflicts: [] };

const ACCEPTED = "id, id_prefix, dep, nosync, inames, if, priority, tags, groups, conflicts, atomic, mem_kind";
const UNSUPPORTED: Readonly<Record<string, string>> = {
  dup: "dup= is not supported yet; call duplicateInames on the kernel instead",
  dep_query: "dep_query= is not supported yet; use dep= with ids or wildcards",
  nosync_query: "nosync_query= is not supported yet; use nosync= with ids or wildcards",
};
/** Options loopy does not allow on a `with` block. */
const NOT_IN_WITH = new Set(["id", "priority", "dup", "nosync", "atomic"]);

const ID_PATTERN = /^[A-Za-z0-9_*?[\]!.-]+$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Item { key: string; value: string | undefined; at: number; valueAt: number }

/** Split `{a=1, b}` into items with offsets (relative to the statement text). */
function splitItems(block: RAttrs, fail: Fail): Item[] {
  const inner = block.text.slice(1, -1);
  const items: Item[] = [];
  let start = 0;
  for (const part of inner.split(",")) {
    const lead = part.length - part.trimStart().length;
    const text = part.trim();
    const at = block.at + 1 + start + lead;
    start += part.length + 1;
    if (text === "") continue;
    const eq = text.indexOf("=");
    const key = (eq < 0 ? text : text.slice(0, eq)).trim();
    if (!NAME.test(key)) fail(`expected an attribute name (${ACCEPTED}); got "${key}"`, at);
    if (eq < 0) {
      items.push({ key, value: undefined, at, valueAt: at + text.length });
    } else {
      const rawValue = text.slice(eq + 1);
      const valueAt = at + eq + 1 + (rawValue.length - rawValue.trimStart().length);
      items.push({ key, value: rawValue.trim(), at, valueAt });
    }
  }
  return items;
}

/** `a:b:c` with the offset of each piece. */
function pieces(value: string, valueAt: number): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  let pos = 0;
  for (const p of value.split(":")) {
    const lead = p.length - p.trimStart().length;
    if (p.trim() !== "") out.push({ text: p.trim(), at: valueAt + pos + lead });
    pos += p.length + 1;
  }
  return out;
}

/**
 * Apply the attribute block `block` on top of `outer` (the options of enclosing `with` blocks):
 * `{id=x, dep=*a:b}` gives `id` x, deps [a, b] and `depsFinal` true.
 * `inWith` rejects the options loopy does not allow on a `with` block.
 */
export function parseAttributes(block: RAttrs, outer: InsnOptions, fail: Fail, inWith = false): InsnOptions {
  let o: { -readonly [K in keyof InsnOptions]: InsnOptions[K] } = { ...outer };
  const seen = new Set<string>();
  for (const { key, value, at, valueAt } of splitItems(block, fail)) {
    const unsupported = UNSUPPORTED[key];
    if (unsupported) fail(unsupported, at);
    if (inWith && NOT_IN_WITH.has(key)) fail(`"${key}" is not allowed on a with block; put it on the statement`, at);
    if (seen.has(key)) fail(`attribute "${key}" is given twice`, at);
    seen.add(key);
    const need = (): string => {
      if (value === undefined || value === "") return fail(`attribute "${key}" needs a value: ${key}=…`, at);
      return value;
    };
    switch (key) {
      case "id": {
        const v = need();
        if (!NAME.test(v)) fail(`instruction id "${v}" must be a name (letters, digits, _)`, valueAt);
        o.id = { name: v, at: valueAt, fail };
        break;
      }
      case "id_prefix": {
        const v = need();
        if (!NAME.test(v)) fail(`id_prefix "${v}" must be a name (letters, digits, _)`, valueAt);
        o.idPrefix = v;
        o.id = undefined;
        break;
      }
      case "dep": {
        let v = need();
        let vAt = valueAt;
        if (v.startsWith("*")) {
          o.depsFinal = true;
          v = v.slice(1);
          vAt++;
        }
        const ps = pieces(v, vAt).map((p) => {
          if (!ID_PATTERN.test(p.text)) fail(`"${p.text}" is not an instruction id or wildcard`, p.at);
          return { pattern: p.text, at: p.at, fail };
        });
        o.deps = [...o.deps, ...ps];
        break;
      }
      case "nosync": {
        const ps = pieces(need(), valueAt).map((p) => {
          const [pattern, scope = "any", extra] = p.text.split("@").map((s) => s.trim());
          if (extra !== undefined || !ID_PATTERN.test(pattern!)) fail(`"${p.text}" is not an id (or wildcard) with an optional @local, @global or @any`, p.at);
          if (scope !== "local" && scope !== "global" && scope !== "any") {
            fail(`unknown nosync scope "@${scope}"; expected @local, @global or @any`, p.at + pattern!.length);
          }
          return { pattern: pattern!, scope: scope as SyncScope, at: p.at, fail };
        });
        o.noSync = [...o.noSync, ...ps];
        break;
      }
      case "inames": {
        let v = need();
        let vAt = valueAt;
        const add = v.startsWith("+");
        if (add) {
          v = v.slice(1);
          vAt++;
        }
        const names = pieces(v, vAt).map((p) => {
          if (!NAME.test(p.text)) fail(`"${p.text}" is not an iname`, p.at);
          return { name: p.text, at: p.at, fail };
        });
        o.inames = { names, add };
        break;
      }
      case "if": {
        const preds = pieces(need(), valueAt).map((p): Located => {
          const shifted: Fail = (d, off) => fail(d, p.at + off);
          return { raw: parseExprRaw(p.text, shifted), fail: shifted };
        });
        o.predicates = [...o.predicates, ...preds];
        break;
      }
      case "priority": {
        const v = need();
        if (!/^[+-]?\d+$/.test(v)) fail(`priority must be an integer; got "${v}"`, valueAt);
        o.priority = Number(v);
        break;
      }
      case "tags": o.tags = [...new Set([...o.tags, ...names(need(), valueAt, fail)])]; break;
      case "groups": o.groups = names(need(), valueAt, fail); break;
      case "conflicts": case "conflicts_grp": o.conflicts = names(need(), valueAt, fail); break;
      case "atomic":
        if (value !== undefined && value !== "init") fail(`atomic takes no value or "init"; got "${value}"`, valueAt);
        o.atomic = value === "init" ? "init" : "update";
        break;
      case "mem_kind": {
        const v = need();
        if (v !== "local" && v !== "global") fail(`mem_kind must be local or global; got "${v}"`, valueAt);
        o.memKind = v;
        break;
      }
      default:
        fail(`unknown attribute "${key}"; accepted attributes are ${ACCEPTED}`, at);
    }
  }
  return o;
}

function names(value: string, valueAt: number, fail: Fail): string[] {
  return pieces(value, valueAt).map((p) => {
    if (!/^[A-Za-z0-9_.-]+$/.test(p.text)) fail(`"${p.text}" is not a valid name`, p.at);
    return p.text;
  });
}
