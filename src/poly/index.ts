/** The integer-set core: parse, normalize, project, bound, test and enumerate basic sets. */
export type { Aff, BasicSet, Bound, Constraint, DimBounds } from "./types.js";
export { aff, affAdd, affSub, affScale, affEval, affToString, affIsConstant, varAff } from "./affine.js";
export { parseSet, parseConstraints, parseMap } from "./parse.js";
export { printSet } from "./print.js";
export { simplify } from "./normalize.js";
export {
  universe, emptySet, intersect, addConstraints, rename, substitute, fixValues, moveToParams, moveToDims,
  reorderDims, dimsOf, hasExistentials, extendSet, splitDim,
} from "./ops.js";
export { projectOut, eliminate, eliminateExact, dimBounds } from "./project.js";
export { factorOf } from "./factor.js";
export { shiftDims, type DimShift } from "./shift.js";
export { isEmpty, isEmptyWith } from "./empty.js";
export { removeRedundancies, gist } from "./gist.js";
export { isSubset, isSubsetOfUnion, isEqualSet, constraintImplied } from "./compare.js";
export { points, count, containsPoint, compilePointTest } from "./enumerate.js";
export { satisfiesExactly } from "./exact-point.js";
export { affKey, cached as memoized, clearPolyMemos, contentMemo, internSet, polyCounts, polyWork, setKey as setContentId, type PolyCounts } from "./memo.js";
