/**
 * The C family as one dialect table: C, OpenMP, OpenCL and CUDA differ only in the entries of
 * `CDialect` (type names, hardware ids, qualifiers, barrier, atomics, math spellings).
 */
import { CodegenError } from "../../src/errors.js";
import type { Dtype, TargetName } from "../../src/ir/index.js";
import { type AtomicStore, type BarrierMemory, type ExDtype, type Stmt } from "../ast.js";
import { NARROW, Printer, type ExprSyntax, type StmtSyntax } from "../printer.js";
import type { LoweredArg, LoweredKernel, LowerOptions } from "../lower.js";
import { NameAllocator, dialectOf } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { outlineParallelLoop, type OutlinedParam } from "../lower/outline.js";
import { vectorRegisterTiles } from "../lower/vec-registers.js";

import { intHelpers } from "./cfamily-int.js";
import { TrapSites, TrapSpelling, type IntTrapTable, type WithIntTraps } from "./int-traps.js";
import { printedKernels } from "./rename.js";

export interface CDialect {
  readonly name: TargetName;
  readonly cpu: boolean;
  readonly lowerOptions: LowerOptions;
  readonly types: Readonly<Partial<Record<Dtype, string>>>;
  /** Lines at the top of the device code. */
  readonly includes: readonly string[];
  /** Qualifier of helper functions (`static inline`, `inline`, `__device__ inline`). */
  readonly helperQualifier: string;
  readonly hw?: (tag: "g" | "l", axis: number) => string;
  readonly localQualifier?: string;
  readonly globalQualifier?: string;
  readonly barrier?: (comment: string, memory: BarrierMemory) => string;
  /** `__kernel void …` up to the name, given the local size (undefined where it is sized at launch). */
  readonly kernelHead: (localSize: readonly number[] | undefined) => string;
  /** Math functions: "suffix" appends `f` for float32 (C, CUDA); "overload" keeps the name (OpenCL). */
  readonly math: "suffix" | "overload";
  /** Integer min/max as built-ins (`min`, `max`) rather than helpers. */
  readonly intMinMaxBuiltin: boolean;
  /**
   * Where an integer trap (division or modulo by 0, a shift count out of range, a negative integer
   * exponent: codegen/targets/int-traps.ts) is recorded: `"flag"`, a static record the native
   * runtime reads after each launch (C, OpenMP); absent, a trap buffer the kernel takes as its last
   * parameter. Either way the operation gives 0: no trap of the process, no undefined behaviour.
   */
  readonly intTrap?: "flag";
  /** The trap buffer's pointer type in a helper's parameters, given `uint32`'s name (default: `<globalQualifier> uint32 *`). */
  readonly trapPointer?: (u32: string) => string;
  /**
   * An atomic increment of the trap buffer's claim counter `cell` (a uint32 in global memory), as
   * an expression of its old value; undefined: a plain increment (two traps at once may then mix
   * the site of one with the value of the other).
   */
  readonly trapClaim?: (cell: string, p: Printer) => string;
  /** The whole trap recorder `loopy_trap(t, site, value)`, where the dialect writes its own, given the declaration of `t`. */
  readonly trapRecorder?: (t: string, u32: string, i64: string) => string;
  /** An atomic update `target op= value` of a `d` cell (see `AtomicStore`); the statement's `;` is added. */
  readonly atomic?: (a: AtomicStore, target: string, value: string, d: Dtype, p: Printer) => string;
  readonly int64Suffix: string;
  /**
   * The body of the parallel loop (`lowerOptions.parallelLoop`) as a `static` function with
   * `restrict` parameters, called from the loop: the compiler keeps its aliasing knowledge (OpenMP).
   */
  readonly outlineParallel?: boolean;
  /**
   * Loops of `vec` row updates of private accumulators keep the rows in GCC/Clang vector values
   * across the loop (codegen/lower/vec-registers.ts): register tiles that stay in registers.
   */
  readonly vectorRegisters?: boolean;
  /**
   * A kernel's printed body rewritten by the dialect (identifiers final), given the declarations
   * before it: OpenCL's `vec` loops as vector code (codegen/lower/vec-opencl.ts).
   */
  readonly rewriteBody?: (decls: readonly Stmt[], body: readonly Stmt[], ctx: BodyContext) => Stmt[];
  /** A kernel parameter, given its type name and position (OKL: `const float *a @restrict`, Metal: `[[buffer(i)]]`); default C style. */
  readonly argDecl?: (a: LoweredArg, typeName: string, index: number) => string;
  /** A literal the dialect spells its own way (ISPC's `2.5d` double), else undefined for the C spelling. */
  readonly literal?: (v: number, t: ExDtype) => string | undefined;
  /** Parameters after the arguments (Metal's `uint3 loopy_group [[threadgroup_position_in_grid]]`). */
  readonly extraParams?: readonly string[];
  /** A math call the dialect spells its own way (ISPC's float `min`), else undefined for the C-family spelling. */
  readonly call?: (fn: string, t: Dtype, args: readonly string[]) => string | undefined;
  /**
   * The whole kernel, where it is no plain `head name(params) { body }`: SYCL's queue submission,
   * alpaka's functor, ISPC's task. Undefined: the C-family function.
   */
  readonly kernelFunction?: (k: KernelParts) => string;
}

