/**
 * Replacing parameters by constants (loopy's fix_parameters), the core shared by the
 * fixParameters transformation and makeKernel's fixedParameters option: domains, instructions,
 * rules, shapes, strides and assumptions; values outside the parameter's dtype, or that leave a
 * work-item iname empty, are refused with a TransformError of `who`.
 */
import { TransformError } from "../errors.js";
import { fixValues, isEmpty, printSet, type BasicSet } from "../poly/index.js";
import { dtypeBits, dtypeKind, isIntegral, type Dtype } from "./dtype.js";
import { c, freeVariables, mapExpr, substitute as substituteExpr, type Expr } from "./expr.js";
import { insnReads, mapInsnExprs, type Instruction } from "./insn.js";
import { allInames, withKernel, type ArrayArg, type Kernel, type KernelArg, type Temporary } from "./kernel.js";
import type { DimTag } from "./layout.js";

/** The kernel's parameters: value arguments and the non-iname parameters of its domains and assumptions. */
export function kernelParameters(k: Kernel): string[] {
  const inames = new Set(allInames(k));
  const temps = new Set(k.temporaries.map((t) => t.name));
  const out = new Set<string>();
  for (const a of k.args) if (a.kind === "value") out.add(a.name);
  for (const d of k.domains) for (const p of d.params) if (!inames.has(p) && !temps.has(p)) out.add(p);
  for (const p of k.assumptions.params) out.add(p);
  return [...out];
}


const list = (names: readonly string[]) => names.join(", ") || "(none)";

/** Fold integer arithmetic on constants (`1024*4` -> `4096`), for shapes and strides. */
function foldInts(e: Expr): Expr {
  return mapExpr(e, (n) => {
    if (n.kind !== "arith" && n.kind !== "neg") return undefined;
    if (n.kind === "neg") {
      const o = foldInts(n.operand);
      return o.kind === "const" && !o.isFloat && o.dtype === undefined ? c(-o.value) : { ...n, operand: o };
    }
    const l = foldInts(n.left);
    const r = foldInts(n.right);
    const isInt = (x: Expr): x is Extract<Expr, { kind: "const" }> => x.kind === "const" && !x.isFloat && x.dtype === undefined && Number.isInteger(x.value);
    if (isInt(l) && isInt(r)) {
      const a = l.value;
      const b = r.value;
      switch (n.op) {
        case "+": return c(a + b);
        case "-": return c(a - b);
        case "*": return c(a * b);
        case "//": if (b !== 0) return c(Math.floor(a / b)); break;
        case "%": if (b !== 0) return c(((a % b) + b) % b); break;
        default: break;
      }
    }
    return l === n.left && r === n.right ? n : { ...n, left: l, right: r };
  });
}

function fixInstruction(insn: Instruction, values: ReadonlyMap<string, Expr>): Instruction {
  const f = (e: Expr) => substituteExpr(e, values);
  return mapInsnExprs(insn, f);
}

function fixLayout<T extends ArrayArg | Temporary>(a: T, ints: ReadonlyMap<string, Expr>): T {
  const shape = a.shape?.map((e) => foldInts(substituteExpr(e, ints)));
  const dimTags = a.dimTags?.map((t): DimTag => (t.kind === "stride" ? { ...t, stride: foldInts(substituteExpr(t.stride, ints)) } : t));
  return { ...a, shape, dimTags };
}

