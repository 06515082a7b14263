/** The search strategies (one module each under ./strategies/). */
export { getStrategy, STRATEGY_NAMES, ANNEALING_DEFAULTS, BAYES_DEFAULTS, GENETIC_DEFAULTS, GREEDY_ILS_DEFAULTS, type SearchContext, type Strategy, type StrategyName } from "./strategies/index.js";
