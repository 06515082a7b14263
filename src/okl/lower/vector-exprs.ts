/**
 * Vector expressions of OKL lowered per component (src/okl/vectors.ts has the types and OCCA's
 * semantics): `typeOf` says statically whether an expression has a vector type, `comps` gives its
 * N component expressions. Componentwise operators, constructors (`float3(x, y, z)`,
 * `make_float3(x, y, z)`), `normalize`, `clamp`, `min`/`max`/`fabs`, `cross`, device functions
 * returning vectors, vector variables and elements of vector arrays.
 *
 *   // float3 a, b;   a + 2.0f * b
 *   comps(ast, ctx)   // [a_x + (float)2.0f * b_x, a_y + …, a_z + …]
 */
import { c, walkExpr, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Ctx, Fail, ScalarBinding } from "./bindings.js";
import { expressionInlinable, inlineVectorCall, type ExprLowerer } from "./inline.js";
import { isStructValue, placeElement, type StructPlace } from "./structs.js";
import { recordValueType } from "./records.js";
import {
  clampOf, componentIndex, componentNames, crossOf, layoutVector, narrow, normalizeOf, toComponent, type VectorType,
} from "./vectors.js";

/** Functions on vectors that return vectors (when the file defines none of that name). */
const VECTOR_FUNCTIONS = new Set(["normalize", "clamp", "min", "max", "fmin", "fmax", "fabs", "cross"]);

/** The value of a scalar binding (a vector's component) as an expression. */
/**
 * What vector lowering needs of the expression lowering: scalar expressions, struct places, the
 * file's types. expressions.ts's ExprLowering is one; naming it here keeps the import one way.
 */
export interface ExprHost extends ExprLowerer {
  readonly vec: VectorLowering;
  structPlace(e: A.Expr, ctx: Ctx): StructPlace | undefined;
  /** A vector field of a struct mixing types (`bc.v`): its component places (records.ts). */
  recordPlaces(e: A.Expr, ctx: Ctx): { readonly fields: ReadonlyMap<string, Expr>; readonly vector?: VectorType } | undefined;
}

export function scalarValue(b: ScalarBinding): Expr {
  return b.kind === "expr" ? b.expr : { kind: "var", name: b.name };
}

export class VectorLowering {
  constructor(private readonly ex: ExprHost) {}

  private fail(detail: string, pos: A.Pos): never {
    return this.ex.fail(detail, pos);
  }

  /** The scalars a whole-vector assignment writes: a vector variable's temporaries or an element's N cells. */
  targets(target: A.Expr, t: VectorType, ctx: Ctx): Expr[] {
    const b = target.kind === "ident" ? ctx.scope.get(target.name) : undefined;
    if (b?.kind === "vector") {
      return b.comps.map((comp) => comp.kind === "temp" ? { kind: "var", name: comp.name } : this.fail(`cannot assign to "${(target as A.Ident).name}" (a const vector or a vector argument)`, target.pos));
    }
    const p = this.ex.structPlace(target, ctx);
    if (p && isStructValue(p) && layoutVector(p.layout)) {
      return Array.from({ length: t.size }, (_, k) => placeElement(p, k));
    }
    const r = this.ex.recordPlaces(target, ctx);
    if (r?.vector) return [...r.fields.values()];
    return this.fail(`cannot assign to this "${t.name}" expression; only vector variables and vector array elements can be assigned`, target.pos);
  }

  /** The vector type of `e`, or undefined for a scalar (or something that is no value). */
  typeOf(e: A.Expr, ctx: Ctx): VectorType | undefined {
    switch (e.kind) {
      case "ident": {
        const b = ctx.scope.get(e.name);
        return b?.kind === "vector" ? b.type : undefined;
      }
      case "binary":
        return e.op === "+" || e.op === "-" || e.op === "*" || e.op === "/" ? this.typeOf(e.left, ctx) ?? this.typeOf(e.right, ctx) : undefined;
      case "unary":
        if (e.op === "-" || e.op === "+") return this.typeOf(e.operand, ctx);
        return e.op === "*" ? this.placeType(e, ctx) : undefined;
      case "conditional": return this.typeOf(e.then, ctx) ?? this.typeOf(e.else, ctx);
      case "cast": return e.type.pointers.length === 0 ? this.ex.file.vectorType(e.type.spec) : undefined;
      case "member": {
        // Fields of a struct passed by value are flattened arguments, never vectors.
        let root: A.Expr = e;
        while (root.kind === "member" && !root.arrow) root = root.target;
        if (root.kind === "ident" && ctx.scope.get(root.name)?.kind === "byValue") return undefined;
        const t = e.arrow ? undefined : this.typeOf(e.target, ctx);
        if (t) {
          this.componentOf(e, t); // a component (a swizzle is the error)
          return undefined;
        }
        return this.placeType(e, ctx);
      }
      case "index": return this.placeType(e, ctx);
      case "call": {
        if (e.callee.kind !== "ident") return undefined;
        const name = e.callee.name;
        const b = ctx.scope.get(name);
        if (b?.kind === "array" && b.dim) return this.placeType(e, ctx);
        const f = this.ex.file.functions.get(name);
        if (f) return f.returnPointers.length === 0 ? this.ex.file.vectorType(f.returnType) : undefined;
        const ctor = this.constructorType(name);
        if (ctor) return ctor;
        if (VECTOR_FUNCTIONS.has(name)) {
          const args = name === "clamp" || name === "normalize" || name === "fabs" ? e.args.slice(0, 1) : e.args;
          for (const a of args) {
            const t = this.typeOf(a, ctx);
            if (t) return t;
          }
        }
        return undefined;
      }
      default: return undefined;
    }
  }

