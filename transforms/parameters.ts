/**
 * Parameter transformations (loopy/transform/parameter.py): state facts about the parameters
 * (`assume`) and replace parameters by constants (`fixParameters`). Pure Kernel -> Kernel; a bad
 * request throws TransformError.
 */
import { LoomError, TransformError } from "../src/errors.js";
import { withKernel, type Kernel } from "../src/ir/index.js";
import { fixParameterValues, kernelParameters } from "../src/ir/fix-parameters.js";
import { matchInsns, type InsnMatch, checkKernel, checkOptions } from "./common.js";
import { intersect, isEmpty, parseConstraints, parseSet, printSet, type BasicSet } from "../src/poly/index.js";

export { kernelParameters };

const list = (names: readonly string[]) => names.join(", ") || "(none)";

/** Constraints text (`n >= 1 and n mod 4 = 0`) or a parameter set (`[n] -> { : n >= 1 }`) as a set without dims. */
function parseAssumptions(text: string, who: string): BasicSet {
  try {
    const t = text.trim();
    const s = t.startsWith("[") || t.startsWith("{") ? parseSet(t) : parseConstraints(t);
    if (s.dims.length > 0) throw new TransformError(`${who}: assumptions may only constrain parameters; "${text}" has the dimensions ${s.dims.join(", ")}`);
    return s;
  } catch (e) {
    if (e instanceof TransformError || !(e instanceof LoomError)) throw e;
    throw new TransformError(`${who}: cannot read the assumptions "${text}": ${e.message}`);
  }
}

/**
 * Add assumptions about the parameters (loopy's assume): they are intersected into
 * `k.assumptions`, which bounds checks, schedulers and code generation may rely on. The text is
 * ISL constraints over parameters only.
 *
 *   assume(k, "n mod 16 = 0 and n >= 16")
 */
export function assume(k: Kernel, assumptions: string): Kernel {
  const who = "assume";
  checkKernel(k, who);
  if (typeof assumptions !== "string") throw new TransformError(`${who}: expected constraints text such as "n >= 1 and n mod 4 = 0"; got ${JSON.stringify(assumptions)}`);
  const s = parseAssumptions(assumptions, who);
  const params = kernelParameters(k);
  const unknown = s.params.filter((p) => !params.includes(p));
  if (unknown.length > 0) {
    throw new TransformError(`${who}: ${unknown.map((u) => `"${u}"`).join(", ")} ${unknown.length > 1 ? "are not parameters" : "is not a parameter"} of kernel "${k.name}"; parameters are ${list(params)}`);
  }
  const merged = intersect(k.assumptions, s);
  if (isEmpty(merged)) {
    throw new TransformError(`${who}: "${assumptions}" contradicts the assumptions of kernel "${k.name}"${k.assumptions.constraints.length > 0 ? ` (${printSet(k.assumptions)})` : ""}; no parameter values would satisfy both`);
  }
  return withKernel(k, { assumptions: merged });
}

export interface FixParametersOptions {
  /**
   * Substitute into the expressions of these instructions only (loopy's within); domains, shapes,
   * strides and assumptions are fixed all the same. Substitution rules are then left as they are,
   * and a value argument that an instruction left out (or a rule) still reads stays an argument,
   * to be passed the same value.
   */
  readonly within?: InsnMatch;
}

export const FIX_OPTIONS: Readonly<Record<keyof FixParametersOptions, true>> = { within: true };

/**
 * Replace parameters by constants everywhere (loopy's fix_parameters): domains, instructions and
 * their predicates, substitution rules, shapes, strides and assumptions; the value arguments are
 * removed. A value that contradicts the assumptions is refused.
 *
 *   fixParameters(k, { n: 1024 })   // "{[i]: 0<=i<n}" becomes "{[i]: 0<=i<1024}"; `n` is no argument any more
 *   fixParameters(k, { n: 1024 }, { within: "id:store" })   // only store's expressions read 1024
 */
export function fixParameters(k: Kernel, values: Readonly<Record<string, number>>, opts: FixParametersOptions = {}): Kernel {
  const who = "fixParameters";
  checkKernel(k, who);
  opts = checkOptions(opts, who, FIX_OPTIONS);
  const ids = opts.within === undefined ? undefined : matchInsns(k, opts.within, who);
  return fixParameterValues(k, values, who, ids);
}
