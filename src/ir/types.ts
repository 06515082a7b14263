/**
 * Type rules of the expression language and the kernel-wide inference of temporaries' dtypes.
 * Implicitly typed literals are "weak": they adapt to the other operand (`2*a` with float32 `a`
 * stays float32), as loopy's Python constants do.
 */
import { assertNever, LoomError } from "../errors.js";
import { isFloat, promote, type Dtype } from "./dtype.js";
import { isBitwiseOp, isShiftOp, substitute, walkExpr, type Expr } from "./expr.js";
import { exprToString } from "./print.js";
import { assigneeName } from "./expr.js";
import { insnExprs, insnStores, type Instruction } from "./insn.js";
import { blockLocals, walkStmts } from "./block.js";
import { findArg, findSubstitution, findTemporary, withKernel, allInames, type Kernel, type Temporary, type ArrayArg } from "./kernel.js";

/** The dtype inames and index arithmetic use. */
export const INDEX_DTYPE: Dtype = "int32";

/** A dtype with its strength: weak types come from implicitly typed literals. */
export interface TypeInfo {
  readonly dtype: Dtype;
  readonly weak: boolean;
}

/** Math functions of the instruction language: name -> result rule. */
export const MATH_FUNCTIONS: Readonly<Record<string, "float" | "same" | "combine">> = {
  sqrt: "float", exp: "float", log: "float", log10: "float", log2: "float", sin: "float", cos: "float", tan: "float",
  asin: "float", acos: "float", atan: "float", atan2: "float", sinh: "float", cosh: "float", tanh: "float",
  pow: "float", fabs: "float", floor: "float", ceil: "float", rsqrt: "float", erf: "float", fmod: "float",
  fma: "float", abs: "same", min: "combine", max: "combine",
  // C99's <math.h> functions of real kernels (issue 20), with C's meaning on every target.
  asinh: "float", acosh: "float", atanh: "float", log1p: "float", expm1: "float", cbrt: "float", hypot: "float",
  exp2: "float", trunc: "float", round: "float", erfc: "float", copysign: "float",
};

/** Combine operand types: a strong type wins over a weak one, except that a weak float makes an integer float64. */
export function combineTypes(a: TypeInfo, b: TypeInfo): TypeInfo {
  if (a.weak === b.weak) return { dtype: promote(a.dtype, b.dtype), weak: a.weak };
  const strong = a.weak ? b : a; // (not a destructured array: this runs at every operator typed)
  const weak = a.weak ? a : b;
  if (isFloat(weak.dtype) && !isFloat(strong.dtype)) return { dtype: "float64", weak: false };
  return strong;
}

/** Where expression typing looks names up. `undefined` = not known (yet). */
export interface TypeEnv {
  varType(name: string): Dtype | undefined;
  /** Expansion of a substitution-rule call, or undefined when `fn` is not a rule. */
  expandRule?(fn: string, args: readonly Expr[]): Expr | undefined;
}

/** `env` inside a block: its locals (`blockLocals`) shadow the kernel's names. */
export function blockTypeEnv<E extends TypeEnv>(env: E, locals: ReadonlyMap<string, Dtype>): E {
  return { ...env, varType: (n: string) => locals.get(n) ?? env.varType(n) };
}

/** The type of `e`, or undefined when it depends on something not typed yet. */
export function exprType(e: Expr, env: TypeEnv): TypeInfo | undefined {
  switch (e.kind) {
    case "var": {
      const d = env.varType(e.name);
      return d && { dtype: d, weak: false };
    }
    case "const":
      if (e.dtype) return { dtype: e.dtype, weak: false };
      return { dtype: e.isFloat ? "float64" : Math.abs(e.value) <= 0x7fffffff ? "int32" : "int64", weak: true };
    case "arith": {
      if (!isBitwiseOp(e.op)) return bothTypes(e.left, e.right, env);
      const l = bitwiseOperand(e.op, e.left, env, isShiftOp(e.op));
      const r = bitwiseOperand(e.op, e.right, env, false);
      // C: a shift has the type of its left operand, the count converts separately.
      if (isShiftOp(e.op)) return l && r ? l : undefined;
      if (!l || !r) return undefined;
      const t = combineTypes(l, r);
      // int64 with uint64 is float64 for arithmetic (numpy); C's conversions make it uint64.
      return isFloat(t.dtype) ? { dtype: "uint64", weak: false } : t;
    }
    case "neg": return exprType(e.operand, env);
    case "bitnot": return bitwiseOperand("~", e.operand, env, true);
    case "not": case "compare": case "logical": return { dtype: "bool", weak: false };
    case "if": return bothTypes(e.then, e.else, env);
    case "call": {
      const expanded = env.expandRule?.(e.fn, e.args);
      if (expanded) return exprType(expanded, env);
      const rule = MATH_FUNCTIONS[e.fn];
      const args = e.args.map((a) => exprType(a, env));
      if (args.some((a) => a === undefined)) return undefined;
      const joined = (args as TypeInfo[]).reduce<TypeInfo | undefined>((acc, t) => (acc ? combineTypes(acc, t) : t), undefined);
      if (!joined) return undefined;
      if (rule === "float") return isFloat(joined.dtype) ? joined : { dtype: "float64", weak: joined.weak };
      return joined;
    }
    case "subscript": case "linear": {
      const d = env.varType(e.array);
      return d && { dtype: d, weak: false };
    }
    case "reduce": return exprType(e.body, env);
    case "cast": return { dtype: e.dtype, weak: false };
    default: return assertNever(e, "expression");
  }
}

