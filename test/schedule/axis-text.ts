/** A hardware axis as text for comparing two routes: `base | size`, or the LoomError it threw. */
import { LoomError } from "../../src/errors.js";
import { exprToString } from "../../src/ir/index.js";

export const axisText = (f: () => { base: unknown; size: unknown }): string => {
  try {
    const a = f();
    return `${exprToString(a.base as never)} | ${exprToString(a.size as never)}`;
  } catch (e) {
    if (e instanceof LoomError) return `${e.constructor.name}: ${e.message}`;
    throw e;
  }
};
