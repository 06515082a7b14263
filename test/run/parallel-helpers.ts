/** Helpers of the parallel interpreter tests. */
import { parseInameTag, withKernel, type InameTag, type Kernel } from "../../src/ir/index.js";

/** `k` with `tags` (`{io: "g.0"}`) added. */
export function tag(k: Kernel, tags: Record<string, string>): Kernel {
  const t: Record<string, InameTag> = { ...k.inameTags };
  for (const [i, s] of Object.entries(tags)) t[i] = parseInameTag(s) as InameTag;
  return withKernel(k, { inameTags: t });
}
