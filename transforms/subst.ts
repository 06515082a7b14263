/**
 * Substitution-rule transformations (loopy/transform/subst.py): extract a rule from repeated
 * subexpressions, turn a once-assigned temporary into a rule, expand rule calls. Rules are
 * macros: a call `f(e1, e2)` means the rule's body with its parameters replaced by `e1, e2`.
 */
import { ParseError, TransformError } from "../src/errors.js";
import {
  allInames, assigneeName, children, exprEquals, withTag, exprToString, findTemporary, freeVariables, mapExpr, MATH_FUNCTIONS, reductionInames,
  substitute, uniqueName, walkExpr, withKernel,
  type Assignment, type Call, type Expr, type Instruction, type Kernel, type SubstitutionRule, mapBlockReads, insnWrites,
} from "../src/ir/index.js";
import { dependencyClosure, takenNames, checkKernel, checkOptions } from "./common.js";
import { removeInstructions } from "./instruction.js";
import { parseStackMatch, selectInstructions, type InstructionMatch, type RuleCallFrame } from "./match.js";
import { parseTemplate } from "./template.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set([...Object.keys(MATH_FUNCTIONS), "if", "cast", "sum", "product", "max", "min", "and", "or", "not"]);
/** How deep rules may call rules before expansion is taken to be endless. */
const MAX_RULE_DEPTH = 50;

/** `insn` with `f` applied to every expression it reads: right-hand side, predicates, left-hand side indices. */
function mapReads(insn: Instruction, f: (e: Expr) => Expr): Instruction {
  const predicates = insn.predicates.map(f);
  if (insn.kind === "block") {
    return { ...insn, predicates, body: mapBlockReads(insn.body, f) };
  }
  if (insn.kind !== "assign") return { ...insn, predicates };
  const lhs = insn.lhs.kind === "subscript" ? { ...insn.lhs, indices: insn.lhs.indices.map(f) }
    : insn.lhs.kind === "linear" ? { ...insn.lhs, index: f(insn.lhs.index) } : insn.lhs;
  return { ...insn, lhs, rhs: f(insn.rhs), predicates };
}

/** Names of the rules `e` calls. */
function calledRules(e: Expr, rules: ReadonlyMap<string, SubstitutionRule>, out: Set<string>): Set<string> {
  walkExpr(e, (n) => { if (n.kind === "call" && rules.has(n.fn)) out.add(n.fn); });
  return out;
}

/** A fresh rule name: an identifier not yet used in `k` and not a built-in function. */
function checkNewName(k: Kernel, name: string, what: string, who: string): void {
  if (typeof name !== "string" || !IDENT.test(name)) throw new TransformError(`${who}: ${what} must be an identifier; got ${JSON.stringify(name)}`);
  if (RESERVED.has(name)) throw new TransformError(`${who}: ${what} "${name}" is a built-in function; choose another name`);
  if (takenNames(k).has(name)) throw new TransformError(`${who}: ${what} "${name}" is already a name in kernel "${k.name}"; choose another`);
}

// ---- expandSubst ------------------------------------------------------------------------

/** Rules made for calls that stay but whose bodies had calls expanded (loopy's rule specialization). */
interface Specializer {
  readonly made: SubstitutionRule[];
  /** `rule|body` -> the copy made for it, so equal bodies share one copy. */
  readonly byBody: Map<string, SubstitutionRule>;
  readonly taken: Set<string>;
}

/**
 * `e` with calls of rules in `rules` replaced by the rule's body, recursively. With `expand`, a
 * call is expanded only where `expand(stack)` holds, `stack` being the rule calls around it and
 * itself, outermost first. A call that stays is still looked into: when calls in its body are
 * expanded there, it calls a new copy of the rule with that body (`g` -> `g_0`), as loopy does.
 */
