/**
 * `sizeof` folded to the integer C gives it, before validation and lowering: `sizeof(T)` of a type
 * (scalars, pointers, arrays, typedefs, structs with C's padding: c-types.ts) and `sizeof e` of an
 * expression whose type the front end knows (a variable, an array element, a struct field through
 * `.` or `->`, a dereference, a literal, a cast, arithmetic of those, a call of a function of the
 * file). As in C the operand is not evaluated, and an array operand does not decay:
 *
 *   @shared double s[8][16];  ...  sizeof(s) / sizeof(s[0])   ->   1024UL / 128UL
 *
 * Anything else `sizeof` is applied to is an OklError naming the operand and what is accepted.
 */
import type { Compound, Declaration, Expr, For, FunctionDef, Param, Stmt, TopLevel, TranslationUnit } from "./ast.js";
import type { OklError } from "../../errors.js";
import { exprChildren } from "./walk.js";
import { CTypeError, INT, SIZE_T, TypeEnv, scalar, sizeOf, type CType } from "./c-types.js";

type Fail = (detail: string, at: Expr) => OklError;

/** `unit` with every `sizeof` replaced by its value (the caller skips units whose tokens have no `sizeof`). */
export function foldSizeof(unit: TranslationUnit, fail: Fail): TranslationUnit {
  return new SizeofFolder(fail).unit(unit);
}

class SizeofFolder {
  private readonly env = new TypeEnv();
  /** Variables in scope, innermost last; undefined: declared with a type the front end cannot size. */
  private readonly vars: Map<string, CType | undefined>[] = [new Map()];
  private readonly functions = new Map<string, CType | undefined>();

  constructor(private readonly fail: Fail) {}

  unit(u: TranslationUnit): TranslationUnit {
    return { ...u, items: u.items.map((it) => this.top(it)) };
  }

  private top(it: TopLevel): TopLevel {
    if (it.kind === "declaration") return this.declaration(it);
    if (it.kind !== "function") return it;
    const ret = this.tryType(() => this.env.base(it.returnType.base));
    this.functions.set(it.name, ret && it.returnPointers.length ? { kind: "pointer", to: ret } : ret);
    if (!it.body) return it;
    this.push();
    const params = it.params.map((p) => this.param(p));
    const body = this.compound(it.body, false);
    this.pop();
    return { ...it, params, body } satisfies FunctionDef;
  }

  private push(): void {
    this.vars.push(new Map());
    this.env.push();
  }

  private pop(): void {
    this.vars.pop();
    this.env.pop();
  }

  private param(p: Param): Param {
    const d = p.declarator;
    const base = this.tryType(() => this.env.base(p.spec.base));
    // An array parameter is a pointer (C adjusts its type); a reference `int &n` has its referent's size.
    const t = base && this.tryType(() => this.env.declared(base, d.arrayDims.length ? [...d.pointers, { qualifiers: [] }] : d.pointers, []));
    if (d.name) this.vars[this.vars.length - 1]!.set(d.name, t);
    return p;
  }

  /** `f()`, or undefined where the type cannot be sized (the error comes only if a sizeof needs it). */
  private tryType(f: () => CType | undefined): CType | undefined {
    try { return f(); } catch (e) { if (e instanceof CTypeError) return undefined; throw e; }
  }

  private declaration(s: Declaration): Declaration {
    const declarators = s.declarators.map((d) => {
      const arrayDims = d.arrayDims.map((e) => e && this.expr(e));
      const init = d.init && this.expr(d.init);
      return arrayDims.some((e, k) => e !== d.arrayDims[k]) || init !== d.init ? { ...d, arrayDims, init } : d;
    });
    const out = declarators.some((d, k) => d !== s.declarators[k]) ? { ...s, declarators } : s;
    this.tryType(() => (this.env.declare(out.spec, out.declarators), undefined));
    if (!out.spec.storage.includes("typedef")) {
      const base = this.tryType(() => this.env.base(out.spec.base));
      for (const d of out.declarators) {
        if (d.name) this.vars[this.vars.length - 1]!.set(d.name, base && this.tryType(() => this.env.declared(base, d.pointers, d.arrayDims)));
      }
    }
    return out;
  }

  private compound(c: Compound, scope = true): Compound {
    if (scope) this.push();
    const items = c.items.map((s) => this.stmt(s));
    if (scope) this.pop();
    return items.some((s, k) => s !== c.items[k]) ? { ...c, items } : c;
  }

