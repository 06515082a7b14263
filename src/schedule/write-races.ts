/**
 * The static write-race check (loopy's `check_for_write_races`, check.py): an instruction that runs
 * across a parallel iname its left-hand side index does not use makes every work-item (or group)
 * along that iname write the same cell. Which inames are "raceable" depends on where the assignee
 * lives: for a global array (argument or global temporary) the instruction's `g` and `l` inames,
 * for a local temporary its `l` inames (groups have their own copy), for a private temporary none
 * (every work-item has its own copy). Reduction inames are summed, not run across, so only the
 * instruction's loops (`withinInames`) count; an instruction outside an `l` loop runs redundantly
 * in every work-item and is no race by this rule (as in loopy). Atomic assignments (`{atomic}`,
 * `{atomic=init}`) are the user's declaration that concurrent updates are meant, and are exempt.
 *
 * loopy warns (WriteRaceConditionWarning, silenced per instruction); Loom refuses, unless the
 * instruction carries the tag `write_race_ok` (WRITE_RACE_OK: the author says the stores are
 * meant; OKL import sets it, as OCCA checks nothing), and only what two refinements leave: instances that provably never store to one cell
 * (`cellsDistinctAcross`), and redundant stores of one value (`sameValueAcross`, the interpreter's
 * rule too). Both only ever accept more than loopy's syntactic test.
 */
