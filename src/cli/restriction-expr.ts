/**
 * Restrictions of a JSON tuning spec as expressions over the space's parameters, such as
 * `"ti * tj <= 64"` or `"gl == 'yes' or ti >= 4"`: parsed into a tree and evaluated by walking
 * it (never `eval`). Numbers, 'strings' or "strings", parameter names, `+ - * / // %`,
 * comparisons `== != < <= > >=`, `and or not` (also `&& || !`), parentheses and the functions
 * `min max abs floor ceil`.
 */
import { LoomError } from "../index.js";

type Node =
  | { kind: "num"; value: number }
  | { kind: "str"; value: string }
  | { kind: "name"; name: string }
  | { kind: "unary"; op: "-" | "not"; arg: Node }
  | { kind: "binary"; op: string; left: Node; right: Node }
  | { kind: "call"; fn: string; args: Node[] };

type Value = number | string | boolean;

const FUNCTIONS: Readonly<Record<string, (...xs: number[]) => number>> = {
  min: Math.min, max: Math.max, abs: Math.abs, floor: Math.floor, ceil: Math.ceil,
};
const TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|('[^']*'|"[^"]*")|(\/\/|==|!=|<=|>=|&&|\|\||[-+*/%<>()!,]))/y;

interface Token { readonly text: string; readonly column: number }

/** The deepest an expression may nest (parentheses, operators chained, `not`s): the tree is walked recursively. */
const MAX_DEPTH = 200;

function tokenize(src: string, fail: (what: string) => never): Token[] {
  const out: Token[] = [];
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    const column = at + src.slice(at).search(/\S/) + 1;
    if (!m) fail(`unexpected ${JSON.stringify(src.slice(at).trim()[0])} at column ${column}`);
    out.push({ text: m![0].trim(), column });
    at = TOKEN.lastIndex;
  }
  return out;
}

