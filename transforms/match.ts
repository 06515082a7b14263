/**
 * The instruction match language (loopy/match.py): `id:glob`, `tag:glob`, `writes:glob`,
 * `reads:glob`, `iname:glob`, `in_kernel:glob`, a bare glob (an id), `*` (every instruction),
 * combined with `not`, `and`, `or` (binding in that order, tightest first) and parentheses.
 *
 *   "id:init_* or (writes:out and not tag:slow)"
 *
 * Stack matches (loopy's parse_stack_match) match an instruction together with the stack of
 * substitution-rule calls an expression sits in, outermost first: `insn > rule > rule`, where
 * `...` stands for any number of levels and a trailing `$` says the stack ends there. The first
 * level matches the instruction; each further level matches a rule call (`id:` is the rule's name).
 *
 *   "id:store > id:f"            // calls of f directly in instruction store (and what f calls)
 *   "... > id:g > id:h $"        // calls of h made directly inside g, anywhere
 */
import { ParseError, TransformError } from "../src/errors.js";
import {
  globMatch, insnReads, type Instruction, type Kernel, insnWrites,
} from "../src/ir/index.js";

/** A parsed match expression: whether it selects `insn`. */
export type InsnPredicate = (insn: Instruction) => boolean;

/** One level of a rule-call stack: the called rule (matched by `id:`) and the call's tags. */
export interface RuleCallFrame {
  readonly name: string;
  readonly tags?: readonly string[];
}

/** A parsed stack match: whether it selects an expression of `insn` inside the rule calls `stack` (outermost first). */
export type StackPredicate = (insn: Instruction, stack: readonly RuleCallFrame[]) => boolean;

/** What one level of a match is tested against: the instruction, or a rule call around the expression. */
type Matchable = { readonly insn: Instruction; readonly rule?: undefined } | { readonly insn?: undefined; readonly rule: RuleCallFrame };
type MatchFn = (m: Matchable) => boolean;

/** Which instructions a transformation applies to: a match-language string, or a list of ids (or id globs). */
export type InstructionMatch = string | readonly string[];

/**
 * The kinds of terms: what of an instruction (or a rule call: its name and tags; as in loopy,
 * writes/reads/iname select no rule call) the glob is matched against. `in_kernel` is the kernel's name.
 */
const TERMS: Readonly<Record<string, (m: Matchable, kernelName: string | undefined) => readonly string[]>> = {
  id: (m) => [m.insn ? m.insn.id : m.rule.name],
  tag: (m) => (m.insn ? m.insn.tags : m.rule.tags ?? []),
  writes: (m) => (m.insn ? insnWrites(m.insn) : []),
  reads: (m) => (m.insn ? [...insnReads(m.insn)] : []),
  iname: (m) => (m.insn ? m.insn.withinInames : []),
  in_kernel: (_m, kernelName) => (kernelName === undefined ? [] : [kernelName]),
};

interface Token {
  readonly kind: "(" | ")" | "and" | "or" | "not" | "term" | "end";
  readonly at: number;
  readonly text: string;
}

const GLOB = /[A-Za-z0-9_*?.$[\]!-]/;
const ACCEPTED = "id:GLOB, tag:GLOB, writes:GLOB, reads:GLOB, iname:GLOB, in_kernel:GLOB, a bare GLOB (an id), *, not, and, or, parentheses";

/** Tokens of `text[from, to)`; positions are offsets in the whole `text`. */
function tokenize(text: string, from = 0, to = text.length): Token[] {
  const fail = (detail: string, at: number): never => {
    throw ParseError.at(detail, text, at, "match expression");
  };
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "(" || ch === ")") {
      tokens.push({ kind: ch, at: i, text: ch });
      i++;
    } else if (GLOB.test(ch)) {
      const start = i;
      while (i < to && (GLOB.test(text[i]!) || text[i] === ":")) i++;
      const word = text.slice(start, i);
      if (word === "and" || word === "or" || word === "not") tokens.push({ kind: word, at: start, text: word });
      else tokens.push({ kind: "term", at: start, text: word });
    } else if (ch === ">") {
      fail("a stack match (`insn > rule`) matches rule calls inside instructions; parse it with parseStackMatch (transformations that take a within accept it)", i);
    } else {
      fail(`unexpected character "${ch}"; accepted: ${ACCEPTED}`, i);
    }
  }
  tokens.push({ kind: "end", at: to, text: "" });
  return tokens;
}

