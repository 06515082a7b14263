/**
 * Expressions over moving pointers (moving-pointers.ts): a moving pointer `p` is the place it
 * starts from (the name `p` itself, bound once where it is declared) and an offset local. A pointer
 * expression is decomposed into a place (`cls`: which array it points into), its base expression
 * and an offset; reads through it become subscripts of the base, differences and comparisons of two
 * pointers into one place become those of their offsets.
 *
 *   value(`*p`)        // p[p_off]
 *   value(`s - str`)   // s_off - 0, when s started at str
 */
import type * as A from "../syntax/ast.js";
import { exprChildren } from "../syntax/walk.js";
import { rootDecl, type Decl, type Scan } from "./moving-scan.js";

/** Reports an error at a place of the source (FileContext.fail). */
export type PosFail = (detail: string, pos: A.Pos) => never;

/** A moving pointer's offset local and the place it points into. */
export interface Moving {
  readonly off: string;
  readonly cls: object;
  readonly decl: Decl;
  /** `int p_off = init;` */
  offsetDecl(init: A.Expr): A.Declaration;
}

/** A pointer expression as a place, a base expression and an offset (undefined: 0). */
interface Root {
  readonly cls: object;
  readonly base: A.Expr;
  readonly off: A.Expr | undefined;
  /** The moving pointer it derives from (for casts: its element type). */
  readonly from?: Decl;
}

const COMPARE = new Set(["<", ">", "<=", ">=", "==", "!="]);

export class MovingExprs {
  private readonly info = new Map<Decl, Moving>();
  private readonly globals = new Map<string, object>();

  constructor(
    readonly scan: Scan, private readonly names: Set<string>, private readonly fail: PosFail,
    private readonly globalArrays: ReadonlySet<string>,
  ) {}

  /** A name no name of the unit spells, nor one made before (`base`, `base2`, …). */
  fresh(base: string): string {
    let name = base;
    for (let k = 2; this.names.has(name); k++) name = `${base}${k}`;
    this.names.add(name);
    return name;
  }

  /** Starts moving pointer `d` in place `cls` (a parameter: its own place), with a fresh offset name. */
  start(d: Decl, cls: object | undefined): Moving {
    const off = this.fresh(`${d.name}_off`);
    const m: Moving = {
      off, cls: cls ?? d, decl: d,
      offsetDecl: (init) => {
        const pos = d.declarator.pos;
        const spec: A.TypeSpec = { kind: "typeSpec", storage: [], qualifiers: [], base: { kind: "builtin", name: "int", pos }, pos };
        return { kind: "declaration", attributes: [], spec, pos, declarators: [{ kind: "declarator", name: off, pointers: [], arrayDims: [], attributes: [], init, okl: { shared: false, exclusive: false, restrict: false, dim: undefined, dimOrder: undefined }, pos }] };
      },
    };
    this.info.set(d, m);
    return m;
  }

  private moving(e: A.Expr): Moving | undefined {
    if (e.kind !== "ident") return undefined;
    const d = this.scan.byIdent.get(e);
    if (!d?.moving) return undefined;
    return this.info.get(d) ?? this.fail(`moving pointer "${d.name}" is used before it is given a place`, e.pos);
  }

  /** Whether `e` names a moving pointer. */
  touches(e: A.Expr): boolean {
    if (e.kind === "ident") return this.scan.byIdent.get(e)?.moving === true;
    return exprChildren(e).some((x) => this.touches(x));
  }

  /** Whether `e` increments a moving pointer inside it. */
  hasMove(e: A.Expr): boolean {
    if ((e.kind === "postfix" || e.kind === "unary") && (e.op === "++" || e.op === "--") && this.moving(e.operand)) return true;
    return exprChildren(e).some((x) => this.hasMove(x));
  }

  /** A pointer expression into a moving pointer's place (`p`, `p + k`, `&p[k]`, `(T *) p`). */
  private pointsMoving(e: A.Expr): boolean {
    return rootDecl(e, this.scan.byIdent)?.moving === true;
  }

