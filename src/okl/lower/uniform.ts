/**
 * Whether an expression has one value for all the work-items of a group at a point of an @outer
 * body (outside @inner loops): the bounds of a loop that holds barriers must (geometric.ts). Uniform
 * are constants, value arguments, the indices of enclosing loops that are not @inner (block indices,
 * sequential loops), elements at uniform subscripts of `const` arguments the kernel only reads
 * (read-only.ts: `bs[b]`), and private scalars every assignment so far gives a uniform value under
 * uniform conditions outside @inner loops (`int bound = entries < 512 ? entries : 512;` in the
 * @outer body); not uniform are other memory (@shared: a work-item's write may not be seen yet; arrays the kernel writes),
 * @inner indices and what an opaque block or an atomic update writes. For the conditions of jumps
 * and while loops (kernel-lockstep.ts, read once into a private temporary and judged once their loop
 * is lowered) also @shared memory at uniform subscripts (`localArray`) and private scalars that every
 * work-item assigns alike in an @inner loop over the whole group (`wholeGroup`: `res = s_res[0];`).
 *
 *   nonUniform(parse("n/4 + b"), facts, ["b"])   // undefined: uniform
 *   nonUniform(parse("cnt[b]"), facts, ["b"])    // 'memory ("cnt")'
 */
import { insnStores, mapExpr, walkExpr, type Expr, type Instruction } from "../../ir/index.js";

/** What the check knows of the kernel being lowered. */
export interface UniformFacts {
  readonly valueArgs: ReadonlySet<string>;
  /** Whether the iname is a work-item index (tagged `l`). */
  readonly workItem: (iname: string) => boolean;
  /** Whether the name is a private scalar temporary. */
  readonly privateScalar: (name: string) => boolean;
  /** The instructions so far, in program order. */
  readonly insns: readonly Instruction[];
  /**
   * An enclosing loop that is not a block index (a sequential loop), if any: an assignment later in
   * its body, not lowered yet, may change a private scalar between its trips, so none is uniform there.
   */
  readonly sequential: string | undefined;
  /**
   * Whether the array is a kernel argument the kernel never writes (read-only.ts): an element of it
   * at a uniform subscript is one value for all work-items (`bs[b]` with `b` a block index).
   */
  readonly readOnlyArray?: (array: string) => boolean;
  /**
   * Whether the array is @shared memory whose elements at uniform subscripts count as uniform: for a
   * condition read once per trip into a private temporary (a jump's or a while loop's), or a private
   * scalar every work-item assigns from it (`wholeGroup`), which the
   * importer's dependencies order after every write of the array and before the next one, so the
   * scheduler puts barriers between them (every work-item reads the value the group last wrote).
   */
  readonly localArray?: (array: string) => boolean;
  /**
   * Whether every work-item of the group runs every value of this work-item index (whole-axes.ts):
   * a private scalar assigned inside @inner loops over such indices, from uniform values under
   * uniform conditions, got the same value from each work-item.
   */
  readonly wholeGroup?: (iname: string) => boolean;
}

/** The instructions that store to variable `name`. */
function writersOf(name: string, insns: readonly Instruction[]): Instruction[] {
  return insns.filter((i) => insnStores(i).some((s) => s.kind === "var" && s.name === name));
}

/**
 * `e` with each private scalar replaced by the value of its one assignment so far, where that is
 * unconditional, outside @inner and sequential loops and itself host-computable (`bound` of `int
 * bound = entries < 512 ? entries : 512;`), for `hostOnly` to judge; undefined where one is not.
 */
export function hostForm(e: Expr, facts: UniformFacts, hostOnly: (x: Expr) => boolean): Expr | undefined {
  if (hostOnly(e)) return e;
  if (facts.sequential !== undefined) return undefined;
  let ok = true;
  const out = mapExpr(e, (n) => {
    if (n.kind !== "var" || !facts.privateScalar(n.name)) return undefined;
    const ws = writersOf(n.name, facts.insns);
    const w = ws.length === 1 ? ws[0]! : undefined;
    if (!w || w.kind !== "assign" || w.atomicity !== "none" || w.predicates.length > 0 || w.withinInames.some(facts.workItem) || !hostOnly(w.rhs)) ok = false;
    return ok ? (w as Instruction & { kind: "assign" }).rhs : undefined;
  });
  return ok && hostOnly(out) ? out : undefined;
}