  private stmt(s: Stmt): Stmt {
    switch (s.kind) {
      case "compound": return this.compound(s);
      case "declaration": return this.declaration(s);
      case "expr": return { ...s, expr: this.expr(s.expr) };
      case "if": return { ...s, cond: this.expr(s.cond), then: this.scoped(s.then), else: s.else && this.scoped(s.else) };
      case "while": return { ...s, cond: this.expr(s.cond), body: this.scoped(s.body) };
      case "doWhile": return { ...s, body: this.scoped(s.body), cond: this.expr(s.cond) };
      case "switch": return { ...s, cond: this.expr(s.cond), body: this.scoped(s.body) };
      case "case": return { ...s, value: s.value && this.expr(s.value), body: this.stmt(s.body) };
      case "return": return { ...s, value: s.value && this.expr(s.value) };
      case "atomic": return { ...s, body: s.body.kind === "expr" ? { ...s.body, expr: this.expr(s.body.expr) } : this.compound(s.body) };
      case "for": return this.forLoop(s);
      default: return s;
    }
  }

  /** A statement that is a scope of its own (C99: the body of if/while/for). */
  private scoped(s: Stmt): Stmt {
    this.push();
    const out = this.stmt(s);
    this.pop();
    return out;
  }

  private forLoop(s: For): For {
    this.push();
    const init = s.init && (s.init.kind === "declaration" ? this.declaration(s.init) : this.expr(s.init));
    const cond = s.cond && this.expr(s.cond);
    const update = s.update && this.expr(s.update);
    const okl = s.okl?.kind === "tile" ? { ...s.okl, size: this.expr(s.okl.size) } : s.okl;
    const body = this.stmt(s.body);
    this.pop();
    return { ...s, init, cond, update, okl, body };
  }

  /** `e` with its `sizeof`s folded. */
  private expr(e: Expr): Expr {
    if (e.kind === "sizeof") {
      const t = this.sizeofType(e);
      const n = sizeOf(t);
      if (n === undefined) throw this.fail(`sizeof of an incomplete type (${t.kind === "void" ? "void" : "an array of unknown length"}): C gives it no size; accepted are complete object types`, e);
      return { kind: "int", value: n, text: `${n}UL`, suffix: "ul", pos: e.pos };
    }
    const kids = exprChildren(e);
    if (!kids.length) return e;
    const mapped = kids.map((k) => this.expr(k));
    return mapped.every((m, k) => m === kids[k]) ? e : rebuild(e, mapped);
  }

  private sizeofType(e: Extract<Expr, { kind: "sizeof" }>): CType {
    try {
      return e.type ? this.env.typeName(e.type) : this.typeOf(e.operand!);
    } catch (x) {
      if (!(x instanceof CTypeError)) throw x;
      throw this.fail(`sizeof: ${x.message}; accepted are sizeof of a type (scalar, pointer, array, typedef, struct) and of a variable, array element, struct field, dereference, literal, cast or arithmetic of those`, e);
    }
  }

  private lookup(name: string): CType | undefined | null {
    for (let k = this.vars.length - 1; k >= 0; k--) if (this.vars[k]!.has(name)) return this.vars[k]!.get(name);
    return null;
  }

