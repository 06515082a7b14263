/**
 * `makeKernel`: domains + instruction text + argument declarations → a Kernel, following
 * loopy's make_kernel: parse, name instructions, create temporaries, find within-inames and
 * dependencies, infer arguments and shapes, then infer the temporaries' dtypes.
 */
import { guardDepth, LoomError, ParseError } from "../errors.js";
import { parseDtype, type Dtype } from "../ir/dtype.js";
import { assigneeName, freeVariables, reductionInames, substitute, mapExpr, type Expr } from "../ir/expr.js";
import { insnDefaults, type Instruction } from "../ir/insn.js";
import { kernelRecord, TARGET_NAMES, uniqueNamer, type Kernel, type SubstitutionRule, type TargetName, type Temporary } from "../ir/kernel.js";
import { checkOperandTypes, inferTypes } from "../ir/types.js";
import { parseConstraints, parseSet, universe, type BasicSet } from "../poly/index.js";
import { readArgList, type ArgSpec } from "./args.js";
import { dependencies, type DepFacts } from "./insn-dependencies.js";
import { buildArgs, type UseRecord } from "./infer-args.js";
import { withinInames } from "./inames.js";
import { lowerExpr, type LowerContext } from "./lower.js";
import { accessShape, temporaryShape } from "./access.js";
import { parseStatements, type ParsedInsn } from "./statements.js";
import { failIn, type Fail } from "./syntax.js";
import { fixParameterValues } from "../ir/fix-parameters.js";

export interface MakeKernelOptions {
  name?: string;
  assumptions?: string;
  target?: TargetName;
  seqDependencies?: boolean;
  /**
   * Parameters replaced by constants once the kernel is made (loopy's fixed_parameters), as
   * fixParameters does: `{ fixedParameters: { n: 16 } }`.
   */
  fixedParameters?: Readonly<Record<string, number>>;
}

const MAKE_OPTIONS = ["name", "assumptions", "target", "seqDependencies", "fixedParameters"];

/** Parse the domain forest; a ParseError names the domain by its index. */
function parseDomains(domains: string | readonly string[]): BasicSet[] {
  if (typeof domains !== "string" && !Array.isArray(domains)) throw new LoomError(`domains: expected a string or a list of strings; got ${JSON.stringify(domains)}`);
  const texts = typeof domains === "string" ? [domains] : [...domains];
  const sets = texts.map((text, idx) => {
    if (typeof text !== "string") throw new LoomError(`domain ${idx}: expected an ISL set string; got ${JSON.stringify(text)}`);
    try {
      return parseSet(text);
    } catch (e) {
      if (e instanceof ParseError) throw new ParseError(e.detail, e.source, e.line, e.column, `domain ${idx}`);
      throw e;
    }
  });
  const owner = new Map<string, number>();
  sets.forEach((s, idx) => {
    for (const d of s.dims) {
      const prev = owner.get(d);
      if (prev !== undefined) throw new LoomError(`iname "${d}" is defined by domain ${prev} and domain ${idx}; each iname belongs to exactly one domain`);
      owner.set(d, idx);
    }
  });
  return sets;
}

/** Expand substitution-rule calls (for the analyses that need what is really read). */
function expandRules(e: Expr, rules: ReadonlyMap<string, SubstitutionRule>, depth = 0): Expr {
  if (rules.size === 0) return e;
  if (depth > 32) throw new LoomError("substitution rules call each other without end (recursion is not allowed)");
  return mapExpr(e, (n) => {
    if (n.kind !== "call") return undefined;
    const r = rules.get(n.fn);
    if (!r) return undefined;
    const args = n.args.map((a) => expandRules(a, rules, depth + 1));
    return expandRules(substitute(r.expr, new Map(r.params.map((p, idx) => [p, args[idx]!]))), rules, depth + 1);
  });
}

interface TempDecl { dtype: Dtype | undefined; array: boolean; at: number; fail: Fail }

/** One lowered statement with the facts the later passes need. */
interface Lowered {
  readonly p: ParsedInsn;
  readonly lhs: Expr | undefined;
  readonly rhs: Expr | undefined;
  readonly predicates: Expr[];
  /** Rules expanded: for reads, inames and shapes. */
  readonly expanded: { lhs: Expr | undefined; rhs: Expr | undefined; predicates: Expr[] };
}

/**
 * Build a kernel, as loopy's make_kernel:
 *
 *   makeKernel("{[i]: 0 <= i < n}", "out[i] = 2*a[i]")
 *   makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n, n]", "..."])
 */