import { predicateConditions } from "../analysis/footprint.js";
import { ScheduleError } from "../errors.js";
import {
  addFreeVariables, assigneeName, atomicUpdateOf, blockAccesses, blockLocals, exprToAff, exprToString, findArg, findTemporary, formatInameTag, freeVariables, insnWrites,
  iterationDomain, WRITE_RACE_OK, type BlockStmt, type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { addConstraints, intersect, isEmpty, type Aff } from "../poly/index.js";
import { definiteRace, storePairs, type DefiniteRace } from "./definite-races.js";
import { quoted } from "./source-places.js";

type Space = "global" | "local" | "private";

/** Where the variable `name` lives, once preprocessing resolved "auto" temporaries; undefined for unknown names. */
function spaceOf(k: Kernel, name: string): Space | undefined {
  const t = k.temporaries.length <= SHORT ? firstNamed(k.temporaries, name) : findTemporary(k, name);
  if (t) return t.addressSpace === "auto" ? undefined : t.addressSpace;
  const a = k.args.length <= SHORT ? firstNamed(k.args, name) : findArg(k, name);
  return a?.kind === "array" ? "global" : undefined;
}

/** Lists up to this long are scanned by index; longer ones through findArg/findTemporary's index. */
const SHORT = 8;

/**
 * The first entry of `list` named `name`, by index, as find() would (find() over a frozen list
 * takes V8's slow path, a callback call through a builtin per entry).
 */
function firstNamed<T extends { readonly name: string }>(list: readonly T[], name: string): T | undefined {
  for (let x = 0; x < list.length; x++) if (list[x]!.name === name) return list[x];
  return undefined;
}

/** The index expressions of a store target: none for a scalar (`x = …`). */
function indexExprs(lhs: Expr): readonly Expr[] {
  if (lhs.kind === "subscript") return lhs.indices;
  if (lhs.kind === "linear") return [lhs.index];
  return [];
}

/** The inames of `insn`'s loops that make writes to a variable in `space` race unless its index uses them. */
function raceableInames(k: Kernel, insn: Instruction, space: Space): string[] {
  const out: string[] = [];
  if (space === "private") return out;
  // Indexed loops over the kernel's (frozen) arrays here and in checkWriteRaces: a for-of over a
  // frozen array takes V8's generic iterator (an object per element), filter() and some() a
  // callback call through a builtin per element.
  for (let x = 0; x < insn.withinInames.length; x++) {
    const i = insn.withinInames[x]!;
    const t = k.inameTags[i]?.kind;
    if (t === "l" || t === "l.auto" || (space === "global" && t === "g")) out.push(i);
  }
  return out;
}

const SPACE_WORDS: Readonly<Record<Space, string>> = {
  global: "global", local: "local temporary", private: "private temporary",
};

function describe(k: Kernel, name: string, space: Space): string {
  if (space === "global") return findArg(k, name) ? `global array "${name}"` : `global temporary "${name}"`;
  return `${SPACE_WORDS[space]} "${name}"`;
}

/**
 * Throw a ScheduleError for the first instruction of `k` (preprocessed as far as address spaces)
 * that writes a global or local variable across a parallel iname its assignee's index does not
 * reference: with `a_fetch[i_inner] = a[…]` inside `j_inner: l.1`, every `j_inner` writes the same
 * cell. Blocks are checked on each of their stores (`blockStoresUnder`); an index through a block
 * local (whose value may depend on any iname) counts as referencing every iname.
 *
 * loopy's rule is syntactic; two refinements keep it from refusing what cannot race. An iname the
 * index does not name still counts as referenced when the domain and the instruction's affine
 * predicates prove that instances differing in it never write the same cell (`out[i]` in a tile
 * `16*o <= i < 16*o + 16` is distinct across `o`; `s[0]` under `if t == 0`, as a predicate or a
 * block's branch, runs in one work-item). And agents that all store the same value (`out[i] =
 * 2*a[i]` within an `l` iname `j` it does not read) make redundant copies, not a race.
 */
export function checkWriteRaces(k: Kernel): void {
  let parallel = false;
  for (const i in k.inameTags) {
    const t = k.inameTags[i]!.kind;
    if (t === "g" || t === "l" || t === "l.auto") parallel = true;
  }
  if (!parallel) return;
  const instructions = k.instructions;
  for (let n = 0; n < instructions.length; n++) {
    const insn = instructions[n]!;
    if (insn.kind === "barrier" || insn.kind === "nop") continue;
    if (insn.kind === "assign" && insn.atomicity !== "none") continue;
    if (insn.tags.includes(WRITE_RACE_OK)) {
      checkDefiniteRaces(k, insn);
      continue;
    }
    const locals = insn.kind === "block" ? blockLocals(insn.body) : undefined;
    const stores = insn.kind === "block" ? blockStoresUnder(insn.body, locals!) : [{ lhs: insn.lhs, conds: [] }];
    for (const { lhs, conds } of stores) {
      const name = assigneeName(lhs);
      const space = spaceOf(k, name);
      if (space === undefined) continue;
      const raceable = raceableInames(k, insn, space);
      if (raceable.length === 0) continue;
      const used = new Set<string>();
      const index = indexExprs(lhs);
      // (Walked, not remembered: each store's index is asked once here.)
      for (let x = 0; x < index.length; x++) addFreeVariables(index[x]!, used);
      if (locals && [...used].some((u) => locals.has(u))) continue;
      let race: string[] = [];
      for (let x = 0; x < raceable.length; x++) if (!used.has(raceable[x]!)) race.push(raceable[x]!);
      // The cheap exemption first: copies of one value across every candidate are copies across fewer.
      if (race.length === 0 || sameValueAcross(k, insn, race)) continue;
      race = race.filter((x) => !cellsDistinctAcross(k, insn, lhs, conds, x));
      if (race.length === 0 || sameValueAcross(k, insn, race)) continue;
      throw new ScheduleError(raceMessage(k, insn, name, space, race, lhs));
    }
  }
}

/**
 * The stores of an instruction whose races are not checked (`write_race_ok`, every OKL import)
 * that race all the same, provably (`definiteRace`): an update of one cell by several work-items,
 * or a value that differs between them. The author's word that work-items storing to one cell
 * store one value cannot hold there, and the result would be the order the target happens to run
 * them in (the serial sum on a CPU, lost updates on a GPU).
 */
function checkDefiniteRaces(k: Kernel, insn: Instruction): void {
  if (insn.kind !== "assign") return;
  const name = assigneeName(insn.lhs);
  const space = spaceOf(k, name);
  if (space === undefined) return;
  const raceable = raceableInames(k, insn, space);
  if (raceable.length === 0) return;
  const used = new Set<string>();
  for (const e of indexExprs(insn.lhs)) freeVariables(e, used);
  const agents = new Set(raceable);
  for (const x of raceable) {
    if (used.has(x)) continue;
    const how = definiteRace(k, insn, x, agents);
    if (how !== undefined) throw new ScheduleError(definiteMessage(k, insn, name, space, x, how));
  }
}

function definiteMessage(k: Kernel, insn: Instruction & { kind: "assign" }, name: string, space: Space, x: string, race: DefiniteRace): string {
  const agent = k.inameTags[x]?.kind === "g" ? "group" : "work-item";
  const did = race.how === "updates"
    ? `updates the same cell ${exprToString(insn.lhs)} (${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}) with no barrier between them, so the result depends on their order`
    : `stores different values (${exprToString(insn.rhs)}) to the same cell ${exprToString(insn.lhs)} with no barrier between them, so the last to store wins`;
  const fixes = race.how === "updates"
    ? `make the update atomic (@atomic in OKL, {atomic} in Loom), let one ${agent} do it (a guard such as ${x} == 0), or accumulate per ${agent} (an array indexed by "${x}") and combine after a barrier`
    : `let one ${agent} store (a guard such as ${x} == 0) or index "${name}" by "${x}"`;
  const when = race.when === undefined ? "" : ` whenever ${race.when}`;
  const assume = race.when === undefined ? "" : `, or, if the host never passes such values, say so with lp.assume(k, …) (run then checks them)`;
  return `instruction ${quoted(k, insn.id)} races on ${describe(k, name, space)}${when}: every ${agent} of loop ${quoted(k, x)} (${formatInameTag(k.inameTags[x]!)}) ${did}, ` +
    `on every target (write_race_ok, which OKL import gives every instruction, covers redundant stores of one value, not these); ${fixes}${assume}`;
}

/**
 * Whether every work-item (or group) along the `race` inames computes the same value for every
 * store of `insn`, so that their writes to one cell are redundant copies of one write (as when
 * every work-item runs an instruction of the group's: the interpreter accepts such writes too).
 * An assignment qualifies when its right-hand side reads none of the `race` inames and no storage
 * they have their own copies of (private temporaries; local ones across groups), nor the variable
 * it writes (`s[0] = s[0] + 1` is an update whose result depends on the order); a block when
 * nothing it reads (conditions included, which decide what it stores) is such a name.
 */
function sameValueAcross(k: Kernel, insn: Instruction, race: readonly string[]): boolean {
  const perAgent = new Set(race);
  const acrossGroups = race.some((i) => k.inameTags[i]?.kind === "g");
  for (const t of k.temporaries) {
    if (t.addressSpace === "private" || t.addressSpace === "auto" || (acrossGroups && t.addressSpace === "local")) perAgent.add(t.name);
  }
  // A read of what it writes is a read-modify-write: one agent's write changes what the next one reads.
  for (const n of insnWrites(insn)) perAgent.add(n);
  const reads = insn.kind === "assign" ? freeVariables(insn.rhs) : insn.kind === "block" ? blockAccesses(insn.body).reads : new Set<string>();
  for (const n of reads) if (perAgent.has(n)) return false;
  return true;
}

/** A store of a block with the `if` conditions around it (negated in `else` branches). */
interface GuardedStore {
  readonly lhs: Expr;
  readonly conds: readonly Expr[];
}

/** The stores of `body` to variables outside it, each with the branch conditions that hold where it runs. */
function blockStoresUnder(body: readonly BlockStmt[], locals: ReadonlyMap<string, unknown>): GuardedStore[] {
  const out: GuardedStore[] = [];
  const visit = (list: readonly BlockStmt[], conds: readonly Expr[]): void => {
    for (const s of list) {
      switch (s.kind) {
        case "assign":
          if (!(s.lhs.kind === "var" && locals.has(s.lhs.name))) out.push({ lhs: s.lhs, conds });
          break;
        case "if":
          visit(s.then, [...conds, s.cond]);
          visit(s.else, [...conds, { kind: "not", operand: s.cond }]);
          break;
        case "while": case "doWhile": case "labeled":
          visit(s.body, conds);
          break;
        case "for":
          visit(s.init, conds);
          visit(s.body, conds);
          visit(s.step, conds);
          break;
        default:
          break;
      }
    }
  };
  visit(body, []);
  return out;
}

/**
 * loopy's wording plus the variable, where it lives and what would fix it:
 *   instruction "fetch" contains a write race on local temporary "a_fetch": it runs across parallel
 *   iname(s) "j_inner" (l.1), which the left-hand side a_fetch[i_inner] does not reference, …
 */
function raceMessage(k: Kernel, insn: Instruction, name: string, space: Space, race: readonly string[], lhs: Expr): string {
  const list = race.map((i) => `"${i}" (${formatInameTag(k.inameTags[i]!)})`).join(", ");
  const quoted = race.map((i) => `"${i}"`).join(", ");
  const them = race.length === 1 ? "it" : "them";
  const agents = [
    ...(race.some((i) => k.inameTags[i]?.kind !== "g") ? ["work-item"] : []),
    ...(race.some((i) => k.inameTags[i]?.kind === "g") ? ["group"] : []),
  ].join(" and every ");
  const where = indexExprs(lhs).length === 0 ? `it assigns "${name}" as a scalar` : `its left-hand side ${exprToString(lhs)} does not reference ${them}`;
  const fixes = [`index "${name}" by ${them}` + (space === "local" ? ` (for a prefetch or precompute: sweep ${quoted} too)` : "")];
  if (!findArg(k, name)) fixes.push(`make "${name}" private (every work-item its own copy)`);
  fixes.push(`do not tag ${quoted} as parallel`);
  if (insn.kind === "assign") {
    const u = atomicUpdateOf(insn.lhs, insn.rhs);
    if (u && u.op !== "=") fixes.push(`mark the update {atomic} if the contributions are meant to accumulate`);
  }
  return `instruction "${insn.id}" contains a write race on ${describe(k, name, space)}: it runs across parallel iname(s) ${list}, ` +
    `but ${where}, so every ${agents} along ${them} writes the same cell; ` +
    `${fixes.slice(0, -1).join(", ")}, or ${fixes[fixes.length - 1]!}`;
}

/**
 * Whether two instances of `insn` that differ in iname `x` never store to the same cell of `lhs`:
 * the set of pairs of points of its domain (cut by its affine predicates and the block's branch
 * conditions `guards` around the store) with equal indices and
 * `x' > x` is empty. Indices out of reach of the affine model (read from memory or a temporary,
 * products) constrain nothing; a domain with a bound read from memory or a temporary (which may
 * vary per work-item in ways the domain does not say) proves nothing.
 */
function cellsDistinctAcross(k: Kernel, insn: Instruction, lhs: Expr, guards: readonly Expr[], x: string): boolean {
  const inames = insn.withinInames;
  const values = new Set(k.args.filter((a) => a.kind === "value").map((a) => a.name));
  const inameSet = new Set(inames);
  const isIndexVar = (n: string) => inameSet.has(n) || values.has(n);
  // An index out of reach of the affine model adds no equality: fewer constraints, a larger set,
  // so emptiness still proves distinctness (`g` of extent 1 never races, whatever `out[f(i)]` is).
  const idx: Aff[] = [];
  for (const e of indexExprs(lhs)) {
    const a = exprToAff(e, isIndexVar);
    if (a) idx.push(a);
  }
  let d = iterationDomain(k, inames);
  if (k.assumptions.constraints.length > 0) d = intersect(d, k.assumptions);
  // A parameter that is no value argument (a bound read from a temporary) may differ per work-item.
  if (d.params.some((p) => !values.has(p))) return false;
  // Conditions over inames and value arguments only: block locals and memory may differ per work-item.
  const conds = [...insn.predicates, ...guards].flatMap((p) => predicateConditions(p, isIndexVar));
  if (conds.length > 0) d = addConstraints(d, conds);
  return isEmpty(storePairs(d, inameSet, idx, x).pairs);
}