  /** `float3` or `make_float3`: the type they construct (unless the file defines a function of that name). */
  private constructorType(name: string): VectorType | undefined {
    if (this.ex.file.functions.has(name)) return undefined;
    return this.ex.file.vectorTypeName(name.startsWith("make_") ? name.slice(5) : name);
  }

  private placeType(e: A.Expr, ctx: Ctx): VectorType | undefined {
    const p = this.ex.structPlace(e, ctx);
    return p && isStructValue(p) ? layoutVector(p.layout) : p ? undefined : recordValueType(this.ex.file.structs, e, ctx)?.vector;
  }

  /** Component `e.name` of the vector `e.target` (of type `t`). */
  component(e: A.Member, t: VectorType, ctx: Ctx): Expr {
    const k = this.componentOf(e, t);
    const root = e.target.kind === "ident" ? ctx.scope.get(e.target.name) : undefined;
    if (root?.kind === "vector") return scalarValue(root.comps[k]!);
    return this.comps(e.target, ctx)[k]!;
  }

  /** The index of the component `e` names; swizzles and unknown names are errors. */
  componentOf(e: A.Member, t: VectorType): number {
    const k = componentIndex(t, e.name);
    if (k === undefined) {
      this.fail(`"${t.name}" has no component "${e.name}"; its components are ${componentNames(t).join(", ")} (or s0…s${t.size - 1}); swizzles such as ".xy" are not supported`, e.pos);
    }
    return k;
  }

  /** The components of the vector expression `e` (`want`: the type it must have, for arguments). */
  comps(e: A.Expr, ctx: Ctx, want?: VectorType): Expr[] {
    const t = this.typeOf(e, ctx);
    if (!t) return this.fail(want ? `a "${want.name}" is expected here, not a scalar (OCCA's one-argument constructor would set only .x; write ${want.name}(…) with every component)` : "a vector is expected here", e.pos);
    if (want && (want.name !== t.name)) this.fail(`a "${want.name}" is expected here, not a "${t.name}" (vector types are not converted)`, e.pos);
    switch (e.kind) {
      case "ident": {
        const b = ctx.scope.get(e.name);
        if (b?.kind === "vector") return b.comps.map(scalarValue);
        break;
      }
      case "binary": {
        if (e.op !== "+" && e.op !== "-" && e.op !== "*" && e.op !== "/") break;
        const l = this.operand(e.left, ctx, t);
        const r = this.operand(e.right, ctx, t);
        return l.map((x, k) => narrow(t, { kind: "arith", op: e.op as "+", left: x, right: r[k]! }));
      }
      case "unary":
        if (e.op === "+") return this.comps(e.operand, ctx, t);
        if (e.op === "-") return this.comps(e.operand, ctx, t).map((x) => narrow(t, { kind: "neg", operand: x }));
        break;
      case "conditional": {
        const cond = this.ex.expr(e.cond, ctx);
        const a = this.comps(e.then, ctx, t);
        const b = this.comps(e.else, ctx, t);
        return a.map((x, k) => ({ kind: "if", cond, then: x, else: b[k]! }));
      }
      case "cast": return this.comps(e.operand, ctx, t);
      case "call": {
        const call = this.call(e, t, ctx);
        if (call) return call;
        break;
      }
      default: break;
    }
    const p = this.ex.structPlace(e, ctx);
    if (p && isStructValue(p) && layoutVector(p.layout)) return Array.from({ length: t.size }, (_, k) => placeElement(p, k));
    const r = p ? undefined : this.ex.recordPlaces(e, ctx);
    if (r?.vector) return [...r.fields.values()];
    return this.fail(`this vector expression (${e.kind}) is not supported`, e.pos);
  }

  /** The components of an operand of a `t` operation: a scalar operand is broadcast to every component. */
  operand(x: A.Expr, ctx: Ctx, t: VectorType): Expr[] {
    return this.typeOf(x, ctx) ? this.comps(x, ctx, t) : Array<Expr>(t.size).fill(toComponent(t, this.ex.expr(x, ctx)));
  }

