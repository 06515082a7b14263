/** The transformations, direct forms: each a pure function Kernel -> Kernel. */
export { splitIname, chunkIname, tagInames, prioritizeLoops, type SplitOptions, type TagSpec } from "./iname.js";
export { setTemporaryAddressSpace } from "./data.js";
export type { InsnMatch } from "./common.js";
