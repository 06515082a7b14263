/**
 * C's initializer lists of aggregates (src/okl/lower/aggregate-init.ts) against the C compiler:
 * random arrays of nested structs with array fields, initialized by random lists — fully braced,
 * with the braces of complete subobjects left out (C's brace elision), and cut short at any level
 * (C zero-fills the rest). Every scalar the importer assigns must be the one cc gives (one compile).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as A from "../../src/okl/syntax/ast.js";
import { aggregateScalars, type InitType } from "../../src/okl/lower/aggregate-init.js";
import { nativeAvailable } from "../run/native-helpers.js";

type T =
  | { readonly kind: "scalar"; readonly c: string }
  | { readonly kind: "array"; readonly n: number; readonly elem: T }
  | { readonly kind: "struct"; readonly name: string; readonly members: readonly { readonly name: string; readonly type: T }[] };
type Tree = { readonly kind: "v"; readonly value: number } | { readonly kind: "list"; readonly items: readonly Tree[] };

const POS: A.Pos = { line: 1, column: 1, offset: 0, end: 0 };

/** A member type: a scalar or an array (1 or 2 dims) of a scalar or of the inner struct. */
const memberArb = (inner: T | undefined) => fc.record({
  base: inner ? fc.oneof(fc.constantFrom("int", "double", "char", "float").map((c): T => ({ kind: "scalar", c })), fc.constant(inner)) : fc.constantFrom("int", "double", "char", "float").map((c): T => ({ kind: "scalar", c })),
  dims: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
}).map(({ base, dims }) => dims.reduceRight<T>((t, n) => ({ kind: "array", n, elem: t }), base));

const structArb = (name: string, inner: T | undefined) => fc.array(memberArb(inner), { minLength: 1, maxLength: 3 })
  .map((ts): T => ({ kind: "struct", name, members: ts.map((type, k) => ({ name: `f${k}`, type })) }));

/** The fully braced, complete initializer of `t`, values 1, 2, … in C's order. */
function full(t: T, next: { v: number }): Tree {
  switch (t.kind) {
    case "scalar": return { kind: "v", value: next.v++ % 100 + 1 };
    case "array": return { kind: "list", items: Array.from({ length: t.n }, () => full(t.elem, next)) };
    case "struct": return { kind: "list", items: t.members.map((m) => full(m.type, next)) };
  }
}

/** Braces of complete subobjects whose list starts with a value left out where `elide` says, then lists cut short where `cut` says (at least one item kept). */
function mangle(tree: Tree, elide: () => boolean, cut: () => number): Tree {
  if (tree.kind === "v") return tree;
  const items = tree.items.flatMap((x) => {
    const m = mangle(x, elide, () => 0); // cut after eliding: a cut inner list must keep its braces
    // A braced first item would initialize the parent's next subobject whole, so only lists starting with a value lose their braces.
    return m.kind === "list" && m.items[0]!.kind === "v" && elide() ? m.items : [m];
  });
  const keep = Math.max(1, items.length - cut());
  return { kind: "list", items: items.slice(0, keep).map((x) => (x.kind === "list" ? mangle(x, () => false, cut) : x)) };
}

const text = (x: Tree): string => (x.kind === "v" ? String(x.value) : `{${x.items.map(text).join(", ")}}`);
const ast = (x: Tree): A.Expr => (x.kind === "v"
  ? { kind: "int", value: x.value, text: String(x.value), suffix: "", pos: POS }
  : { kind: "initList", items: x.items.map(ast), designators: x.items.map(() => undefined), pos: POS });
const initType = (t: T): InitType => (t.kind === "scalar" ? { kind: "scalar" } : t.kind === "array"
  ? { kind: "array", count: t.n, elem: initType(t.elem) }
  : { kind: "struct", name: t.name, members: t.members.map((m) => ({ name: m.name, type: initType(m.type) })) });

/** C declarations of `t`'s members (`int f0[2][3]`). */
const declOf = (name: string, t: T, suffix: string): string => {
  const dims: number[] = [];
  let b = t;
  while (b.kind === "array") {
    dims.push(b.n);
    b = b.elem;
  }
  return `${b.kind === "scalar" ? b.c : `struct ${b.name}${suffix}`} ${name}${dims.map((n) => `[${n}]`).join("")}`;
};
/** Every scalar's designator in C's order (`[1].f0[2].f1`). */
const designators = (t: T): string[] => (t.kind === "scalar" ? [""] : t.kind === "array"
  ? Array.from({ length: t.n }, (_, j) => designators(t.elem).map((d) => `[${j}]${d}`)).flat()
  : t.members.flatMap((m) => designators(m.type).map((d) => `.${m.name}${d}`)));

describe("initializers of arrays of nested structs mean what cc makes of them", () => {
  it.skipIf(!nativeAvailable("c"))("random types and lists (braced, braces elided, cut short): every scalar as cc assigns it (one compile)", () => {
    const caseArb = fc.tuple(structArb("In", undefined), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 2 ** 30 }))
      .chain(([inner, n, seed]) => structArb("Out", inner).map((outer) => ({ inner, top: { kind: "array", n, elem: outer } as T, seed })));
    const cases = fc.sample(caseArb, { numRuns: 24, seed: 2006 }).map((c) => {
      let s = c.seed || 1;
      const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
      return { ...c, tree: mangle(full(c.top, { v: 0 }), () => rnd() < 0.5, () => (rnd() < 0.3 ? 1 + Math.floor(rnd() * 2) : 0)) };
    });
    const program = cases.map(({ inner, top, tree }, k) => {
      const struct = (t: T) => (t.kind === "struct" ? `struct ${t.name}${k} { ${t.members.map((m) => `${declOf(m.name, m.type, String(k))};`).join(" ")} };` : "");
      const outer = (top as Extract<T, { kind: "array" }>).elem;
      const ds = designators(top);
      return `${struct(inner)}\n${struct(outer)}\nstatic ${declOf(`a${k}`, top, String(k))} = ${text(tree)};\nstatic void p${k}(void) { printf("${ds.map(() => "%.17g").join(" ")}\\n"${ds.map((d) => `, (double)a${k}${d}`).join("")}); }`;
    });
    const dir = mkdtempSync(join(tmpdir(), "loom-aggregate-"));
    writeFileSync(join(dir, "i.c"), `#include <stdio.h>\n${program.join("\n")}\nint main(void) {\n${cases.map((_, k) => `p${k}();`).join(" ")}\nreturn 0;\n}\n`);
    execFileSync("cc", ["-std=gnu11", "-Werror", "-o", join(dir, "i"), join(dir, "i.c")]);
    const lines = execFileSync(join(dir, "i"), { encoding: "utf8" }).trim().split("\n");
    const fail = (m: string): never => {
      throw new Error(m);
    };
    cases.forEach(({ top, tree }, k) => {
      const { items } = aggregateScalars(initType(top), ast(tree) as A.InitList, "a", "a", fail);
      expect(items.map((x) => (x ? (x as A.IntLit).value : 0)).join(" "), `${text(tree)}`).toBe(lines[k]);
    });
    // The draws elide and cut: not every list is the fully braced one.
    expect(cases.filter(({ top, tree }) => text(tree) !== text(full(top, { v: 0 }))).length).toBeGreaterThan(cases.length / 2);
  });
});