  /** Whether `e` is a pointer expression (by what its names are declared as). */
  private isPointer(e: A.Expr): boolean {
    switch (e.kind) {
      case "ident": {
        const d = this.scan.byIdent.get(e);
        return d ? d.pointer || d.array : this.globalArrays.has(e.name);
      }
      case "binary":
        if (e.op === "-") return this.isPointer(e.left) && !this.isPointer(e.right); // `p - q` is a number
        return e.op === "+" && (this.isPointer(e.left) || this.isPointer(e.right));
      case "unary": return e.op === "&";
      case "cast": return e.type.pointers.length > 0;
      case "string": return true;
      default: return false;
    }
  }

  /** The place, base and offset of pointer expression `e`. */
  root(e: A.Expr): Root {
    switch (e.kind) {
      case "ident": {
        const m = this.moving(e);
        if (m) return { cls: m.cls, base: e, off: ident(m.off, e.pos), from: m.decl };
        const d = this.scan.byIdent.get(e);
        if (d) return { cls: d.assigns.length > 0 ? {} : d, base: e, off: undefined }; // a pointer assigned again is its own place at each use
        let g = this.globals.get(e.name);
        if (!g) this.globals.set(e.name, (g = {}));
        return { cls: g, base: e, off: undefined };
      }
      case "binary":
        if ((e.op === "+" || e.op === "-") && this.isPointer(e.left)) return shift(this.root(e.left), this.value(e.right), e.op, e.pos);
        if (e.op === "+" && this.isPointer(e.right)) return shift(this.root(e.right), this.value(e.left), "+", e.pos);
        break;
      case "unary":
        if (e.op === "&" && e.operand.kind === "index" && this.isPointer(e.operand.target)) return shift(this.root(e.operand.target), this.value(e.operand.index), "+", e.pos);
        break;
      case "cast": {
        if (e.type.pointers.length === 0 || !this.pointsMoving(e.operand)) break;
        const r = this.root(e.operand);
        const own = r.from!;
        const same = e.type.pointers.length === own.declarator.pointers.length && typeName(e.type.spec) === typeName(own.spec);
        if (!same) this.fail(`a cast of moving pointer "${own.name}" to another element type: its offset counts elements of "${typeName(own.spec)}"; read the values and cast them instead`, e.pos);
        return { ...r, base: { ...e, operand: r.base } };
      }
      default: break;
    }
    if (this.touches(e)) this.fail(`"${text(e)}": Loom lowers a moving pointer as a base and an offset and cannot follow it through this expression; use \`p + k\`, \`&p[k]\`, \`*p\` or \`p[k]\``, e.pos);
    return { cls: {}, base: this.value(e), off: undefined };
  }

  /** `e` with reads through moving pointers as subscripts of their bases. */
  value(e: A.Expr): A.Expr {
    if (!this.touches(e)) return e;
    switch (e.kind) {
      case "ident": {
        const m = this.moving(e)!;
        return { kind: "binary", op: "+", left: e, right: ident(m.off, e.pos), pos: e.pos }; // the pointer's value
      }
      case "unary":
        if (e.op === "*" && this.pointsMoving(e.operand)) return this.at(this.root(e.operand), undefined, e.pos);
        if (e.op === "&" && this.moving(e.operand)) this.fail(`"&${text(e.operand)}": a pointer to a moving pointer is not supported`, e.pos);
        if ((e.op === "++" || e.op === "--") && this.moving(e.operand)) return this.misplacedMove(e);
        if (e.op === "!" && this.pointsMoving(e.operand)) return this.truth(e.operand);
        if (e.op === "&" && this.pointsMoving(e)) return this.pointer(this.root(e), e.pos);
        break;
      case "postfix":
        if (this.moving(e.operand)) return this.misplacedMove(e);
        break;
      case "index":
        if (this.pointsMoving(e.target)) return this.at(this.root(e.target), this.value(e.index), e.pos);
        break;
      case "member":
        if (e.arrow && this.pointsMoving(e.target)) return { ...e, arrow: false, target: this.at(this.root(e.target), undefined, e.pos) };
        break;
      case "binary": {
        const l = this.pointsMoving(e.left), r = this.pointsMoving(e.right);
        if ((e.op === "&&" || e.op === "||") && (l || r)) return this.truth(l ? e.left : e.right);
        if ((e.op === "-" && l && this.isPointer(e.right)) || (COMPARE.has(e.op) && (l || r))) {
          if (!this.isPointer(e.left) || !this.isPointer(e.right)) this.fail(`"${text(e)}" compares moving pointer "${text(l ? e.left : e.right)}" with a value that is not a pointer; Loom compares pointers into one array by their offsets`, e.pos);
          const a = this.root(e.left), b = this.root(e.right);
          if (a.cls !== b.cls) this.fail(`"${text(e)}": "${text(e.left)}" and "${text(e.right)}" may point into different arrays; Loom compares or subtracts moving pointers only where both start from the same one`, e.pos);
          return { ...e, left: a.off ?? zero(e.pos), right: b.off ?? zero(e.pos) };
        }
        if ((e.op === "+" || e.op === "-") && this.isPointer(e)) return this.pointer(this.root(e), e.pos);
        break;
      }
      case "conditional":
        if (this.pointsMoving(e.then) || this.pointsMoving(e.else)) this.fail(`"${text(e)}" chooses between pointers one of which moves; assign the chosen one to a pointer that does not move`, e.pos);
        if (this.pointsMoving(e.cond)) return this.truth(e.cond);
        break;
      case "cast":
        if (e.type.pointers.length > 0 && this.pointsMoving(e.operand)) return this.pointer(this.root(e), e.pos);
        break;
      case "assign":
        if (this.moving(e.target)) return this.misplacedMove(e);
        if (this.pointsMoving(e.value)) this.stored(e.value);
        break;
      case "initList":
        for (const x of e.items) if (this.pointsMoving(x)) this.stored(x);
        break;
      default: break;
    }
    return mapChildren(e, (x) => this.value(x));
  }