/** The combined type of two operands (a function, not a closure in exprType: it runs on every node typed). */
function bothTypes(l: Expr, r: Expr, env: TypeEnv): TypeInfo | undefined {
  const a = exprType(l, env);
  const b = exprType(r, env);
  return a && b ? combineTypes(a, b) : undefined;
}

/** An operand of a type its operator does not take (`x & 1` with float `x`): a kernel C would reject. */
export class OperandTypeError extends LoomError {}

/** A bitwise operand's type: an integer (C rejects floats); bool is refused where its value would leave 0/1 (`~`, shifted value). */
function bitwiseOperand(op: string, e: Expr, env: TypeEnv, noBool: boolean): TypeInfo | undefined {
  const t = exprType(e, env);
  if (t && isFloat(t.dtype)) {
    throw new OperandTypeError(`bitwise operator "${op}" needs integer operands, but ${exprToString(e)} is ${t.dtype} (C has no bitwise operations on floating-point values); convert it with cast(int32, …)`);
  }
  if (t && noBool && t.dtype === "bool") {
    throw new OperandTypeError(`operator "${op}" needs an integer operand, but ${exprToString(e)} is bool; use "not" for a logical negation, or cast(int32, …)`);
  }
  return t;
}

/** Typing environment of a kernel: args, temporaries, inames (int32) and substitution rules. */
export function kernelTypeEnv(k: Kernel, overrides: ReadonlyMap<string, Dtype> = new Map()): TypeEnv {
  const inames = new Set(allInames(k));
  return {
    varType(name) {
      const o = overrides.get(name);
      if (o) return o;
      if (inames.has(name)) return INDEX_DTYPE;
      return findTemporary(k, name)?.dtype ?? findArg(k, name)?.dtype;
    },
    expandRule(fn, args) {
      const rule = findSubstitution(k, fn);
      if (!rule) return undefined;
      if (rule.params.length !== args.length) {
        throw new LoomError(`substitution rule ${fn} takes ${rule.params.length} arguments, called with ${args.length}`);
      }
      return substitute(rule.expr, new Map(rule.params.map((p, idx) => [p, args[idx]!])));
    },
  };
}

/** The type a writer gives its target; an ill-typed right-hand side gives none (`checkOperandTypes` reports it). */
function typeOfWriter(rhs: Expr, env: TypeEnv): TypeInfo | undefined {
  try {
    return exprType(rhs, env);
  } catch (e) {
    if (e instanceof OperandTypeError) return undefined;
    throw e;
  }
}

/**
 * The first operand of a type its operator does not take, by instruction: bitwise operators and
 * shifts need integers. Names whose dtype is not known yet are not checked.
 * `checkOperandTypes(k)` is `{ insn: "s", message: 'bitwise operator "&" needs integer operands, …' }` for `s: y = x & 1` with float `x`.
 */
export function checkOperandTypes(k: Kernel): { insn: string; message: string } | undefined {
  const kernelEnv = kernelTypeEnv(k);
  for (const insn of k.instructions) {
    const exprs = insnExprs(insn);
    // A block's expressions see its locals, which may shadow the kernel's names.
    const env = insn.kind === "block" ? blockTypeEnv(kernelEnv, blockLocals(insn.body)) : kernelEnv;
    try {
      for (const e of exprs) {
        walkExpr(e, (n) => {
          // Rule calls too: a rule's body is typed where it is called.
          if ((n.kind === "arith" && isBitwiseOp(n.op)) || n.kind === "bitnot" || n.kind === "call") exprType(n, env);
        });
      }
    } catch (e) {
      if (e instanceof OperandTypeError) return { insn: insn.id, message: e.message };
      throw e;
    }
  }
  return undefined;
}

/** The types of the values `insn` stores into `name` (undefined where not known yet). */
function writerTypes(insn: Instruction, name: string, env: TypeEnv): (TypeInfo | undefined)[] {
  if (insn.kind === "assign") return assigneeName(insn.lhs) === name ? [typeOfWriter(insn.rhs, env)] : [];
  if (insn.kind !== "block") return [];
  const locals = blockLocals(insn.body);
  const inner = blockTypeEnv(env, locals);
  const out: (TypeInfo | undefined)[] = [];
  walkStmts(insn.body, (s) => {
    if (s.kind === "assign" && !(s.lhs.kind === "var" && locals.has(s.lhs.name)) && assigneeName(s.lhs) === name) out.push(typeOfWriter(s.rhs, inner));
  });
  return out;
}

