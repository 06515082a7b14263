/**
 * Text → sets. The nearley grammar (grammar/isl.ne) builds an AST; this module resolves names,
 * turns `mod`, `floor`, `ceil` and `exists` into existential columns, and reports what the
 * grammar cannot: products of variables, disjunctions, non-integer constants, unknown names.
 */
import grammar from "../../grammar/generated/isl.js";
import { GrammarDriver, expectedText } from "../../grammar/driver.js";
import type { BasicSet } from "./types.js";
import { guardDepth, InternalError, LoomError, ParseError } from "../errors.js";
import { add, mul } from "./int.js";
import type { Row } from "./rows.js";
import { finish } from "./normalize.js";
import { freshName } from "./ops.js";

interface Name { name: string; at: number }
type Expr =
  | { k: "int" | "float"; text: string; at: number }
  | { k: "var"; name: string; at: number }
  | { k: "neg"; e: Expr; at: number }
  | { k: "add" | "sub" | "mul" | "mod"; a: Expr; b: Expr; at: number }
  | { k: "floor" | "ceil"; e: Expr; d: Expr; at: number };
type Cond =
  | { k: "chain"; items: Expr[][]; ops: { op: string; at: number }[] }
  | { k: "and"; a: Cond; b: Cond }
  | { k: "or"; a: Cond; b: Cond; at: number }
  | { k: "exists"; names: Name[]; body: Cond; at: number }
  | { k: "true" }
  | { k: "false" };
interface Top { params: Name[] | null; tuples: Name[][]; cond: Cond | null }

const TOKEN_NAMES: Record<string, string> = {
  ident: "an identifier", int: "an integer", float: "a number", arrow: "->", le: "<=", ge: ">=", lt: "<",
  gt: ">", eq: "=", lbrace: "{", rbrace: "}", lbrack: "[", rbrack: "]", lparen: "(", rparen: ")",
  comma: ",", colon: ":", plus: "+", minus: "-", star: "*", slash: "/", percent: "%", and: "and", or: "or",
  exists: "exists", mod: "mod", floor: "floor", ceil: "ceil", kwTrue: "true", kwFalse: "false",
};

const driver = new GrammarDriver(grammar, TOKEN_NAMES);

function runParser(text: string, start: string, what: string): unknown {
  const r = driver.run(text, start);
  if (!r.ok) {
    const { token, expected } = r.failure;
    if (!token) throw ParseError.at(`unexpected end of input; expected ${expectedText(expected, "the end of the input")}`, text, text.length, what);
    const shown = token.type === "invalid" ? `character "${token.text[0]}"` : `"${token.text}"`;
    throw ParseError.at(`unexpected ${shown}; expected ${expectedText(expected, "the end of the input")}`, text, token.offset, what);
  }
  if (r.results.length > 1) throw new InternalError(`ambiguous ${what}: ${r.results.length} parses of "${text}"`);
  return r.results[0];
}

/** A linear form over variable keys ("p:n", "d:i", "e:3"). */
interface Lin { terms: Map<string, number>; c: number }

class Builder {
  readonly params: string[] = [];
  readonly exists: string[] = [];
  readonly rows: { r: Map<string, number>; c: number; eq: boolean }[] = [];
  private readonly scopes: Map<string, string>[] = [];
  private readonly display = new Map<string, string>();

  constructor(
    readonly text: string,
    readonly what: string,
    readonly dims: readonly string[],
    private readonly inferParams: boolean,
  ) {}

  err(msg: string, at: number): never {
    throw ParseError.at(msg, this.text, at, this.what);
  }

  addParam(p: Name): void {
    if (this.params.includes(p.name)) this.err(`parameter "${p.name}" is declared twice`, p.at);
    this.params.push(p.name);
    this.display.set(`p:${p.name}`, p.name);
  }

  private newExist(base: string): string {
    const key = `e:${this.exists.length}`;
    const nm = freshName(base, new Set([...this.params, ...this.dims, ...this.exists]));
    this.exists.push(nm);
    this.display.set(key, base);
    return key;
  }