function makeKernelUnguarded(
  domains: string | string[],
  instructions: string | string[],
  args?: (ArgSpec | string)[],
  options: MakeKernelOptions = {},
): Kernel {
  if (options === null || typeof options !== "object") throw new LoomError(`options: expected an object; got ${JSON.stringify(options)}`);
  const unknown = Object.keys(options).filter((o) => !MAKE_OPTIONS.includes(o));
  if (unknown.length > 0) throw new LoomError(`makeKernel: unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((o) => `"${o}"`).join(", ")}; options are ${MAKE_OPTIONS.join(", ")}`);
  const name = options.name ?? "loopy_kernel";
  if (options.target !== undefined && !(TARGET_NAMES as readonly string[]).includes(options.target)) {
    throw new LoomError(`unknown target "${options.target}"; targets are ${TARGET_NAMES.join(", ")}`);
  }
  const sets = parseDomains(domains);
  const inames = new Set(sets.flatMap((s) => [...s.dims]));
  const entries = args === undefined ? undefined : readArgList(args);
  if (typeof instructions !== "string" && !(Array.isArray(instructions) && instructions.every((x) => typeof x === "string"))) {
    throw new LoomError(`instructions: expected a string or a list of strings; got ${JSON.stringify(instructions)}`);
  }
  if (args !== undefined && !Array.isArray(args)) throw new LoomError(`args: expected a list; got ${JSON.stringify(args)}`);
  const source = typeof instructions === "string" ? instructions : instructions.join("\n");
  const failAt = failIn(source, "instructions");
  const parsed = parseStatements(source, failAt);

  // Substitution rules.
  const ruleArity = new Map<string, number>();
  for (const r of parsed.rules) {
    if (ruleArity.has(r.name.name)) r.fail(`substitution rule "${r.name.name}" is defined twice`, r.name.at);
    if (inames.has(r.name.name)) r.fail(`substitution rule "${r.name.name}" has the name of an iname`, r.name.at);
    ruleArity.set(r.name.name, r.params.length);
  }
  const uses: UseRecord[] = [];
  const ctxFor = (fail: Fail, bound: readonly string[] = []): LowerContext => ({
    fail, inames, rules: ruleArity, bound, onName: (n, at, use) => uses.push({ name: n, at, use, fail }),
  });
  const substitutions: SubstitutionRule[] = parsed.rules.map((r) => {
    const params = r.params.map((p) => p.name);
    if (new Set(params).size !== params.length) r.fail(`substitution rule "${r.name.name}" repeats a parameter`, r.name.at);
    return { name: r.name.name, params, expr: lowerExpr(r.body, ctxFor(r.fail, params)) };
  });
  const ruleMap = new Map(substitutions.map((s) => [s.name, s]));

  // Temporaries declared with <> and in the args list.
  const temps = new Map<string, TempDecl>();
  const tempSpecs = (entries ?? []).flatMap((e) => (e.kind === "temporary" ? [e] : []));
  const lowered: Lowered[] = parsed.insns.map((p): Lowered => {
    const predicates = p.conditions.map((cnd) => {
      const e = lowerExpr(cnd.raw, ctxFor(cnd.fail));
      return cnd.negate ? ({ kind: "not", operand: e } as Expr) : e;
    });
    let lhs: Expr | undefined;
    let rhs: Expr | undefined;
    if (p.stmt.k === "assign") {
      const rawLhs = p.stmt.lhs[0]!;
      lhs = lowerExpr(rawLhs, ctxFor(p.fail));
      rhs = lowerExpr(p.stmt.rhs, ctxFor(p.fail));
      const target = assigneeName(lhs);
      if (inames.has(target)) p.fail(`cannot assign to iname "${target}"`, rawLhs.at);
      if (ruleArity.has(target)) p.fail(`cannot assign to substitution rule "${target}"`, rawLhs.at);
      if (p.stmt.temp) declareTemp(temps, target, p.stmt.temp, lhs.kind !== "var", p.fail);
    }
    predicates.push(...p.options.predicates.map((pr) => lowerExpr(pr.raw, ctxFor(pr.fail))));
    const ex = (e: Expr | undefined) => (e === undefined ? undefined : expandRules(e, ruleMap));
    return { p, lhs, rhs, predicates, expanded: { lhs: ex(lhs), rhs: ex(rhs), predicates: predicates.map((e) => expandRules(e, ruleMap)) } };
  });
  for (const t of tempSpecs) {
    if (temps.has(t.name)) throw new LoomError(`temporary "${t.name}" is declared both in the args list and with <> in the instructions`);
  }
  const tempNames = new Set([...temps.keys(), ...tempSpecs.map((t) => t.name)]);
  for (const u of uses) {
    if (u.use === "array" && temps.get(u.name)?.array === false) u.fail(`temporary "${u.name}" was declared as a scalar but is subscripted`, u.at);
  }

  // Ids.
  const ids = assignIds(lowered.map((l) => l.p));

  // Facts for the within-iname and dependency rules.
  const facts: DepFacts[] = lowered.map((l, idx) => {
    const reads = new Set<string>();
    const lhsIndexNames = new Set<string>();
    const red = new Set<string>();
    const { lhs, rhs, predicates } = l.expanded;
    if (lhs && lhs.kind !== "var") {
      const idxs = lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
      for (const e of idxs) {
        freeVariables(e, lhsIndexNames);
        reductionInames(e, red);
      }
    }
    for (const n of lhsIndexNames) reads.add(n);
    for (const e of [...(rhs ? [rhs] : []), ...predicates]) {
      freeVariables(e, reads);
      reductionInames(e, red);
    }
    const o = l.p.options;
    for (const i of [...l.p.forInames, ...(o.inames?.names ?? [])]) {
      if (!inames.has(i.name)) i.fail(`unknown iname "${i.name}"; inames are ${[...inames].join(", ") || "(none)"}`, i.at);
    }
    const extra = [...l.p.forInames.map((i) => i.name), ...(o.inames?.add ? o.inames.names.map((i) => i.name) : [])];
    return {
      id: ids[idx]!, reads, writes: lhs ? assigneeName(lhs) : undefined, lhsIndexNames, reductionInames: red,
      extraInames: extra, fixedInames: o.inames && !o.inames.add ? o.inames.names.map((i) => i.name) : undefined,
      deps: o.deps, depsFinal: o.depsFinal, noSync: o.noSync,
    };
  });
  const homeParams = new Map<string, readonly string[]>();
  for (const s of sets) for (const d of s.dims) homeParams.set(d, s.params);
  const within = withinInames(facts, { inames, homeParams, temporaries: tempNames });

  // Arguments (with shapes from accesses over a kernel that has only the domains).
  const shell = kernelRecord({ name, domains: sets, instructions: [], args: [] });
  const accessInput = lowered.map((l, idx) => ({ ...l.expanded, within: within.get(ids[idx]!)! }));
  const written = new Set(facts.flatMap((f) => (f.writes !== undefined && !tempNames.has(f.writes) ? [f.writes] : [])));
  const read = new Set(facts.flatMap((f) => [...f.reads]));
  const domainParams = [...new Set(sets.flatMap((s) => s.params.filter((p) => !inames.has(p))))];
  const notArgs = new Set([...inames, ...ruleArity.keys(), ...tempNames]);
  const kernelArgs = buildArgs({
    entries, uses, domainParams, notArgs, written, read,
    shapeOf: (n) => accessShape(shell, accessInput, n, tempNames),
  });

  const temporaries: Temporary[] = [
    ...tempSpecs.map((t): Temporary => ({ name: t.name, dtype: t.dtype, shape: t.shape, addressSpace: t.addressSpace, order: "C", dimTags: undefined })),
    ...[...temps].map(([tn, d]): Temporary => ({
      name: tn, dtype: d.dtype, addressSpace: "auto", order: "C", dimTags: undefined,
      shape: d.array ? temporaryShape(shell, accessInput, tn, (msg) => d.fail(msg, d.at), tempNames) : [],
    })),
  ];

  const deps = dependencies(facts, new Set([...kernelArgs.map((a) => a.name), ...tempNames]), options.seqDependencies === true);
  const instructionsOut: Instruction[] = lowered.map((l, idx) => {
    const id = ids[idx]!;
    const o = l.p.options;
    // Object.assign, not a spread of the fresh defaults: Node 20's V8 takes ~35 µs for
    // `{ ...fresh, key }` (a slow path for a non-frozen source) and ~1 µs for this, same fields in the same order.
    const base = Object.assign(insnDefaults(id), { withinInames: within.get(id)! }, deps.get(id)!, {
      predicates: l.predicates, priority: o.priority ?? 0, tags: o.tags, groups: o.groups, conflictsWithGroups: o.conflicts,
    });
    if (l.p.kind === "assign") return Object.assign(base, { kind: "assign" as const, lhs: l.lhs!, rhs: l.rhs!, atomicity: o.atomic ?? "none" }) as Instruction;
    if (l.p.kind === "nop") return Object.assign(base, { kind: "nop" as const }) as Instruction;
    const scope: "global" | "local" = l.p.stmt.k === "special" && l.p.stmt.what.name === "gbarrier" ? "global" : "local";
    return Object.assign(base, { kind: "barrier" as const, scope }, o.memKind ? { memKind: o.memKind } : {}) as Instruction;
  });

  const assumptions = options.assumptions === undefined || options.assumptions.trim() === ""
    ? universe([], []) : parseConstraints(options.assumptions);
  const k = kernelRecord({
    name, domains: sets, instructions: instructionsOut, args: kernelArgs, temporaries, substitutions,
    assumptions, target: options.target,
  });
  // A literal alone does not fix an argument's dtype (`a[i] = 1`): the array passed at run time does.
  const typed = inferTypes(k, new Map(), { weakArgsStayOpen: true });
  // C rejects bitwise operators on floats: say so at the statement, as soon as the types are known.
  const bad = checkOperandTypes(typed);
  if (bad) {
    const p = lowered[ids.indexOf(bad.insn)]!.p;
    p.fail(bad.message, p.stmt.at);
  }
  return options.fixedParameters === undefined ? typed : fixParameterValues(typed, options.fixedParameters, "makeKernel: fixedParameters");
}

