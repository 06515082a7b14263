/** The transformations: direct forms (pure Kernel -> Kernel), their step forms and pipelines. */
export { splitIname, chunkIname, tagInames, prioritizeLoops, type SplitOptions, type TagSpec } from "./iname.js";
export { joinInames, tile, type JoinOptions, type TileOptions } from "./iname-join.js";
export { renameIname, duplicateInames, removeUnusedInames, type RenameOptions } from "./iname-rename.js";
export { splitReductionInward, splitReductionOutward, makeReductionInamesUnique, type ReductionOptions, type UniqueOptions } from "./reduction.js";
export { mapDomain } from "./map-domain.js";
export { assume, fixParameters, kernelParameters, type FixParametersOptions } from "./parameters.js";
export { tagArrayAxes, dimOrder } from "./layout.js";
export { splitArrayAxis } from "./split-array-axis.js";
export { privatize } from "./privatize.js";
export { setTemporaryAddressSpace } from "./data.js";
export { addPrefetch, type PrefetchOptions } from "./prefetch.js";
export { precompute, type PrecomputeOptions } from "./precompute.js";
export type { FetchTagSpec } from "./fetch-tags.js";
export { extractSubst, assignmentToSubst, expandSubst, type ExtractSubstOptions } from "./subst.js";
export { saveAndReloadTemporaries } from "./save-reload.js";
export { addDependency, addBarrier, removeInstructions, setInstructionPriority, type BarrierOptions } from "./instruction.js";
export { parseMatch, parseStackMatch, selectInstructions, type InsnPredicate, type InstructionMatch, type RuleCallFrame, type StackPredicate } from "./match.js";
export {
  step, split, join, tag, prioritize, prefetch, pipeline, toJSON, fromJSON, describe, applyPipeline, makeStepOf,
  PipelineStepError, type Step, type StepData, type PipelineJSON, type StepForms,
} from "./pipeline.js";
export type { InsnMatch } from "./common.js";
