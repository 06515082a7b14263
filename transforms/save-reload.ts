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
 * A scalar that bounds a loop (`t` of `[t] -> {[r]: 0 <= r < t}`) stays a scalar, since a bound
 * reads one: it is saved into a global `t_save[slot]` after each writer and reloaded after the barrier.
 */
import { TransformError } from "../src/errors.js";
import { addressSpaceOf } from "../src/analysis/index.js";
import {
  allInames, arith, boundToExpr, dependencyClosure, c, insnDefaults, insnReads, insnReadsWithBounds, insnWrites, iterationDomain, mapExpr, mapInsnExprs,
  sub, uniqueName, v, withKernel,
  type Assignment, type Expr, type Instruction, type Kernel, type Temporary,
} from "../src/ir/index.js";
import { dimBounds } from "../src/poly/index.js";
import { checkKernel } from "./common.js";

const WHO = "saveAndReloadTemporaries";

/**
 * The private and local temporaries some instruction before a global barrier writes and one after
 * it reads (`values`), and among them the scalars that bound a loop, with the barriers they live
 * across (`bounds`: a bound reads a scalar, so those are saved and reloaded, not moved).
 */
function liveAcrossGlobalBarriers(k: Kernel): { values: Map<string, Temporary>; bounds: Map<string, { t: Temporary; barriers: string[] }> } {
  const deps = dependencyClosure(k.instructions);
  const values = new Map<string, Temporary>();
  const bounds = new Map<string, { t: Temporary; barriers: string[] }>();
  const params = new Set(k.domains.flatMap((d) => d.params));
  for (const g of k.instructions) {
    if (g.kind !== "barrier" || g.scope !== "global") continue;
    const before = deps.get(g.id)!;
    const after = k.instructions.filter((x) => deps.get(x.id)!.has(g.id));
    for (const t of k.temporaries) {
      const space = addressSpaceOf(k, t);
      if (space === "global" || (values.has(t.name) && !params.has(t.name))) continue;
      const written = k.instructions.some((x) => before.has(x.id) && insnWrites(x).includes(t.name));
      if (!written || !after.some((x) => insnReadsWithBounds(k, x).has(t.name))) continue;
      if (!values.has(t.name)) values.set(t.name, { ...t, addressSpace: space });
      if (params.has(t.name)) {
        const b = bounds.get(t.name) ?? { t: values.get(t.name)!, barriers: [] };
        bounds.set(t.name, { t: b.t, barriers: [...b.barriers, g.id] });
      }
    }
  }
  return { values, bounds };
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
  const { values: live, bounds } = liveAcrossGlobalBarriers(k);
  if (live.size === 0) return k;
  let instructions = [...k.instructions];
  const saves: Temporary[] = [];
  const temporaries = k.temporaries.map((t0): Temporary => {
    const t = live.get(t0.name);
    if (!t) return t0;
    const bound = bounds.get(t.name);
    if (bound) {
      const r = saveAndReloadBound(withKernel(k, { instructions }), t, bound.barriers);
      instructions = r.instructions;
      saves.push(r.save);
      return t0;
    }
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
  return withKernel(k, { instructions, temporaries: [...temporaries, ...saves] });
}

/**
 * A scalar `t` that bounds a loop, saved and reloaded as loopy does: each writer before the
 * barriers is followed by `t_save[slot] = t`, which the barriers wait for, and after each barrier
 * `t = t_save[slot]` runs in the writers' hardware loops before the readers (a loop bound reads a
 * scalar: the readers keep reading `t`).
 */
function saveAndReloadBound(k: Kernel, t: Temporary, barriers: readonly string[]): { instructions: Instruction[]; save: Temporary } {
  const users = k.instructions.filter((x) => insnReadsWithBounds(k, x).has(t.name) || insnWrites(x).includes(t.name));
  if (users.some((x) => x.kind === "block")) throw new TransformError(`${WHO}: "${t.name}" is used inside a block (OKL code), whose accesses a save slot cannot follow`);
  const inames = slotInames(k, t, users);
  const ranges = inames.map((h) => rangeOf(k, h, t.name));
  const slot = inames.map((h, x) => arith("-", v(h), ranges[x]![0]));
  const taken = new Set([...k.temporaries.map((x) => x.name), ...k.args.map((a) => a.name), ...allInames(k), ...k.domains.flatMap((d) => d.params)]);
  const saveName = uniqueName(`${t.name}_save`, taken);
  const ids = new Set(k.instructions.map((x) => x.id));
  const newId = (base: string) => {
    const id = uniqueName(base, ids);
    ids.add(id);
    return id;
  };
  const deps = dependencyClosure(k.instructions);
  const assign = (id: string, lhs: Expr, rhs: Expr, withinInames: readonly string[], dependsOn: readonly string[]): Assignment =>
    Object.assign(insnDefaults(id), { kind: "assign" as const, lhs, rhs, withinInames: [...withinInames].sort(), dependsOn: [...dependsOn], atomicity: "none" as const });
  const writers = users.filter((x) => insnWrites(x).includes(t.name));
  const saveOf = new Map(writers.map((w) => [w.id, assign(newId(`${w.id}_save`), sub(saveName, ...slot), v(t.name), w.withinInames, [w.id])]));
  // The reload runs in the barrier's own loops too: a barrier inside a sequential (host) loop is
  // passed once per trip, and each trip's readers need that trip's value (the slot is per work-item).
  const withinOf = new Map(k.instructions.map((x) => [x.id, x.withinInames]));
  const reloadOf = new Map(barriers.map((g) => [g, assign(newId(`${t.name}_reload`), v(t.name), sub(saveName, ...slot), [...new Set([...inames, ...(withinOf.get(g) ?? [])])], [g])]));
  const out: Instruction[] = [];
  for (const x of k.instructions) {
    const before = deps.get(x.id)!;
    let y = x;
    // A barrier waits for the saves of the writers it waits for.
    if (barriers.includes(x.id)) {
      const more = writers.filter((w) => before.has(w.id)).map((w) => saveOf.get(w.id)!.id);
      y = { ...y, dependsOn: [...y.dependsOn, ...more] };
    }
    // A user after a barrier comes after the value reloaded there (a writer too: its value is the newer).
    if (users.includes(x)) {
      const more = barriers.filter((g) => before.has(g)).map((g) => reloadOf.get(g)!.id);
      if (more.length > 0) y = { ...y, dependsOn: [...y.dependsOn, ...more] };
    }
    out.push(y);
    const save = saveOf.get(x.id);
    if (save) out.push(save);
    const reload = reloadOf.get(x.id);
    if (reload) out.push(reload);
  }
  const save: Temporary = { name: saveName, dtype: t.dtype, shape: ranges.map((r) => r[1]), addressSpace: "global", order: "C", dimTags: undefined };
  return { instructions: out, save };
}
