/**
 * THE CONTRACT of the OKL front end: the typed AST that `parseOklAst` returns and that the lowering
 * (`src/okl/lower/`) consumes. Plain readonly data, discriminated unions on `kind`; every node
 * carries a `pos`. After its first version this file is only ADDED to (new optional fields, new
 * union members), never changed incompatibly.
 *
 * Shape of a file:
 *
 * ```
 * TranslationUnit { items: (FunctionDef | Declaration | Pragma)[] }
 * FunctionDef     { attributes, returnType: TypeSpec, returnPointers, name, params: Param[], body?, isKernel }
 * Declaration     { attributes (prefix), spec: TypeSpec, declarators: Declarator[] }   // also typedefs and struct definitions
 * Declarator      { name, pointers, arrayDims, attributes (postfix), init?, okl: OklVarInfo }
 * Stmt            compound | expr | declaration | if | for (+ okl: OklLoop) | while | doWhile | break | continue
 *                 | return | empty | barrier | atomic | pragma
 * Expr            full C expressions (literals with suffixes, unary/binary/ternary/assignment, casts, sizeof,
 *                 calls, subscripts, members, comma, brace initializer lists)
 * ```
 *
 * Attributes in every position (legacy prefix `@outer for`, 4th for clause `for (...; @outer)`,
 * postfix on a declarator `float *a @restrict @dim(N, M)`, normalized `[[okl_outer("(1)")]]`) end up
 * as `Attribute` records on the node they apply to; the parser also decodes the OKL meaning of loop
 * and variable attributes (`For.okl`, `Declarator.okl`) so consumers need not re-read argument text.
 */
import type { OklWarning } from "./diag.js";
import type { OklError } from "../../errors.js";

/**
 * A span of the ORIGINAL source (before preprocessing): 1-based `line`/`column` of the first
 * character, 0-based `offset` of the first character and `end` one past the last one. `file` is set
 * when the text came from an `#include`d file (then line/column/offset are in that file).
 */
export interface Pos {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
  readonly end: number;
  readonly file?: string;
}

// ─── attributes ──────────────────────────────────────────────────────────────────────────────────

/** Where an attribute was written. */
export type AttributePlacement =
  | "prefix" //      `@outer for (...)`, `@shared float s[8];`, `@kernel void f()`
  | "forClause" //   `for (int i = 0; i < N; ++i; @outer)`
  | "postfix" //     `float *a @restrict`, `int *m @dim(3, 4)`
  | "nested"; //     `@outer` inside `@tile(16, @outer, @inner)`

/** One argument of an attribute: an expression, a nested attribute (`@tile`), or `kw=value`. */
export type AttributeArg =
  | { readonly kind: "exprArg"; readonly raw: string; readonly expr: Expr; readonly pos: Pos }
  | { readonly kind: "attrArg"; readonly raw: string; readonly attr: Attribute; readonly pos: Pos }
  | { readonly kind: "kwArg"; readonly raw: string; readonly name: string; readonly value: Expr; readonly pos: Pos };

/**
 * An OKL attribute. `name` is the legacy name without `@`/`okl_` (`outer`, `dimOrder`,
 * `max_inner_dims`). `argsText` is the text between the parentheses exactly as written (undefined
 * when there were no parentheses); `args` are its parsed comma-separated parts.
 */
export interface Attribute {
  readonly kind: "attribute";
  readonly name: string;
  readonly args: readonly AttributeArg[];
  readonly argsText: string | undefined;
  /** `legacy`: `@name(...)`; `normalized`: `[[okl_name("...")]]` (or `[[okl::name("...")]]`). */
  readonly syntax: "legacy" | "normalized";
  readonly placement: AttributePlacement;
  readonly pos: Pos;
}

// ─── types ───────────────────────────────────────────────────────────────────────────────────────

export type TypeQualifier = "const" | "volatile" | "restrict";
export type StorageClass = "typedef" | "static" | "extern" | "inline" | "register" | "constexpr";

/** A field of a struct or union: a declaration without initializers. */
export interface StructField {
  readonly kind: "field";
  readonly attributes: readonly Attribute[];
  readonly spec: TypeSpec;
  readonly declarators: readonly Declarator[];
  readonly pos: Pos;
}

export interface EnumMember {
  readonly kind: "enumMember";
  readonly name: string;
  readonly value: Expr | undefined;
  readonly pos: Pos;
}

/**
 * The base type of a specifier. `builtin.name` is canonical: the words in a fixed order, `signed`
 * dropped where implied and `int` dropped after short/long (`unsigned int`, `long long`, `unsigned
 * char`, `float`, `double`, `void`, `bool`, `size_t`, `ptrdiff_t`, OCCA vector types like `float4`
 * are `named`). `named` is a typedef name or any other identifier used as a type.
 */
