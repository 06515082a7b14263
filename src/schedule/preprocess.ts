/**
 * Preprocessing (loopy's preprocess_kernel), a list of passes from kernel to kernel: expand
 * substitution rules, resolve `l.auto`, check tags, decide address spaces, realize reductions and
 * ilp. Types are inferred before (the pipeline's "types" pass): accumulators take their
 * reduction's dtype. The interpreter and the code generators start from its result.
 */
import { ScheduleError } from "../errors.js";
import {
  allInames, findSubstitution, formatInameTag, freeVariables, mapExpr, mapInsnExprs, substitute, withKernel,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { checkInameTags } from "./checks.js";
import { hwAxis } from "./device.js";
import { realizeIlp } from "./preprocess-ilp.js";
import { resolveAddressSpaces, resolveAutoLocalTags } from "./preprocess-tags.js";
import { checkWriteRaces } from "./write-races.js";
import { realizeReductions } from "./reduction.js";

/** How deep rules may call rules before expansion is taken to be endless. */
const MAX_RULE_DEPTH = 50;

/**
 * Expand substitution-rule calls (rules may call rules): with `f(x) := x*x`, `f(a[i])` becomes
 * `a[i]*a[i]`.
 */
export function expandSubstitutions(k: Kernel, e: Expr, depth = 0): Expr {
  if (k.substitutions.length === 0) return e;
  return mapExpr(e, (n) => {
    if (n.kind !== "call") return undefined;
    const rule = findSubstitution(k, n.fn);
    if (!rule) return undefined;
    if (depth > MAX_RULE_DEPTH) throw new ScheduleError(`substitution rule "${n.fn}" of kernel "${k.name}" expands without end (more than ${MAX_RULE_DEPTH} nested calls)`);
    if (rule.params.length !== n.args.length) {
      throw new ScheduleError(`substitution rule "${n.fn}" takes ${rule.params.length} arguments, called with ${n.args.length}`);
    }
    const args = n.args.map((a) => expandSubstitutions(k, a, depth));
    return expandSubstitutions(k, substitute(rule.expr, new Map(rule.params.map((p, idx) => [p, args[idx]!]))), depth + 1);
  });
}

/** `k` with every rule call expanded and no rules left. */
export function expandAllSubstitutions(k: Kernel): Kernel {
  if (k.substitutions.length === 0) return k;
  const ex = (e: Expr) => expandSubstitutions(k, e);
  const instructions = k.instructions.map((insn): Instruction => {
    return mapInsnExprs(insn, ex);
  });
  return withKernel(k, { instructions, substitutions: [] });
}

/**
 * Hardware axes are sized at launch, before any instruction runs: an iname tagged g or l whose
 * range depends on a value computed inside the kernel (`jj < row_len` with `<> row_len =
 * rowstarts[i+1] - rowstarts[i]`) cannot be one, as in loopy. A ScheduleError names both.
 */
function checkHardwareExtents(k: Kernel): void {
  if (k.temporaries.length === 0) return;
  // An axis's base and size are read off the domains, over their parameters: where no domain has
  // a temporary as a parameter, no size can depend on one, and no axis need be made here (asked
  // of the few temporaries by index: no set built for the kernels that stop here, nearly all).
  // (Indexed loops: the kernel's arrays are frozen, and a for-of over one allocates per element.)
  let bounded = false;
  for (let x = 0; x < k.domains.length && !bounded; x++) {
    const ps = k.domains[x]!.params;
    for (let y = 0; y < ps.length && !bounded; y++) {
      for (let t = 0; t < k.temporaries.length; t++) if (k.temporaries[t]!.name === ps[y]) bounded = true;
    }
  }
  if (!bounded) return;
  const temporaries = new Set<string>();
  for (let x = 0; x < k.temporaries.length; x++) temporaries.add(k.temporaries[x]!.name);
  for (const iname of allInames(k)) {
    const tag = k.inameTags[iname];
    if (tag?.kind !== "g" && tag?.kind !== "l") continue;
    let size: Expr;
    try {
      size = hwAxis(k, iname, tag.kind, tag.axis).size;
    } catch (e) {
      // An axis without a size is refused where axes are made, with its own message.
      if (e instanceof ScheduleError) continue;
      throw e;
    }
    const computed = [...freeVariables(size)].filter((p) => temporaries.has(p));
    if (computed.length === 0) continue;
    throw new ScheduleError(
      `iname "${iname}" is tagged ${formatInameTag(tag)}, but its range depends on ${computed.map((c) => `temporary "${c}"`).join(", ")}, computed inside the kernel; ` +
      `hardware axes are sized when the kernel is launched, before any instruction runs: leave "${iname}" sequential (a loop bounded by the value), ` +
      `or bound it by a value argument and guard the instructions with the computed bound`);
  }
}

/**
 * Preprocess `k` for scheduling; `k` is untouched. For `out[i] = sum(j, a[i,j]) {id=insn}` the
 * result has accumulator `acc_j` and instructions `insn_j_init`, `insn_j_update`, `insn`.
 * Throws a ScheduleError for tags that cannot be implemented (see `checkInameTags`) and for
 * write races across parallel inames (see `checkWriteRaces`).
 */
export function preprocess(k: Kernel): Kernel {
  let out = expandAllSubstitutions(k);
  out = resolveAutoLocalTags(out);
  // Tags are checked on the user's instructions, so errors name those, not generated ones.
  checkInameTags(out);
  checkHardwareExtents(out);
  out = resolveAddressSpaces(out);
  // Races depend on where each assignee lives, so they are checked once address spaces are known.
  checkWriteRaces(out);
  out = realizeReductions(out);
  return realizeIlp(out);
}
