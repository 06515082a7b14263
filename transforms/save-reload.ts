/**
 * loopy's `save_and_reload_temporaries`: a private or local value written before a global barrier
 * and read after it does not survive the barrier (every device kernel starts with fresh private
 * and local memory; the scheduler refuses such kernels). This keeps each such temporary in a
 * global array instead, with one slot per work-item (private) or per work-group (local): one axis
 * per hardware iname of its writers, in front of its own axes.
 *
 *   for i:  <>tmp = arr[i] {id=maketmp} … gbarrier {id=gb} … arr[(i+1) % n] = tmp {id=rotate}
 *   with i split onto g.0/l.0, saveAndReloadTemporaries makes tmp a global `tmp[i_outer, i_inner]`.
 *
 * Where loopy saves and reloads around the barrier, Loom stores the value in global memory from
 * the start: the same meaning, one array, no copies; the cost is global traffic for its accesses.
 */
import { TransformError } from "../src/errors.js";
import { addressSpaceOf } from "../src/analysis/index.js";
import {
  arith, boundToExpr, dependencyClosure, c, insnReads, insnReadsWithBounds, insnWrites, iterationDomain, mapExpr, mapInsnExprs, v, withKernel,
  type Expr, type Instruction, type Kernel, type Temporary,
} from "../src/ir/index.js";
import { dimBounds } from "../src/poly/index.js";
import { checkKernel } from "./common.js";

const WHO = "saveAndReloadTemporaries";

/** The private and local temporaries some instruction before a global barrier writes and one after it reads. */
function liveAcrossGlobalBarriers(k: Kernel): Map<string, Temporary> {
  const deps = dependencyClosure(k.instructions);
  const out = new Map<string, Temporary>();
  for (const g of k.instructions) {
    if (g.kind !== "barrier" || g.scope !== "global") continue;
    const before = deps.get(g.id)!;
    const after = k.instructions.filter((x) => deps.get(x.id)!.has(g.id));
    for (const t of k.temporaries) {
      const space = addressSpaceOf(k, t);
      if (space === "global" || out.has(t.name)) continue;
      const written = k.instructions.some((x) => before.has(x.id) && insnWrites(x).includes(t.name));
      const reader = written ? after.find((x) => insnReadsWithBounds(k, x).has(t.name)) : undefined;
      if (reader === undefined) continue;
      const bound = k.domains.find((d) => d.params.includes(t.name));
      if (bound) {
        throw new TransformError(`${WHO}: ${space} temporary "${t.name}" is read after global barrier "${g.id}" by instruction "${reader.id}" and bounds the loop over ` +
          `${bound.dims.map((x) => `"${x}"`).join(", ")}: a loop bound reads a scalar, which a global save slot cannot replace; ` +
          `compute "${t.name}" again after the barrier (a second instruction writing it, depending on "${g.id}")`);
      }
      out.set(t.name, { ...t, addressSpace: space });
    }
  }
  return out;
}


/** `[lower, extent]` of hardware iname `h` as expressions of the parameters. */
function rangeOf(k: Kernel, h: string, t: string): [Expr, Expr] {
  const b = dimBounds(iterationDomain(k, [h]), h, []);
  if (b.lower.length !== 1 || b.upper.length !== 1) {
    throw new TransformError(`${WHO}: the range of iname "${h}" (which "${t}" gets an axis for) has ${b.lower.length} lower and ${b.upper.length} upper bounds; ` +
      `a save slot needs one of each: split or fix parameters so that "${h}" runs over one range`);
  }
  const lo = boundToExpr(b.lower[0]!, true);
  const hi = boundToExpr(b.upper[0]!, false);
  return [lo, arith("+", arith("-", hi, lo), c(1))];
}

/** The hardware inames a slot of `t` is indexed by: g and l for private values, g for local ones. */
function slotInames(k: Kernel, t: Temporary, users: readonly Instruction[]): string[] {
  const kinds = t.addressSpace === "private" ? ["g", "l"] : ["g"];
  const writers = users.filter((x) => insnWrites(x).includes(t.name));
  const inames = [...new Set(writers.flatMap((x) => x.withinInames))].filter((i) => kinds.includes(k.inameTags[i]?.kind ?? "")).sort();
  for (const x of users) {
    const missing = inames.filter((i) => !x.withinInames.includes(i));
    if (missing.length > 0) {
      throw new TransformError(`${WHO}: instruction "${x.id}" uses "${t.name}" outside hardware iname(s) ${missing.map((m) => `"${m}"`).join(", ")} ` +
        `that its writers run in, so it has no slot of its own to read; run it inside the same parallel loops`);
    }
  }
  return inames;
}

/** `e` with every access of `name` indexed by `prefix` first. */
function prefixAccesses(e: Expr, name: string, prefix: readonly Expr[]): Expr {
  return mapExpr(e, (n) => {
    if (n.kind === "var" && n.name === name) return { kind: "subscript", array: name, indices: [...prefix] };
    if (n.kind === "subscript" && n.array === name) return { ...n, indices: [...prefix, ...n.indices.map((x) => prefixAccesses(x, name, prefix))] };
    if (n.kind === "linear" && n.array === name) throw new TransformError(`${WHO}: "${name}" is accessed by a flat index (${name}[[…]]), which a save slot cannot prefix; use per-axis subscripts`);
    return undefined;
  });
}

/**
 * `k` with every private or local temporary that lives across a global barrier kept in global
 * memory, one slot per work-item (private) or work-group (local). Dependencies decide what runs
 * before and after a barrier (`dep=`): a value the scheduler still finds live across one is
 * refused there. `k` is returned unchanged when nothing lives across a global barrier.
 */
export function saveAndReloadTemporaries(k: Kernel): Kernel {
  checkKernel(k, WHO);
  const live = liveAcrossGlobalBarriers(k);
  if (live.size === 0) return k;
  let instructions = [...k.instructions];
  const temporaries = k.temporaries.map((t0): Temporary => {
    const t = live.get(t0.name);
    if (!t) return t0;
    if (t.dimTags !== undefined) throw new TransformError(`${WHO}: "${t.name}" has array-axis tags; a save slot adds axes in front of its own: remove the tags first`);
    const users = instructions.filter((x) => insnReads(x).has(t.name) || insnWrites(x).includes(t.name));
    if (users.some((x) => x.kind === "block")) throw new TransformError(`${WHO}: "${t.name}" is used inside a block (OKL code), whose accesses a save slot cannot prefix`);
    const inames = slotInames(k, t, users);
    const ranges = inames.map((h) => rangeOf(k, h, t.name));
    const prefix = inames.map((h, x) => arith("-", v(h), ranges[x]![0]));
    instructions = instructions.map((x) => {
      if (!users.includes(x)) return x;
      return mapInsnExprs(x, (e) => prefixAccesses(e, t.name, prefix));
    });
    return { ...t, addressSpace: "global", shape: [...ranges.map((r) => r[1]), ...t.shape] };
  });
  return withKernel(k, { instructions, temporaries });
}