function parse(tokens: Token[], fail: (what: string) => never): Node {
  let i = 0;
  let level = 0;
  const peek = () => tokens[i]?.text;
  const where = () => (i < tokens.length ? ` at column ${tokens[i]!.column}` : " at the end");
  const eat = (t: string) => (tokens[i]?.text === t ? (i++, true) : false);
  const expect = (t: string) => {
    if (!eat(t)) fail(`expected "${t}"${peek() === undefined ? " at the end" : ` before "${peek()}"${where()}`}`);
  };
  /** `make()` one level deeper: parentheses, operators and `not`s nested past MAX_DEPTH are refused. */
  const deeper = <T>(make: () => T): T => {
    if (++level > MAX_DEPTH) fail(`the expression nests deeper than ${MAX_DEPTH} levels${where()}; write it with fewer parentheses or operators`);
    try {
      return make();
    } finally {
      level--;
    }
  };
  const binary = (next: () => Node, ops: Readonly<Record<string, string>>) => (): Node => {
    let left = next();
    let chained = 0;
    const opOf = (t: string | undefined) => (t !== undefined && Object.hasOwn(ops, t) ? ops[t] : undefined);
    for (let op = opOf(peek()); op !== undefined; op = opOf(peek())) {
      // A chain is a left-nested tree: each operator is one level of the walk that evaluates it.
      if (level + ++chained > MAX_DEPTH) fail(`the expression nests deeper than ${MAX_DEPTH} levels${where()}; write it with fewer parentheses or operators`);
      i++;
      left = { kind: "binary", op, left, right: next() };
    }
    return left;
  };
  const atom = (): Node => {
    const t = peek();
    if (t === undefined) return fail("the expression ends too early");
    const at = where();
    i++;
    if (t === "(") {
      const e = deeper(() => or());
      expect(")");
      return e;
    }
    if (t === "-") return { kind: "unary", op: "-", arg: deeper(atom) };
    if (/^[\d.]/.test(t)) return { kind: "num", value: Number(t) };
    if (/^['"]/.test(t)) return { kind: "str", value: t.slice(1, -1) };
    if (/^[A-Za-z_]/.test(t) && !["and", "or", "not"].includes(t)) {
      if (!eat("(")) return { kind: "name", name: t };
      if (!Object.hasOwn(FUNCTIONS, t)) fail(`unknown function "${t}"${at}; functions are ${Object.keys(FUNCTIONS).join(", ")}`);
      const args: Node[] = [];
      if (!eat(")")) {
        do args.push(deeper(() => or())); while (eat(","));
        expect(")");
      }
      return { kind: "call", fn: t, args };
    }
    return fail(`unexpected "${t}"${at}`);
  };
  const product = binary(atom, { "*": "*", "/": "/", "//": "//", "%": "%" });
  const sum = binary(product, { "+": "+", "-": "-" });
  const compare = binary(sum, { "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=" });
  const not = (): Node => (eat("not") || eat("!") ? { kind: "unary", op: "not", arg: deeper(not) } : compare());
  const and = binary(not, { and: "and", "&&": "and" });
  const or = binary(and, { or: "or", "||": "or" });
  const e = or();
  if (i < tokens.length) fail(`unexpected "${tokens[i]!.text}" after a complete expression${where()}`);
  return e;
}

function names(n: Node): string[] {
  switch (n.kind) {
    case "name": return [n.name];
    case "unary": return names(n.arg);
    case "binary": return [...names(n.left), ...names(n.right)];
    case "call": return n.args.flatMap(names);
    default: return [];
  }
}

function evaluate(n: Node, point: Readonly<Record<string, number | string>>): Value {
  const num = (x: Value, what: string): number => {
    if (typeof x !== "number") throw new LoomError(`${what} needs numbers; got ${JSON.stringify(x)}`);
    return x;
  };
  switch (n.kind) {
    case "num": case "str": return n.value;
    case "name": return point[n.name]!;
    case "unary": return n.op === "-" ? -num(evaluate(n.arg, point), "-") : !evaluate(n.arg, point);
    case "call": return FUNCTIONS[n.fn]!(...n.args.map((a) => num(evaluate(a, point), `${n.fn}()`)));
    case "binary": {
      if (n.op === "and") return Boolean(evaluate(n.left, point)) && Boolean(evaluate(n.right, point));
      if (n.op === "or") return Boolean(evaluate(n.left, point)) || Boolean(evaluate(n.right, point));
      const [a, b] = [evaluate(n.left, point), evaluate(n.right, point)];
      if (n.op === "==") return a === b;
      if (n.op === "!=") return a !== b;
      const [x, y] = [num(a, n.op), num(b, n.op)];
      switch (n.op) {
        case "+": return x + y;
        case "-": return x - y;
        case "*": return x * y;
        case "/": return x / y;
        case "//": return Math.floor(x / y);
        case "%": return x % y;
        case "<": return x < y;
        case "<=": return x <= y;
        case ">": return x > y;
        default: return x >= y;
      }
    }
  }
}

/**
 * The predicate of `source` over points of a space with parameters `params`; `where` names the
 * restriction in errors. A name that is no parameter is a LoomError here, not at evaluation.
 *
 *   compileRestriction("ti * tj <= 64", ["ti", "tj"], "restrictions[0]")({ ti: 8, tj: 4 }) // true
 */
export function compileRestriction(source: string, params: readonly string[], where: string): (p: Readonly<Record<string, number | string>>) => boolean {
  const fail = (what: string): never => {
    const shownSource = source.length > 80 ? `${source.slice(0, 60)}…(${source.length} characters)` : source;
    throw new LoomError(`${where} ${JSON.stringify(shownSource)}: ${what}`);
  };
  const tree = parse(tokenize(source, fail), fail);
  const unknown = names(tree).filter((n) => !params.includes(n));
  if (unknown.length > 0) fail(`"${unknown[0]}" is not a parameter of the space; parameters are ${params.join(", ")}`);
  return (p) => Boolean(evaluate(tree, p));
}
