/**
 * Search strategies: each walks the space by asking the sweep to evaluate points. `evaluate`
 * returns the point's cost (its median time, Infinity when it is not ok) or undefined when the
 * sweep stops (budget, signal, every point seen). Every strategy evaluates each point at most
 * once, only points the restrictions allow, and announces what it will evaluate next (`upcoming`).
 */
import { LoomError } from "../../errors.js";
import { shown } from "../space.js";
import { annealing } from "./annealing.js";
import { exhaustive, random } from "./basic.js";
import { bayes } from "./bayes.js";
import type { Strategy } from "./common.js";
import { genetic } from "./genetic.js";
import { greedyIls } from "./greedy-ils.js";

export type { SearchContext, Strategy } from "./common.js";
export { ANNEALING_DEFAULTS } from "./annealing.js";
export { BAYES_DEFAULTS } from "./bayes.js";
export { GENETIC_DEFAULTS } from "./genetic.js";
export { GREEDY_ILS_DEFAULTS } from "./greedy-ils.js";

export const STRATEGY_NAMES = ["exhaustive", "random", "genetic", "bayes", "greedy_ils", "simulated_annealing"] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = { exhaustive, random, genetic, bayes, greedy_ils: greedyIls, simulated_annealing: annealing };

/** The strategy of that name; an unknown name is a LoomError listing the known ones. */
export function getStrategy(name: unknown): Strategy {
  if (typeof name === "string" && (STRATEGY_NAMES as readonly string[]).includes(name)) return STRATEGIES[name as StrategyName];
  throw new LoomError(`autotune: unknown strategy ${shown(name)}; strategies are ${STRATEGY_NAMES.join(", ")}`);
}