function expandCalls(
  e: Expr, rules: ReadonlyMap<string, SubstitutionRule>, who: string,
  expand?: (stack: readonly RuleCallFrame[]) => boolean, stack: readonly RuleCallFrame[] = [], spec?: Specializer,
): Expr {
  return mapExpr(e, (n) => {
    if (n.kind !== "call") return undefined;
    const rule = rules.get(n.fn);
    if (!rule) return undefined;
    if (stack.length > MAX_RULE_DEPTH) throw new TransformError(`${who}: substitution rule "${n.fn}" expands without end (more than ${MAX_RULE_DEPTH} nested calls)`);
    if (rule.params.length !== n.args.length) {
      throw new TransformError(`${who}: substitution rule "${n.fn}" takes ${rule.params.length} arguments (${rule.params.join(", ")}), called with ${n.args.length} in ${exprToString(n)}`);
    }
    const args = n.args.map((a) => expandCalls(a, rules, who, expand, stack, spec));
    const inner = [...stack, { name: n.fn }];
    if (expand !== undefined && !expand(inner)) {
      const body = expandCalls(rule.expr, rules, who, expand, inner, spec);
      if (spec === undefined || exprEquals(body, rule.expr)) return { ...n, args };
      const key = `${rule.name}|${exprToString(body)}`;
      let copy = spec.byBody.get(key);
      if (copy === undefined) {
        copy = { name: uniqueName(`${rule.name}_0`, spec.taken), params: rule.params, expr: body };
        spec.taken.add(copy.name);
        spec.made.push(copy);
        spec.byBody.set(key, copy);
      }
      return { ...n, fn: copy.name, args };
    }
    return expandCalls(substitute(rule.expr, new Map(rule.params.map((p, i) => [p, args[i]!]))), rules, who, expand, inner, spec);
  });
}

/** `rules` without those neither the instructions nor a kept rule call. */
function usedRules(insns: readonly Instruction[], rules: readonly SubstitutionRule[]): SubstitutionRule[] {
  const byName = new Map(rules.map((r) => [r.name, r]));
  const used = new Set<string>();
  for (const insn of insns) mapReads(insn, (e) => { calledRules(e, byName, used); return e; });
  for (const name of [...used]) {
    const stack = [name];
    while (stack.length > 0) {
      for (const n of calledRules(byName.get(stack.pop()!)!.expr, byName, new Set())) if (!used.has(n)) { used.add(n); stack.push(n); }
    }
  }
  return rules.filter((r) => used.has(r.name));
}

/**
 * Expand substitution-rule calls (loopy's expand_subst), in every instruction or only where
 * `within` selects; rules no longer called are removed. `within` is a match expression (the
 * instructions whose calls are expanded), a stack match (loopy's parse_stack_match: the calls
 * whose stack of enclosing calls, with the instruction first and the call itself last, it
 * matches), or a list of instruction ids.
 *
 *   // f(x) := x*x;  out[i] = f(a[i])   ->   out[i] = a[i]*a[i]
 *   expandSubst(k)
 *   expandSubst(k, "... > id:g > id:h $")   // only calls of h made directly inside g
 */
export function expandSubst(k: Kernel, within?: InstructionMatch): Kernel {
  const who = "expandSubst";
  checkKernel(k, who);
  const rules = new Map(k.substitutions.map((r) => [r.name, r]));
  let instructions: Instruction[];
  if (typeof within === "string") {
    let pred;
    try {
      pred = parseStackMatch(within, k);
    } catch (e) {
      if (e instanceof ParseError) throw new TransformError(`${who}: within ${e.message}`);
      throw e;
    }
    let expanded = 0;
    const spec: Specializer = { made: [], byBody: new Map(), taken: takenNames(k) };
    instructions = k.instructions.map((insn) => mapReads(insn, (e) => expandCalls(e, rules, who, (stack) => {
      const yes = pred(insn, stack);
      if (yes) expanded++;
      return yes;
    }, [], spec)));
    if (expanded === 0) {
      throw new TransformError(`${who}: within ${JSON.stringify(within)} selects no rule call of kernel "${k.name}"; instruction ids are ${k.instructions.map((i) => i.id).join(", ") || "(none)"}, rules are ${k.substitutions.map((r) => r.name).join(", ") || "(none)"}`);
    }
    const all = [...k.substitutions, ...spec.made];
    return withKernel(k, { instructions, substitutions: usedRules(instructions, all) });
  } else {
    const ids = within === undefined ? undefined : new Set(selectInstructions(k, within, who, "within"));
    instructions = k.instructions.map((insn) =>
      ids && !ids.has(insn.id) ? insn : mapReads(insn, (e) => expandCalls(e, rules, who)));
  }
  return withKernel(k, { instructions, substitutions: usedRules(instructions, k.substitutions) });
}

