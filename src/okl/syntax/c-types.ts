/**
 * C's object types as the front end needs them to evaluate `sizeof`: scalars, pointers, arrays and
 * structs/unions with C's layout on the 64-bit targets Loom compiles for (x86-64, aarch64: each
 * scalar aligned to its size, a struct to its largest member, its size rounded up to that; OCCA's
 * vector types `float4`, `int2`, ... are structs of their components, as the lowering stores them).
 * `TypeEnv` resolves the AST's type specifiers (typedefs, struct tags) to these types.
 *
 *   struct bc { int type; double vals[3]; }   -> { size 32, align 8 }
 *   sizeof(float4) = 16, sizeof(dfloat *) = 8, sizeof(char[3][5]) = 15
 */
import type { BaseType, Declarator, Expr, PointerLevel, StructField, TypeName, TypeSpec } from "./ast.js";
import { evalConst } from "./consteval.js";

export type CType =
  | { readonly kind: "scalar"; readonly name: string; readonly size: number; readonly float: boolean; readonly unsigned: boolean }
  | { readonly kind: "pointer"; readonly to: CType | undefined }
  | { readonly kind: "array"; readonly of: CType; readonly length: number | undefined }
  | { readonly kind: "record"; readonly name: string; readonly size: number; readonly align: number; readonly fields: ReadonlyMap<string, CType> }
  | { readonly kind: "void" };

/** Bytes of each scalar builtin (canonical names of parse-base.ts's canonicalBuiltin). */
const SCALAR_SIZE: ReadonlyMap<string, number> = new Map([
  ["char", 1], ["signed char", 1], ["unsigned char", 1], ["bool", 1],
  ["short", 2], ["unsigned short", 2], ["half", 2],
  ["int", 4], ["unsigned int", 4], ["float", 4],
  ["long", 8], ["unsigned long", 8], ["long long", 8], ["unsigned long long", 8],
  ["double", 8], ["size_t", 8], ["ptrdiff_t", 8], ["unsigned size_t", 8], ["long double", 16],
]);

/** OCCA's vector component types, by the prefix of the vector type's name. */
const VECTOR_COMPONENT: ReadonlyMap<string, string> = new Map([
  ["char", "char"], ["uchar", "unsigned char"], ["short", "short"], ["ushort", "unsigned short"], ["int", "int"],
  ["uint", "unsigned int"], ["long", "long"], ["ulong", "unsigned long"], ["float", "float"], ["double", "double"], ["bool", "bool"],
]);

export function scalar(name: string): CType | undefined {
  const size = SCALAR_SIZE.get(name);
  if (size === undefined) return undefined;
  const float = name === "float" || name === "double" || name === "half" || name === "long double";
  return { kind: "scalar", name, size, float, unsigned: name.startsWith("unsigned") || name === "size_t" || name === "bool" };
}

export const INT = scalar("int")!;
export const SIZE_T = scalar("unsigned long")!;

/** sizeof of a complete type; undefined for void, an array of unknown length, or a function. */
export function sizeOf(t: CType): number | undefined {
  switch (t.kind) {
    case "scalar": return t.size;
    case "pointer": return 8;
    case "record": return t.size;
    case "array": {
      const n = sizeOf(t.of);
      return t.length === undefined || n === undefined ? undefined : t.length * n;
    }
    case "void": return undefined;
  }
}

export function alignOf(t: CType): number {
  switch (t.kind) {
    case "scalar": return Math.min(t.size, 16);
    case "pointer": return 8;
    case "record": return t.align;
    case "array": return alignOf(t.of);
    case "void": return 1;
  }
}

/** A struct (or, `union`, a union) of `fields` in declaration order, laid out as C does. */
export function record(name: string, fields: readonly (readonly [string, CType])[], union = false): CType {
  let at = 0, align = 1;
  for (const [, t] of fields) {
    const a = alignOf(t), size = sizeOf(t) ?? 0;
    at = union ? Math.max(at, size) : Math.ceil(at / a) * a + size;
    align = Math.max(align, a);
  }
  return { kind: "record", name, size: Math.ceil(at / align) * align, align, fields: new Map(fields) };
}

/** OCCA's `float4`, `int2`, ... as a struct of its components x, y, z, w (s0.. beyond 4). */
export function vectorType(name: string): CType | undefined {
  const m = /^([a-z]+?)(2|3|4|8|16)$/.exec(name);
  const comp = m && VECTOR_COMPONENT.get(m[1]!);
  if (!m || !comp) return undefined;
  const n = Number(m[2]);
  const names = n <= 4 ? ["x", "y", "z", "w"].slice(0, n) : Array.from({ length: n }, (_, k) => `s${k.toString(16)}`);
  return record(name, names.map((f) => [f, scalar(comp)!] as const));
}

