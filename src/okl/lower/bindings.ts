/**
 * What names mean while OKL is lowered: bindings in nested scopes, the lowering context of a
 * statement, and the compile-time value of an integer expression under a scope.
 *
 *   const s = new Scope(globals); s.set("n", { kind: "expr", expr: c(16) }); constValue(nAst, s)   // 16
 */
import type { Dtype, Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { RecordType } from "./record-type.js";
import type { StructLayout } from "./structs.js";
import type { VectorType } from "./vectors.js";

/** Reports a lowering error at `pos` (FileContext.fail). */
export type Fail = (detail: string, pos: A.Pos, rule?: string) => never;

/** `@dim(D0, D1, …)` and `@dimOrder`: `x(i0, i1, …)` is element i_o0 + D_o0 * (i_o1 + D_o1 * (…)) of the flat array (expr-calls.ts dimIndex). */
export interface DimView { readonly dims: readonly Expr[]; readonly order: readonly number[] }

/**
 * What a name means inside a kernel. A local pointer aliasing an array (`const float *p = a + k;`)
 * is the array binding with an `offset` added to its (flat) subscripts.
 */
export type Binding =
  | {
      readonly kind: "array"; readonly name: string; readonly dim?: DimView;
      readonly offset?: Expr; readonly struct?: StructLayout;
      /** A target of a pointer chosen among regions of one array (ping-pong buffers): its region, kept when the pointer is offset (chosen-regions.ts). */
      readonly region?: string;
      /** An array field of a struct passed by value: its extents (row-major subscripts), and it is read-only (C copies it). */
      readonly extents?: readonly number[];
    }
  | { readonly kind: "absent"; readonly reason: string }
  /** A file-scope array with an initializer list, read as a constant table: its extents and row-major values. */
  | { readonly kind: "table"; readonly name: string; readonly shape: readonly number[]; readonly values: readonly Expr[]; readonly offset?: Expr }
  /**
   * A local pointer assigned in a switch, an if/else chain or `?:` (`z = gllz_02;` … `default: z =
   * data;`): the first option whose `when` holds (a comparison of the choice snapshot, taken where
   * the pointer was assigned) is its target, else `otherwise` (pointer-choice.ts).
   */
  | { readonly kind: "choice"; readonly name: string; readonly options: readonly { readonly when: Expr; readonly target: Binding }[]; readonly otherwise: Binding }
  | { readonly kind: "byValue"; readonly name: string; readonly field: (path: readonly string[], pos: A.Pos) => Binding }
  | { readonly kind: "value"; readonly name: string }
  | { readonly kind: "expr"; readonly expr: Expr }
  /** A local or @shared array (or scalar: rank 0); `dim`: a 1-D one declared with @dim (`@shared double s[P * Q] @dim(P, Q)`). */
  | {
      readonly kind: "temp"; readonly name: string; readonly rank: number; readonly offset?: Expr; readonly struct?: StructLayout; readonly dim?: DimView;
      /** As an array's: the region of one array a chosen pointer's target is in (chosen-regions.ts). */
      readonly region?: string;
      /** A multi-dimensional array also used as a flat pointer (flat-views.ts): its extents, row-major. */
      readonly rows?: readonly number[];
      /** An object of a class template stored as an array of one struct (class-calls.ts): its name is the struct value, `&obj` the array. */
      readonly object?: true;
    }
  /**
   * A pointer to one scalar (`&r`, `&s.f` passed to a device function): `*p` and `p[0]` are `place`
   * (an IR variable or element). `name` is the user's variable (for errors); `writable` is false
   * for a const local or a kernel argument, which C would not let a caller write through.
   */
  /**
   * A local of a struct with no single-dtype layout (mixed int and double fields; record-type.ts):
   * one private temporary per scalar leaf (`fields`, keyed by path: `u`, `vals`, `n.x`), a flat
   * array for an array field; `&s` is this binding too (records.ts).
   */
  | {
      readonly kind: "record"; readonly name: string; readonly struct: string; readonly type: RecordType; readonly fields: ReadonlyMap<string, Binding>;
      /** Its pointer fields (`bc.usrwrk`), each the alias of the array it is assigned (record-pointers.ts). */
      readonly pointers?: ReadonlyMap<string, PointerAlias>;
    }
  /**
   * A pointer argument to, or a local array of, a struct whose fields mix types (`bcData *bc`): one
   * array per scalar leaf, `field(f)` its name (an argument `bc_u`, made on first use, or a
   * temporary: `local`); `bc[i].u` is `bc_u[offset + i]`, `bc->u` and `(*bc).u` are `bc_u[offset]`,
   * `bc[i].vals[k]` is `bc_vals[(offset + i)*3 + k]` (records.ts). `value`: one struct, element
   * `offset` (a struct parameter passed by value): `b.u` is `bc_u[offset]`. `dims`: a local array
   * of them with more than one dimension (`bc_t b[2][3]`), whose elements are stored row-major.
   */
  | { readonly kind: "records"; readonly name: string; readonly struct: string; readonly type: RecordType; readonly fields: ReadonlyMap<string, Dtype>; readonly field: (name: string, pos: A.Pos) => string; readonly offset?: Expr; readonly local?: boolean; readonly value?: boolean; readonly dims?: readonly number[] }
  /** A local array of pointers (`dfloat *rhsq[3];`): the alias of each slot once assigned at a compile-time subscript. */
  | { readonly kind: "pointers"; readonly name: string; readonly slots: (Binding | undefined)[]; readonly preds: number }
  | { readonly kind: "ref"; readonly name: string; readonly place: Expr; readonly writable: boolean; readonly pos: A.Pos }
  | { readonly kind: "vector"; readonly type: VectorType; readonly comps: readonly ScalarBinding[] };

/**
 * A pointer field of a struct local (`bc.usrwrk = W;`): the alias it holds once assigned
 * (`binding`), the assignment's place and the text assigned (for errors). Filled in by the first
 * assignment; a later one must give the same alias (record-pointers.ts).
 */
export interface PointerAlias {
  binding: Binding | undefined;
  at: A.Pos | undefined;
  text: string;
}

/** A component of a vector variable: a private scalar, an expression (a const local, an inlined parameter) or a kernel argument. */
export type ScalarBinding = Extract<Binding, { kind: "temp" | "expr" | "value" }>;

/** `b`, the binding of a name being used; naming an `absent` one fails with its reason. */
export function usable(b: Binding | undefined, fail: (reason: string) => never): Exclude<Binding, { kind: "absent" }> | undefined {
  return b?.kind === "absent" ? fail(b.reason) : b;
}

/**
 * `absent`: a kernel argument with no IR type (a pointer to pointers, a pointer to a struct that
 * cannot be lowered), left out of the kernel's arguments; naming it fails with `reason`.
 * `byValue`: a struct argument passed by value, one kernel argument per field the kernel reads:
 * `field(["cc", "ccc"])` is the binding of `c.cc.ccc` (a value, an array, or a struct array).
 */
/** The bindings of one block, falling back to the enclosing one's. */
export class Scope {
  private readonly vars = new Map<string, Binding>();
  constructor(readonly parent?: Scope) {}
  get(n: string): Binding | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const b = s.vars.get(n);
      if (b !== undefined) return b;
    }
    return undefined;
  }
  set(n: string, b: Binding): void {
    this.vars.set(n, b);
  }
}

