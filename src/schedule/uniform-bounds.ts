/**
 * Work-group-uniform loop bounds (what loopy does for a barrier in a loop over a remainder): a
 * sequential loop whose bounds depend on a local id cannot hold a barrier, since work-items would
 * run different numbers of iterations. Where barrier insertion needs one there, the loop's iname
 * gets a domain of its own whose bounds are the hull over the local ids (the local inames projected
 * out), and the instructions keep their exact domains as predicates: the constraints the new
 * domains lose, `16*jo + ji < m`, become `if`s inside a loop `jo <= (m - 1) // 16` that every
 * work-item runs through. The schedule's structure is unchanged; the meaning is unchanged.
 */
import { ScheduleError } from "../errors.js";
import {
  affToExpr, allInames, domainChain, domainIndexOf, iterationDomain, uniqueName, withKernel,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { eliminate, gist, moveToParams, rename, type BasicSet } from "../poly/index.js";
import { insertBarriers } from "./barriers.js";
import { inameOrder, linearize } from "./linearize.js";
import type { ScheduleNode } from "./types.js";

/**
 * The barrier pass: local barriers placed in the linearized kernel `k`. Where a barrier is needed
 * inside a loop whose bounds depend on a local id, that loop is given uniform bounds
 * (`uniformLoopBounds`), the kernel linearized again and the barriers placed anew; a loop that
 * cannot be rewritten, or still needs it after the rewrite, is a ScheduleError saying why.
 * Returns the kernel the nodes refer to.
 */
export function placeBarriers(k: Kernel, linearized: readonly ScheduleNode[]): { kernel: Kernel; nodes: ScheduleNode[] } {
  let kernel = k;
  let nodes = linearized;
  const rewritten = new Set<string>();
  for (;;) {
    const placed = insertBarriers(kernel, nodes);
    const need = placed.needsUniform[0];
    if (!need) return { kernel, nodes: placed.nodes };
    const next = rewritten.has(need.loop) ? undefined : uniformLoopBounds(kernel, need.loop, nodes);
    if (!next) throw new ScheduleError(need.message);
    rewritten.add(need.loop);
    kernel = next;
    nodes = linearize(kernel);
  }
}

/** The loop inames enclosing the loop over `iname` in `nodes`, outermost first, or undefined. */
function enclosingLoops(nodes: readonly ScheduleNode[], iname: string, path: readonly string[] = []): string[] | undefined {
  for (const n of nodes) {
    if (n.kind !== "loop") continue;
    if (n.iname === iname) return [...path];
    const r = enclosingLoops(n.body, iname, [...path, n.iname]);
    if (r) return r;
  }
  return undefined;
}

/** A shape key of a schedule: loops and instructions, in order. */
function shape(nodes: readonly ScheduleNode[]): string {
  return nodes.map((n) => (n.kind === "loop" ? `${n.iname}{${shape(n.body)}}` : n.kind === "insn" ? n.id : "|")).join(" ");
}

/** The constraints of `s` (no existentials) as predicate expressions `aff >= 0` / `aff == 0`. */
function predicatesOf(s: BasicSet): Expr[] {
  const cols = [...s.params, ...s.dims];
  return s.constraints.map((con): Expr => {
    const terms: Record<string, number> = {};
    cols.forEach((name, idx) => {
      if (con.coeffs[idx]) terms[name] = con.coeffs[idx]!;
    });
    return { kind: "compare", op: con.eq ? "==" : ">=", left: affToExpr({ terms, constant: con.constant }), right: { kind: "const", value: 0, isFloat: false } };
  });
}

/**
 * `k` with the loop over `x` given bounds that do not depend on local ids, or undefined where that
 * cannot be done exactly. `x`'s domain keeps a renamed copy of `x` (no instruction uses it), a new
 * domain right after it bounds `x` by the hull over the local ids, in terms of the loops around
 * it and the group ids; each instruction whose domain that changes gets the difference back as
 * predicates (`gist(old domain, new domain)`). `nodes` is the schedule of `k`.
 */
export function uniformLoopBounds(k: Kernel, x: string, nodes: readonly ScheduleNode[]): Kernel | undefined {
  const idx = domainIndexOf(k, x);
  const around = enclosingLoops(nodes, x);
  if (idx < 0 || !around) return undefined;
  const tagOf = (n: string) => k.inameTags[n]?.kind;
  const local = (n: string) => tagOf(n) === "l" || tagOf(n) === "l.auto";
  const chainDims = domainChain(k, [x]).flatMap((d) => [...k.domains[d]!.dims]);
  const uniform = chainDims.filter((n) => n !== x && !local(n) && (around.includes(n) || tagOf(n) === "g"));
  // The hull: x's range over the local ids (and inames inside x), a superset where FM is inexact.
  const proj = iterationDomain(k, [x, ...uniform]);
  let hull = proj.exists.length > 0 ? eliminate(proj, [...proj.exists]) : proj;
  hull = moveToParams(hull, uniform.filter((n) => hull.dims.includes(n)));
  // Bounded on both sides (an equality `k_outer = 0` is both: loopy's one-trip loop over a remainder).
  const col = hull.params.length + hull.dims.indexOf(x);
  const bounds = (sign: number) => hull.constraints.some((c) => c.eq ? c.coeffs[col] !== 0 : sign * c.coeffs[col]! > 0);
  if (!bounds(1) || !bounds(-1)) return undefined;
  const taken = new Set([...allInames(k), ...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name)]);
  const hidden = uniqueName(`${x}_exact`, taken);
  const domains = [...k.domains];
  domains.splice(idx, 1, rename(k.domains[idx]!, { [x]: hidden }), hull);
  const priority = inameOrder(k).filter((n) => n !== hidden);
  let next = withKernel(k, { domains, loopPriority: [...k.loopPriority, priority] });
  const instructions: Instruction[] = [];
  for (const insn of k.instructions) {
    const before = iterationDomain(k, insn.withinInames);
    const after = iterationDomain(next, insn.withinInames);
    const lost = gist(before, after);
    if (lost.constraints.length === 0) {
      instructions.push(insn);
      continue;
    }
    if (lost.exists.length > 0) return undefined;
    instructions.push({ ...insn, predicates: [...insn.predicates, ...predicatesOf(lost)] });
  }
  next = withKernel(next, { instructions });
  // The same loops around the same instructions, or the rewrite is not the same program.
  if (shape(linearize(next)) !== shape(nodes)) return undefined;
  return next;
}