/** Why a type could not be resolved (the caller names the place). */
export class CTypeError extends Error {}

/**
 * Type names in scope: typedefs and struct/union tags, in nested scopes as C has them, and the
 * integer constants array sizes may use (enum members, `const int` with constant initializers).
 */
export class TypeEnv {
  private readonly scopes: { typedefs: Map<string, CType>; tags: Map<string, CType>; consts: Map<string, number> }[] = [];

  constructor() {
    this.push();
  }

  push(): void {
    this.scopes.push({ typedefs: new Map(), tags: new Map(), consts: new Map() });
  }

  pop(): void {
    this.scopes.pop();
  }

  private find<K extends "typedefs" | "tags" | "consts">(which: K, name: string) {
    for (let k = this.scopes.length - 1; k >= 0; k--) {
      const v = this.scopes[k]![which].get(name);
      if (v !== undefined) return v as ReturnType<(typeof this.scopes)[number][K]["get"]>;
    }
    return undefined;
  }

  constant(name: string): number | undefined {
    return this.find("consts", name);
  }

  /** The integer value of a constant expression (array sizes), or undefined. */
  evalInt(e: Expr): number | undefined {
    return evalConst(e, (n) => this.constant(n));
  }

  /** Record what a declaration declares at file or block scope: typedefs, tags, enum members, integer constants. */
  declare(spec: TypeSpec, declarators: readonly Declarator[]): void {
    const base = this.base(spec.base, true);
    const top = this.scopes[this.scopes.length - 1]!;
    for (const d of declarators) {
      if (!d.name) continue;
      if (spec.storage.includes("typedef")) {
        if (base) top.typedefs.set(d.name, this.declared(base, d.pointers, d.arrayDims));
      } else if (spec.qualifiers.includes("const") && d.init && !d.pointers.length && !d.arrayDims.length && base?.kind === "scalar" && !base.float) {
        const v = this.evalInt(d.init);
        if (v !== undefined) top.consts.set(d.name, v);
      }
    }
  }

  /** The type of a declarator with base type `base`: `*p[3]` is an array of 3 pointers. */
  declared(base: CType, pointers: readonly PointerLevel[], dims: readonly (Expr | undefined)[]): CType {
    let t: CType = base;
    for (let k = 0; k < pointers.length; k++) t = { kind: "pointer", to: t };
    for (let k = dims.length - 1; k >= 0; k--) {
      const e = dims[k];
      const n = e === undefined ? undefined : this.evalInt(e);
      if (e !== undefined && n === undefined) throw new CTypeError("its array size is not an integer constant");
      t = { kind: "array", of: t, length: n };
    }
    return t;
  }

  typeName(n: TypeName): CType {
    const base = this.base(n.spec.base, false);
    if (!base) throw new CTypeError(`type "${baseName(n.spec.base)}" is not known here`);
    return this.declared(base, n.pointers, n.arrayDims);
  }

  /** The type a specifier's base names; undefined when unknown (`define` = also record a struct body's tag). */
  base(b: BaseType, define = false): CType | undefined {
    switch (b.kind) {
      case "builtin": return b.name === "void" ? { kind: "void" } : scalar(b.name);
      case "named": return this.find("typedefs", b.name) ?? vectorType(b.name);
      case "enum": {
        if (define && b.members) {
          let next = 0;
          const top = this.scopes[this.scopes.length - 1]!;
          for (const m of b.members) {
            const v = m.value ? this.evalInt(m.value) : next;
            if (v === undefined) break;
            top.consts.set(m.name, v);
            next = v + 1;
          }
        }
        return INT;
      }
      case "struct": {
        const key = `${b.tag} ${b.name ?? ""}`;
        if (!b.fields) return b.name ? this.find("tags", key) ?? this.find("typedefs", b.name) : undefined;
        const t = record(b.name ?? "<anonymous>", this.fields(b.fields), b.tag === "union");
        if (b.name) this.scopes[this.scopes.length - 1]!.tags.set(key, t);
        return t;
      }
    }
  }

  private fields(fields: readonly StructField[]): [string, CType][] {
    const out: [string, CType][] = [];
    for (const f of fields) {
      const base = this.base(f.spec.base, true);
      if (!base) throw new CTypeError(`its field type "${baseName(f.spec.base)}" is not known here`);
      for (const d of f.declarators) out.push([d.name, this.declared(base, d.pointers, d.arrayDims)]);
    }
    return out;
  }
}

export function baseName(b: BaseType): string {
  return b.kind === "struct" ? `${b.tag} ${b.name ?? "{...}"}` : b.kind === "enum" ? `enum ${b.name ?? ""}` : b.name;
}