/** Where a statement is lowered: its scope, enclosing inames and predicates, and the kind of loop it is in. */
export interface Ctx {
  readonly scope: Scope;
  readonly within: readonly string[];
  readonly preds: readonly Expr[];
  /** Inside an @outer nest / an @inner loop / a regular loop inside @outer. */
  readonly outer: boolean;
  readonly inner: boolean;
  readonly seqLoop: boolean;
  /**
   * The conditions under which only some work-items evaluate the expression being lowered: of the
   * `?:` whose arm it is, of the left operand of the `&&` / `||` whose right operand it is (a warp
   * shuffle there must be reached by whole sub-groups: warp-shuffles.ts).
   */
  readonly arms?: readonly Expr[];
  /**
   * Inside an opaque block: lowers a call of a device function that needs statements (loops,
   * early returns) before the expression using it, and gives the expression its value.
   */
  readonly stmtCall?: (f: A.FunctionDef, e: A.Call, ctx: Ctx) => Expr;
  /** The same for a device function returning a vector: its components. */
  readonly stmtVectorCall?: (f: A.FunctionDef, e: A.Call, ctx: Ctx) => Expr[];
}

/** The value of a compile-time integer expression (literals, arithmetic, constant bindings), or undefined. */
export function constValue(e: A.Expr, scope: Scope): number | undefined {
  switch (e.kind) {
    case "int": case "char": return e.value;
    case "bool": return e.value ? 1 : 0;
    case "ident": {
      const b = scope.get(e.name);
      return b?.kind === "expr" && b.expr.kind === "const" && Number.isInteger(b.expr.value) ? b.expr.value : undefined;
    }
    case "unary": {
      const v = constValue(e.operand, scope);
      if (v === undefined) return undefined;
      return e.op === "-" ? -v : e.op === "+" ? v : e.op === "!" ? (v ? 0 : 1) : e.op === "~" ? ~v : undefined;
    }
    case "cast": return constValue(e.operand, scope);
    case "conditional": {
      const cnd = constValue(e.cond, scope);
      return cnd === undefined ? undefined : constValue(cnd ? e.then : e.else, scope);
    }
    case "binary": {
      const a = constValue(e.left, scope);
      const b = constValue(e.right, scope);
      if (a === undefined || b === undefined) return undefined;
      switch (e.op) {
        case "+": return a + b;
        case "-": return a - b;
        case "*": return a * b;
        case "/": return b === 0 ? undefined : Math.trunc(a / b);
        case "%": return b === 0 ? undefined : a % b;
        case "<<": return a << b;
        case ">>": return a >> b;
        case "&": return a & b;
        case "|": return a | b;
        case "^": return a ^ b;
        case "<": return +(a < b);
        case ">": return +(a > b);
        case "<=": return +(a <= b);
        case ">=": return +(a >= b);
        case "==": return +(a === b);
        case "!=": return +(a !== b);
        case "&&": return +(a !== 0 && b !== 0);
        case "||": return +(a !== 0 || b !== 0);
      }
      return undefined;
    }
    default: return undefined;
  }
}