  /** A condition: as `value`, where a move has no place. */
  cond(e: A.Expr): A.Expr {
    return this.value(e);
  }

  /** `base[off + i]`. */
  private at(r: Root, i: A.Expr | undefined, pos: A.Pos): A.Expr {
    const index = r.off === undefined ? i ?? zero(pos) : i === undefined ? r.off : { kind: "binary", op: "+", left: r.off, right: i, pos } as A.Expr;
    return { kind: "index", target: r.base, index, pos };
  }

  /** The pointer value `base + off` (passed to a function, or a pointer declared from it). */
  private pointer(r: Root, pos: A.Pos): A.Expr {
    return r.off === undefined ? r.base : { kind: "binary", op: "+", left: r.base, right: r.off, pos };
  }

  /** A moving pointer's value kept in a struct field or an array of pointers, which would follow its later moves. */
  private stored(e: A.Expr): never {
    return this.fail(`the value of moving pointer "${text(e)}" is stored in a struct field or an array of pointers, which Loom binds to the pointer itself (it would follow its later moves); declare a local pointer from it (\`const char *start = ${text(e)};\`) instead`, e.pos);
  }

  private truth(e: A.Expr): never {
    return this.fail(`moving pointer "${text(e)}" used as a truth value; compare what it points to (\`*${text(e)} != 0\`) or its offset from where it started`, e.pos);
  }

  private misplacedMove(e: A.Expr, conditional = false): never {
    return this.fail(conditional
      ? `"${text(e)}" moves a pointer in an operand of &&, || or ?:, which C evaluates only on some paths; move it in a statement of its own (\`if (*s == c) s++;\`)`
      : `"${text(e)}" moves a pointer inside an expression whose order Loom cannot keep (a switch's condition, a for loop's init or update, an @outer or @inner loop's header); move it in a statement of its own (\`while (*s) s++;\`, \`*d = c; d++;\`)`, e.pos);
  }

  /** A statement's top-level move (`p++`, `--p`, `p += k`, `p = q + 1`) as the offset update, or undefined. */
  move(e: A.Expr): A.Expr | undefined {
    if ((e.kind === "postfix" || e.kind === "unary") && (e.op === "++" || e.op === "--")) {
      const m = this.moving(e.operand);
      return m && { ...e, operand: ident(m.off, e.operand.pos) };
    }
    if (e.kind !== "assign") return undefined;
    const m = this.moving(e.target);
    if (!m) return undefined;
    const target = ident(m.off, e.target.pos);
    if (e.op === "+=" || e.op === "-=") return { ...e, target, value: this.value(e.value) };
    if (e.op !== "=") return this.fail(`operator "${e.op}" on pointer "${m.decl.name}"`, e.pos);
    const r = this.root(e.value);
    if (r.cls !== m.cls) this.fail(`pointer "${m.decl.name}" moves (Loom lowers it as an offset into the array it starts in, line ${m.decl.declarator.pos.line}) and is assigned "${text(e.value)}", which may point into another array; use a second pointer for it`, e.pos);
    return { ...e, target, value: r.off ?? zero(e.pos) };
  }