// ---- extractSubst -----------------------------------------------------------------------

/** Whether `a` and `b` are the same node apart from their children. */
function sameNode(a: Expr, b: Expr): boolean {
  if (a.kind !== b.kind) return false;
  // A tagged node of the template (`a$x[i]`) matches only uses with that tag; an untagged one any.
  if ("tag" in a && a.tag !== undefined && (b as typeof a).tag !== a.tag) return false;
  switch (a.kind) {
    case "var": return a.name === (b as typeof a).name;
    case "const": { const o = b as typeof a; return a.value === o.value && a.dtype === o.dtype && a.isFloat === o.isFloat; }
    case "arith": case "compare": case "logical": return a.op === (b as typeof a).op;
    case "subscript": return a.array === (b as typeof a).array && a.indices.length === (b as typeof a).indices.length;
    case "linear": return a.array === (b as typeof a).array;
    case "call": return a.fn === (b as Call).fn && a.args.length === (b as Call).args.length;
    case "reduce": { const o = b as typeof a; return a.op === o.op && a.inames.join(",") === o.inames.join(","); }
    case "cast": return a.dtype === (b as typeof a).dtype;
    default: return true;
  }
}

/**
 * Unify `pattern` with `e`: parameters match any expression (the same one at each occurrence),
 * everything else must be equal. A parameter under a reduction of the pattern may not take an
 * expression that uses that reduction's inames (the rule call would not see them).
 */
function unify(pattern: Expr, e: Expr, params: ReadonlySet<string>, bindings: Map<string, Expr>, bound: readonly string[] = []): boolean {
  if (pattern.kind === "var" && params.has(pattern.name) && !bound.includes(pattern.name)) {
    const prev = bindings.get(pattern.name);
    if (prev) return exprEquals(prev, e);
    if (bound.length > 0 && [...freeVariables(e)].some((x) => bound.includes(x))) return false;
    bindings.set(pattern.name, e);
    return true;
  }
  if (!sameNode(pattern, e)) return false;
  const inner = pattern.kind === "reduce" ? [...bound, ...pattern.inames] : bound;
  const [pk, ek] = [children(pattern), children(e)];
  return pk.length === ek.length && pk.every((p, i) => unify(p, ek[i]!, params, bindings, inner));
}

export interface ExtractSubstOptions {
  /** Only these instructions are rewritten (rule bodies then stay as they are). */
  readonly within?: InstructionMatch;
}

export const EXTRACT_OPTIONS: Readonly<Record<keyof ExtractSubstOptions, true>> = { within: true };

/**
 * Find every subexpression that unifies with `template` (its `params` match anything) and
 * replace it by a call of a new rule `name(params) := template` (loopy's extract_subst).
 * Outermost matches win; the arguments of a call are searched too.
 *
 *   // out[i] = 23*b[i]**2 + 25*b[i]**2
 *   extractSubst(k, "bsquare", "alpha*b[i]**2", "alpha")
 *   // out[i] = bsquare(23) + bsquare(25), bsquare(alpha) := alpha*b[i]**2
 */
