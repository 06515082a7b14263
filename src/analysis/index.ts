/** Kernel analyses: access footprints (prefetch, statistics). */
export {
  accessFootprint, affToExpr, exprToAff, findAccesses, instructionInames, readersOf, FootprintError,
  type Access, type BoxAxis, type Footprint, type FootprintOptions,
} from "./footprint.js";
