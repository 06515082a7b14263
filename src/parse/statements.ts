/**
 * The instruction text as a list of statements: comments removed, lines joined while brackets
 * are open, blocks (`for`, `if`/`elif`/`else`, `with`, closed by `end`) resolved into the loops,
 * predicates and options of the statements they enclose.
 */
import { positionAt } from "../errors.js";
import { NO_OPTIONS, parseAttributes, type InsnOptions, type Located } from "./attributes.js";
import type { RExpr, RName, RStatement } from "./raw.js";
import { parseExprRaw, parseStatementRaw, type Fail } from "./syntax.js";
import { expandArgExtremum, isArgExtremum } from "./tuple-reduction.js";

/** A condition from an enclosing `if`/`elif`/`else`: `negate` for the branches after it. */
export interface BlockCondition extends Located {
  readonly negate: boolean;
}

/** An assignment, barrier or no-op with everything its context says about it. */
export interface ParsedInsn {
  readonly stmt: Extract<RStatement, { k: "assign" | "special" }>;
  readonly kind: "assign" | "barrier" | "nop";
  readonly fail: Fail;
  readonly options: InsnOptions;
  readonly forInames: readonly (RName & { readonly fail: Fail })[];
  readonly conditions: readonly BlockCondition[];
}

export interface ParsedRule {
  readonly name: RName;
  readonly params: readonly RName[];
  readonly body: RExpr;
  readonly fail: Fail;
}

/** A piece of the source: one logical statement, its offset, and an unclosed bracket in it. */
interface Piece { readonly text: string; readonly at: number; readonly unclosed?: number }

/**
 * Comments blanked out (offsets kept), then split at newlines outside brackets:
 * `splitStatements("a = (1 +\n 2)  # c\nb = 3")` gives two pieces, at offsets 0 and 19.
 */
