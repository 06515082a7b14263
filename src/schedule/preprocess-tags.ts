/** Decisions left to preprocessing: `l.auto` axes and the address space of "auto" temporaries. */
import { ScheduleError } from "../errors.js";
import {
  allInames, withKernel,
  type InameTag, type Kernel,
} from "../ir/index.js";
import { checkLocalExtent } from "./checks.js";
import { inamesOf } from "./insn-inames.js";

/** Local axes a work-group has (OpenCL, CUDA: x, y, z). */
export const LOCAL_AXES = 3;

/**
 * Give each `l.auto` iname the lowest local axis no other iname of its instructions uses.
 * With `i: l.0` and `j: l.auto` in one instruction, `j` becomes `l.1`.
 */
export function resolveAutoLocalTags(k: Kernel): Kernel {
  // Most kernels have no l.auto tag: answered from the tags, no list of inames built.
  let tagged = false;
  for (const i in k.inameTags) if (k.inameTags[i]!.kind === "l.auto") tagged = true;
  if (!tagged) return k;
  const auto = allInames(k).filter((i) => k.inameTags[i]?.kind === "l.auto");
  if (auto.length === 0) return k;
  const tags: Record<string, InameTag> = { ...k.inameTags };
  const perInsn = k.instructions.map((insn) => ({ id: insn.id, inames: inamesOf(insn) }));
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

export { resolveAddressSpaces } from "../analysis/index.js";
