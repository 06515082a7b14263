/** Kernel analyses: access footprints (prefetch, statistics), where temporaries live. */
export { addressSpaceOf, resolveAddressSpaces } from "./address-spaces.js";
export {
  accessesInside, accessFootprint, exprToAff, findAccesses, instructionInames, predicateConditions, readersOf, FootprintError,
  type Access, type AffCondition, type BoxAxis, type Footprint, type FootprintOptions, type UseFilter,
} from "./footprint.js";
export * from "./statistics/index.js";
export { factsOf } from "./footprint-piece.js";
