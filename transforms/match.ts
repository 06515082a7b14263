/**
 * The instruction match language (loopy/match.py): `id:glob`, `tag:glob`, `writes:glob`,
 * `reads:glob`, `iname:glob`, a bare glob (an id), `*` (every instruction), combined with `not`,
 * `and`, `or` (binding in that order, tightest first) and parentheses.
 *
 *   "id:init_* or (writes:out and not tag:slow)"
 */
import { ParseError, TransformError } from "../src/errors.js";
import {
  assigneeName, freeVariables, globMatch, type Expr, type Instruction, type Kernel,
} from "../src/ir/index.js";

/** A parsed match expression: whether it selects `insn`. */
export type InsnPredicate = (insn: Instruction) => boolean;

/** Which instructions a transformation applies to: a match-language string, or a list of ids (or id globs). */
export type InstructionMatch = string | readonly string[];

/** The kinds of terms: what of an instruction the glob is matched against. */
const TERMS: Readonly<Record<string, (insn: Instruction) => readonly string[]>> = {
  id: (insn) => [insn.id],
  tag: (insn) => insn.tags,
  writes: (insn) => (insn.kind === "assign" ? [assigneeName(insn.lhs)] : []),
  reads: (insn) => [...readNames(insn)],
  iname: (insn) => insn.withinInames,
};

/** Variables an instruction reads: its right-hand side, its predicates, the indices of its left-hand side. */
function readNames(insn: Instruction): Set<string> {
  const out = new Set<string>();
  for (const p of insn.predicates) freeVariables(p, out);
  if (insn.kind !== "assign") return out;
  freeVariables(insn.rhs, out);
  const lhs: Expr = insn.lhs;
  if (lhs.kind === "subscript") for (const i of lhs.indices) freeVariables(i, out);
  if (lhs.kind === "linear") freeVariables(lhs.index, out);
  return out;
}

interface Token {
  readonly kind: "(" | ")" | "and" | "or" | "not" | "term" | "end";
  readonly at: number;
  readonly text: string;
}

const GLOB = /[A-Za-z0-9_*?.$[\]!-]/;
const ACCEPTED = "id:GLOB, tag:GLOB, writes:GLOB, reads:GLOB, iname:GLOB, a bare GLOB (an id), *, not, and, or, parentheses";

function tokenize(text: string): Token[] {
  const fail = (detail: string, at: number): never => {
    throw ParseError.at(detail, text, at, "match expression");
  };
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "(" || ch === ")") {
      tokens.push({ kind: ch, at: i, text: ch });
      i++;
    } else if (GLOB.test(ch)) {
      const start = i;
      while (i < text.length && (GLOB.test(text[i]!) || text[i] === ":")) i++;
      const word = text.slice(start, i);
      if (word === "and" || word === "or" || word === "not") tokens.push({ kind: word, at: start, text: word });
      else tokens.push({ kind: "term", at: start, text: word });
    } else if (ch === ">") {
      fail("stack matches (`outer > inner`) are not supported; accepted: " + ACCEPTED, i);
    } else {
      fail(`unexpected character "${ch}"; accepted: ${ACCEPTED}`, i);
    }
  }
  tokens.push({ kind: "end", at: text.length, text: "" });
  return tokens;
}

/** A term `kind:glob` (or a bare glob, an id) as a predicate. */
function termPredicate(tok: Token, text: string): InsnPredicate {
  const colon = tok.text.indexOf(":");
  if (colon < 0) {
    if (tok.text === "*") return () => true;
    return (insn) => globMatch(tok.text, insn.id);
  }
  const kind = tok.text.slice(0, colon);
  const glob = tok.text.slice(colon + 1);
  const field = TERMS[kind];
  if (field === undefined) {
    throw ParseError.at(`unknown term "${kind}:"; terms are ${Object.keys(TERMS).map((t) => `${t}:`).join(", ")}`, text, tok.at, "match expression");
  }
  if (glob.length === 0 || glob.includes(":")) {
    throw ParseError.at(`"${tok.text}" needs one glob after "${kind}:", as in ${kind}:a*`, text, tok.at + colon + 1, "match expression");
  }
  return (insn) => field(insn).some((name) => globMatch(glob, name));
}

