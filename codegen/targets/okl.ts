/**
 * OKL (OCCA's kernel language) as a target: the GPU schedule printed as one `@kernel` whose
 * device kernels are consecutive `@outer` loop nests (OCCA launches each outer-most `@outer`
 * nest as its own kernel, in order). Hardware axes become attributed loops over `_gN` / `_lN`
 * with explicit axes; local memory is `@shared`, declared between the `@outer` and `@inner`
 * loops. Each run of code between barriers becomes its own set of `@inner` loops followed by an
 * explicit `@barrier;` (never relying on OCCA's implicit-barrier rule); private values that live
 * across barriers are `@exclusive`.
 *
 *   generateOkl(k).deviceCode   // "@kernel void f(const float *a @restrict, …) { for (…; @outer(0)) …"
 *   generateOkl(k, { normalized: true })   // the same with [[okl_outer("(0)")]] attributes
 */
import { CodegenError } from "../../src/errors.js";
import type { Dtype } from "../../src/ir/index.js";
import { ilit, type Ex, type Stmt } from "../ast.js";
import type { LowerOptions, LoweredArg, LoweredKernel } from "../lower.js";
import { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { noAtomic } from "./atomics.js";
import { CFamilyTarget } from "./cfamily.js";
import { printedKernels } from "./rename.js";

export interface OklOptions {
  /** Write attributes in the transpiler's normalized `[[okl_attr("args")]]` form. */
  readonly normalized?: boolean;
}

/** C names that every OCCA backend (C++, CUDA, HIP, OpenCL C) accepts. */
const OKL_TYPES: Readonly<Partial<Record<Dtype, string>>> = {
  float32: "float", float64: "double", int8: "char", int16: "short", int32: "int", int64: "long",
  uint8: "unsigned char", uint16: "unsigned short", uint32: "unsigned int", uint64: "unsigned long", bool: "bool",
};

/** `@name(args)` or `[[okl_name("(args)")]]`. */
export function oklAttr(name: string, args: string | undefined, normalized: boolean): string {
  if (!normalized) return args === undefined ? `@${name}` : `@${name}(${args})`;
  const text = args === undefined ? "" : `(${args.replace(/\s+/g, "")})`.replace(/"/g, '\\"');
  return `[[okl_${name}("${text}")]]`;
}

function dialect(normalized: boolean): CFamilyTarget {
  const attr = (name: string, args?: string) => oklAttr(name, args, normalized);
  return new CFamilyTarget({
    name: "okl", cpu: false,
    lowerOptions: { hwAxes: true, atomics: "native" },
    types: OKL_TYPES,
    includes: [],
    helperQualifier: "inline",
    hw: (tag, axis) => `_${tag}${axis}`,
    localQualifier: attr("shared"),
    barrier: (comment, memory) => {
      // OCCA prints every @barrier as barrier(CLK_LOCAL_MEM_FENCE) on OpenCL ("TODO: proper
      // barriers" in its opencl mode): a barrier that must order global memory has no OKL spelling.
      if (memory !== "local") {
        throw new CodegenError(`okl target: the barrier ${JSON.stringify(comment)} must order global memory (an array or global temporary shared by the work-items of a group), ` +
          `but OCCA's @barrier orders local memory only on OpenCL; keep the shared values in a local (@shared) temporary, or generate code for opencl or cuda`);
      }
      return `${attr("barrier")};`;
    },
    kernelHead: () => normalized ? `${attr("kernel")} void` : "@kernel void",
    math: "overload", intMinMaxBuiltin: false, int64Suffix: "L",
    atomic: (a, target, value, d) => {
      if (a.op === "min" || a.op === "max") throw noAtomic("okl", a.op, d, "@atomic with = += -= &= |= ^=");
      return `${attr("atomic")} ${target} ${a.op === "=" ? "" : a.op}= ${value}`;
    },
    argDecl: (a: LoweredArg, ty: string) => {
      if (a.kind === "value") return `const ${ty} ${a.name}`;
      const c = a.written ? "" : "const ";
      return normalized ? `${attr("restrict")} ${c}${ty} *${a.name}` : `${c}${ty} *${a.name} ${attr("restrict")}`;
    },
  });
}

const LEGACY = dialect(false);
const NORMALIZED = dialect(true);

/** Whether `s` contains a barrier (at any depth). */
function hasBarrier(s: Stmt): boolean {
  switch (s.k) {
    case "barrier": return true;
    case "block": return s.body.some(hasBarrier);
    case "for": return hasBarrier(s.body);
    case "if": return hasBarrier(s.then) || (s.else !== undefined && hasBarrier(s.else));
    default: return false;
  }
}

/** Whether `e` reads a local id (differs between the work-items of a group). */
function usesLocalId(e: Ex | undefined): boolean {
  if (e === undefined) return false;
  switch (e.k) {
    case "hw": return e.tag === "l";
    case "var": case "lit": return false;
    case "bin": return usesLocalId(e.l) || usesLocalId(e.r);
    case "neg": case "bitnot": case "not": return usesLocalId(e.e);
    case "call": return e.args.some(usesLocalId);
    case "load": return usesLocalId(e.index);
    case "cond": return usesLocalId(e.c) || usesLocalId(e.t) || usesLocalId(e.f);
    case "cast": return usesLocalId(e.e);
  }
}

/** A loop head `for (int v = 0; v < n; ++v; @attr(axis))` followed by its body block. */
function attributedLoop(kind: "outer" | "inner", axis: number, size: string, body: readonly Stmt[], normalized: boolean): Stmt[] {
  const v = `_${kind === "outer" ? "g" : "l"}${axis}`;
  const range = `int ${v} = 0; ${v} < ${size}; ++${v}`;
  const head = normalized ? `${oklAttr(kind, String(axis), true)} for (${range})` : `for (${range}; ${oklAttr(kind, String(axis), false)})`;
  return [{ k: "raw", text: head }, { k: "block", body }];
}

/**
 * The statements of one outer iteration, with every barrier-free run of code wrapped in the
 * `@inner` loops and barriers kept outside them. Constant declarations that barrier-containing
 * code follows are uniform (kept outside) or repeated at the start of each later run.
 */
function phases(body: readonly Stmt[], wrap: (run: Stmt[]) => Stmt[]): Stmt[] {
  if (!body.some(hasBarrier)) return body.length > 0 ? wrap([...body]) : [];
  const out: Stmt[] = [];
  const carried: Stmt[] = [];
  let run: Stmt[] = [];
  const flush = () => {
    if (run.length > 0) out.push(...wrap([...carried, ...run]));
    run = [];
  };
  for (const s of body) {
    if (!hasBarrier(s)) {
      if (s.k === "decl" && !usesLocalId(s.init) && s.isConst) {
        flush();
        out.push(s);
      } else if (s.k === "decl" && s.isConst) {
        run.push(s);
        carried.push(s);
      } else run.push(s);
      continue;
    }
    flush();
    switch (s.k) {
      case "barrier": out.push(s); break;
      case "block": out.push({ k: "block", body: phases(s.body, (r) => wrap([...carried, ...r])) }); break;
      case "for": out.push({ ...s, body: { k: "block", body: phases(asList(s.body), (r) => wrap([...carried, ...r])) } }); break;
      case "if": {
        if (usesLocalId(s.cond)) throw new CodegenError("okl: a barrier under a condition that differs between work-items");
        out.push({
          ...s, then: { k: "block", body: phases(asList(s.then), (r) => wrap([...carried, ...r])) },
          ...(s.else ? { else: { k: "block", body: phases(asList(s.else), (r) => wrap([...carried, ...r])) } as Stmt } : {}),
        });
        break;
      }
      default: throw new CodegenError(`okl: unexpected ${s.k} statement around a barrier`);
    }
  }
  flush();
  return out;
}

const asList = (s: Stmt): readonly Stmt[] => (s.k === "block" ? s.body : [s]);

/** A work-group extent: a constant, or an expression of the parameters (a runtime-sized @inner loop). */
const localText = (x: number | Ex, sizeText: (e: Ex) => string): string => (typeof x === "number" ? String(x) : sizeText(x));

/** One device kernel as an `@outer` nest (axes from the highest down, as OCCA nests them). */
function outerNest(lk: LoweredKernel, t: CFamilyTarget, normalized: boolean, sizeText: (e: Ex) => string): Stmt[] {
  const shared = lk.decls.filter((d) => d.k === "decl" && d.space === "local");
  const privates = lk.decls.filter((d) => !(d.k === "decl" && d.space === "local"));
  const multiPhase = lk.body.some(hasBarrier);
  const nLocal = Math.max(lk.localSize.length, 1);
  const wrapInner = (run: Stmt[]): Stmt[] => {
    let inner: Stmt[] = multiPhase ? run : [...privates, ...run];
    for (let axis = 0; axis < nLocal; axis++) inner = attributedLoop("inner", axis, localText(lk.localSize[axis] ?? 1, sizeText), inner, normalized);
    return inner;
  };
  const exclusive: Stmt[] = multiPhase ? privates.map((d) => {
    if (d.k !== "decl") return d;
    const size = d.size !== undefined ? `[${d.size}]` : "";
    return { k: "raw", text: `${oklAttr("exclusive", undefined, normalized)} ${t.typeName(d.dtype)} ${d.name}${size};` };
  }) : [];
  // OKL requires an @inner loop in every @kernel, even one with nothing to do.
  const ph = phases(lk.body, wrapInner);
  let nest: Stmt[] = [...shared, ...exclusive, ...(ph.length > 0 ? ph : wrapInner([]))];
  const groups = lk.groupSize.length > 0 ? lk.groupSize : [ilit(1)];
  for (let axis = 0; axis < groups.length; axis++) nest = attributedLoop("outer", axis, sizeText(groups[axis]!), nest, normalized);
  return nest;
}

/** Lowered device kernels as one OKL `@kernel` (named after the first device kernel's kernel). */
/** How the okl target lowers: hardware axes kept (they become @outer/@inner loops), OKL's own atomics. */
export const OKL_LOWER_OPTIONS: LowerOptions = { hwAxes: true, atomics: "native" };

export function renderOkl(kernels: readonly LoweredKernel[], name: string, opts: OklOptions = {}, names = new NameAllocator("okl")): GeneratedCode {
  const normalized = opts.normalized === true;
  const t = normalized ? NORMALIZED : LEGACY;
  // Printed names first: the @exclusive declarations below are raw text.
  const printed = printedKernels(kernels, names);
  // Kernel parameters: the union of the device kernels' (written if any writes).
  const args = new Map<string, LoweredArg>();
  for (const lk of printed) {
    for (const a of lk.args) {
      const prev = args.get(a.name);
      args.set(a.name, prev ? { ...prev, written: prev.written || a.written } : a);
    }
  }
  const sizeOf = (e: Ex) => t.render([{ name: "_", args: [], decls: [], body: [], groupSize: [e], localSize: [] }]).kernels[0]!.globalSize[0]!;
  const body = printed.flatMap((lk) => outerNest(lk, t, normalized, sizeOf));
  const merged: LoweredKernel = {
    name: names.kernel(name), args: [...args.values()], decls: [], body, groupSize: [], localSize: [],
  };
  const code = t.render([merged], names);
  return {
    target: "okl",
    deviceCode: code.deviceCode,
    kernels: kernels.map((lk, n) => {
      const info = t.render([{ ...lk, decls: [], body: [] }], new NameAllocator("okl")).kernels[0]!;
      return { ...info, name: printed[n]!.name };
    }),
    // The one @kernel takes the trap buffer (last) where any part of it may trap.
    ...(code.intTraps ? { intTraps: { ...code.intTraps, kernels: kernels.map(() => code.intTraps!.kernels[0] === true) } } : {}),
  };

}
