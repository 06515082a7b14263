/**
 * The argument list of a new kernel: explicit specs in their order, then (with `...` or no list)
 * inferred arrays, then inferred scalars, each in order of first appearance. A subscripted or
 * written variable is an array, a domain parameter an int32 scalar, any other read name a scalar
 * of unknown type. Without `...`, a name nobody declared is an error at its first use.
 */
import { LoomError } from "../errors.js";
import { freeVariables, type Expr } from "../ir/expr.js";
import type { ArrayArg, KernelArg, ValueArg } from "../ir/kernel.js";
import { parseDimTags } from "../ir/layout.js";
import type { ArgEntry, ArrayArgSpec } from "./args.js";
import type { NameUse } from "./lower.js";
import type { Fail } from "./syntax.js";

/** One use of a name in the instructions, in source order. */
export interface UseRecord {
  readonly name: string;
  readonly at: number;
  readonly use: NameUse;
  readonly fail: Fail;
}

export interface ArgInput {
  /** The args list as read, or undefined when none was given (infer everything). */
  readonly entries: readonly ArgEntry[] | undefined;
  readonly uses: readonly UseRecord[];
  /** Parameters of the domains in order (inames of other domains excluded). */
  readonly domainParams: readonly string[];
  /** Names that are never arguments: inames, rules, temporaries. */
  readonly notArgs: ReadonlySet<string>;
  readonly written: ReadonlySet<string>;
  readonly read: ReadonlySet<string>;
  /** The shape of an array from its accesses (undefined: unknown). */
  readonly shapeOf: (name: string) => readonly Expr[] | undefined;
}

/**
 * Build the arguments:
 *
 *   buildArgs({ entries: undefined, uses, domainParams: ["n"], … })  // [a: array, n: int32]
 */
export function buildArgs(input: ArgInput): KernelArg[] {
  const { entries, uses, notArgs, written, read } = input;
  const inferRest = entries === undefined || entries.some((e) => e.kind === "rest");
  const explicit = new Map<string, ArgEntry>();
  for (const e of entries ?? []) {
    if (e.kind === "rest" || e.kind === "temporary") continue;
    if (notArgs.has(e.name)) throw new LoomError(`"${e.name}" is in the args list but is an iname, a temporary or a substitution rule`);
    explicit.set(e.name, e);
  }
  const firstUse = new Map<string, UseRecord>();
  const subscripted = new Set<string>();
  for (const u of uses) {
    if (u.use === "rule") continue;
    if (!firstUse.has(u.name)) firstUse.set(u.name, u);
    if (u.use === "array") subscripted.add(u.name);
  }
  const params = new Set(input.domainParams.filter((p) => !notArgs.has(p)));
  // Names in the shapes of explicit specs are parameters too.
  const shapeNames: string[] = [];
  for (const e of explicit.values()) {
    if (e.kind === "array") for (const s of e.shape ?? []) for (const n of freeVariables(s)) if (!notArgs.has(n)) shapeNames.push(n);
  }

  const arrayArg = (name: string, spec: ArrayArgSpec | undefined): ArrayArg => {
    const shape = spec?.shape ?? input.shapeOf(name);
    let dimTags: ArrayArg["dimTags"];
    if (spec?.dimTags !== undefined) {
      if (shape === undefined) throw new LoomError(`array "${name}" has dimTags "${spec.dimTags}" but no known shape; give its shape`);
      dimTags = parseDimTags(spec.dimTags, shape.length);
    }
    const isWritten = written.has(name);
    return {
      kind: "array", name, dtype: spec?.dtype, shape, order: spec?.order ?? "C", dimTags,
      isInput: read.has(name) || !isWritten, isOutput: isWritten || spec?.isOutput === true,
    };
  };
  const inferred = (name: string): KernelArg =>
    subscripted.has(name) || written.has(name) ? arrayArg(name, undefined) : { kind: "value", name, dtype: params.has(name) ? "int32" : undefined };

  const args: KernelArg[] = [];
  const placed = new Set<string>();
  for (const e of entries ?? []) {
    if (e.kind === "rest" || e.kind === "temporary") continue;
    placed.add(e.name);
    if (e.kind === "name") args.push(inferred(e.name));
    else if (e.kind === "array") args.push(arrayArg(e.name, e));
    else {
      const u = uses.find((x) => x.name === e.name && x.use === "array");
      if (u) u.fail(`"${e.name}" is declared as a scalar (ValueArg) but is subscripted`, u.at);
      if (written.has(e.name)) throw new LoomError(`"${e.name}" is a scalar (ValueArg) argument and cannot be written; declare it as an array or a temporary`);
      args.push({ kind: "value", name: e.name, dtype: e.dtype ?? (params.has(e.name) ? "int32" : undefined) } satisfies ValueArg);
    }
  }
  const candidates = [...params, ...firstUse.keys(), ...shapeNames].filter((n) => !notArgs.has(n) && !placed.has(n));
  const arrays: string[] = [];
  const values: string[] = [];
  for (const n of candidates) {
    if (arrays.includes(n) || values.includes(n)) continue;
    if (!inferRest) {
      const u = firstUse.get(n);
      const hint = `declare it in the args list or add "..." to infer the rest`;
      if (u) u.fail(`unknown variable "${n}": not an argument, temporary, iname, parameter or substitution rule; ${hint}`, u.at);
      throw new LoomError(`"${n}" (${params.has(n) ? "a domain parameter" : "used in a shape"}) is not in the args list; ${hint}`);
    }
    (subscripted.has(n) || written.has(n) ? arrays : values).push(n);
  }
  // Domain parameters come first among values: the domains are the first thing a kernel states.
  for (const n of arrays) args.push(inferred(n));
  for (const n of values) args.push(inferred(n));
  return args;
}