/**
 * Parse a match expression into a predicate over instructions (loopy's parse_match). `not` binds
 * tightest, then `and`, then `or`. Malformed text throws a ParseError with line, column and caret.
 *
 *   const isInit = parseMatch("id:init_* and not tag:skip");
 *   k.instructions.filter(isInit)
 */
export function parseMatch(text: string): InsnPredicate {
  if (typeof text !== "string") throw new TransformError(`parseMatch: expected a match expression string; got ${JSON.stringify(text)}`);
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const fail = (detail: string, tok: Token): never => {
    throw ParseError.at(detail, text, tok.at, "match expression");
  };
  const describe = (tok: Token) => (tok.kind === "end" ? "the end" : `"${tok.text}"`);

  const primary = (): InsnPredicate => {
    const tok = peek();
    if (tok.kind === "(") {
      pos++;
      const inner = disjunction();
      if (peek().kind !== ")") fail(`expected ")" to close the "(" at column ${tok.at + 1}; got ${describe(peek())}`, peek());
      pos++;
      return inner;
    }
    if (tok.kind === "term") {
      pos++;
      return termPredicate(tok, text);
    }
    return fail(`expected a term or "("; got ${describe(tok)}; accepted: ${ACCEPTED}`, tok);
  };
  const negation = (): InsnPredicate => {
    if (peek().kind !== "not") return primary();
    pos++;
    const inner = negation();
    return (insn) => !inner(insn);
  };
  const conjunction = (): InsnPredicate => {
    let left = negation();
    while (peek().kind === "and") {
      pos++;
      const [a, b] = [left, negation()];
      left = (insn) => a(insn) && b(insn);
    }
    return left;
  };
  const disjunction = (): InsnPredicate => {
    let left = conjunction();
    while (peek().kind === "or") {
      pos++;
      const [a, b] = [left, conjunction()];
      left = (insn) => a(insn) || b(insn);
    }
    return left;
  };

  if (peek().kind === "end") fail("empty match expression; use * for every instruction", peek());
  const result = disjunction();
  if (peek().kind !== "end") fail(`expected "and", "or" or the end; got ${describe(peek())}`, peek());
  return result;
}

/**
 * The ids of the instructions of `k` that `match` selects, in kernel order. A string is a match
 * expression; an array lists ids (or id globs), each of which must select something. Selecting
 * nothing at all is a TransformError naming `who` and the instruction ids.
 *
 *   selectInstructions(k, "writes:out", "addDependency")   // ["store"]
 *   selectInstructions(k, ["init", "update"], "addDependency")
 */
export function selectInstructions(k: Kernel, match: InstructionMatch, who: string, what = "match"): string[] {
  const all = () => k.instructions.map((i) => i.id).join(", ") || "(none)";
  let pred: InsnPredicate;
  if (typeof match === "string") {
    try {
      pred = parseMatch(match);
    } catch (e) {
      if (e instanceof ParseError) throw new TransformError(`${who}: ${what} ${e.message}`);
      throw e;
    }
  } else if (Array.isArray(match) && match.every((m) => typeof m === "string")) {
    for (const id of match) {
      if (!k.instructions.some((insn) => globMatch(id, insn.id))) {
        throw new TransformError(`${who}: ${what} lists "${id}", which is no instruction of kernel "${k.name}"; instruction ids are ${all()}`);
      }
    }
    pred = (insn) => match.some((id) => globMatch(id, insn.id));
  } else {
    throw new TransformError(`${who}: ${what} must be a match expression (as "id:a* or writes:out") or an array of instruction ids; got ${JSON.stringify(match)}`);
  }
  const ids = k.instructions.filter((insn) => pred(insn)).map((insn) => insn.id);
  if (ids.length === 0) {
    throw new TransformError(`${who}: ${what} ${JSON.stringify(match)} selects no instruction of kernel "${k.name}"; instruction ids are ${all()}`);
  }
  return ids;
}