export function extractSubst(
  k: Kernel, name: string, template: string | Expr, params: string | readonly string[] = [], opts: ExtractSubstOptions = {},
): Kernel {
  const who = "extractSubst";
  checkKernel(k, who);
  opts = checkOptions(opts, who, EXTRACT_OPTIONS);
  checkNewName(k, name, "rule name", who);
  const pattern = typeof template === "string" ? parseTemplate(template, who) : template;
  if (pattern === null || typeof pattern !== "object" || typeof pattern.kind !== "string") {
    throw new TransformError(`${who}: template must be an expression or its text, as "a[i, j]"; got ${JSON.stringify(template)}`);
  }
  const list = typeof params === "string" ? params.split(",").map((p) => p.trim()).filter((p) => p.length > 0) : params;
  if (!Array.isArray(list)) throw new TransformError(`${who}: params must be a comma-separated string or an array of names; got ${JSON.stringify(params)}`);
  const free = freeVariables(pattern);
  for (const [i, p] of list.entries()) {
    if (typeof p !== "string" || !IDENT.test(p)) throw new TransformError(`${who}: parameter ${JSON.stringify(p)} is not an identifier`);
    if (list.indexOf(p) !== i) throw new TransformError(`${who}: parameter "${p}" is listed twice`);
    if (!free.has(p)) throw new TransformError(`${who}: parameter "${p}" does not occur (free) in the template ${exprToString(pattern)}`);
  }
  const paramSet = new Set<string>(list);
  if (pattern.kind === "var" && paramSet.has(pattern.name)) throw new TransformError(`${who}: the template is just the parameter "${pattern.name}", which would match every expression`);

  let found = 0;
  const rewrite = (e: Expr): Expr => mapExpr(e, (n) => {
    const bindings = new Map<string, Expr>();
    if (!unify(pattern, n, paramSet, bindings)) return undefined;
    found++;
    return { kind: "call", fn: name, args: list.map((p) => rewrite(bindings.get(p)!)) };
  });
  const ids = opts.within === undefined ? undefined : new Set(selectInstructions(k, opts.within, who, "within"));
  const instructions = k.instructions.map((insn) => (ids && !ids.has(insn.id) ? insn : mapReads(insn, rewrite)));
  // In a rule whose parameters rename a free name of the template, that name means something else.
  const fixed = [...free].filter((x) => !paramSet.has(x));
  const substitutions = k.substitutions.map((r) =>
    ids || r.params.some((p) => fixed.includes(p)) ? r : { ...r, expr: rewrite(r.expr) });
  if (found === 0) {
    throw new TransformError(`${who}: the template ${exprToString(pattern)} (parameters: ${list.join(", ") || "none"}) matches no subexpression of kernel "${k.name}"${ids ? " within the selected instructions" : ""}`);
  }
  return withKernel(k, { instructions, substitutions: [...substitutions, { name, params: [...list], expr: pattern }] });
}

// ---- assignmentToSubst ------------------------------------------------------------------

/** Whether `e` reads the variable `name`. */
const reads = (e: Expr, name: string) => freeVariables(e).has(name);

