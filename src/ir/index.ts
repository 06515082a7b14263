/** The kernel IR: dtypes, expressions, instructions, arguments, temporaries, tags, the Kernel record. */
export * from "./dtype.js";
export * from "./c-types.js";
export * from "./expr.js";
export * from "./tags.js";
export * from "./layout.js";
export * from "./insn.js";
export * from "./block.js";
export * from "./atomic.js";
export * from "./kernel.js";
export * from "./domain-params.js";
export * from "./domain.js";
export * from "./types.js";
export * from "./print.js";
export * from "./affine-expr.js";
export * from "./guarded-subscripts.js";
export * from "./check-kernel.js";