  /** C's type of `e` (not evaluated); CTypeError when the front end cannot tell. */
  private typeOf(e: Expr): CType {
    const show = (x: Expr) => x.kind === "ident" ? `"${x.name}"` : `this ${x.kind} expression`;
    switch (e.kind) {
      case "int": return intLiteral(e.suffix, e.value);
      case "float": return scalar(e.suffix === "f" ? "float" : e.suffix === "l" ? "long double" : "double")!;
      case "char": return INT;
      case "bool": return scalar("bool")!;
      case "string": return { kind: "array", of: scalar("char")!, length: new TextEncoder().encode(e.value).length + 1 };
      case "ident": {
        const t = this.lookup(e.name);
        if (t === null) {
          if (this.env.constant(e.name) !== undefined) return INT;
          // `half` is an identifier in C; undeclared, `sizeof(half)` means the type of the GPU dialects.
          if (e.name === "half") return scalar("half")!;
          throw new CTypeError(`"${e.name}" is not a variable declared before this point`);
        }
        if (t === undefined) throw new CTypeError(`the type of "${e.name}" is not one the front end can size`);
        return t;
      }
      case "index": {
        const t = this.typeOf(e.target);
        if (t.kind === "array") return t.of;
        if (t.kind === "pointer" && t.to) return t.to;
        throw new CTypeError(`${show(e.target)} is not an array or pointer`);
      }
      case "member": {
        let t = this.typeOf(e.target);
        if (e.arrow) t = t.kind === "pointer" && t.to ? t.to : t.kind === "array" ? t.of : t;
        const f = t.kind === "record" ? t.fields.get(e.name) : undefined;
        if (!f) throw new CTypeError(`${show(e.target)} has no field "${e.name}"`);
        return f;
      }
      case "unary": {
        if (e.op === "&") return { kind: "pointer", to: this.typeOf(e.operand) };
        if (e.op === "!") return INT;
        const t = this.typeOf(e.operand);
        if (e.op === "*") {
          if (t.kind === "pointer" && t.to) return t.to;
          if (t.kind === "array") return t.of;
          throw new CTypeError(`${show(e.operand)} is not a pointer`);
        }
        return e.op === "++" || e.op === "--" ? t : promote(t);
      }
      case "postfix": return this.typeOf(e.operand);
      case "binary": return this.binary(e.op, this.typeOf(e.left), this.typeOf(e.right));
      case "assign": return this.typeOf(e.target);
      case "conditional": {
        const a = this.typeOf(e.then), b = this.typeOf(e.else);
        return a.kind === "scalar" && b.kind === "scalar" ? usual(a, b) : decay(a);
      }
      case "cast": return this.env.typeName(e.type);
      case "sizeof": return SIZE_T;
      case "comma": return this.typeOf(e.exprs[e.exprs.length - 1]!);
      case "call": {
        const f = e.callee.kind === "ident" ? this.functions.get(e.callee.name) : undefined;
        if (!f) throw new CTypeError(`the result type of ${e.callee.kind === "ident" ? `"${e.callee.name}(...)"` : "this call"} is not known (only functions defined in the file are)`);
        return f;
      }
      case "initList": throw new CTypeError("a brace initializer list has no type");
    }
  }

  private binary(op: string, a: CType, b: CType): CType {
    if (op === "<" || op === ">" || op === "<=" || op === ">=" || op === "==" || op === "!=" || op === "&&" || op === "||") return INT;
    const pa = a.kind === "pointer" || a.kind === "array", pb = b.kind === "pointer" || b.kind === "array";
    if (pa && pb) return scalar("long")!; // pointer difference: ptrdiff_t
    if (pa) return decay(a);
    if (pb) return decay(b);
    if (a.kind !== "scalar" || b.kind !== "scalar") throw new CTypeError(`operator "${op}" is applied to a ${a.kind === "scalar" ? b.kind : a.kind}`);
    return op === "<<" || op === ">>" ? promote(a) : usual(a, b);
  }
}

/** An integer literal's type from its suffix and value (C: the first of int, long that holds it). */
function intLiteral(suffix: string, value: number): CType {
  const s = suffix.replace("lu", "ul");
  const unsigned = s.includes("u");
  const long = s.includes("l") || value > 0x7fffffff;
  return scalar(`${unsigned ? "unsigned " : ""}${long ? "long" : "int"}`)!;
}

function decay(t: CType): CType {
  return t.kind === "array" ? { kind: "pointer", to: t.of } : t;
}

/** Integer promotion: types narrower than int become int. */
function promote(t: CType): CType {
  return t.kind === "scalar" && !t.float && t.size < 4 ? INT : t;
}

/** C's usual arithmetic conversions of two scalar operands. */
function usual(a: CType, b: CType): CType {
  if (a.kind !== "scalar" || b.kind !== "scalar") return a;
  if (a.float || b.float) return !b.float || (a.float && a.size >= b.size) ? a : b;
  const x = promote(a) as typeof a, y = promote(b) as typeof b;
  if (x.size !== y.size) return x.size > y.size ? x : y;
  return x.unsigned ? x : y;
}

/** `e` with its direct sub-expressions replaced by `kids` (in exprChildren's order). */
function rebuild(e: Expr, kids: readonly Expr[]): Expr {
  const k = (i: number) => kids[i]!;
  switch (e.kind) {
    case "unary": case "postfix": case "cast": return { ...e, operand: k(0) };
    case "sizeof": return { ...e, operand: k(0) };
    case "binary": return { ...e, left: k(0), right: k(1) };
    case "assign": return { ...e, target: k(0), value: k(1) };
    case "conditional": return { ...e, cond: k(0), then: k(1), else: k(2) };
    case "call": return { ...e, callee: k(0), args: kids.slice(1) };
    case "index": return { ...e, target: k(0), index: k(1) };
    case "member": return { ...e, target: k(0) };
    case "comma": return { ...e, exprs: kids };
    case "initList": return { ...e, items: kids };
    default: return e;
  }
}