export function splitStatements(source: string): Piece[] {
  const clean = source.replace(/#[^\n]*/g, (m) => " ".repeat(m.length));
  const out: Piece[] = [];
  const open: number[] = [];
  let start = 0;
  const flush = (end: number): void => {
    const raw = clean.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    if (raw.trim() !== "") out.push({ text: raw.trim(), at: start + lead, ...(open.length > 0 ? { unclosed: open[0]! } : {}) });
  };
  for (let i = 0; i < clean.length; i++) {
    const ch = clean[i]!;
    const depth = open.length;
    if (ch === "(" || ch === "[" || ch === "{") open.push(i);
    else if (ch === ")" || ch === "]" || ch === "}") open.pop();
    else if (ch === "\n" && depth === 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(clean.length);
  return out;
}

type Block =
  | { kind: "for"; inames: (RName & { fail: Fail })[]; at: number }
  | { kind: "if"; conds: Located[]; stage: "if" | "else"; at: number }
  | { kind: "with"; options: InsnOptions; at: number };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A line that starts with a name and a subscript or an assignment operator (`with[i] = …`, `for += 1`). */
const ASSIGNMENT_HEAD = /^[A-Za-z_]\w*\s*(?:\[|(?:<<|>>|[-+*\/%&|^])?=(?!=))/;

/**
 * Parse the whole instruction text: `parseStatements("for i\n x[i] = 1\nend", fail)` gives one
 * statement with `forInames` [i]. `failAt(detail, offset)` reports at an offset of `source`.
 */
export function parseStatements(source: string, failAt: Fail): { insns: ParsedInsn[]; rules: ParsedRule[] } {
  const insns: ParsedInsn[] = [];
  const rules: ParsedRule[] = [];
  const stack: Block[] = [];
  const withOptions = (): InsnOptions => {
    for (let b = stack.length - 1; b >= 0; b--) {
      const blk = stack[b]!;
      if (blk.kind === "with") return blk.options;
    }
    return NO_OPTIONS;
  };
  for (const piece of splitStatements(source)) {
    // A bracket left open swallows the following lines: say so when that is where it fails.
    const hint = piece.unclosed === undefined ? "" : ` (the "${source[piece.unclosed]}" at ${positionText(source, piece.unclosed)} is never closed)`;
    const fail: Fail = (d, off) => failAt(d + hint, piece.at + off);
    const text = piece.text;
    let m: RegExpExecArray | null;
    // `with[i] = …`, `for[i] += …`: a name followed by a subscript or an assignment is a statement,
    // even where the name is also a block keyword (user names may be any word the domain accepts).
    const statement = (): void => {
      const stmt = parseStatementRaw(text, fail);
      if (stmt.k === "rule") rules.push({ name: stmt.name, params: stmt.params, body: stmt.body, fail });
      else insns.push(...expandArgExtremum(makeInsn(stmt, fail, stack, withOptions())));
    };
    if (ASSIGNMENT_HEAD.test(text)) statement();
    else if ((m = /^for\b([^]*)$/.exec(text))) {
      const inames: (RName & { fail: Fail })[] = [];
      let pos = 3;
      for (const part of m[1]!.split(",")) {
        const lead = part.length - part.trimStart().length;
        if (!NAME.test(part.trim())) fail(`expected iname names after "for", as in "for i, j"; got "${part.trim()}"`, pos + lead);
        inames.push({ name: part.trim(), at: piece.at + pos + lead, fail: failAt });
        pos += part.length + 1;
      }
      stack.push({ kind: "for", inames, at: piece.at });
    } else if (text === "end") {
      if (stack.length === 0) fail(`"end" without an open for, if or with block`, 0);
      stack.pop();
    } else if ((m = /^(if|elif)\b([^]*)$/.exec(text))) {
      const kw = m[1]!;
      const condText = m[2]!;
      const condAt = kw.length + (condText.length - condText.trimStart().length);
      if (condText.trim() === "") fail(`expected a condition after "${kw}"`, kw.length);
      const shifted: Fail = (d, off) => fail(d, condAt + off);
      const cond: Located = { raw: parseExprRaw(condText.trim(), shifted), fail: shifted };
      if (kw === "if") {
        stack.push({ kind: "if", conds: [cond], stage: "if", at: piece.at });
      } else {
        const top = stack[stack.length - 1];
        if (top?.kind !== "if" || top.stage === "else") fail(`"elif" without an open if block`, 0);
        top.conds.push(cond);
      }
    } else if (text === "else") {
      const top = stack[stack.length - 1];
      if (top?.kind !== "if" || top.stage === "else") fail(`"else" without an open if block`, 0);
      top.stage = "else";
    } else if ((m = /^with\b([^]*)$/.exec(text))) {
      const rest = m[1]!;
      const lead = 4 + (rest.length - rest.trimStart().length);
      if (!/^\{[^}]*\}$/.test(rest.trim())) fail(`expected an attribute block after "with", as in with {id_prefix=init}`, lead);
      stack.push({ kind: "with", options: parseAttributes({ text: rest.trim(), at: lead }, withOptions(), fail, true), at: piece.at });
    } else statement();
  }
  const open = stack[stack.length - 1];
  if (open) {
    const kw = open.kind === "if" ? "if" : open.kind;
    failAt(`this "${kw}" block is not closed by "end"`, open.at);
  }
  return { insns, rules };
}

function makeInsn(stmt: Extract<RStatement, { k: "assign" | "special" }>, fail: Fail, stack: readonly Block[], outer: InsnOptions): ParsedInsn {
  const options = stmt.attrs ? parseAttributes(stmt.attrs, outer, fail) : outer;
  let kind: ParsedInsn["kind"] = "assign";
  if (stmt.k === "special") {
    const w = stmt.what.name;
    if (w !== "lbarrier" && w !== "gbarrier" && w !== "nop") fail(`expected lbarrier, gbarrier or nop after "..."; got "${w}"`, stmt.what.at);
    kind = w === "nop" ? "nop" : "barrier";
    if (options.atomic) fail(`"atomic" applies to assignments, not to ... ${w}`, stmt.attrs?.at ?? 0);
    if (options.memKind && kind === "nop") fail(`mem_kind applies to barriers only`, stmt.attrs?.at ?? 0);
  } else {
    if (options.memKind) fail(`mem_kind applies to barriers (... lbarrier) only`, stmt.attrs?.at ?? 0);
    const tuple = isArgExtremum(stmt);
    if (stmt.lhs.length > 1 && !tuple) fail(`several assignees (a, b = f(…)) are supported for argmax and argmin only (loopy's tuple reductions)`, stmt.lhs[1]!.at);
    const lhs = stmt.lhs[0]!;
    if (lhs.k !== "name" && lhs.k !== "sub" && lhs.k !== "lin") fail(`cannot assign to this expression`, lhs.at);
  }
  const forInames = stack.flatMap((b) => (b.kind === "for" ? b.inames : []));
  const conditions = stack.flatMap((b): BlockCondition[] => {
    if (b.kind !== "if") return [];
    // In the branch after k conditions, the earlier ones were false and the last (unless else) holds.
    const last = b.stage === "else" ? b.conds.length : b.conds.length - 1;
    return b.conds.map((cnd, idx) => ({ ...cnd, negate: idx < last }));
  });
  return { stmt, kind, fail, options, forInames, conditions };
}

function positionText(source: string, offset: number): string {
  const p = positionAt(source, offset);
  return `${p.line}:${p.column}`;
}
