/**
 * What every kernel of an OKL file shares while it is lowered: typedefs, structs, file-scope
 * constants, device functions (as substitution rules where they are one `return`), C type names as
 * dtypes, and errors with the line and a caret.
 *
 *   const file = new FileContext(unit, { source }); file.dtype(spec, pos)   // "float32" for `float`
 */
import { OklError } from "../../errors.js";
import { oklWarning, type OklWarning } from "../syntax/diag.js";
import { c, type Dtype, type Expr, type SubstitutionRule } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { constValue, Scope } from "./bindings.js";
import { StructTable, structReason, type StructLayout } from "./structs.js";
import { componentNames, vectorTypeNamed, type VectorType } from "./vectors.js";

export interface LowerOklOptions {
  readonly filename?: string;
  /** The source text, for the excerpt of errors. */
  readonly source?: string;
  /** What OCCA accepts and C does not: "collect" (default) into `warningSink`, "error" as OklErrors. */
  readonly warnings?: "collect" | "error";
  readonly warningSink?: OklWarning[];
}

/** The dtypes of C's scalar type names. */
export const BUILTIN_DTYPES: Readonly<Record<string, Dtype>> = {
  float: "float32", double: "float64", half: "float16", int: "int32", "unsigned int": "uint32", unsigned: "uint32",
  long: "int64", "long long": "int64", "unsigned long": "uint64", "unsigned long long": "uint64",
  short: "int16", "unsigned short": "uint16", char: "int8", "signed char": "int8", "unsigned char": "uint8", bool: "bool",
  size_t: "uint64", ptrdiff_t: "int64", int8_t: "int8", int16_t: "int16", int32_t: "int32", int64_t: "int64",
  uint8_t: "uint8", uint16_t: "uint16", uint32_t: "uint32", uint64_t: "uint64",
};

/**
 * math.h's `M_*` constants (double literals, as glibc defines them) and OpenCL's `M_*_F` float
 * ones: names every kernel sees unless the file declares its own.
 */
const BASE_CONSTANTS: Readonly<Record<string, number>> = {
  M_E: 2.7182818284590452354, M_LOG2E: 1.4426950408889634074, M_LOG10E: 0.43429448190325182765,
  M_LN2: 0.69314718055994530942, M_LN10: 2.30258509299404568402, M_PI: 3.14159265358979323846,
  M_PI_2: 1.57079632679489661923, M_PI_4: 0.78539816339744830962, M_1_PI: 0.31830988618379067154,
  M_2_PI: 0.63661977236758134308, M_2_SQRTPI: 1.12837916709551257390, M_SQRT2: 1.41421356237309504880,
  M_SQRT1_2: 0.70710678118654752440,
};
export const MATH_CONSTANTS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(BASE_CONSTANTS).flatMap(([k, v]) => [[k, v], [`${k}_F`, v]]),
);

/** Typedefs and device functions of the file, and error reporting. */
export class FileContext {
  readonly typedefs = new Map<string, A.TypeSpec>();
  /** `typedef float *A @dim(8, 9);`: the typedef's type and declarator (its pointers and attributes). */
  readonly pointerTypedefs = new Map<string, { readonly spec: A.TypeSpec; readonly declarator: A.Declarator }>();
  readonly rules: SubstitutionRule[] = [];
  readonly ruleNames = new Set<string>();
  readonly functions = new Map<string, A.FunctionDef>();
  /** File-scope scalars with compile-time initializers (`const int offset = 1;`), seen by every kernel and device function. */
  readonly globals = new Scope();
  readonly structs: StructTable;
  constructor(readonly unit: A.TranslationUnit, readonly opts: LowerOklOptions) {
    for (const [name, v] of Object.entries(MATH_CONSTANTS)) this.globals.set(name, { kind: "expr", expr: name.endsWith("_F") ? c(Math.fround(v), "float32", true) : c(v, undefined, true) });
    for (const it of unit.items) {
      if (it.kind === "declaration") this.enumerators(it.spec);
      if (it.kind === "declaration" && it.spec.storage.includes("typedef")) {
        for (const d of it.declarators) {
          if (d.pointers.length === 0 && d.arrayDims.length === 0) this.typedefs.set(d.name, it.spec);
          else if (d.arrayDims.length === 0) this.pointerTypedefs.set(d.name, { spec: it.spec, declarator: d });
        }
      } else if (it.kind === "declaration") {
        for (const d of it.declarators) {
          if (d.pointers.length > 0 || d.arrayDims.length > 0 || d.init === undefined) continue;
          const e = this.constant(it.spec, d.init);
          if (e) this.globals.set(d.name, { kind: "expr", expr: e });
        }
      }
      if (it.kind === "function" && !it.isKernel && it.body) this.functions.set(it.name, it);
    }
    this.structs = new StructTable(unit, this.typedefs, (n) => BUILTIN_DTYPES[n], (e) => constValue(e, this.globals));
  }

