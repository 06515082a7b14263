/**
 * Iname tags (loopy's tag_inames) and the checks a new tag passes, shared by tagInames and the
 * splits that tag their new inames at once (transforms/iname.ts).
 */
import { LoomError, TransformError } from "../src/errors.js";
import { allInames, formatInameTag, parseInameTag, withKernel, type InameTag, type Kernel } from "../src/ir/index.js";
import type { BasicSet } from "../src/poly/index.js";
import { checkNoValueCarriedAcross, checkPrivateStaysInWorkItem, isLaneTag } from "./private-checks.js";
import { isEmptyDomain } from "./split-origin.js";
import { checkIname, checkKernel, inameList } from "./common.js";

export const isHardware = (t: InameTag | undefined) => t !== undefined && (t.kind === "g" || t.kind === "l" || t.kind === "l.auto");

/**
 * An iname tagged `tag` on a local axis (l, l.auto) whose domain `d` is empty would make a
 * work-group of size 0 (OpenCL's reqd_work_group_size(0, …)): refused.
 */
export function checkLocalTagHasValues(d: BasicSet | undefined, iname: string, tag: InameTag, who: string): void {
  if (d !== undefined && isEmptyDomain(d)) {
    throw new TransformError(`${who}: iname "${iname}" has no value (its domain is empty), so tagging it ${formatInameTag(tag)} would make a work-group of size 0; leave it a loop, or fix parameters that leave it values`);
  }
}

/**
 * The tags `before` with each `[iname, text]` set as tagInames sets it, where each text is a
 * plain tag (no `like.`, `unused.`) that clashes with no hardware tag; else undefined (tagInames
 * then tags the built kernel, and refuses what it refuses).
 */
export function plainTags(before: Kernel["inameTags"], texts: readonly (readonly [string, unknown])[]): Record<string, InameTag> | undefined {
  const result: Record<string, InameTag> = { ...before };
  for (const [iname, text] of texts) {
    if (typeof text !== "string") return undefined;
    let req;
    try {
      req = parseInameTag(text);
    } catch {
      return undefined;
    }
    if (req.kind === "like" || req.kind === "unused") return undefined;
    if (req.kind === "for") {
      delete result[iname];
      continue;
    }
    const old = result[iname];
    if (isHardware(old) && formatInameTag(old!) !== formatInameTag(req)) return undefined;
    result[iname] = req;
  }
  return result;
}

/** tagInames' checks of `out`, whose tags went from `before` to `after` (see plainTags). */
export function checkNewTags(out: Kernel, before: Kernel["inameTags"], after: Kernel["inameTags"]): void {
  const who = "tagInames";
  const tagged = Object.keys(after).filter((n) => isHardware(after[n]) && !isHardware(before[n]));
  checkPrivateStaysInWorkItem(out, tagged, who);
  checkNoValueCarriedAcross(out, Object.keys(after).filter((n) => isLaneTag(after[n]) && !isLaneTag(before[n])), who);
  for (const iname of tagged.filter((n) => after[n]!.kind === "l" || after[n]!.kind === "l.auto")) {
    let d: BasicSet | undefined;
    for (let i = 0; i < out.domains.length && d === undefined; i++) if (out.domains[i]!.dims.includes(iname)) d = out.domains[i];
    checkLocalTagHasValues(d, iname, after[iname]!, who);
  }
}

/** Tags as `{i: "g.0"}`, `"i:g.0, j:l.0"` or `[["i", "g.0"]]`; `"for"` (or null) removes a tag. */
export type TagSpec = string | Readonly<Record<string, string | null>> | readonly (readonly [string, string | null])[];