export type BaseType =
  | { readonly kind: "builtin"; readonly name: string; readonly pos: Pos }
  | { readonly kind: "named"; readonly name: string; readonly pos: Pos }
  | {
      readonly kind: "struct";
      readonly tag: "struct" | "union";
      readonly name: string | undefined;
      /** Present when the body `{ ... }` is written here. */
      readonly fields: readonly StructField[] | undefined;
      readonly pos: Pos;
    }
  | {
      readonly kind: "enum";
      readonly name: string | undefined;
      readonly members: readonly EnumMember[] | undefined;
      readonly pos: Pos;
    };

/** Declaration specifiers: storage classes, qualifiers and the base type (`static const float`). */
export interface TypeSpec {
  readonly kind: "typeSpec";
  readonly storage: readonly StorageClass[];
  readonly qualifiers: readonly TypeQualifier[];
  readonly base: BaseType;
  readonly pos: Pos;
}

/** One `*` of a declarator with the qualifiers after it (`* const`, `* __restrict__`). */
export interface PointerLevel {
  readonly qualifiers: readonly TypeQualifier[];
}

/** A type without a name, as in casts and `sizeof(T)`: `(const float *)`, `(int[4])`. */
export interface TypeName {
  readonly kind: "typeName";
  readonly spec: TypeSpec;
  readonly pointers: readonly PointerLevel[];
  readonly arrayDims: readonly (Expr | undefined)[];
  readonly pos: Pos;
}

// ─── declarations ────────────────────────────────────────────────────────────────────────────────

/**
 * The OKL meaning of a variable's attributes (its declaration's prefix attributes plus its own
 * postfix ones), decoded by the parser. Attributes reached through a typedef are NOT merged here:
 * look up the typedef's declarator (`Declaration.spec.storage` includes "typedef").
 */
export interface OklVarInfo {
  readonly shared: boolean;
  readonly exclusive: boolean;
  readonly restrict: boolean;
  /** `@dim(d0, d1, ...)`: the dimension expressions. */
  readonly dim: readonly Expr[] | undefined;
  /** `@dimOrder(p0, ...)`: a permutation of 0..n-1 (fastest-varying first). */
  readonly dimOrder: readonly number[] | undefined;
}

/** One declared name: `*const *p[N][M] @dim(..) = init`. Pointers are listed outermost first. */
export interface Declarator {
  readonly kind: "declarator";
  /** Empty for an unnamed parameter (`void f(int)`). */
  readonly name: string;
  readonly pointers: readonly PointerLevel[];
  /** `[N]` dimensions in source order; `undefined` for `[]`. */
  readonly arrayDims: readonly (Expr | undefined)[];
  /** Postfix attributes written after this declarator. */
  readonly attributes: readonly Attribute[];
  readonly init: Expr | undefined;
  readonly okl: OklVarInfo;
  readonly pos: Pos;
  /** A C++ reference parameter `const int &n` (OCCA accepts it for by-value kernel arguments). */
  readonly reference?: boolean;
}

/** `@shared const float a[4], b[4];`, `typedef float *mat @dim(4, 4);`, `struct S { int x; };` */
export interface Declaration {
  readonly kind: "declaration";
  /** Prefix attributes (apply to every declarator). */
  readonly attributes: readonly Attribute[];
  readonly spec: TypeSpec;
  readonly declarators: readonly Declarator[];
  readonly pos: Pos;
}

/** A function parameter; `declarator.name` may be empty. `void f(void)` has no params. */
export interface Param {
  readonly kind: "param";
  readonly attributes: readonly Attribute[];
  readonly spec: TypeSpec;
  readonly declarator: Declarator;
  readonly pos: Pos;
}

/** A function: a `@kernel` (`isKernel`), a device function, or a prototype (`body` undefined). */
export interface FunctionDef {
  readonly kind: "function";
  readonly attributes: readonly Attribute[];
  readonly returnType: TypeSpec;
  readonly returnPointers: readonly PointerLevel[];
  readonly name: string;
  readonly params: readonly Param[];
  readonly body: Compound | undefined;
  readonly isKernel: boolean;
  readonly pos: Pos;
}

/** A `#pragma` line kept in the output (anything but `#pragma occa ...`), e.g. `#pragma unroll`. */
export interface Pragma {
  readonly kind: "pragma";
  /** The text after `#pragma`, trimmed. */
  readonly text: string;
  readonly attributes: readonly Attribute[];
  readonly pos: Pos;
}

export type TopLevel = FunctionDef | Declaration | Pragma;

export interface TranslationUnit {
  readonly kind: "translationUnit";
  readonly filename: string | undefined;
  readonly items: readonly TopLevel[];
  readonly pos: Pos;
  /** What OCCA accepts and C does not, accepted as OCCA does (`#if X=1`, an unclosed `#if`); see diag.ts. */
  readonly warnings?: readonly OklWarning[];
  /**
   * A refusal parseOkl throws once the lowering has accepted the unit: where the lowering refuses the
   * same code, its own message (which names the construct it cannot express) is the one reported
   * (carried-privates.ts).
   */
  readonly refusal?: OklError;
}