  /**
   * `e` with the moves of moving pointers inside it taken out: `*p++` is `*p` with `p_off++` in
   * `post`, `*++p` is `*p` with `++p_off` in `pre`. Not under `&&`, `||` or `?:` (`conditional`),
   * where C may not evaluate them.
   */
  hoist(e: A.Expr, pre: A.Expr[], post: A.Expr[], conditional: boolean): A.Expr {
    if ((e.kind === "postfix" || e.kind === "unary") && (e.op === "++" || e.op === "--")) {
      const m = this.moving(e.operand);
      if (m) {
        if (conditional) this.misplacedMove(e, true);
        (e.kind === "postfix" ? post : pre).push({ kind: "postfix", op: e.op, operand: ident(m.off, e.pos), pos: e.pos });
        return e.operand;
      }
    }
    if (e.kind === "binary" && (e.op === "&&" || e.op === "||")) return { ...e, left: this.hoist(e.left, pre, post, conditional), right: this.hoist(e.right, pre, post, true) };
    if (e.kind === "conditional") return { ...e, cond: this.hoist(e.cond, pre, post, conditional), then: this.hoist(e.then, pre, post, true), else: this.hoist(e.else, pre, post, true) };
    return mapChildren(e, (x) => this.hoist(x, pre, post, conditional));
  }
}

function ident(name: string, pos: A.Pos): A.Ident {
  return { kind: "ident", name, pos };
}

export function zero(pos: A.Pos): A.Expr {
  return { kind: "int", value: 0, text: "0", suffix: "", pos };
}

/** `r` moved by `k` (`op` "+" or "-"). */
function shift(r: Root, k: A.Expr, op: "+" | "-", pos: A.Pos): Root {
  const by: A.Expr = op === "-" ? { kind: "unary", op: "-", operand: k, pos } : k;
  return { ...r, off: r.off === undefined ? by : { kind: "binary", op, left: r.off, right: k, pos } };
}

function typeName(s: A.TypeSpec): string {
  const b = s.base;
  return b.kind === "builtin" || b.kind === "named" ? b.name : `${b.kind} ${b.name ?? ""}`;
}

/** A short text of an expression for messages. */
export function exprText(e: A.Expr): string {
  return text(e);
}

function text(e: A.Expr): string {
  switch (e.kind) {
    case "ident": return e.name;
    case "int": case "char": case "string": return e.text;
    case "unary": return `${e.op}${text(e.operand)}`;
    case "postfix": return `${text(e.operand)}${e.op}`;
    case "binary": return `${text(e.left)} ${e.op} ${text(e.right)}`;
    case "assign": return `${text(e.target)} ${e.op} ${text(e.value)}`;
    case "index": return `${text(e.target)}[${text(e.index)}]`;
    case "member": return `${text(e.target)}${e.arrow ? "->" : "."}${e.name}`;
    case "conditional": return `${text(e.cond)} ? ${text(e.then)} : ${text(e.else)}`;
    default: return "…";
  }
}

/** `e` with `f` applied to its direct sub-expressions (a call's callee kept); `e` itself where nothing changes. */
function mapChildren(e: A.Expr, f: (x: A.Expr) => A.Expr): A.Expr {
  switch (e.kind) {
    case "int": case "float": case "char": case "string": case "bool": case "ident": return e;
    case "unary": case "postfix": case "cast": {
      const operand = f(e.operand);
      return operand === e.operand ? e : { ...e, operand } as A.Expr;
    }
    case "binary": {
      const left = f(e.left), right = f(e.right);
      return left === e.left && right === e.right ? e : { ...e, left, right };
    }
    case "assign": return { ...e, target: f(e.target), value: f(e.value) };
    case "conditional": return { ...e, cond: f(e.cond), then: f(e.then), else: f(e.else) };
    case "sizeof": return e.operand ? { ...e, operand: f(e.operand) } : e;
    case "call": return { ...e, args: e.args.map(f) };
    case "index": return { ...e, target: f(e.target), index: f(e.index) };
    case "member": return { ...e, target: f(e.target) };
    case "comma": return { ...e, exprs: e.exprs.map(f) };
    case "initList": return { ...e, items: e.items.map(f) };
  }
}
