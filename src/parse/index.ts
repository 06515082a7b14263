/** Kernel creation from text: `makeKernel`, argument specs, `addDtypes` and `parseExpr`. */
export { makeKernel, type MakeKernelOptions } from "./make-kernel.js";
export { globalArg, valueArg, temporary, type ArgSpec, type ArrayArgSpec, type ValueArgSpec, type TemporarySpec } from "./args.js";
export { addDtypes } from "./dtypes.js";
export { parseExpr } from "./expr.js";