  private call(e: A.Call, t: VectorType, ctx: Ctx): Expr[] | undefined {
    const name = (e.callee as A.Ident).name;
    const f = this.ex.file.functions.get(name);
    if (f) {
      if (!expressionInlinable(f)) {
        if (!ctx.stmtVectorCall) return this.fail(`call of "${f.name}" (a device function with loops) cannot be lowered here`, e.pos);
        return ctx.stmtVectorCall(f, e, ctx);
      }
      return inlineVectorCall(this.ex, f, e, ctx);
    }
    const arity = (n: number) => {
      if (e.args.length !== n) this.fail(`${name} takes ${n} argument(s), not ${e.args.length}`, e.pos);
    };
    if (this.constructorType(name)) {
      if (name.startsWith("make_")) arity(t.size);
      if (!name.startsWith("make_") && e.args.length === 1 && this.typeOf(e.args[0]!, ctx)) return this.comps(e.args[0]!, ctx, t); // copy
      if (e.args.length > t.size) this.fail(`${name} takes at most ${t.size} components, not ${e.args.length}`, e.pos);
      if (e.args.length === 1) this.fail(`${name}(s) with one scalar sets only .x in OCCA's serial mode (and every component in OpenCL); write all ${t.size} components`, e.pos);
      // OCCA's constructors: missing components are 0.
      return Array.from({ length: t.size }, (_, k) => toComponent(t, e.args[k] ? this.ex.expr(e.args[k]!, ctx) : c(0)));
    }
    switch (name) {
      case "normalize":
        arity(1);
        return normalizeOf(t, this.comps(e.args[0]!, ctx, t));
      case "clamp": {
        arity(3);
        const v = this.comps(e.args[0]!, ctx, t);
        const [lo, hi] = e.args.slice(1).map((a) => {
          if (this.typeOf(a, ctx)) this.fail(`clamp of a "${t.name}": the bounds must be scalars (OCCA's clamp(v, min, max))`, a.pos);
          return toComponent(t, this.ex.expr(a, ctx));
        });
        return v.map((x) => clampOf(x, lo!, hi!));
      }
      case "min": case "max": case "fmin": case "fmax": {
        arity(2);
        const [a, b] = e.args.map((x) => this.operand(x, ctx, t));
        return a!.map((x, k) => ({ kind: "call", fn: name.endsWith("min") ? "min" : "max", args: [x, b![k]!] }));
      }
      case "fabs":
        arity(1);
        return this.comps(e.args[0]!, ctx, t).map((x) => ({ kind: "call", fn: "fabs", args: [x] }));
      case "cross":
        arity(2);
        if (t.size !== 3) this.fail(`cross takes 3-component vectors, not "${t.name}"`, e.pos);
        return crossOf(t, this.comps(e.args[0]!, ctx, t), this.comps(e.args[1]!, ctx, t));
      default: return undefined;
    }
  }
}

/** The components a vector declarator is initialized with: a vector value, or `{a, b, c}` (missing ones 0). */
export function vectorInit(ex: ExprHost, t: VectorType, d: A.Declarator, ctx: Ctx, fail: Fail): Expr[] {
  const init = d.init!;
  if (init.kind !== "initList") return ex.vec.comps(init, ctx, t);
  if (init.items.length > t.size || init.designators.some((x) => x !== undefined) || init.items.some((x) => x.kind === "initList")) {
    fail(`"${t.name}" "${d.name}": an initializer list takes at most ${t.size} scalars`, d.pos);
  }
  return Array.from({ length: t.size }, (_, k) => toComponent(t, init.items[k] ? ex.expr(init.items[k]!, ctx) : c(0)));
}

const COMPOUND: Readonly<Record<string, "+" | "-" | "*" | "/">> = { "+=": "+", "-=": "-", "*=": "*", "/=": "/" };

/** The values a whole-vector assignment `lhs op= value` stores in the components `lhs`. */
export function vectorAssignment(ex: ExprHost, e: A.Assign, t: VectorType, lhs: readonly Expr[], ctx: Ctx, fail: Fail): Expr[] {
  if (e.op === "=") return ex.vec.comps(e.value, ctx, t);
  const op = COMPOUND[e.op] ?? fail(`"${e.op}" on a "${t.name}" vector is not supported (OCCA defines = += -= *= /=)`, e.pos);
  const v = ex.vec.operand(e.value, ctx, t);
  return lhs.map((l, k) => narrow(t, { kind: "arith", op, left: l, right: v[k]! }));
}

/**
 * The values to store component by component: `rhs` itself, or, when a component's value reads a
 * component stored before it (`v = cross(v, w)`, `a[i] = a[i] * 2` through another element), each
 * value first copied to a scalar by `stage(k)`, so every value sees the vector before the assignment.
 */
export function stageVector(lhs: readonly Expr[], rhs: readonly Expr[], stage: (k: number) => Expr): Expr[] {
  const reads = (x: Expr, l: Expr): boolean => {
    let hit = false;
    walkExpr(x, (n) => {
      if (l.kind === "var" && n.kind === "var" && n.name === l.name) hit = true;
      if (l.kind === "subscript" && (n.kind === "subscript" || n.kind === "linear") && n.array === l.array) hit = true;
    });
    return hit;
  };
  const hazard = rhs.some((x, k) => lhs.slice(0, k).some((l) => reads(x, l)));
  return hazard ? rhs.map((_, k) => stage(k)) : [...rhs];
}
