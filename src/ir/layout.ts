/**
 * Array axis tags (loopy's "data axis tags") and the strides they imply. `c` nests an axis around
 * the ones that follow, `f` inside them, `N0…N9` give explicit nesting levels (N0 = fastest),
 * `stride:EXPR` a fixed stride, `sep` separate arrays, `vec` vector components; `?` marks a tag
 * that is dropped (left-first) when there are more tags than axes.
 */
import { LoomError } from "../errors.js";
import { c, type Expr } from "./expr.js";

export type DimTag =
  | { readonly kind: "nest"; readonly level: number }
  | { readonly kind: "stride"; readonly stride: Expr }
  | { readonly kind: "sep" }
  | { readonly kind: "vec" };

export const DIM_TAG_SYNTAX = "c, f, N0…N9, stride:EXPR, sep, vec, each optionally followed by ?";

type RawTag = { readonly tag: "c" | "f" | "sep" | "vec" } | { readonly tag: "N"; readonly level: number } | { readonly tag: "stride"; readonly stride: Expr };

/**
 * Parse `"c,c,vec"`, `"N1,N0,N2"`, `"f,f"`, `"stride:16,stride:1"`, `"sep?,c"` for an array of
 * `nAxes` axes, resolving `c`/`f` into nesting levels: `parseDimTags("c,c,c", 3)` gives levels 2,1,0.
 */
export function parseDimTags(text: string | readonly string[], nAxes: number): DimTag[] {
  const items = (typeof text === "string" ? text.split(",") : [...text]).map((s) => s.trim()).filter((s) => s !== "");
  let parsed = items.map((s) => ({ optional: s.endsWith("?"), raw: parseOne(s.endsWith("?") ? s.slice(0, -1) : s) }));
  // Drop optional tags left-first until the count matches.
  while (parsed.length > nAxes) {
    const k = parsed.findIndex((p) => p.optional);
    if (k < 0) break;
    parsed = [...parsed.slice(0, k), ...parsed.slice(k + 1)];
  }
  if (parsed.length !== nAxes) {
    throw new LoomError(`dim tags "${items.join(",")}" name ${parsed.length} axes, but the array has ${nAxes}`);
  }
  return resolveNesting(parsed.map((p) => p.raw));
}

function parseOne(s: string): RawTag {
  const lower = s.toLowerCase();
  if (lower === "c" || lower === "f" || lower === "sep" || lower === "vec") return { tag: lower };
  const n = /^N(\d)$/.exec(s);
  if (n) return { tag: "N", level: Number(n[1]) };
  if (s.startsWith("stride:")) return { tag: "stride", stride: parseStrideExpr(s.slice(7)) };
  throw new LoomError(`unknown array axis tag "${s}"; expected ${DIM_TAG_SYNTAX}`);
}

/** Turn c/f into nesting levels among the axes that are neither sep, vec nor fixed-stride. */
function resolveNesting(raw: readonly RawTag[]): DimTag[] {
  const hasN = raw.some((r) => r.tag === "N");
  const hasCF = raw.some((r) => r.tag === "c" || r.tag === "f");
  if (hasN && hasCF) throw new LoomError("array axis tags cannot mix N0…N9 with c/f");
  if (hasN) {
    const levels = raw.flatMap((r) => (r.tag === "N" ? [r.level] : []));
    const sorted = [...levels].sort((a, b) => a - b);
    if (sorted.some((l, k) => l !== k)) {
      throw new LoomError(`nesting levels ${levels.map((l) => "N" + l).join(",")} must be N0…N${levels.length - 1}, each once`);
    }
  }
  // Build the nesting order from the right: a `c` axis goes outside what follows, an `f` axis inside.
  const nested: number[] = []; // outer -> inner
  for (let a = raw.length - 1; a >= 0; a--) {
    const r = raw[a]!;
    if (r.tag === "c") nested.unshift(a);
    else if (r.tag === "f") nested.push(a);
  }
  return raw.map((r, a): DimTag => {
    switch (r.tag) {
      case "N": return { kind: "nest", level: r.level };
      case "c": case "f": return { kind: "nest", level: nested.length - 1 - nested.indexOf(a) };
      case "stride": return { kind: "stride", stride: r.stride };
      case "sep": return { kind: "sep" };
      case "vec": return { kind: "vec" };
    }
  });
}

