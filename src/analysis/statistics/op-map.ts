/**
 * `getOpMap`: arithmetic operations per dtype and kind, over all work-items (loopy's `get_op_map`;
 * per sub-group or work-group with `countGranularity`, "auto" being loopy's per sub-group). What
 * counts, as in loopy:
 * - `+ -` "add", `*` "mul", `/ // %` "div", `**` "pow", `& | ^ ~` "bw", `<< >>` "shift", calls of
 *   `max`/`min` "max"/"min" (one per argument after the first), other calls "func:NAME";
 *   a reduction one "add" (sum), "mul" (product), "max" or "min" per point of its inames;
 * - negation, casts, comparisons and logical operators count nothing; both branches of an
 *   `if(c, a, b)` are counted (loopy warns and does the same); predicates are not counted, and an
 *   instruction counts at every point of its domain whatever its predicates say;
 * - index arithmetic inside subscripts counts only with `countWithinSubscripts: true` (loopy's
 *   default is true; Loom's is false, so that a FLOP count is the kernel's arithmetic).
 * The dtype of an operation is the type of its result after type inference.
 */
import { LoomError } from "../../errors.js";
import { exprToString, exprType, type Expr, type TypeEnv } from "../../ir/index.js";
import { CountMap, type CountGranularity, type Op } from "./count-map.js";
import type { Count } from "./count.js";
import { granularityCounter, granularityOption, statisticsTypeEnv, walkKernel, type CountOptions } from "./walk.js";
import type { Kernel } from "../../ir/index.js";

export interface OpMapOptions extends CountOptions {
  readonly countWithinSubscripts?: boolean;
}

const ARITH_NAMES: Readonly<Record<string, string>> = {
  "+": "add", "-": "add", "*": "mul", "/": "div", "//": "div", "%": "div", "**": "pow",
  "&": "bw", "|": "bw", "^": "bw", "<<": "shift", ">>": "shift",
};

const REDUCTION_NAMES: Readonly<Record<string, string>> = { sum: "add", product: "mul", max: "max", min: "min" };

/** The operations `e` itself performs (not its children): [name, how many]. */
function opsOf(e: Expr): [string, number] | undefined {
  switch (e.kind) {
    case "arith": return [ARITH_NAMES[e.op]!, 1];
    case "bitnot": return ["bw", 1];
    case "call": return e.fn === "max" || e.fn === "min" ? [e.fn, Math.max(0, e.args.length - 1)] : [`func:${e.fn}`, 1];
    case "reduce": return [REDUCTION_NAMES[e.op]!, 1];
    default: return undefined;
  }
}

function dtypeOf(e: Expr, env: TypeEnv, insn: string): string {
  const t = exprType(e.kind === "reduce" ? e.body : e, env);
  if (!t) throw new LoomError(`getOpMap: the dtype of ${exprToString(e)} in instruction "${insn}" is not known; give the dtypes of the arguments it uses (addDtypes) before counting`);
  return t.dtype;
}

export function getOpMap(k: Kernel, opts: OpMapOptions = {}): CountMap {
  const option = granularityOption(opts, "getOpMap");
  // loopy counts arithmetic per sub-group (its arithmetic_count_granularity).
  const granularity: CountGranularity = option === "auto" ? "subgroup" : option;
  const env = statisticsTypeEnv(k);
  const points = granularityCounter(k, opts, "getOpMap");
  const entries: [Op, Count][] = [];
  walkKernel(k, env, ({ node, insn, inames, inSubscript }) => {
    if (inSubscript && !opts.countWithinSubscripts) return;
    const op = opsOf(node);
    if (!op || op[1] === 0) return;
    const key: Op = { dtype: dtypeOf(node, env, insn.id) as Op["dtype"], name: op[0], countGranularity: granularity };
    entries.push([key, points(inames, granularity).scale(op[1])]);
  });
  return new CountMap(entries);
}