/** What a `rewriteBody` hook gets: the kernel's printer (its helpers are printed) and name allocator. */
export interface BodyContext {
  readonly printer: Printer;
  readonly names: NameAllocator;
  readonly typeName: (t: ExDtype) => string;
}

/** What a `kernelFunction` hook gets: one lowered kernel with its parts printed in the dialect. */
export interface KernelParts {
  readonly name: string;
  readonly args: readonly LoweredArg[];
  /** The parameters as `argDecl` declares them. */
  readonly params: readonly string[];
  /** Declarations (private and local temporaries) and then the body. */
  readonly decls: readonly Stmt[];
  readonly body: readonly Stmt[];
  /** Work-groups and work-items per axis (axis 0 first), as code in the parameters. */
  readonly groupSize: readonly string[];
  readonly localSize: readonly string[];
  readonly printer: Printer;
  /** The allocator the kernel was printed with: `names.fresh("loopy_acc")` is a name nothing else uses. */
  readonly names: NameAllocator;
  /** `t` as the dialect's type name (throws where it has none). */
  readonly typeName: (t: ExDtype) => string;
}

/**
 * C and OpenMP record an integer trap in a static record of the translation unit (claimed
 * atomically: OpenMP threads may trap at once), which the native runtime reads and clears after
 * each launch (src/run/native-c.ts) and reports as the interpreter does.
 */
export const INT_TRAP = "flag";

const C_TYPES: Readonly<Partial<Record<Dtype, string>>> = {
  float32: "float", float64: "double", int8: "int8_t", int16: "int16_t", int32: "int32_t", int64: "int64_t",
  uint8: "uint8_t", uint16: "uint16_t", uint32: "uint32_t", uint64: "uint64_t", bool: "uint8_t",
};
export const CL_TYPES: Readonly<Partial<Record<Dtype, string>>> = {
  float16: "half", float32: "float", float64: "double", int8: "char", int16: "short", int32: "int", int64: "long",
  uint8: "uchar", uint16: "ushort", uint32: "uint", uint64: "ulong", bool: "uchar",
};
export const CUDA_TYPES: Readonly<Partial<Record<Dtype, string>>> = {
  float32: "float", float64: "double", int8: "signed char", int16: "short", int32: "int", int64: "long long",
  uint8: "unsigned char", uint16: "unsigned short", uint32: "unsigned int", uint64: "unsigned long long", bool: "unsigned char",
};
export { C_TYPES };

/** The shortest decimal that reads back as the same float32 (`0.1f`, `2.0f`). */
export function floatText(v: number, single: boolean): string {
  if (v === Infinity) return single ? "INFINITY" : "HUGE_VAL";
  if (v === -Infinity) return single ? "-INFINITY" : "-HUGE_VAL";
  if (Number.isNaN(v)) return "NAN";
  let s = String(v);
  if (single) {
    for (let p = 1; p <= 9; p++) {
      const t = v.toPrecision(p);
      if (Math.fround(Number(t)) === v) {
        s = String(Number(t));
        break;
      }
    }
  }
  if (!/[.eE]/.test(s)) s += ".0";
  return single ? `${s}f` : s;
}

/** One C-family dialect as a code generator over lowered kernels. */
export class CFamilyTarget {
  constructor(readonly d: CDialect) {}

  typeName(t: ExDtype): string {
    const name = this.d.types[t === "idx" ? "int32" : t];
    if (!name) throw new CodegenError(`the ${this.d.name} target has no type for ${t}; it has ${Object.keys(this.d.types).join(", ")}`);
    return name;
  }