function declareTemp(temps: Map<string, TempDecl>, target: string, decl: { dtype: { name: string; at: number } | null; at: number }, array: boolean, fail: Fail): void {
  let dtype: Dtype | undefined;
  if (decl.dtype) {
    try {
      dtype = parseDtype(decl.dtype.name);
    } catch (e) {
      if (e instanceof LoomError) fail(e.message, decl.dtype.at);
      throw e;
    }
  }
  const prev = temps.get(target);
  if (prev) {
    if (prev.dtype && dtype && prev.dtype !== dtype) {
      fail(`temporary "${target}" is declared twice with different types (${prev.dtype} and ${dtype})`, decl.at);
    }
    if (prev.array !== array) fail(`temporary "${target}" is declared once as a scalar and once as an array`, decl.at);
    if (!prev.dtype && dtype) prev.dtype = dtype;
    return;
  }
  temps.set(target, { dtype, array, at: decl.at, fail });
}

/** Explicit ids (unique), then loopy's generated ones: `insn`, `insn_0`, … or `prefix`, `prefix_0`, …. */
function assignIds(insns: readonly ParsedInsn[]): string[] {
  const taken = new Set<string>();
  for (const p of insns) {
    const id = p.options.id;
    if (!id) continue;
    if (taken.has(id.name)) id.fail(`instruction id "${id.name}" is used twice`, id.at);
    taken.add(id.name);
  }
  const fresh = uniqueNamer(taken);
  return insns.map((p) => (p.options.id ? p.options.id.name : fresh(p.options.idPrefix ?? "insn")));
}