/** A value outside the range of the parameter's integer dtype (domain parameters are int32, loopy's index type) is refused. */
function checkIntRange(k: Kernel, name: string, x: number, dtype: Dtype | undefined, who: string): void {
  if (dtype === undefined || dtype === "bool") return;
  const bits = dtypeBits(dtype);
  const [lo, hi] = dtypeKind(dtype) === "uint" ? [0, 2 ** bits - 1] : [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
  if (x < lo || x > hi) {
    throw new TransformError(`${who}: "${name}" of kernel "${k.name}" is ${dtype}${k.args.some((a) => a.name === name) ? "" : " (a domain parameter without a declared dtype)"}; ${x} is outside its range ${lo}…${hi}; declare it wider (as "${name}: int64") or fix a value in range`);
  }
}

/**
 * A fixed value that leaves a work-item (l) iname without any value is refused: the work-group
 * size would be 0 (OpenCL's reqd_work_group_size(0, …)), which no device launches. Left a
 * parameter, the same value runs (as an empty launch).
 */
function checkWorkItemsLeft(k: Kernel, domains: readonly BasicSet[], shown: string, who: string): void {
  for (const [d, dom] of domains.entries()) {
    if (dom === k.domains[d]) continue;
    const local = dom.dims.filter((n) => { const t = k.inameTags[n]?.kind; return t === "l" || t === "l.auto"; });
    if (local.length > 0 && isEmpty(dom)) {
      throw new TransformError(`${who}: ${shown} leaves the work-item iname${local.length > 1 ? "s" : ""} ${local.join(", ")} of kernel "${k.name}" without any value, so the work-group size would be 0; fix a value for which the domain is not empty, or leave the parameter to run time (where an empty run does nothing)`);
    }
  }
}

/**
 * `k` with the parameters in `values` replaced by constants. With `ids`, only those instructions'
 * expressions are substituted (loopy's within); what the others still read stays an argument.
 *
 *   fixParameterValues(k, { n: 1024 }, "fixParameters")   // "{[i]: 0<=i<n}" becomes "{[i]: 0<=i<1024}"
 */
export function fixParameterValues(k: Kernel, values: Readonly<Record<string, number>>, who: string, ids?: ReadonlySet<string>): Kernel {
  if (values === null || typeof values !== "object" || Array.isArray(values)) {
    throw new TransformError(`${who}: expected an object of parameter values such as { n: 1024 }; got ${JSON.stringify(values)}`);
  }
  const names = Object.keys(values);
  if (names.length === 0) return k;
  const params = kernelParameters(k);
  const inSets = new Set([...k.domains.flatMap((d) => d.params), ...k.assumptions.params]);
  const exprValues = new Map<string, Expr>();
  const intValues = new Map<string, Expr>();
  const fixed: Record<string, number> = {};
  for (const name of names) {
    const x = values[name];
    if (!params.includes(name)) throw new TransformError(`${who}: "${name}" is not a parameter of kernel "${k.name}"; parameters are ${list(params)}`);
    if (typeof x !== "number" || !Number.isFinite(x)) throw new TransformError(`${who}: the value of "${name}" must be a finite number; got ${JSON.stringify(x) ?? String(x)}`);
    const arg = k.args.find((a): a is Extract<KernelArg, { kind: "value" }> => a.kind === "value" && a.name === name);
    const mustBeInt = inSets.has(name) || (arg?.dtype !== undefined && isIntegral(arg.dtype));
    if (mustBeInt && !Number.isSafeInteger(x)) {
      throw new TransformError(`${who}: "${name}" is ${arg?.dtype !== undefined && isIntegral(arg.dtype) ? `an ${arg.dtype} argument` : "a domain parameter"}, so its value must be an integer; got ${x}`);
    }
    checkIntRange(k, name, x, arg?.dtype !== undefined && isIntegral(arg.dtype) ? arg.dtype : mustBeInt ? "int32" : undefined, who);
    // A typed float literal keeps the precision the argument had (`alpha*a[i]` stays float64).
    exprValues.set(name, arg?.dtype !== undefined && !isIntegral(arg.dtype) ? c(x, arg.dtype, true) : c(x));
    if (Number.isSafeInteger(x)) intValues.set(name, c(x));
    if (inSets.has(name)) fixed[name] = x;
  }

  const fixSet = (s: BasicSet): BasicSet => {
    const own = Object.fromEntries(Object.entries(fixed).filter(([p]) => s.params.includes(p)));
    return Object.keys(own).length > 0 ? fixValues(s, own) : s;
  };
  const assumptions = fixSet(k.assumptions);
  if (isEmpty(assumptions)) {
    const shown = names.map((n) => `${n} = ${values[n]}`).join(", ");
    throw new TransformError(`${who}: ${shown} contradicts the assumptions of kernel "${k.name}" (${printSet(k.assumptions)})`);
  }
  const domains = k.domains.map(fixSet);
  checkWorkItemsLeft(k, domains, names.map((n) => `${n} = ${values[n]}`).join(", "), who);
  const instructions = k.instructions.map((insn) => (ids === undefined || ids.has(insn.id) ? fixInstruction(insn, exprValues) : insn));
  const substitutions = ids !== undefined ? k.substitutions : k.substitutions.map((s) => {
    const own = new Map([...exprValues].filter(([n]) => !s.params.includes(n)));
    return { ...s, expr: substituteExpr(s.expr, own) };
  });
  // With within, what the other instructions and the rules still read stays an argument.
  const stillRead = new Set<string>();
  if (ids !== undefined) {
    for (const insn of instructions) if (!ids.has(insn.id)) insnReads(insn, stillRead);
    for (const s of substitutions) for (const x of freeVariables(s.expr)) if (!s.params.includes(x)) stillRead.add(x);
  }
  return withKernel(k, {
    domains,
    assumptions,
    instructions,
    substitutions,
    args: k.args.filter((a) => !(a.kind === "value" && exprValues.has(a.name) && !stillRead.has(a.name))).map((a) => (a.kind === "array" ? fixLayout(a, intValues) : a)),
    temporaries: k.temporaries.map((t) => fixLayout(t, intValues)),
    // Value arguments the host computes (an OKL trip count): from the fixed values too; one fixed itself is no longer computed.
    ...(k.oklOptions?.derivedArgs && ids === undefined ? {
      oklOptions: { ...k.oklOptions, derivedArgs: k.oklOptions.derivedArgs.filter((d) => !exprValues.has(d.name)).map((d) => ({ ...d, expr: substituteExpr(d.expr, intValues) })) },
    } : {}),
  });
}

