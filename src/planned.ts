/**
 * Public API entries whose implementation comes with a later issue. Each is exported under its
 * contract name and throws a clear error saying it is not built yet, so a script written against
 * API.md fails with a message instead of "undefined is not a function".
 */
import { LoomError } from "./errors.js";

type AnyFn = (...args: never[]) => never;

function planned(name: string, feature: string): AnyFn {
  return () => {
    throw new LoomError(`lp.${name} is not built yet in this version of Loom (${feature} comes with a later issue)`);
  };
}

export const getOpMap = planned("getOpMap", "kernel statistics");
export const getMemAccessMap = planned("getMemAccessMap", "kernel statistics");