  private resolve(name: string, at: number): string {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const k = this.scopes[i]!.get(name);
      if (k) return k;
    }
    if (this.dims.includes(name)) return `d:${name}`;
    if (this.params.includes(name)) return `p:${name}`;
    if (!this.inferParams) {
      const declared = this.params.length ? `[${this.params.join(", ")}]` : "[]";
      this.err(`unknown identifier "${name}": not a set dimension, not a declared parameter ${declared}, not bound by exists`, at);
    }
    this.addParam({ name, at });
    return `p:${name}`;
  }

  private nameOf(key: string): string {
    return this.display.get(key) ?? key.slice(2);
  }

  private constant(e: Expr, what: string): number {
    const l = this.expr(e);
    if (l.terms.size > 0) this.err(`${what} must be an integer constant`, e.at);
    return l.c;
  }

  expr(e: Expr): Lin {
    switch (e.k) {
      case "int": {
        const v = Number(e.text);
        if (!Number.isSafeInteger(v)) this.err(`integer constant ${e.text} is too large (integer overflow)`, e.at);
        return { terms: new Map(), c: v };
      }
      case "float":
        return this.err(`non-integer constant ${e.text}: only integer constants are allowed`, e.at);
      case "var":
        return { terms: new Map([[this.resolve(e.name, e.at), 1]]), c: 0 };
      case "neg":
        return scale(this.expr(e.e), -1);
      case "add":
      case "sub": {
        const a = this.expr(e.a);
        const b = this.expr(e.b);
        return plus(a, e.k === "add" ? b : scale(b, -1));
      }
      case "mul": {
        const a = this.expr(e.a);
        const b = this.expr(e.b);
        if (a.terms.size === 0) return scale(b, a.c);
        if (b.terms.size === 0) return scale(a, b.c);
        const va = this.nameOf([...a.terms.keys()][0]!);
        const vb = this.nameOf([...b.terms.keys()][0]!);
        return this.err(`not affine: product of variables ${va} and ${vb}; one factor must be an integer constant`, e.at);
      }
      case "mod": {
        // a mod m = a - m·q with 0 <= a - m·q <= m - 1.
        const a = this.expr(e.a);
        const m = this.constant(e.b, "the divisor of mod");
        if (m <= 0) this.err(`the divisor of mod must be positive, got ${m}`, e.b.at);
        const q = this.newExist("q");
        const r = plus(a, { terms: new Map([[q, -m]]), c: 0 });
        this.ineq(r);
        this.ineq(plus(scale(r, -1), { terms: new Map(), c: m - 1 }));
        return r;
      }
      case "floor":
      case "ceil": {
        // floor(a/d) = q with 0 <= a - d·q <= d - 1; ceil(a/d) = q with 0 <= d·q - a <= d - 1.
        const a = this.expr(e.e);
        const d = this.constant(e.d, `the divisor of ${e.k}`);
        if (d <= 0) this.err(`the divisor of ${e.k} must be positive, got ${d}`, e.d.at);
        const q = this.newExist("q");
        const s = e.k === "floor" ? 1 : -1;
        const r = scale(plus(a, { terms: new Map([[q, -d]]), c: 0 }), s);
        this.ineq(r);
        this.ineq(plus(scale(r, -1), { terms: new Map(), c: d - 1 }));
        return { terms: new Map([[q, 1]]), c: 0 };
      }
    }
  }

  private ineq(l: Lin, eq = false): void {
    this.rows.push({ r: l.terms, c: l.c, eq });
  }

  cond(c: Cond): void {
    switch (c.k) {
      case "true":
        return;
      case "false":
        return this.ineq({ terms: new Map(), c: -1 });
      case "and":
        this.cond(c.a);
        return this.cond(c.b);
      case "or":
        return this.err(`disjunction ("or") is not supported: domains must be convex; use two domains`, c.at);
      case "exists": {
        const scope = new Map<string, string>();
        for (const n of c.names) {
          if (scope.has(n.name)) this.err(`"${n.name}" is bound twice by exists`, n.at);
          scope.set(n.name, this.newExist(n.name));
        }
        this.scopes.push(scope);
        this.cond(c.body);
        this.scopes.pop();
        return;
      }
      case "chain": {
        const lists = c.items.map((items) => items.map((e) => this.expr(e)));
        c.ops.forEach(({ op }, k) => {
          for (const l of lists[k]!) {
            for (const r of lists[k + 1]!) {
              const d = plus(r, scale(l, -1)); // r - l
              if (op === "<=") this.ineq(d);
              else if (op === "<") this.ineq(plus(d, { terms: new Map(), c: -1 }));
              else if (op === ">=") this.ineq(scale(d, -1));
              else if (op === ">") this.ineq(plus(scale(d, -1), { terms: new Map(), c: -1 }));
              else this.ineq(d, true);
            }
          }
        });
        return;
      }
    }
  }

  build(): BasicSet {
    const cols = new Map<string, number>();
    this.params.forEach((p, k) => cols.set(`p:${p}`, k));
    this.dims.forEach((d, k) => cols.set(`d:${d}`, this.params.length + k));
    this.exists.forEach((_, k) => cols.set(`e:${k}`, this.params.length + this.dims.length + k));
    const n = cols.size;
    const eqs: Row[] = [];
    const ineqs: Row[] = [];
    for (const { r, c, eq } of this.rows) {
      const row = new Array<number>(n + 1).fill(0);
      for (const [key, v] of r) row[cols.get(key)!] = add(row[cols.get(key)!]!, v);
      row[n] = c;
      (eq ? eqs : ineqs).push(row);
    }
    return finish(this.params, this.dims, this.exists, { n, eqs, ineqs });
  }
}