/**
 * Build a kernel from domains, instructions and argument specs, as loopy's make_kernel
 * (pathologically deep input is reported as a LoomError, see guardDepth).
 *
 *   makeKernel("{[i]: 0 <= i < n}", "out[i] = 2*a[i]")
 */
export function makeKernel(
  domains: string | string[],
  instructions: string | string[],
  args?: (ArgSpec | string)[],
  options: MakeKernelOptions = {},
): Kernel {
  if (args !== undefined && args !== null && !Array.isArray(args)) {
    throw new LoomError(`makeKernel: args must be a list of argument specs, such as ["a: float32[n]", "..."]; got ${typeof args === "string" ? `${JSON.stringify(args)} (a string: put it in a list)` : typeof args}`);
  }
  const key = textKey(domains, instructions, args, options);
  if (key === undefined) return guardDepth("makeKernel", () => makeKernelUnguarded(domains, instructions, args, options));
  let k = parsed.get(key);
  if (k === undefined) {
    k = guardDepth("makeKernel", () => makeKernelUnguarded(domains, instructions, args, options));
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    parsed.set(key, k);
  }
  return k;
}

/**
 * Kernels made from text alone, by that text: a sweep that builds the same kernel for every
 * variant parses it once. The kernel is a frozen value, so sharing it is invisible; a failure
 * throws and stores nothing.
 */
const parsed = new Map<string, Kernel>();
const PARSED_LIMIT = 256;
const OPTION_KEYS = new Set(["name", "assumptions", "target", "seqDependencies"]);

/** A key for inputs that are only text (strings, lists of strings, plain options); else undefined. */
function textKey(domains: unknown, instructions: unknown, args: unknown, options: unknown): string | undefined {
  const texts = (x: unknown) => typeof x === "string" || (Array.isArray(x) && x.every((y) => typeof y === "string"));
  if (!texts(domains) || !texts(instructions) || (args !== undefined && (!Array.isArray(args) || !texts(args)))) return undefined;
  if (options === null || typeof options !== "object" || Object.getPrototypeOf(options) !== Object.prototype) return undefined;
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!OPTION_KEYS.has(key)) return undefined;
  const fields = [o.name, o.assumptions, o.target, o.seqDependencies];
  if (!fields.every((x) => x === undefined || typeof x === "string" || typeof x === "boolean")) return undefined;
  return JSON.stringify([domains, instructions, args ?? null, fields.map((x) => (x === undefined ? null : x))]);
}
