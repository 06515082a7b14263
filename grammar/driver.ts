/**
 * Running a compiled nearley grammar from a chosen start rule, with failures reported as data (the
 * offending token and what would have been accepted) so each front end phrases its own ParseError.
 * Shared by the integer-set and the instruction parsers; imports nothing of ours.
 */
import nearley from "nearley";

/** Why a text did not parse. `token` is absent when the input ended too early. */
export interface GrammarFailure {
  readonly token?: { readonly type: string | undefined; readonly text: string; readonly offset: number };
  /** Readable names of the tokens that would have been accepted, sorted. */
  readonly expected: readonly string[];
}

export type GrammarResult = { readonly ok: true; readonly results: readonly unknown[] } | { readonly ok: false; readonly failure: GrammarFailure };

type Table = { states: { rule: { symbols: unknown[] }; dot: number }[] }[];

/** A reusable runner for one grammar; parsers are built per call, grammars once per start rule. */
export class GrammarDriver {
  private readonly grammars = new Map<string, nearley.Grammar>();

  /** `tokenNames` maps moo token types to the words used in "expected …" lists. */
  constructor(
    private readonly compiled: unknown,
    private readonly tokenNames: Readonly<Record<string, string>>,
  ) {}

  /** Parse `text` from rule `start`: every complete parse, or the failure. */
  run(text: string, start: string): GrammarResult {
    let g = this.grammars.get(start);
    if (!g) {
      g = nearley.Grammar.fromCompiled(this.compiled as nearley.CompiledRules);
      g.start = start;
      this.grammars.set(start, g);
    }
    const parser = new nearley.Parser(g);
    const table = (): Table => (parser as unknown as { table: Table }).table;
    try {
      parser.feed(text);
    } catch (e) {
      const tok = (e as { token?: { type?: string; text: string; offset: number } }).token;
      if (!tok) throw e;
      return { ok: false, failure: { token: { type: tok.type, text: tok.text, offset: tok.offset }, expected: this.expectedAt(table(), table().length - 2) } };
    }
    if (parser.results.length === 0) return { ok: false, failure: { expected: this.expectedAt(table(), table().length - 1) } };
    return { ok: true, results: parser.results };
  }

  /** The states of the last good column that wait for a terminal say what would have been accepted. */
  private expectedAt(table: Table, column: number): string[] {
    const want = new Set<string>();
    for (const st of table[column]?.states ?? []) {
      const sym = st.rule.symbols[st.dot] as { type?: string; literal?: string } | string | undefined;
      if (sym && typeof sym !== "string") want.add(sym.type ? this.tokenNames[sym.type] ?? sym.type : JSON.stringify(sym.literal));
    }
    return [...want].sort();
  }
}

/** "one of a, b, c" / "a" / `none` for an expected-token list. */
export function expectedText(expected: readonly string[], none: string): string {
  return expected.length === 0 ? none : expected.length === 1 ? expected[0]! : `one of ${expected.join(", ")}`;
}
