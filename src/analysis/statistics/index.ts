/** Kernel statistics (loopy's `loopy.statistics`): operation and memory-access counts, symbolic in the parameters. */
export { Count, countSet } from "./count.js";
export { CountMap, keyText, type CountFilter, type CountGranularity, type CountKey, type MemAccess, type Op, type Sync } from "./count-map.js";
export { getOpMap, type OpMapOptions } from "./op-map.js";
export { getMemAccessMap } from "./mem-map.js";
export { domainCounter, type CountOptions } from "./walk.js";
export { flopCount, globalBytes, kernelCost, type KernelCost, type KernelCostOptions } from "./cost.js";
export { globalTraffic, type ArrayTraffic, type TrafficModel, type TrafficOptions } from "./traffic.js";