function tagPairs(tags: TagSpec, who: string): [string, string][] {
  const bad = () => new TransformError(`${who}: tags must be {iname: tag}, "i:g.0, j:l.0" or [["i", "g.0"]]; got ${JSON.stringify(tags)}`);
  if (typeof tags === "string") {
    return tags.split(",").map((s) => s.trim()).filter((s) => s.length > 0).map((item) => {
      const at = item.indexOf(":");
      if (at < 0) throw new TransformError(`${who}: "${item}" is not of the form iname:tag (as in "i:g.0, j:l.0")`);
      return [item.slice(0, at).trim(), item.slice(at + 1).trim()];
    });
  }
  if (Array.isArray(tags)) {
    return tags.map((p) => {
      if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== "string") throw bad();
      return [p[0], p[1] ?? "for"];
    });
  }
  if (tags === null || typeof tags !== "object") throw bad();
  return Object.entries(tags).map(([i, t]) => [i, t ?? "for"]);
}

/** Inames named by `pattern`: an iname, or a glob with `*` / `?` over the kernel's inames. */
function inamesOf(k: Kernel, pattern: string, who: string): string[] {
  const all = allInames(k);
  if (!/[*?]/.test(pattern)) {
    checkIname(k, pattern, who);
    return [pattern];
  }
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|\\[\]]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
  const hits = all.filter((i) => re.test(i));
  if (hits.length === 0) throw new TransformError(`${who}: "${pattern}" matches no iname of kernel "${k.name}"; inames are ${inameList(k)}`);
  return hits;
}

/**
 * Set iname implementation tags (loopy's tag_inames). `like.j` copies j's tag; `unused.g` /
 * `unused.l` take the lowest axis no iname uses; `for` removes a tag. Re-tagging an iname that
 * has a different hardware tag (g/l) is a tag clash.
 *
 *   tagInames(k, "i_outer:g.0, i_inner:l.0")
 */
export function tagInames(k: Kernel, tags: TagSpec): Kernel {
  const who = "tagInames";
  checkKernel(k, who);
  const result: Record<string, InameTag> = { ...k.inameTags };
  for (const [pattern, text] of tagPairs(tags, who)) {
    if (typeof text !== "string") throw new TransformError(`${who}: the tag of "${pattern}" must be a string; got ${JSON.stringify(text)}`);
    let req;
    try {
      req = parseInameTag(text);
    } catch (e) {
      throw e instanceof LoomError ? new TransformError(`${who}: iname "${pattern}": ${e.message}`) : e;
    }
    for (const iname of inamesOf(k, pattern, who)) {
      let tag: InameTag;
      if (req.kind === "like") {
        checkIname(k, req.iname, `${who}: like.${req.iname}`);
        tag = result[req.iname] ?? { kind: "for" };
      } else if (req.kind === "unused") {
        const used = new Set(Object.values(result).flatMap((t) => (t.kind === req.space ? [t.axis] : [])));
        let axis = 0;
        while (used.has(axis)) axis++;
        tag = { kind: req.space, axis };
      } else {
        tag = req;
      }
      const old = result[iname];
      if (tag.kind === "for") {
        delete result[iname];
        continue;
      }
      if (isHardware(old) && formatInameTag(old!) !== formatInameTag(tag)) {
        throw new TransformError(`${who}: tag clash on iname "${iname}": it is already tagged ${formatInameTag(old!)}, cannot also be ${formatInameTag(tag)}; remove the old tag first ("${iname}:for")`);
      }
      result[iname] = tag;
    }
  }
  const tagged = Object.keys(result).filter((n) => isHardware(result[n]) && !isHardware(k.inameTags[n]));
  const out = withKernel(k, { inameTags: result });
  checkPrivateStaysInWorkItem(out, tagged, who);
  checkNoValueCarriedAcross(out, Object.keys(result).filter((n) => isLaneTag(result[n]) && !isLaneTag(k.inameTags[n])), who);
  // An l iname with no value for any parameters would make a work-group of size 0 (OpenCL's reqd_work_group_size(0, …)).
  for (const iname of tagged.filter((n) => result[n]!.kind === "l" || result[n]!.kind === "l.auto")) {
    checkLocalTagHasValues(k.domains.find((x) => x.dims.includes(iname)), iname, result[iname]!, who);
  }
  return out;
}