// ─── statements ──────────────────────────────────────────────────────────────────────────────────

/** Fields every statement has: its prefix attributes and its span. */
interface StmtBase {
  readonly attributes: readonly Attribute[];
  readonly pos: Pos;
}

export interface Compound extends StmtBase {
  readonly kind: "compound";
  readonly items: readonly Stmt[];
}
export interface ExprStmt extends StmtBase {
  readonly kind: "expr";
  readonly expr: Expr;
}
export interface If extends StmtBase {
  readonly kind: "if";
  readonly cond: Expr;
  readonly then: Stmt;
  readonly else: Stmt | undefined;
}

/** An `@outer`/`@inner` level, also used for the two loops of a `@tile`. */
export interface OklLoopLevel {
  readonly kind: "outer" | "inner";
  /** Explicit axis (0, 1 or 2) or undefined (numbered from the innermost, see OKL.md §3.3). */
  readonly axis: number | undefined;
}

/** The OKL meaning of a `for`'s attributes, decoded by the parser. */
export type OklLoop =
  | OklLoopLevel
  | {
      readonly kind: "tile";
      readonly size: Expr;
      /** Attribute of the block loop (`undefined`: a plain loop). */
      readonly outer: OklLoopLevel | undefined;
      /** Attribute of the in-tile loop (`undefined`: a plain loop). */
      readonly inner: OklLoopLevel | undefined;
      /** `check=` (default true): guard the body with the original condition. */
      readonly check: boolean;
    };

/**
 * `for (init; cond; update) body`. `attributes` holds both prefix and 4th-clause attributes (see
 * `Attribute.placement`); `okl` is their decoded loop kind (undefined for a regular loop).
 */
export interface For extends StmtBase {
  readonly kind: "for";
  readonly init: Declaration | Expr | undefined;
  readonly cond: Expr | undefined;
  readonly update: Expr | undefined;
  readonly body: Stmt;
  readonly okl: OklLoop | undefined;
  /** `@nobarrier`: no implicit barrier after this inner loop. */
  readonly nobarrier: boolean;
  /** Other loop attributes (`max_inner_dims`, `simd_length`) decoded: name -> integer args. */
  readonly loopHints: Readonly<Record<string, readonly number[]>>;
}
export interface While extends StmtBase {
  readonly kind: "while";
  readonly cond: Expr;
  readonly body: Stmt;
}
export interface DoWhile extends StmtBase {
  readonly kind: "doWhile";
  readonly body: Stmt;
  readonly cond: Expr;
}
export interface Break extends StmtBase {
  readonly kind: "break";
}
export interface Continue extends StmtBase {
  readonly kind: "continue";
}
export interface Return extends StmtBase {
  readonly kind: "return";
  readonly value: Expr | undefined;
}
/** `;` */
export interface Empty extends StmtBase {
  readonly kind: "empty";
}
/** `@barrier;` or `@barrier("warp");` — `attributes` still holds the `barrier` attribute. */
export interface Barrier extends StmtBase {
  readonly kind: "barrier";
  readonly scope: "block" | "warp";
}
/** `@atomic x += 1;` or `@atomic { ... }` — `body` is an expression or compound statement. */
export interface Atomic extends StmtBase {
  readonly kind: "atomic";
  readonly body: ExprStmt | Compound;
}
/** A `switch` statement (cases are `case`/`default` labels among the body's items). */
export interface Switch extends StmtBase {
  readonly kind: "switch";
  readonly cond: Expr;
  readonly body: Stmt;
}
/** `case e:` / `default:` labels inside a switch body, followed by their statement. */
export interface CaseLabel extends StmtBase {
  readonly kind: "case";
  /** undefined for `default:` */
  readonly value: Expr | undefined;
  readonly body: Stmt;
}

export type Stmt =
  | Compound
  | ExprStmt
  | Declaration
  | If
  | For
  | While
  | DoWhile
  | Break
  | Continue
  | Return
  | Empty
  | Barrier
  | Atomic
  | Switch
  | CaseLabel
  | Pragma;

// ─── expressions ─────────────────────────────────────────────────────────────────────────────────

export type UnaryOp = "-" | "+" | "!" | "~" | "*" | "&" | "++" | "--";
export type PostfixOp = "++" | "--";
export type BinaryOp =
  | "*" | "/" | "%" | "+" | "-" | "<<" | ">>"
  | "<" | ">" | "<=" | ">=" | "==" | "!="
  | "&" | "^" | "|" | "&&" | "||";