  /** How this dialect records integer traps (int-traps.ts), numbering sites in `sites`. */
  private trapSpelling(sites: TrapSites, param: string): TrapSpelling {
    const d = this.d;
    return new TrapSpelling({
      helperQualifier: d.helperQualifier, typeName: (t) => this.typeName(t), flag: d.intTrap === "flag",
      pointer: d.trapPointer ?? ((u32) => `${d.globalQualifier ? `${d.globalQualifier} ` : ""}${u32} *`),
      claim: d.trapClaim, recorder: d.trapRecorder,
    }, sites, param);
  }

  /** `traps`: how traps are recorded (undefined: not at all, for launch sizes, which cannot trap). */
  private exprSyntax(traps?: TrapSpelling): ExprSyntax {
    const d = this.d;
    const helper = (p: Printer, name: string, t: ExDtype, code: (ty: string) => string) => {
      const ty = this.typeName(t);
      p.helpers.add(`${name}|${code(ty)}`);
    };
    const { absPow, floorDiv, mod, div, shiftCount, loopTraps } = intHelpers({ helperQualifier: d.helperQualifier, typeName: (t) => this.typeName(t) }, traps);
    // The helpers named, not spread: a spread of a fresh object is V8's slow path (tens of
    // microseconds per render on Node 20).
    return {
      floorDiv, mod, div, shiftCount, loopTraps,
      typeName: (t) => this.typeName(t),
      lit: (v, t) => {
        // A literal of a type the target lacks (Metal's float64: `x * 0.5` computed in double, as C
        // imports it) would be printed bare and computed in another type: refused, as its variables are.
        if (t === "float64" && !d.types.float64) {
          throw new CodegenError(`the ${d.name} target has no type for float64; it has ${Object.keys(d.types).join(", ")}; the literal ${floatText(v, false)} is computed in float64 here ` +
            `(in C and OKL an unsuffixed literal is a double: float x * 0.5 is computed in double); write ${floatText(v, true)} for float arithmetic, or use a target with float64`);
        }
        this.typeName(t);
        const own = d.literal?.(v, t);
        if (own !== undefined) return own;
        if (t === "float32" || t === "float16") return floatText(v, true);
        if (t === "float64") return floatText(v, false);
        if (t === "int32" && v === -2147483648) return "(-2147483647 - 1)";
        if (t === "int64" || t === "uint64") return `${BigInt(Math.trunc(v))}${t === "uint64" ? "U" : ""}${d.int64Suffix}`;
        if (t === "uint32") return `${v}u`;
        return String(v);
      },
      hw: (tag, axis) => {
        if (!d.hw) throw new CodegenError(`the ${d.name} target has no group/local hardware axes`);
        return d.hw(tag, axis);
      },
      cast: (to, code) => `(${this.typeName(to)}) ${code}`,
      call: (fn, t, args, p, trap) => {
        const own = d.call?.(fn, t, args);
        if (own !== undefined) return own;
        const float = t === "float32" || t === "float64" || t === "float16";
        if (fn === "min" || fn === "max") {
          if (float) return d.math === "overload" ? `f${fn}(${args.join(", ")})` : `f${fn}${t === "float32" ? "f" : ""}(${args.join(", ")})`;
          // C promotes char and short operands (a literal is an int) to int, so min(x, 3) on shorts has
          // no one overload: both arguments converted to the type.
          if (d.intMinMaxBuiltin) return `${fn}(${(NARROW.has(t) ? args.map((a) => `(${this.typeName(t)}) (${a})`) : args).join(", ")})`;
          const name = `loopy_${fn}_${t}`;
          helper(p, name, t, (ty) => `${d.helperQualifier} ${ty} ${name}(${ty} a, ${ty} b) { return a ${fn === "min" ? "<" : ">"} b ? a : b; }`);
          return `${name}(${args.join(", ")})`;
        }
        if (fn === "loopy_fmod") {
          const name = `loopy_fmod_${t}`;
          const f = d.math === "suffix" && t === "float32" ? "fmodf" : "fmod";
          helper(p, name, t, (ty) => `${d.helperQualifier} ${ty} ${name}(${ty} a, ${ty} b) { ${ty} r = ${f}(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }`);
          return `${name}(${args.join(", ")})`;
        }
        if ((fn === "abs" || fn === "pow") && !float) return absPow(fn, t, args, p, trap);

        const base = fn === "abs" ? "fabs" : fn;
        if (fn === "rsqrt" && d.math === "suffix" && d.name !== "cuda") return `(1 / ${base === "rsqrt" ? `sqrt${t === "float32" ? "f" : ""}` : base}(${args[0]}))`;
        const name = d.math === "suffix" && t === "float32" ? `${base}f` : base;
        return `${name}(${args.join(", ")})`;
      },
      unsignedOf: (t) => (t === "int64" || t === "uint64" ? "uint64" : "uint32"),
      atomic: (a, target, value, t, p) => {
        if (!d.atomic) throw new CodegenError(`the ${d.name} target has no atomic updates`);
        return d.atomic(a, target, value, t, p);
      },
    };
  }