/** A term `kind:glob` (or a bare glob, an id) as a predicate. */
function termPredicate(tok: Token, text: string, kernelName: string | undefined): MatchFn {
  const colon = tok.text.indexOf(":");
  if (colon < 0) {
    if (tok.text === "*") return () => true;
    return (m) => globMatch(tok.text, m.insn ? m.insn.id : m.rule.name);
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
  if (kind === "in_kernel" && kernelName === undefined) {
    throw new TransformError(`parseMatch: "${tok.text}" matches the kernel's name, so it needs the kernel: parseMatch(text, k)`);
  }
  return (m) => field(m, kernelName).some((name) => globMatch(glob, name));
}

/**
 * Parse a match expression into a predicate over instructions (loopy's parse_match). `not` binds
 * tightest, then `and`, then `or`. Malformed text throws a ParseError with line, column and caret.
 * `in_kernel:GLOB` matches the name of `kernel`, which must then be given.
 *
 *   const isInit = parseMatch("id:init_* and not tag:skip");
 *   k.instructions.filter(isInit)
 *   parseMatch("in_kernel:mat* and writes:c", k)
 */
export function parseMatch(text: string, kernel?: { readonly name: string }): InsnPredicate {
  if (typeof text !== "string") throw new TransformError(`parseMatch: expected a match expression string; got ${JSON.stringify(text)}`);
  const f = parseLevel(text, 0, text.length, kernel?.name);
  return (insn) => f({ insn });
}

/** One match expression, `text[from, to)`, as a predicate over what one stack level holds. */
function parseLevel(text: string, from: number, to: number, kernelName: string | undefined): MatchFn {
  const tokens = tokenize(text, from, to);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const fail = (detail: string, tok: Token): never => {
    throw ParseError.at(detail, text, tok.at, "match expression");
  };
  const describe = (tok: Token) => (tok.kind === "end" ? "the end" : `"${tok.text}"`);

  const primary = (): MatchFn => {
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
      return termPredicate(tok, text, kernelName);
    }
    return fail(`expected a term or "("; got ${describe(tok)}; accepted: ${ACCEPTED}`, tok);
  };
  const negation = (): MatchFn => {
    if (peek().kind !== "not") return primary();
    pos++;
    const inner = negation();
    return (m) => !inner(m);
  };
  const conjunction = (): MatchFn => {
    let left = negation();
    while (peek().kind === "and") {
      pos++;
      const [a, b] = [left, negation()];
      left = (m) => a(m) && b(m);
    }
    return left;
  };
  const disjunction = (): MatchFn => {
    let left = conjunction();
    while (peek().kind === "or") {
      pos++;
      const [a, b] = [left, conjunction()];
      left = (m) => a(m) || b(m);
    }
    return left;
  };

  if (peek().kind === "end") fail("empty match expression; use * for every instruction", peek());
  const result = disjunction();
  if (peek().kind !== "end") fail(`expected "and", "or" or the end; got ${describe(peek())}`, peek());
  return result;
}

/** A stack matcher over the levels from some depth on (loopy's StackMatchComponent). */
type LevelsFn = (levels: readonly Matchable[]) => boolean;

/**
 * Parse a stack match (loopy's parse_stack_match): match expressions separated by `>`, outermost
 * first, the first one for the instruction and each further one for a rule call; `...` matches
 * any number of levels (none included), and a trailing `$` requires the stack to end there.
 * Without `$` the stack may go on below the last level. A plain match expression is the
 * one-level stack match: it selects every expression of the instructions it selects.
 *
 *   const inG = parseStackMatch("id:store > id:g");
 *   inG(store, [{ name: "g" }, { name: "h" }])   // true: h is called (directly) inside g in store
 *   inG(store, [])                                // false: the store itself is not inside g
 */
export function parseStackMatch(text: string, kernel?: { readonly name: string }): StackPredicate {
  if (typeof text !== "string") throw new TransformError(`parseStackMatch: expected a stack match string; got ${JSON.stringify(text)}`);
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  const bottom = end > 0 && text[end - 1] === "$";
  if (bottom) end--;
  // Level boundaries: the `>` characters (loopy splits on them too).
  const cuts: number[] = [];
  for (let i = 0; i < end; i++) if (text[i] === ">") cuts.push(i);
  const bounds = [-1, ...cuts, end].slice(0, -1).map((c0, n) => [c0 + 1, n < cuts.length ? cuts[n]! : end] as const);
  let match: LevelsFn = bottom ? (levels) => levels.length === 0 : () => true;
  for (let n = bounds.length - 1; n >= 0; n--) {
    const [from, to] = bounds[n]!;
    const inner = match;
    if (text.slice(from, to).trim() === "...") {
      match = (levels) => levels.some((_, i) => inner(levels.slice(i)));
      continue;
    }
    if (text.slice(from, to).trim() === "") {
      throw ParseError.at(bounds.length > 1 ? "empty level in a stack match; each level between \">\" is a match expression or ..." : "empty match expression; use * for every instruction", text, from, "match expression");
    }
    const f = parseLevel(text, from, to, kernel?.name);
    match = (levels) => levels.length > 0 && f(levels[0]!) && inner(levels.slice(1));
  }
  return (insn, stack) => match([{ insn }, ...stack.map((rule) => ({ rule }))]);
}

/** Whether `text` is a stack match of more than one level (it selects rule calls, not whole instructions). */
export function isMultiLevelStackMatch(text: string): boolean {
  return text.includes(">");
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
      // A stack match at the level of whole instructions: the stack of rule calls is empty.
      const stackPred = parseStackMatch(match, k);
      pred = (insn) => stackPred(insn, []);
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
    const hint = typeof match === "string" && isMultiLevelStackMatch(match)
      ? ` (a stack match of more than one level selects rule calls inside instructions, never a whole instruction; ${who} selects whole instructions)` : "";
    throw new TransformError(`${who}: ${what} ${JSON.stringify(match)} selects no instruction of kernel "${k.name}"; instruction ids are ${all()}${hint}`);
  }
  return ids;
}