/**
 * What in `e` may differ between the work-items of a group, or undefined where nothing does.
 * `within`: the loops around `e` (their indices other than work-item ones are uniform).
 */
export function nonUniform(e: Expr, facts: UniformFacts, within: readonly string[], preds: readonly Expr[] = []): string | undefined {
  // Private scalars in progress count as uniform (a greatest fixpoint: `x = x + 1` keeps a uniform x uniform).
  const verdict = new Map<string, string | undefined>();
  const scalar = (name: string): string | undefined => {
    if (verdict.has(name)) return verdict.get(name);
    verdict.set(name, undefined);
    const writers = writersOf(name, facts.insns);
    if (facts.sequential !== undefined) return dominated(name, writers.at(-1));
    let why: string | undefined = writers.length === 0 ? `the private variable "${name}", never assigned before` : undefined;
    for (const i of writers) {
      if (why !== undefined) break;
      if (i.kind !== "assign" || i.atomicity !== "none") why = `the private variable "${name}", which ${i.kind === "assign" ? "an atomic update" : "an opaque block (a C loop, a switch)"} writes`;
      else if (i.withinInames.some((x) => facts.workItem(x) && !facts.wholeGroup?.(x))) why = `the private variable "${name}", assigned inside an @inner loop${facts.wholeGroup ? " that does not run every work-item of the group (a sibling @inner loop on its axis has another range, or its range is not constant)" : ""}`;
      else {
        const inner = [i.rhs, ...i.predicates].map((x) => walk(x, i.withinInames)).find((x) => x !== undefined);
        if (inner !== undefined) why = `the private variable "${name}", assigned from ${inner}`;
      }
    }
    verdict.set(name, why);
    return why;
  };
  // Inside a sequential loop a later assignment (not lowered yet) may change a scalar between trips,
  // except where its last assignment so far runs in the same trip before `e`, always when `e` does
  // (the same loops, no condition `e` lacks), and reads no private variable (which could be such).
  const dominated = (name: string, w: Instruction | undefined): string | undefined => {
    const key = (x: Expr) => JSON.stringify(x);
    const runsBefore = w?.kind === "assign" && w.atomicity === "none" && w.withinInames.length === within.length && w.withinInames.every((i) => within.includes(i))
      && w.predicates.every((p) => preds.some((q) => key(q) === key(p)));
    if (!runsBefore) return `the private variable "${name}" inside loop "${facts.sequential}" (it is not assigned in every trip before this point, in the same loops and under no other condition, so an assignment later in the loop may change it between trips)`;
    const inner = [w.rhs, ...w.predicates].map((x) => walk(x, w.withinInames, name)).find((x) => x !== undefined);
    return inner === undefined ? undefined : `the private variable "${name}", assigned from ${inner}`;
  };
  const walk = (x: Expr, around: readonly string[], inTrip?: string): string | undefined => {
    let why: string | undefined;
    walkExpr(x, (n) => {
      if (why !== undefined) return false;
      if (n.kind === "subscript" || n.kind === "linear") {
        // Its subscripts are walked next: uniform where they are.
        if (!facts.readOnlyArray?.(n.array) && !facts.localArray?.(n.array)) why = `memory ("${n.array}"${facts.readOnlyArray ? ", which is not a \`const\` argument the kernel only reads" : ""})`;
      }
      else if (n.kind === "var" && !facts.valueArgs.has(n.name)) {
        if (around.includes(n.name)) {
          if (facts.workItem(n.name)) why = `the work-item index "${n.name}"`;
        } else if (facts.privateScalar(n.name)) why = inTrip === undefined ? scalar(n.name) : `the private variable "${n.name}" (read where "${inTrip}" is assigned inside loop "${facts.sequential}": not analysed)`;
        else why = `"${n.name}"`;
      }
      return undefined;
    });
    return why;
  };
  return walk(e, within);
}