  /**
   * An enum's enumerators as constants (C: the previous value plus one, from 0), and its name as a
   * type (int, as in C++ where `enum E` makes `E` a type).
   */
  private enumerators(spec: A.TypeSpec): void {
    const b = spec.base;
    if (b.kind !== "enum" || b.members === undefined) return;
    if (b.name !== undefined) this.typedefs.set(b.name, { ...spec, storage: [], qualifiers: [] });
    let next = 0;
    for (const m of b.members) {
      const v = m.value === undefined ? next : constValue(m.value, this.globals);
      if (v === undefined) this.fail(`enumerator "${m.name}": its value must be a compile-time integer`, m.value!.pos);
      this.globals.set(m.name, { kind: "expr", expr: c(v) });
      next = v + 1;
    }
  }

  /** The lowerable struct `spec` names, undefined for a non-struct type; fails for a struct that cannot be lowered. */
  structOf(spec: A.TypeSpec, pos: A.Pos): StructLayout | undefined {
    const r = this.structs.resolve(spec);
    if (r === undefined) return undefined;
    return "layout" in r ? r.layout : this.fail(structReason(r), pos);
  }

  /** The OCCA vector type `spec` names (`float3`, or a typedef of it), or undefined. */
  vectorType(spec: A.TypeSpec, seen: ReadonlySet<string> = new Set()): VectorType | undefined {
    const b = spec.base;
    if (b.kind !== "named" || seen.has(b.name)) return undefined;
    const t = this.typedefs.get(b.name);
    if (t) return this.vectorType(t, new Set([...seen, b.name]));
    if (this.structs.definition(spec)) return undefined; // the file's own struct of that name
    return vectorTypeNamed(b.name);
  }

  /** The vector type the name `name` denotes here (`float3`, a typedef of it; not a struct the file defines). */
  vectorTypeName(name: string): VectorType | undefined {
    const pos = { line: 0, column: 0, offset: 0, end: 0 };
    return this.vectorType({ kind: "typeSpec", storage: [], qualifiers: [], base: { kind: "named", name, pos }, pos });
  }

  /**
   * A declaration whose type is a pointer typedef, spelled out: `const A a` with `typedef float *A
   * @dim(8, 9)` is `const float *a @dim(8, 9)` (the declarator's own attributes win). Others unchanged.
   */
  expandTypedef(spec: A.TypeSpec, d: A.Declarator): { readonly spec: A.TypeSpec; readonly declarator: A.Declarator } {
    const b = spec.base;
    const t = b.kind === "named" ? this.pointerTypedefs.get(b.name) : undefined;
    if (!t) return { spec, declarator: d };
    const qualifiers = [...new Set([...t.spec.qualifiers, ...spec.qualifiers])];
    const o = d.okl;
    const okl = {
      ...o,
      restrict: o.restrict || t.declarator.okl.restrict,
      dim: o.dim ?? t.declarator.okl.dim,
      dimOrder: o.dimOrder ?? t.declarator.okl.dimOrder,
    };
    const inner = { ...t.spec, storage: spec.storage, qualifiers };
    // C: `const A a` makes the pointer const, not the pointee; the pointee's constness is irrelevant to lowering.
    return this.expandTypedef(inner, { ...d, pointers: [...t.declarator.pointers, ...d.pointers], okl });
  }

  /** A file-scope initializer as a constant of the declared type, or undefined (not a compile-time scalar). */
  private constant(spec: A.TypeSpec, init: A.Expr): Expr | undefined {
    const b = spec.base;
    const d = b.kind === "builtin" || b.kind === "named" ? BUILTIN_DTYPES[b.name] ?? (this.typedefs.has(b.name) ? this.dtypeOrUndefined(this.typedefs.get(b.name)!) : undefined) : undefined;
    if (d === undefined) return undefined;
    const floatValue = (e: A.Expr): number | undefined =>
      e.kind === "float" ? e.value : e.kind === "unary" && e.op === "-" ? neg(floatValue(e.operand)) : e.kind === "unary" && e.op === "+" ? floatValue(e.operand) : constValue(e, this.globals);
    const neg = (v: number | undefined) => (v === undefined ? undefined : -v);
    if (d.startsWith("float")) {
      const v = floatValue(init);
      return v === undefined ? undefined : c(d === "float32" ? Math.fround(v) : v, d === "float64" ? undefined : d, true);
    }
    const v = constValue(init, this.globals);
    return v === undefined ? undefined : d === "bool" ? c(v ? 1 : 0) : c(v);
  }