  /** `exprSyntax()` without traps, built once per target (it depends on the dialect alone). */
  private plain: ExprSyntax | undefined;
  private plainSyntax(): ExprSyntax {
    return (this.plain ??= this.exprSyntax());
  }

  /** `stmtSyntax()`, built once per target (it depends on the dialect alone). */
  private stmts: StmtSyntax | undefined;
  private statements(): StmtSyntax {
    return (this.stmts ??= this.stmtSyntax());
  }

  private stmtSyntax(): StmtSyntax {
    const d = this.d;
    return {
      forHead: (v, lo, hi) => `for (int ${v} = ${lo}; ${v} <= ${hi}; ++${v})`,
      decl: (s, p) => {
        const q = s.space === "local" && d.localQualifier ? `${d.localQualifier} ` : "";
        const ty = this.typeName(s.dtype);
        const c = s.isConst ? " const" : "";
        const size = s.size !== undefined ? `[${s.size}]` : "";
        const init = s.init ? ` = ${p.expr(s.init)}` : "";
        return `${q}${s.isConst && s.dtype === "int32" ? "int" : ty}${c} ${s.name}${size}${init};`;
      },
      barrier: (comment, memory) => {
        if (!d.barrier) throw new CodegenError(`the ${d.name} target has no barriers; lower the kernel for the CPU first`);
        return d.barrier(comment, memory);
      },
    };
  }

  private argDecl(a: LoweredArg, index: number): string {
    const ty = this.typeName(a.dtype);
    if (this.d.argDecl) return this.d.argDecl(a, ty, index);
    if (a.kind === "value") return `${ty} const ${a.name}`;
    const g = this.d.globalQualifier ? `${this.d.globalQualifier} ` : "";
    return `${g}${ty}${a.written ? "" : " const"} *__restrict__ ${a.name}`;
  }

  /** A parameter of an outlined parallel body: arguments as the kernel declares them, arrays in scope as pointers, values as `const`. */
  private paramDecl(x: OutlinedParam): string {
    if (x.k === "arg") return this.argDecl(x.arg, 0);
    const ty = this.typeName(x.dtype);
    if (x.k === "value") return `${ty} const ${x.name}`;
    return x.written ? `${ty} *${x.name}` : `${ty} const *__restrict__ ${x.name}`;
  }

