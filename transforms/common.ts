/** Helpers shared by the transformation modules: names, instruction matching, iname rewriting. */
import { checkOptionNames, ParseError, shown, TransformError } from "../src/errors.js";
import {
  allInames, checkKernelArg, mapExpr, naturalCompare, reductionInames, type Expr, type Instruction, type Kernel, mapInsnExprs, blockLocals,
} from "../src/ir/index.js";
import { isMultiLevelStackMatch, parseStackMatch } from "./match.js";

/** Every name in use in `k`: inames, parameters, arguments, temporaries, substitution rules (a fresh set: callers add to it). */
export function takenNames(k: Kernel): Set<string> {
  if (!Object.isFrozen(k)) return namesIn(k);
  // A frozen kernel's names are a value: a transformation that asks twice (addPrefetch: its
  // temporary's name, then the store's) walks the kernel once.
  let names = takenMemo.get(k);
  if (names === undefined) takenMemo.set(k, (names = namesIn(k)));
  return new Set(names);
}

const takenMemo = new WeakMap<Kernel, ReadonlySet<string>>();

/**
 * Record `names` as every name in use in `k`, a frozen kernel a transformation has just built and
 * whose names it knows by construction (the input's, and those it added): the next transformation
 * that asks `takenNames(k)` does not walk the kernel again. `names` must equal what takenNames
 * would find (the set is kept, not copied: the caller gives it up).
 */
export function rememberTakenNames(k: Kernel, names: ReadonlySet<string>): void {
  if (Object.isFrozen(k) && !takenMemo.has(k)) takenMemo.set(k, names);
}

function namesIn(k: Kernel): Set<string> {
  const taken = new Set<string>(allInames(k));
  // (Indexed loops over the kernel's frozen arrays: see insnById.)
  for (let i = 0; i < k.domains.length; i++) {
    const ps = k.domains[i]!.params;
    for (let j = 0; j < ps.length; j++) taken.add(ps[j]!);
  }
  for (let i = 0; i < k.assumptions.params.length; i++) taken.add(k.assumptions.params[i]!);
  for (let i = 0; i < k.args.length; i++) taken.add(k.args[i]!.name);
  for (let i = 0; i < k.temporaries.length; i++) taken.add(k.temporaries[i]!.name);
  for (let i = 0; i < k.substitutions.length; i++) taken.add(k.substitutions[i]!.name);
  // A new name must not be captured by a block's own local.
  for (let i = 0; i < k.instructions.length; i++) {
    const insn = k.instructions[i]!;
    if (insn.kind === "block") for (const n of blockLocals(insn.body).keys()) taken.add(n);
  }
  return taken;
}

/**
 * The instruction of `k` with id `id` (the first), or undefined: an indexed scan, as every walk of
 * the kernel's frozen arrays in the transformations' hot paths (V8 takes a slow generic path for
 * find(), some(), filter(), map() and for-of over frozen arrays: tens of times a plain loop).
 */
export function insnById(k: Kernel, id: string): Instruction | undefined {
  const insns = k.instructions;
  for (let i = 0; i < insns.length; i++) if (insns[i]!.id === id) return insns[i];
  return undefined;
}

/** The list of the kernel's inames for error messages. */
export function inameList(k: Kernel): string {
  return allInames(k).join(", ") || "(none)";
}

/** Throws unless `iname` is an iname of `k`. */
export function checkIname(k: Kernel, iname: string, who: string): void {
  if (typeof iname !== "string" || !allInames(k).includes(iname)) {
    throw new TransformError(`${who}: no iname ${typeof iname === "string" ? `"${iname}"` : shown(iname)} in kernel "${k.name}"; inames are ${inameList(k)}`);
  }
}

/**
 * Instruction selector: a match expression (`"init_*"`, `"id:init_* or writes:out"`, a stack
 * match taken at the level of whole instructions) or a list of them, each selecting something.
 */
export type InsnMatch = string | readonly string[];

/** Ids of the instructions `within` selects; a pattern that selects nothing is a TransformError. */
export function matchInsns(k: Kernel, within: InsnMatch, who: string): Set<string> {
  const patterns = typeof within === "string" ? [within] : within;
  if (!Array.isArray(patterns) || patterns.some((p) => typeof p !== "string")) {
    throw new TransformError(`${who}: within must be a match expression (as "id:a* or writes:out") or a list of them; got ${JSON.stringify(within)}`);
  }
  const ids = new Set<string>();
  for (const raw of patterns) {
    let pred: (insn: Instruction) => boolean;
    try {
      const stackPred = parseStackMatch(raw, k);
      pred = (insn) => stackPred(insn, []);
    } catch (e) {
      if (e instanceof ParseError) throw new TransformError(`${who}: within ${e.message}`);
      throw e;
    }
    const hits = k.instructions.filter(pred);
    if (hits.length === 0) {
      const all = k.instructions.map((i) => i.id).join(", ") || "(none)";
      const hint = isMultiLevelStackMatch(raw) ? " (a stack match of more than one level selects rule calls inside instructions, never a whole instruction)" : "";
      throw new TransformError(`${who}: within "${raw}" matches no instruction of kernel "${k.name}"; instruction ids are ${all}${hint}`);
    }
    for (const h of hits) ids.add(h.id);
  }
  return ids;
}

/**
 * `e` with the iname `iname` replaced by `value` where free, and a reduction over `iname` turned
 * into a reduction over `replacement` (whose body then sees `value`).
 */
