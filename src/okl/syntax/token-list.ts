/**
 * The lexer's tokens (the `Tok` type, re-exported by lexer.ts) and its token list (split out of
 * lexer.ts): tokens pushed one by one into chunks made at their full size, read once whole
 * (`toArray`) or chunk by chunk (`parts`). The type lives here so that the list needs no import of
 * the lexer (no cycle).
 */
export type TokType = "ws" | "nl" | "comment" | "number" | "string" | "char" | "ident" | "punct" | "other";

/** A token. `offset`/`line`/`col` are in `file` (undefined: the main source). */
export interface Tok {
  readonly type: TokType | "pragma" | "eof";
  readonly text: string;
  readonly offset: number;
  readonly line: number;
  readonly col: number;
  readonly file?: string;
  /** Whitespace or a comment came right before this token (for `#` stringification and printing). */
  readonly spaceBefore?: boolean;
  /** Macros whose expansion produced this token (not expanded again: C's "hide set"). */
  readonly hide?: ReadonlySet<string>;
  /** Set on tokens produced by a macro expansion: the name of the outermost macro. */
  readonly fromMacro?: string;
  /** Set only where a line splice falls inside the token (its `text` is shorter than its place in the file): the offset after it. */
  readonly end?: number;
}

/** Tokens per chunk of a TokenList: an array of at most this many elements stays out of V8's large-object space. */
const CHUNK = 8192;

/**
 * A token list built by `push` and read once whole (`toArray`). Why chunks: a kernel of 1,000 lines
 * has some 35,000 tokens, and one array of that many young objects, grown while they are made, costs
 * more than the tokens themselves (V8 keeps an array over 128 KB in its large-object space, and each
 * scavenge while it grows revisits it): chunks of 8,192, copied once into an array of the exact
 * length at the end, cost about half. The first chunk is small, so that the code starting a new
 * chunk has run before the JIT compiles the loop that pushes (else the compiled loop meets it
 * unseen and falls back to the interpreter: a first import in a fresh process paid that).
 */
export class TokenList {
  /**
   * The chunk being filled, made at its full size (an array grown by push allocates about twice its
   * final size on the way; 2 MiB of a 1,000-line import's 18). The first is made small and grows to
   * its 64 like an array pushed to: a short list (a macro's argument) stays small.
   */
  private tail: Tok[] = new Array<Tok>(16);
  /** The tokens in `tail`. */
  private n = 0;
  private readonly chunks: Tok[][] = [this.tail];
  private cap = 64;

  /** `atLines`: a chunk ends only at `lineEnd()` (the lexer's line breaks), so no line straddles two. */
  constructor(private readonly atLines = false) {}

  push(t: Tok): void {
    if (this.n >= this.cap && !this.atLines) this.nextChunk();
    this.tail[this.n++] = t; // past the end (a long line with atLines) the array grows
  }

  /**
   * Room for `n` tokens in one chunk, when none has been pushed yet (not with `atLines`): a list
   * whose size is known about (the preprocessor's output: its main file's tokens) is one array,
   * read whole without a copy; past `n`, chunks follow as before.
   */
  reserve(n: number): void {
    if (this.atLines || this.n > 0 || this.chunks.length > 1 || n <= this.cap) return;
    this.chunks[0] = this.tail = new Array<Tok>(n);
    this.cap = n;
  }

  /** A line ended: with `atLines`, the next token starts a new chunk if this one is full. */
  lineEnd(): void {
    if (this.atLines && this.n >= this.cap) this.nextChunk();
  }

  private nextChunk(): void {
    this.chunks.push((this.tail = new Array<Tok>(CHUNK)));
    this.n = 0;
    this.cap = CHUNK;
  }

  /** The last chunk cut to its tokens (read once whole: nothing is pushed after). */
  private seal(): void {
    if (this.tail.length !== this.n) this.tail.length = this.n;
  }

  /** The chunks themselves (the last may be empty). */
  parts(): readonly Tok[][] {
    this.seal();
    return this.chunks;
  }

  /** The tokens in order (the only chunk itself when there is one). */
  toArray(): Tok[] {
    this.seal();
    const cs = this.chunks;
    if (cs.length === 1) return cs[0]!;
    let n = 0;
    for (let c = 0; c < cs.length; c++) n += cs[c]!.length;
    const out = new Array<Tok>(n);
    let k = 0;
    for (let c = 0; c < cs.length; c++) {
      const chunk = cs[c]!;
      for (let i = 0; i < chunk.length; i++) out[k++] = chunk[i]!;
    }
    return out;
  }
}
