/** Decisions left to preprocessing: `l.auto` axes and the address space of "auto" temporaries. */
import { ScheduleError } from "../errors.js";
import {
  allInames, assigneeName, freeVariables, insnInames, insnStores, withKernel,
  type InameTag, type Kernel, type Temporary,
} from "../ir/index.js";
import { checkLocalExtent } from "./checks.js";

/** Local axes a work-group has (OpenCL, CUDA: x, y, z). */
export const LOCAL_AXES = 3;

/**
 * Give each `l.auto` iname the lowest local axis no other iname of its instructions uses.
 * With `i: l.0` and `j: l.auto` in one instruction, `j` becomes `l.1`.
 */
export function resolveAutoLocalTags(k: Kernel): Kernel {
  const auto = allInames(k).filter((i) => k.inameTags[i]?.kind === "l.auto");
  if (auto.length === 0) return k;
  const tags: Record<string, InameTag> = { ...k.inameTags };
  const perInsn = k.instructions.map((insn) => ({ id: insn.id, inames: insnInames(insn) }));
  for (const x of auto) {
    const users = perInsn.filter((p) => p.inames.includes(x));
    const used = new Set<number>();
    for (const p of users) {
      for (const i of p.inames) {
        const t = tags[i];
        if (i !== x && t?.kind === "l") used.add(t.axis);
      }
    }
    let axis = 0;
    while (used.has(axis)) axis++;
    const where = users[0]?.id ?? "(none)";
    if (axis >= LOCAL_AXES) {
      throw new ScheduleError(`instruction "${where}": iname "${x}" is tagged l.auto, but its instructions already use every local axis (l.0 … l.${LOCAL_AXES - 1})`);
    }
    checkLocalExtent(k, x, where);
    tags[x] = { kind: "l", axis };
  }
  return withKernel(k, { inameTags: tags });
}

/**
 * loopy's `find_temporary_address_space`: an "auto" temporary is local when a writer indexes it
 * with an `l`-tagged iname (work-items share it), global when with a `g`-tagged one, else private.
 */
export function resolveAddressSpaces(k: Kernel): Kernel {
  if (!k.temporaries.some((t) => t.addressSpace === "auto")) return k;
  const temporaries = k.temporaries.map((t): Temporary => {
    if (t.addressSpace !== "auto") return t;
    let space: Temporary["addressSpace"] = "private";
    for (const insn of k.instructions) {
      for (const lhs of insnStores(insn)) {
        if (assigneeName(lhs) !== t.name) continue;
        const index = lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
        const used = new Set<string>();
        for (const e of index) freeVariables(e, used);
        for (const i of used) {
          const tag = k.inameTags[i]?.kind;
          if (tag === "l") space = "local";
          else if (tag === "g" && space === "private") space = "global";
        }
      }
    }
    return { ...t, addressSpace: space };
  });
  return withKernel(k, { temporaries });
}