export function replaceIname(e: Expr, iname: string, value: Expr, replacement: readonly string[]): Expr {
  return mapExpr(e, (n) => {
    if (n.kind === "var") return n.name === iname ? value : n;
    if (n.kind === "reduce" && n.inames.includes(iname)) {
      const inames = n.inames.flatMap((i) => (i === iname ? [...replacement] : [i]));
      return { ...n, inames, body: replaceIname(n.body, iname, value, replacement) };
    }
    return undefined;
  });
}

/** `insn` with `iname` replaced everywhere (expressions, predicates, within-inames). */
export function replaceInameInInsn(insn: Instruction, iname: string, value: Expr, replacement: readonly string[]): Instruction {
  const f = (e: Expr) => replaceIname(e, iname, value, replacement);
  let withinInames = insn.withinInames;
  if (withinInames.includes(iname)) {
    const next: string[] = [];
    for (let i = 0; i < insn.withinInames.length; i++) if (insn.withinInames[i] !== iname) next.push(insn.withinInames[i]!);
    for (let i = 0; i < replacement.length; i++) next.push(replacement[i]!);
    withinInames = next.sort(naturalCompare);
  }
  return { ...mapInsnExprs(insn, f), withinInames };
}

/** Whether any instruction still loops over or reduces over `iname`. */
export function inameUsed(k: Kernel, iname: string): boolean {
  return k.instructions.some((insn) => {
    if (insn.withinInames.includes(iname)) return true;
    if (insn.kind !== "assign") return false;
    return reductionInames(insn.rhs).has(iname) || reductionInames(insn.lhs).has(iname);
  });
}

/** An integer-valued option check: `factor must be an integer >= 1; got 0`. */
export function checkInt(x: unknown, min: number, what: string): number {
  if (typeof x !== "number" || !Number.isSafeInteger(x) || x < min) {
    throw new TransformError(`${what} must be an integer >= ${min}; got ${JSON.stringify(x) ?? String(x)}`);
  }
  return x;
}

/** Ids of the instructions `id` depends on, transitively. */
export function dependencyClosure(k: Kernel, id: string): Set<string> {
  const byId = new Map(k.instructions.map((i) => [i.id, i]));
  const seen = new Set<string>();
  const stack = [...(byId.get(id)?.dependsOn ?? [])];
  while (stack.length > 0) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    stack.push(...(byId.get(d)?.dependsOn ?? []));
  }
  return seen;
}

/** Throws unless `k` is a kernel (a user calling a transformation from JavaScript may pass anything). */
export function checkKernel(k: unknown, who: string): asserts k is Kernel {
  checkKernelArg(k, who, (m) => new TransformError(m));
}

/**
 * `opts` checked against the option names a transformation takes: absent or null is no options;
 * anything else must be a plain object whose every key is known. A misspelt option (a tuning
 * log's typo, loopy's `sweep_inames`) is refused, not silently ignored.
 *
 *   checkOptions({ outertag: "g.0" }, "splitIname", SPLIT_OPTIONS)
 *   // TransformError: splitIname: unknown option "outertag" (did you mean "outerTag"?); options are outerIname, …
 */
export function checkOptions<T extends object>(opts: T | null | undefined, who: string, known: Readonly<Record<keyof T, true>>): T {
  return checkOptionNames(opts, who, known, (m) => new TransformError(m));
}

/**
 * A store that runs inside a reduction of its reader (a fetch within the reduction loop, as
 * addPrefetch places one) must be nested as that reduction is: inside every loop of the reader.
 * A loop priority that puts the reduction iname outside one of those loops would run the store in
 * another nest than the reduction, out of step with it: refused, naming the store, the reader and
 * the inames.
 */
export function checkStoresInStep(k: Kernel, who: string): void {
  if (k.loopPriority.length === 0) return;
  // (Indexed loops over the kernel's frozen arrays: see insnById.)
  for (let x = 0; x < k.instructions.length; x++) {
    const reader = k.instructions[x]!;
    // (An instruction that depends on none runs inside no store's loops: its reductions are not asked.)
    if (reader.kind !== "assign" || reader.dependsOn.length === 0) continue;
    const reds = reductionInames(reader.rhs, new Set<string>());
    if (reds.size === 0) continue;
    for (let y = 0; y < reader.dependsOn.length; y++) {
      const store = insnById(k, reader.dependsOn[y]!);
      if (store === undefined) continue;
      for (let a = 0; a < store.withinInames.length; a++) {
        const r = store.withinInames[a]!;
        if (!reds.has(r)) continue;
        for (let b = 0; b < reader.withinInames.length; b++) {
          const w = reader.withinInames[b]!;
          if (!store.withinInames.includes(w)) continue;
          let p: readonly string[] | undefined;
          for (let q = 0; q < k.loopPriority.length && p === undefined; q++) {
            const pq = k.loopPriority[q]!;
            if (pq.includes(r) && pq.includes(w) && pq.indexOf(r) < pq.indexOf(w)) p = pq;
          }
          if (p === undefined) continue;
          throw new TransformError(`${who}: the loop priority ${p.join(", ")} nests ${r}, a reduction iname of instruction "${reader.id}", outside ${w}, one of its loops; ` +
            `"${store.id}" runs inside that reduction (within ${r} and ${w}) and would run in another loop nest, out of step with it. ` +
            `Sweep ${r} in the prefetch or precompute that makes "${store.id}" (it then runs before the reduction), or give the loops a priority that keeps ${r} inside ${w}`);
        }
      }
    }
  }
}
