/**
 * The LoomError hierarchy: every failure a user can cause is one of these, naming what was wrong,
 * where, and what would be accepted. A leaf module: every folder of the library may import it.
 */

/** Base of every error Loom throws on purpose. `catch (e) { if (e instanceof lp.LoomError) … }` */
export class LoomError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A place in a text: 1-based line and column. */
export interface SourcePos {
  readonly line: number;
  readonly column: number;
}

/** Position of character `offset` (0-based) in `text` as 1-based line and column. */
export function positionAt(text: string, offset: number): SourcePos {
  let line = 1;
  let lineStart = 0;
  const end = Math.max(0, Math.min(offset, text.length));
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** The line `line` of `text` followed by a caret under `column`: the excerpt shown in parse errors. */
export function excerptAt(text: string, line: number, column: number): string {
  const lines = text.split("\n");
  const src = lines[line - 1] ?? "";
  return `${src}\n${" ".repeat(Math.max(0, column - 1))}^`;
}

/**
 * Malformed text (a domain, an instruction, a tag, a dtype). `line`/`column` are 1-based and
 * relative to `source`; the message ends with the offending line and a caret.
 */
export class ParseError extends LoomError {
  readonly line: number;
  readonly column: number;
  readonly excerpt: string;
  readonly source: string;
  /** The bare description, without place and excerpt. */
  readonly detail: string;

  constructor(detail: string, source: string, line: number, column: number, what = "input") {
    const excerpt = excerptAt(source, line, column);
    super(`${what} ${line}:${column}: ${detail}\n${excerpt}`);
    this.detail = detail;
    this.source = source;
    this.line = line;
    this.column = column;
    this.excerpt = excerpt;
  }

  /** The error at character `offset` (0-based) of `source`. */
  static at(detail: string, source: string, offset: number, what = "input"): ParseError {
    const { line, column } = positionAt(source, offset);
    return new ParseError(detail, source, line, column, what);
  }
}

/**
 * Malformed OKL: `rule` names the rule of the OKL specification that was broken. `excerpt` is the
 * offending source line with a caret under `column` (empty when the source is not known); `detail`
 * is the bare description without place, rule and excerpt.
 */
export class OklError extends LoomError {
  readonly line: number;
  readonly column: number;
  readonly rule: string;
  readonly filename: string | undefined;
  readonly excerpt: string;
  readonly detail: string;

  constructor(detail: string, line: number, column: number, rule: string, filename?: string, excerpt = "") {
    super(`${filename ?? "<okl>"}:${line}:${column}: ${detail} [${rule}]${excerpt ? "\n" + excerpt : ""}`);
    this.line = line;
    this.column = column;
    this.rule = rule;
    this.filename = filename;
    this.excerpt = excerpt;
    this.detail = detail;
  }
}

/** An invalid transformation request (unknown iname, tag clash, factor < 1, …). */
export class TransformError extends LoomError {}

/** The kernel cannot be scheduled (dependency cycle, barrier inside a local-id loop, …). */
export class ScheduleError extends LoomError {}

/** The kernel cannot be expressed in the requested target. */
export class CodegenError extends LoomError {}

/** An execution backend is not available on this machine; the message says what to install. */
export class BackendUnavailableError extends LoomError {}

/** A kernel could not be run with the given arguments (wrong dtype or length, missing value, …). */
export class ExecutionError extends LoomError {}

/** An internal invariant was broken: a bug in Loom, never the user's fault. */
export class InternalError extends LoomError {}

/** A value as it appears in a message: JSON where it has one, else its type. `shown({a: 1}) === '{"a":1}'` */
export function shown(x: unknown): string {
  // JSON has no NaN, Infinity or bigint: `null` or a throw would hide what was passed.
  if (typeof x === "number" && !Number.isFinite(x)) return String(x);
  if (typeof x === "bigint") return `${x}n`;
  try {
    return JSON.stringify(x) ?? typeof x;
  } catch {
    return typeof x;
  }
}

/** `snake_case` in camelCase: loopy's option names (`sweep_inames`) as Loom spells them. */
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The number of single-character insertions, deletions, substitutions and transpositions of two
 * neighbours from `a` to `b` (the optimal-string-alignment distance: "outerTga" is one edit from
 * "outerTag", as a person sees it).
 */
function editDistance(a: string, b: string): number {
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The name of `names` a misspelt `key` most likely meant: its camelCase or case variant, else
 * the nearest within two edits (and fewer than half its letters). `closestName("checkbound",
 * ["backend", "checkBounds"]) === "checkBounds"`; undefined when nothing is close.
 */
export function closestName(key: string, names: readonly string[]): string | undefined {
  const loose = (n: string) => n.toLowerCase().replace(/_/g, "");
  const exact = names.find((n) => n === camel(key)) ?? names.find((n) => loose(n) === loose(key));
  if (exact !== undefined) return exact;
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = editDistance(loose(key), loose(n));
    if (d <= 2 && d * 2 < key.length && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

/**
 * `opts` checked against the option names `known` of the function `who`: absent or null is no
 * options; anything else must be a plain object whose every key is known, else `make(message)`
 * is thrown, suggesting the closest name (`closestName`).
 *
 *   checkOptionNames({ outertag: "g.0" }, "splitIname", SPLIT_OPTIONS, (m) => new TransformError(m))
 *   // TransformError: splitIname: unknown option "outertag" (did you mean "outerTag"?); options are outerIname, …
 */
export function checkOptionNames<T extends object>(
  opts: T | null | undefined, who: string, known: Readonly<Record<keyof T, true>>, make: (message: string) => LoomError,
): T {
  if (opts === undefined || opts === null) return {} as T;
  const names = Object.keys(known);
  const list = names.join(", ");
  if (typeof opts !== "object" || Array.isArray(opts)) throw make(`${who}: options must be an object such as { ${names[0]}: … }; got ${shown(opts)}; options are ${list}`);
  for (const key of Object.keys(opts)) {
    if (Object.prototype.hasOwnProperty.call(known, key)) continue;
    const near = closestName(key, names);
    throw make(`${who}: unknown option "${key}"${near ? ` (did you mean "${near}"?)` : ""}; options are ${list}`);
  }
  return opts;
}

/** Exhaustiveness check for discriminated unions: a new variant is a compile error here. */
export function assertNever(x: never, what = "value"): never {
  throw new InternalError(`unexpected ${what}: ${JSON.stringify(x)}`);
}

/**
 * `e`, or — when `e` is a JavaScript stack overflow caused by pathologically deep input (an
 * expression of tens of thousands of nested terms) — a LoomError saying so.
 */
export function depthError(what: string, e: unknown): unknown {
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new LoomError(`${what}: the input is nested or chained too deeply to process (JavaScript stack exhausted); split it into smaller expressions`);
  }
  return e;
}

/** Run `f` with `depthError` applied to what it throws, so no input escapes as a RangeError. */
export function guardDepth<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw depthError(what, e);
  }
}