/** The one assignment to `lhsName`, checked to be expressible as a rule. */
function definitionOf(k: Kernel, lhsName: string, who: string): Assignment {
  const blocks = k.instructions.filter((i) => i.kind === "block" && insnWrites(i).includes(lhsName));
  if (blocks.length > 0) throw new TransformError(`${who}: temporary "${lhsName}" is written by block "${blocks[0]!.id}"; a rule cannot express a block's stores`);
  const writers = k.instructions.filter((i): i is Assignment => i.kind === "assign" && assigneeName(i.lhs) === lhsName);
  if (writers.length === 0) throw new TransformError(`${who}: temporary "${lhsName}" is never assigned in kernel "${k.name}"`);
  if (writers.length > 1) throw new TransformError(`${who}: temporary "${lhsName}" is assigned by ${writers.length} instructions (${writers.map((w) => w.id).join(", ")}); only a temporary assigned once can become a rule`);
  const def = writers[0]!;
  const where = `its assignment "${def.id}"`;
  if (def.lhs.kind === "linear") throw new TransformError(`${who}: ${where} writes ${exprToString(def.lhs)}; the indices must be plain inames, as in ${lhsName}[i, j]`);
  if (def.lhs.kind === "subscript") {
    const idx = def.lhs.indices;
    const names = idx.map((x) => (x.kind === "var" ? x.name : undefined));
    if (names.some((n, i) => n === undefined || !def.withinInames.includes(n) || names.indexOf(n) !== i)) {
      throw new TransformError(`${who}: ${where} writes ${exprToString(def.lhs)}; the indices must be distinct inames of its loops (${def.withinInames.join(", ") || "none"}), as in ${lhsName}[i, j]`);
    }
  }
  if (def.predicates.length > 0) throw new TransformError(`${who}: ${where} is conditional (if ${def.predicates.map(exprToString).join(" and ")}); a rule cannot express that`);
  if (def.atomicity !== "none") throw new TransformError(`${who}: ${where} is atomic; a rule cannot express that`);
  if (reads(def.rhs, lhsName) || def.predicates.some((p) => reads(p, lhsName))) throw new TransformError(`${who}: ${where} reads "${lhsName}" itself; a rule cannot refer to itself`);
  return def;
}

/** Throws unless expanding `def`'s right-hand side at `use` computes what reading the temporary did. */
function checkUse(k: Kernel, def: Assignment, params: readonly string[], use: Instruction, who: string): void {
  const lhsName = assigneeName(def.lhs);
  if (!dependencyClosure(k, use.id).has(def.id)) {
    throw new TransformError(`${who}: instruction "${use.id}" reads "${lhsName}" but does not depend on its assignment "${def.id}"; add the dependency first (addDependency(k, "id:${use.id}", "id:${def.id}"))`);
  }
  const inames = new Set(allInames(k));
  const needed = [...freeVariables(def.rhs)].filter((x) => inames.has(x) && !params.includes(x) && !use.withinInames.includes(x));
  if (needed.length > 0) {
    throw new TransformError(`${who}: the value of "${lhsName}" depends on iname(s) ${needed.join(", ")}, which instruction "${use.id}" is not inside; a rule used there could not see them`);
  }
  const useReductions = new Set<string>(use.withinInames);
  mapReads(use, (e) => { reductionInames(e, useReductions); return e; });
  const clash = [...reductionInames(def.rhs)].filter((x) => useReductions.has(x));
  if (clash.length > 0) {
    throw new TransformError(`${who}: "${def.id}" reduces over ${clash.join(", ")}, which instruction "${use.id}" already loops or reduces over; make the reduction inames unique first`);
  }
}

/**
 * Turn a temporary assigned exactly once into a substitution rule `{lhs}_subst` and its reads
 * into calls of that rule (loopy's assignment_to_subst); the assignment and the temporary are
 * removed. The assignment's left-hand side indices become the rule's parameters.
 *
 *   // <> t[i] = 2*a[i] {id=def};  out[j] = t[n-1-j] {dep=def}
 *   assignmentToSubst(k, "t")
 *   // t_subst(i) := 2*a[i];  out[j] = t_subst(n - 1 - j)
 */