/** Default tags for an array of `nAxes` axes in C (row-major) or F (column-major) order. */
export function defaultDimTags(nAxes: number, order: "C" | "F"): readonly DimTag[] {
  const memo = order === "C" ? defaultC : defaultF;
  let tags = memo[nAxes];
  if (tags === undefined) {
    tags = Object.freeze(Array.from({ length: nAxes }, (_, a): DimTag => Object.freeze({ kind: "nest", level: order === "C" ? nAxes - 1 - a : a })));
    memo[nAxes] = tags;
  }
  return tags;
}

/** The default tags by rank (every array access asks, during code generation). */
const defaultC: (readonly DimTag[])[] = [];
const defaultF: (readonly DimTag[])[] = [];

/**
 * Strides (in elements) of each axis, or null for `sep`/`vec` axes, which are not addressed by
 * stride. Nest levels multiply the extents of the faster axes: shape (3, M, 4) with c,c,c gives
 * (M*4, 4, 1).
 */
export function axisStrides(shape: readonly Expr[], tags: readonly DimTag[]): (Expr | null)[] {
  const byLevel = new Map<number, number>();
  tags.forEach((t, a) => {
    if (t.kind === "nest") byLevel.set(t.level, a);
  });
  return tags.map((t): Expr | null => {
    if (t.kind === "stride") return t.stride;
    if (t.kind !== "nest") return null;
    let stride: Expr = c(1);
    for (let l = 0; l < t.level; l++) stride = mulExpr(stride, shape[byLevel.get(l)!]!);
    return stride;
  });
}

/** `a*b` with constants folded and kept last (`M*4`, not `4*M`). */
export function mulExpr(a: Expr, b: Expr): Expr {
  if (a.kind === "const" && b.kind === "const") return c(a.value * b.value);
  if (a.kind === "const" && a.value === 1) return b;
  if (b.kind === "const" && b.value === 1) return a;
  if (a.kind === "const") return { kind: "arith", op: "*", left: b, right: a };
  if (a.kind === "arith" && a.op === "*" && a.right.kind === "const" && b.kind !== "const") {
    return { kind: "arith", op: "*", left: mulExpr(a.left, b), right: a.right };
  }
  if (a.kind === "arith" && a.op === "*" && a.right.kind === "const" && b.kind === "const") {
    return { kind: "arith", op: "*", left: a.left, right: c(a.right.value * b.value) };
  }
  return { kind: "arith", op: "*", left: a, right: b };
}

/** Stride expressions: integers, names, `+ - *` and parentheses (`stride:16`, `stride:n*4`). */
function parseStrideExpr(text: string): Expr {
  const toks = text.match(/\d+|[A-Za-z_][A-Za-z0-9_]*|[-+*()]|\S/g) ?? [];
  let pos = 0;
  const fail = (): never => {
    throw new LoomError(`cannot read stride "${text}"; expected integers, names, + - * and parentheses`);
  };
  const atom = (): Expr => {
    const t = toks[pos++] ?? fail();
    if (/^\d+$/.test(t)) return c(Number(t));
    if (/^[A-Za-z_]/.test(t)) return { kind: "var", name: t };
    if (t === "-") return { kind: "neg", operand: atom() };
    if (t === "(") {
      const e = sum();
      if (toks[pos++] !== ")") fail();
      return e;
    }
    return fail();
  };
  const product = (): Expr => {
    let e = atom();
    while (toks[pos] === "*") {
      pos++;
      e = { kind: "arith", op: "*", left: e, right: atom() };
    }
    return e;
  };
  const sum = (): Expr => {
    let e = product();
    while (toks[pos] === "+" || toks[pos] === "-") {
      const op = toks[pos++] as "+" | "-";
      e = { kind: "arith", op, left: e, right: product() };
    }
    return e;
  };
  const e = sum();
  if (pos !== toks.length) fail();
  return e;
}
