/**
 * Public API entries whose implementation comes with a later issue. Each is exported under its
 * contract name and throws a clear error saying it is not built yet, so a script written against
 * API.md fails with a message instead of "undefined is not a function".
 */
import { LoomError, TransformError } from "./errors.js";

type AnyFn = (...args: never[]) => never;

function planned(name: string, feature: string, Err: new (m: string) => LoomError = LoomError): AnyFn {
  return () => {
    throw new Err(`lp.${name} is not built yet in this version of Loom (${feature} comes with a later issue)`);
  };
}

const TRANSFORMS = [
  "joinInames", "tile", "renameIname",
  "duplicateInames", "removeUnusedInames", "splitReductionInward", "splitReductionOutward",
  "makeReductionInamesUnique", "mapDomain", "assume", "fixParameters", "addPrefetch", "precompute",
  "extractSubst", "assignmentToSubst", "expandSubst", "tagArrayAxes", "dimOrder", "splitArrayAxis",
  "privatize", "addDependency", "addBarrier", "removeInstructions",
  "setInstructionPriority",
] as const;

/** Direct forms of the transformations (`lp.splitIname(k, …)`), not built yet. */
export const plannedTransforms: Readonly<Record<(typeof TRANSFORMS)[number], AnyFn>> = Object.fromEntries(
  TRANSFORMS.map((t) => [t, planned(t, "the transformation library", TransformError)]),
) as Record<(typeof TRANSFORMS)[number], AnyFn>;

/** Every transformation has a step form (`lp.step.splitIname(…)`); none is built yet. */
const STEP_NAMES = [...TRANSFORMS, "splitIname", "chunkIname", "tagInames", "prioritizeLoops", "setTemporaryAddressSpace"];

/** Step forms (`lp.step.splitIname(…)`) and the short step names, not built yet. */
export const step: Readonly<Record<string, AnyFn>> = Object.fromEntries(
  STEP_NAMES.map((t) => [t, planned(`step.${t}`, "the pipeline form of transformations", TransformError)]),
);

export const parseOkl = planned("parseOkl", "the OKL front end");
export const normalizeOkl = planned("normalizeOkl", "the OKL front end");
export const autotune = planned("autotune", "autotuning");
export const getOpMap = planned("getOpMap", "kernel statistics");
export const getMemAccessMap = planned("getMemAccessMap", "kernel statistics");
export const pipeline = planned("pipeline", "the transformation library", TransformError);
export const toJSON = planned("toJSON", "the transformation library", TransformError);
export const fromJSON = planned("fromJSON", "the transformation library", TransformError);
export const describe = planned("describe", "the transformation library", TransformError);
export const split = planned("split", "the transformation library", TransformError);
export const join = planned("join", "the transformation library", TransformError);
export const tag = planned("tag", "the transformation library", TransformError);
export const prioritize = planned("prioritize", "the transformation library", TransformError);
export const prefetch = planned("prefetch", "the transformation library", TransformError);
