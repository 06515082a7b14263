/** Autotuning: sweeps over transformation choices, checked against the reference and timed; the tuning log. */
export { autotune, TuningError, type AutotuneOptions, type AutotuneResult } from "./autotune.js";
export { readTuningLog } from "./log.js";
export { replay } from "./replay.js";
export { SMALL_PARAM } from "./space.js";
export { STRATEGY_NAMES } from "./strategies.js";
export type { TuningRecord, TuningStatus, TuningPoint, MachineInfo } from "./types.js";
export { simulateTuning, type SimulateOptions, type SimulationResult } from "./simulate.js";
export { plotTuning, type PlotTuningOptions, type PlotMetric } from "./plot.js";
export { machinePeak, type MachinePeak, type MachinePeakOptions } from "./peak.js";