/** The instructions that store into each name, in kernel order (one walk instead of one per name). */
function writersByName(k: Kernel): ReadonlyMap<string, readonly Instruction[]> {
  const out = new Map<string, Instruction[]>();
  for (const insn of k.instructions) {
    for (const lhs of insnStores(insn)) {
      const name = assigneeName(lhs);
      const list = out.get(name);
      if (list === undefined) out.set(name, [insn]);
      else if (list[list.length - 1] !== insn) list.push(insn);
    }
  }
  return out;
}

/** The type of all values written to `name` (undefined if none is known) and whether every writer is typed. */
function writtenType(writers: ReadonlyMap<string, readonly Instruction[]>, name: string, env: TypeEnv): { type: TypeInfo | undefined; complete: boolean } {
  let type: TypeInfo | undefined;
  let complete = true;
  for (const insn of writers.get(name) ?? []) {
    for (const t of writerTypes(insn, name, env)) {
      if (!t) complete = false;
      else type = type ? combineTypes(type, t) : t;
    }
  }
  return { type, complete };
}

/**
 * The dtypes of `untyped` to a fixed point (loopy's type inference). With `guess`, a name whose
 * writers are typed only in part (a writer reads the name itself) takes the type of those, and is
 * revised until every writer agrees; undefined when a guessed name never has all writers typed.
 */
function inferFixedPoint(
  k: Kernel, given: ReadonlyMap<string, Dtype>, untyped: readonly string[], guess: boolean,
): { known: Map<string, Dtype>; weak: Set<string> } | undefined {
  const known = new Map(given);
  const writers = writersByName(k);
  const weak = new Set<string>();
  const open = new Set(untyped);
  const guessed = new Set<string>();
  for (let round = 0; round < 64 * (untyped.length + 1); round++) {
    let changed = false;
    const env = kernelTypeEnv(k, known);
    for (const name of [...open, ...guessed]) {
      const { type, complete } = writtenType(writers, name, env);
      if (!complete || !type || (known.get(name) === type.dtype && weak.has(name) === type.weak)) continue;
      known.set(name, type.dtype);
      if (type.weak) weak.add(name);
      else weak.delete(name);
      open.delete(name);
      changed = true;
    }
    if (changed) continue;
    if (!guess) break;
    for (const name of open) {
      const { type } = writtenType(writers, name, env);
      if (!type) continue;
      known.set(name, type.dtype);
      open.delete(name);
      guessed.add(name);
      changed = true;
    }
    if (!changed) break;
  }
  const env = kernelTypeEnv(k, known);
  for (const name of guessed) {
    const { type, complete } = writtenType(writers, name, env);
    if (!complete || type?.dtype !== known.get(name)) return undefined;
  }
  return { known, weak };
}

export interface InferOptions {
  /**
   * Leave an argument untyped when only implicitly typed literals are written to it (`a[i] = 1`):
   * its dtype then comes from the array passed at run time, as in loopy (makeKernel's choice).
   */
  readonly weakArgsStayOpen?: boolean;
}

/**
 * Fill in the dtypes of temporaries (and of written arrays without one) from the right-hand sides
 * that write them, to a fixed point. Names that stay unknown keep `dtype: undefined` (they depend
 * on arguments whose dtype is given only at run time). `argDtypes` supplies such run-time dtypes.
 */
export function inferTypes(k: Kernel, argDtypes: ReadonlyMap<string, Dtype> = new Map(), opts: InferOptions = {}): Kernel {
  const given = new Map(argDtypes);
  for (const a of k.args) if (a.dtype && !given.has(a.name)) given.set(a.name, a.dtype);
  for (const t of k.temporaries) if (t.dtype) given.set(t.name, t.dtype);
  const untyped = [...k.temporaries, ...k.args].filter((x) => !given.has(x.name)).map((x) => x.name);
  if (untyped.length === 0 && argDtypes.size === 0) return k;
  // Self-reference (`<> n = 0`, `n = n + 1`) needs a guess; a guess that leaves a writer untyped is dropped.
  const infer = (open: readonly string[]) => inferFixedPoint(k, given, open, true) ?? inferFixedPoint(k, given, open, false)!;
  let { known, weak } = infer(untyped);
  const argNames = new Set(k.args.map((a) => a.name));
  const open = [...weak].filter((n) => argNames.has(n));
  if (opts.weakArgsStayOpen === true && open.length > 0) known = infer(untyped.filter((n) => !open.includes(n))).known;
  const temporaries = k.temporaries.map((t): Temporary => (t.dtype || !known.has(t.name) ? t : { ...t, dtype: known.get(t.name)! }));
  const args = k.args.map((a) => (a.dtype || !known.has(a.name) ? a : ({ ...a, dtype: known.get(a.name)! } as ArrayArg)));
  return withKernel(k, { temporaries, args });
}