  private dtypeOrUndefined(spec: A.TypeSpec): Dtype | undefined {
    try {
      return this.dtype(spec, spec.pos);
    } catch {
      return undefined;
    }
  }

  /** A warning for what OCCA accepts and C does not (an OklError under `warnings: "error"`). */
  warn(detail: string, pos: A.Pos, rule = "OCCA leniency"): void {
    if (this.opts.warnings === "error") this.fail(detail, pos, rule);
    this.opts.warningSink?.push(oklWarning(detail, pos, rule, new Map(this.opts.source === undefined ? [] : [["", this.opts.source]]), this.opts.filename));
  }

  fail(detail: string, pos: A.Pos, rule = "OKL lowering"): never {
    const src = this.opts.source;
    let excerpt = "";
    if (src !== undefined && pos.file === undefined) {
      const line = src.split("\n")[pos.line - 1] ?? "";
      excerpt = `${line}\n${" ".repeat(Math.max(0, pos.column - 1))}^`;
    }
    throw new OklError(detail, pos.line, pos.column, rule, pos.file ?? this.opts.filename, excerpt);
  }

  dtype(spec: A.TypeSpec, pos: A.Pos): Dtype {
    const b = spec.base;
    if (b.kind === "builtin") {
      const d = BUILTIN_DTYPES[b.name];
      if (d) return d;
    } else if (b.kind === "named") {
      const d = BUILTIN_DTYPES[b.name];
      if (d) return d;
      if (b.name === "auto") this.fail("C++ auto: only `auto x = expression;` declaring one scalar in kernel code is supported", pos, "OKL subset");
      const t = this.typedefs.get(b.name);
      if (t) return this.dtype(t, pos);
    } else if (b.kind === "enum") {
      return "int32"; // C's enumerated types are int on every target OKL has
    }
    const v = this.structs ? this.vectorType(spec) : undefined;
    if (v) return this.fail(`a value of vector type "${v.name}" is used where a scalar is expected (use its components ${componentNames(v).join(", ")}, or a vector operation)`, pos);
    const st = this.structs?.resolve(spec);
    if (st) return this.fail("reason" in st ? structReason(st) : `struct "${st.layout.name}" is used where a scalar is expected (pointers to it, arrays of it and locals of it are lowered, by-value arguments and parameters are not)`, pos);
    return this.fail(`type "${b.kind === "builtin" || b.kind === "named" ? b.name : b.kind}" is not supported yet (numeric scalar types and pointers to them are)`, pos);
  }

  /**
   * A device function `T f(scalars) { return e; }` as a substitution rule (expanded where called);
   * false for other device functions (inlined at the call instead) and unknown names.
   */
  rule(name: string, lowerWith: (e: A.Expr, scope: Scope) => Expr): boolean {
    if (this.ruleNames.has(name)) return true;
    const f = this.functions.get(name);
    if (!f) return false;
    const items = f.body!.items.filter((s) => s.kind !== "empty");
    const ret = items[0];
    // Vector parameters and results are several scalars: such functions are inlined at each call.
    const vector = f.params.some((p) => this.vectorType(p.spec)) || (f.returnPointers.length === 0 && this.vectorType(f.returnType))
      || f.params.some((p) => p.declarator.pointers.length === 0 && this.structs.recordFields(p.spec)); // a struct with mixed field types by value: a view, inlined
    if (items.length !== 1 || ret?.kind !== "return" || ret.value === undefined || vector || f.params.some((p) => p.declarator.pointers.length + p.declarator.arrayDims.length > 0)) {
      return false;
    }
    const scope = new Scope(this.globals);
    const params = f.params.map((p) => p.declarator.name);
    // C converts the arguments to the parameter types and the result to the return type.
    f.params.forEach((p) => scope.set(p.declarator.name, { kind: "expr", expr: { kind: "cast", dtype: this.dtype(p.spec, p.pos), value: { kind: "var", name: p.declarator.name } } }));
    this.ruleNames.add(name);
    this.rules.push({ name, params, expr: { kind: "cast", dtype: this.dtype(f.returnType, f.pos), value: lowerWith(ret.value, scope) } });
    return true;
  }
}