  /**
   * The device code and launch information of lowered kernels, every identifier printed through
   * `names` (renamed where reserved); the launch information keeps the user's argument names.
   */
  render(kernels: readonly LoweredKernel[], names = new NameAllocator(dialectOf(this.d.name))): GeneratedCode & WithIntTraps {
    // Integer traps: numbered sites, recorded in the static flag or a trap buffer parameter (a name nothing else has).
    const sites = new TrapSites();
    const flag = this.d.intTrap === "flag";
    const trapParam = flag ? "" : names.fresh("loom_trap");
    const traps = this.trapSpelling(sites, trapParam);
    const takesTraps: boolean[] = [];
    const trapArg: LoweredArg = { name: trapParam, kind: "array", dtype: "uint32", written: true };
    const p = new Printer(this.exprSyntax(traps), this.statements());
    const printed = printedKernels(kernels, names);
    // Launch sizes cannot trap: printed with the dialect's one untrapped syntax.
    const sizeP = new Printer(this.plainSyntax(), this.statements());
    // Register tiles in vector values (the private arrays in scope: the declarations before `stmts`).
    const simd = this.d.lowerOptions.simdLoop;
    const registers = (decls: readonly Stmt[], stmts: readonly Stmt[]): Stmt[] => {
      if (this.d.rewriteBody) return this.d.rewriteBody(decls, stmts, { printer: p, names, typeName: (t) => this.typeName(t) });
      if (!this.d.vectorRegisters || simd === undefined) return [...stmts];
      const privates = new Map<string, number>();
      for (const d of decls) if (d.k === "decl" && d.size !== undefined && d.space !== "local") privates.set(d.name, d.size);
      return privates.size === 0 ? [...stmts] : vectorRegisterTiles(stmts, privates, simd, p, names, (t) => this.typeName(t));
    };
    const fns = printed.map((lk0) => {
      traps.used = false;
      let lk = lk0;
      let before = "";
      const o = this.d.outlineParallel ? outlineParallelLoop(lk0, (s) => (s.pragmas ?? []).some((x) => x.startsWith("#pragma omp parallel for"))) : undefined;
      if (o) {
        const fn = names.fresh(`${lk0.name}_body`);
        lk = o.kernel((args) => ({ k: "raw", text: `${fn}(${args.join(", ")});` }));
        const fbody = [...o.decls, ...(o.decls.length > 0 ? [{ k: "raw", text: "" } as Stmt] : []), ...registers(o.decls, o.body.k === "block" ? o.body.body : [o.body])];
        before = `${[`static void ${fn}(${o.params.map((x) => this.paramDecl(x)).join(", ")})`, ...p.stmt({ k: "block", body: fbody }, "")].map((l) => l.trimEnd()).join("\n")}\n\n`;
      }
      if (this.d.kernelFunction) {
        // The whole kernel is the dialect's: whether it takes the trap buffer is known before, from a trial print.
        const takes = !flag && this.mayTrap(lk, trapParam);
        takesTraps.push(takes);
        const args = takes ? [...lk.args, trapArg] : lk.args;
        return this.d.kernelFunction({
          name: lk.name, args, params: args.map((a, n) => this.argDecl(a, n)), decls: lk.decls, body: lk.body, printer: p, names, typeName: (t) => this.typeName(t),
          groupSize: lk.groupSize.map((e) => p.expr(e)), localSize: lk.localSize.map((x) => (typeof x === "number" ? String(x) : p.expr(x))),
        });
      }
      const body = [...lk.decls, ...(lk.decls.length > 0 ? [{ k: "raw", text: "" } as Stmt] : []), ...registers(lk.decls, lk.body)];
      const lines = p.stmt({ k: "block", body }, "");
      // A kernel that printed a call that may trap takes the trap buffer, last.
      const takes = !flag && traps.used;
      takesTraps.push(takes);
      const params = (takes ? [...lk.args, trapArg] : lk.args).map((a, n) => this.argDecl(a, n));
      const constant = lk.localSize.every((x): x is number => typeof x === "number") ? lk.localSize : undefined;
      const head = `${this.d.kernelHead(constant)} ${lk.name}(${[...params, ...(this.d.extraParams ?? [])].join(", ")})`;
      return before + [head, ...lines].map((l) => l.trimEnd()).join("\n");
    });
    const helpers = [...p.helpers].sort().map((h) => h.slice(h.indexOf("|") + 1));
    const top = [...this.d.includes, ...helpers];
    const deviceCode = [...(top.length > 0 ? [top.join("\n"), ""] : []), fns.join("\n\n"), ""].join("\n");
    return {
      target: this.d.name,
      deviceCode,
      kernels: kernels.map((lk, n) => ({
        name: printed[n]!.name,
        globalSize: lk.groupSize.map((e) => sizeP.expr(e)),
        localSize: lk.localSize.map((x) => (typeof x === "number" ? String(x) : sizeP.expr(x))),
        args: lk.args.map((a) => a.name),
      })),
      ...(sites.sites.length > 0 ? { intTraps: this.trapTable(sites, trapParam, takesTraps) } : {}),
    };
  }

  /** What the runtime needs to read the traps back (int-traps.ts). */
  private trapTable(sites: TrapSites, param: string, kernels: readonly boolean[]): IntTrapTable {
    return this.d.intTrap === "flag" ? { mode: "flag", sites: sites.sites, kernels } : { mode: "buffer", sites: sites.sites, param, kernels };
  }

  /** Whether printing `lk` calls a helper that may trap (a trial print, for dialects that print the whole kernel). */
  private mayTrap(lk: LoweredKernel, param: string): boolean {
    const traps = this.trapSpelling(new TrapSites(), param);
    new Printer(this.exprSyntax(traps), this.statements()).stmt({ k: "block", body: [...lk.decls, ...lk.body] }, "");
    return traps.used;
  }

}