function scale(l: Lin, k: number): Lin {
  const terms = new Map<string, number>();
  if (k !== 0) for (const [v, c] of l.terms) terms.set(v, mul(c, k));
  return { terms, c: mul(l.c, k) };
}

function plus(a: Lin, b: Lin): Lin {
  const terms = new Map(a.terms);
  for (const [v, c] of b.terms) {
    const s = add(terms.get(v) ?? 0, c);
    if (s === 0) terms.delete(v);
    else terms.set(v, s);
  }
  return { terms, c: add(a.c, b.c) };
}

function checkTuple(text: string, what: string, names: readonly Name[], taken: Set<string>): string[] {
  for (const n of names) {
    if (taken.has(n.name)) throw ParseError.at(`"${n.name}" is declared twice`, text, n.at, what);
    taken.add(n.name);
  }
  return names.map((n) => n.name);
}

function buildTop(text: string, what: string, top: Top, dims: readonly string[]): BasicSet {
  const b = new Builder(text, what, dims, top.params === null);
  for (const p of top.params ?? []) b.addParam(p);
  if (top.cond) b.cond(top.cond);
  return b.build();
}

/**
 * Parse an ISL set: `parseSet("[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }")`. Without a
 * parameter list, every free identifier is a parameter (in order of appearance).
 */
function parseSetUnguarded(text: string): BasicSet {
  const top = runParser(text, "main", "set") as Top;
  if (top.tuples.length > 1) throw ParseError.at(`expected a set, got a map ("->" between tuples); use parseMap`, text, top.tuples[1]![0]?.at ?? 0, "set");
  const taken = new Set((top.params ?? []).map((p) => p.name));
  const dims = checkTuple(text, "set", top.tuples[0] ?? [], taken);
  return buildTop(text, "set", top, dims);
}

/**
 * Parse an ISL map `{ [i] -> [io, ii] : i = 4io + ii and 0 <= ii < 4 }` as a set over the input
 * then the output dims.
 */
function parseMapUnguarded(text: string): { set: BasicSet; inDims: string[]; outDims: string[] } {
  const top = runParser(text, "main", "map") as Top;
  if (top.tuples.length !== 2) throw ParseError.at(`expected a map "{ [in] -> [out] : ... }"`, text, Math.max(0, text.indexOf("{") + 1), "map");
  const taken = new Set((top.params ?? []).map((p) => p.name));
  const inDims = checkTuple(text, "map", top.tuples[0]!, taken);
  const outDims = checkTuple(text, "map", top.tuples[1]!, taken);
  return { set: buildTop(text, "map", top, [...inDims, ...outDims]), inDims, outDims };
}

/**
 * Parse a bare condition list, e.g. kernel assumptions `"n mod 16 = 0 and n >= 16"`. Names in
 * `dims` are set dimensions; every other identifier is a parameter.
 */
function parseConstraintsUnguarded(text: string, opts: { dims?: readonly string[] } = {}): BasicSet {
  const dims = opts.dims ?? [];
  if (new Set(dims).size !== dims.length) throw new LoomError(`parseConstraints: duplicate dims ${dims.join(", ")}`);
  if (text.trim() === "") return finish([], dims, [], { n: dims.length, eqs: [], ineqs: [] });
  const cond = runParser(text, "condOnly", "constraints") as Cond;
  return buildTop(text, "constraints", { params: null, tuples: [], cond }, dims);
}

/** parseSet, with pathologically deep input reported as a LoomError (see guardDepth). */
export function parseSet(text: string): BasicSet {
  return guardDepth("parseSet", () => parseSetUnguarded(text));
}

/** parseMap, with pathologically deep input reported as a LoomError (see guardDepth). */
export function parseMap(text: string): { set: BasicSet; inDims: string[]; outDims: string[] } {
  return guardDepth("parseMap", () => parseMapUnguarded(text));
}

/** parseConstraints, with pathologically deep input reported as a LoomError (see guardDepth). */
export function parseConstraints(text: string, opts: { dims?: readonly string[] } = {}): BasicSet {
  return guardDepth("parseConstraints", () => parseConstraintsUnguarded(text, opts));
}