export type AssignOp = "=" | "*=" | "/=" | "%=" | "+=" | "-=" | "<<=" | ">>=" | "&=" | "^=" | "|=";

/**
 * Integer literal. `value` is the number (exact up to 2^53), `text` the literal as written,
 * `suffix` its lowercased suffix (`u`, `l`, `ul`, `ll`, `ull`, or "").
 */
export interface IntLit {
  readonly kind: "int";
  readonly value: number;
  readonly text: string;
  readonly suffix: string;
  readonly pos: Pos;
}
/** Floating literal; `suffix` is `f`, `l` or "" (lowercased). */
export interface FloatLit {
  readonly kind: "float";
  readonly value: number;
  readonly text: string;
  readonly suffix: string;
  readonly pos: Pos;
}
/** Character literal `'a'`; `value` is its code. */
export interface CharLit {
  readonly kind: "char";
  readonly value: number;
  readonly text: string;
  readonly pos: Pos;
}
/** String literal (adjacent literals concatenated); `value` unescaped, `text` as written. */
export interface StringLit {
  readonly kind: "string";
  readonly value: string;
  readonly text: string;
  readonly pos: Pos;
}
/** `true` / `false` */
export interface BoolLit {
  readonly kind: "bool";
  readonly value: boolean;
  readonly pos: Pos;
}
export interface Ident {
  readonly kind: "ident";
  readonly name: string;
  readonly pos: Pos;
}
/** Prefix operator: `-x`, `!x`, `*p`, `&x`, `++i`. */
export interface Unary {
  readonly kind: "unary";
  readonly op: UnaryOp;
  readonly operand: Expr;
  readonly pos: Pos;
}
/** `i++`, `i--` */
export interface Postfix {
  readonly kind: "postfix";
  readonly op: PostfixOp;
  readonly operand: Expr;
  readonly pos: Pos;
}
export interface Binary {
  readonly kind: "binary";
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
  readonly pos: Pos;
}
/** `target op= value`, including plain `=`. */
export interface Assign {
  readonly kind: "assign";
  readonly op: AssignOp;
  readonly target: Expr;
  readonly value: Expr;
  readonly pos: Pos;
}
/** `cond ? then : else` */
export interface Conditional {
  readonly kind: "conditional";
  readonly cond: Expr;
  readonly then: Expr;
  readonly else: Expr;
  readonly pos: Pos;
}
/** `(T) e` */
export interface Cast {
  readonly kind: "cast";
  readonly type: TypeName;
  readonly operand: Expr;
  readonly pos: Pos;
}
/** `sizeof(T)` (type set) or `sizeof e` (operand set). */
export interface SizeOf {
  readonly kind: "sizeof";
  readonly type: TypeName | undefined;
  readonly operand: Expr | undefined;
  readonly pos: Pos;
}
/** `f(a, b)`; also `x(i, j)` on a `@dim` variable (the lowering decides which). */
export interface Call {
  readonly kind: "call";
  readonly callee: Expr;
  readonly args: readonly Expr[];
  readonly pos: Pos;
}
/** `a[i]` */
export interface Index {
  readonly kind: "index";
  readonly target: Expr;
  readonly index: Expr;
  readonly pos: Pos;
}
/** `s.x` or `p->x` (`arrow`). */
export interface Member {
  readonly kind: "member";
  readonly target: Expr;
  readonly name: string;
  readonly arrow: boolean;
  readonly pos: Pos;
}
/** `a, b, c` */
export interface Comma {
  readonly kind: "comma";
  readonly exprs: readonly Expr[];
  readonly pos: Pos;
}
/** `{1, 2, {3}}` in an initializer; `designators` parallel to `items` (`.x =`, `[2] =`, or undefined). */
export interface InitList {
  readonly kind: "initList";
  readonly items: readonly Expr[];
  readonly designators: readonly (string | undefined)[];
  readonly pos: Pos;
}

export type Expr =
  | IntLit
  | FloatLit
  | CharLit
  | StringLit
  | BoolLit
  | Ident
  | Unary
  | Postfix
  | Binary
  | Assign
  | Conditional
  | Cast
  | SizeOf
  | Call
  | Index
  | Member
  | Comma
  | InitList;

/** Every node kind, for generic walkers. */
export type Node = TranslationUnit | TopLevel | Stmt | Expr | Declarator | Param | TypeSpec | TypeName | Attribute;

/** The attribute named `name` among `attrs` (legacy name, e.g. "outer"), or undefined. */
export function findAttribute(attrs: readonly Attribute[], name: string): Attribute | undefined {
  return attrs.find((a) => a.name === name);
}

/** Every `@kernel` function of a unit, in source order. */
export function kernelsOf(unit: TranslationUnit): readonly FunctionDef[] {
  return unit.items.filter((it): it is FunctionDef => it.kind === "function" && it.isKernel);
}