export function assignmentToSubst(k: Kernel, lhsName: string): Kernel {
  const who = "assignmentToSubst";
  checkKernel(k, who);
  if (typeof lhsName !== "string" || findTemporary(k, lhsName) === undefined) {
    const isArg = typeof lhsName === "string" && k.args.some((a) => a.name === lhsName);
    const temps = k.temporaries.map((t) => t.name).join(", ") || "(none)";
    throw new TransformError(`${who}: ${isArg ? `"${lhsName}" is an argument, not a temporary` : `no temporary ${JSON.stringify(lhsName)} in kernel "${k.name}"`}; temporaries are ${temps}`);
  }
  const def = definitionOf(k, lhsName, who);
  const params = def.lhs.kind === "subscript" ? def.lhs.indices.map((x) => (x as { name: string }).name) : [];

  // What the value reads must not change between the assignment and a use: only instructions
  // that run before the assignment may write it.
  const before = dependencyClosure(k, def.id);
  const inputs = freeVariables(def.rhs);
  const late = k.instructions.filter((i) => i.id !== def.id && insnWrites(i).some((n) => inputs.has(n)) && !before.has(i.id));
  if (late.length > 0) {
    const w = late[0]!;
    throw new TransformError(`${who}: "${def.id}" reads "${insnWrites(w).find((n) => inputs.has(n))}", which instruction "${w.id}" writes without running before it; inlining "${lhsName}" could read a different value`);
  }

  const ruleName = uniqueName(`${lhsName}_subst`, takenNames(k));
  const toCall = (e: Expr): Expr => mapExpr(e, (n) => {
    if (n.kind === "var" && n.name === lhsName) {
      if (params.length > 0) throw new TransformError(`${who}: "${lhsName}" is read without indices in ${exprToString(e)}; it has ${params.length}`);
      return withTag({ kind: "call", fn: ruleName, args: [] }, n.tag);
    }
    if (n.kind === "linear" && n.array === lhsName) throw new TransformError(`${who}: "${lhsName}" is read through a flat index in ${exprToString(n)}; a rule cannot express that`);
    if (n.kind === "subscript" && n.array === lhsName) {
      if (n.indices.length !== params.length) throw new TransformError(`${who}: ${exprToString(n)} has ${n.indices.length} indices; "${lhsName}" is assigned with ${params.length}`);
      return withTag({ kind: "call", fn: ruleName, args: n.indices.map(toCall) }, n.tag);
    }
    return undefined;
  });

  const inRule = k.substitutions.find((r) => !r.params.includes(lhsName) && reads(r.expr, lhsName));
  if (inRule) throw new TransformError(`${who}: substitution rule "${inRule.name}" reads "${lhsName}"; expand it first (expandSubst(k))`);
  const uses = k.instructions.filter((i) => i.id !== def.id && readsOf(i).has(lhsName));
  for (const use of uses) checkUse(k, def, params, use, who);
  const instructions = k.instructions.map((i) => (uses.includes(i) ? mapReads(i, toCall) : i));
  const rewritten = withKernel(k, {
    instructions,
    substitutions: [...k.substitutions, { name: ruleName, params, expr: def.rhs }],
    temporaries: k.temporaries.filter((t) => t.name !== lhsName),
  });
  return removeInstructions(rewritten, [def.id]);
}

/** Every variable an instruction reads. */
function readsOf(insn: Instruction): Set<string> {
  const out = new Set<string>();
  mapReads(insn, (e) => { freeVariables(e, out); return e; });
  return out;
}

/** The substitution rules whose bodies reach a node `hit` selects, directly or through calls of other such rules. */
export function rulesReaching(k: Kernel, hit: (e: Expr) => boolean): string[] {
  const found = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of k.substitutions) {
      if (found.has(r.name)) continue;
      let reaches = false;
      mapExpr(r.expr, (n) => ((reaches ||= hit(n) || (n.kind === "call" && found.has(n.fn))), undefined));
      if (reaches) (found.add(r.name), (grew = true));
    }
  }
  return [...found];
}

/** `k` with the calls of `rules` expanded in the instructions `within` lists (default all), at any depth of rule calls. */
export function expandRulesIn(k: Kernel, rules: readonly string[], within?: readonly string[]): Kernel {
  if (rules.length === 0) return k;
  const where = within ? `(${within.map((id) => `id:${id}`).join(" or ")})` : "*";
  try {
    return expandSubst(k, `${where} > ... > (${rules.map((r) => `id:${r}`).join(" or ")}) $`);
  } catch (e) {
    if (!(e instanceof TransformError) || !/selects no rule call/.test(e.message)) throw e;
    return k;
  }
}
