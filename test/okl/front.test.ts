/** The OKL front end: AST shape and positions, the preprocessor, attribute forms, diagnostics. */
import { describe, expect, it } from "vitest";
import { parseOklAst, parseOklFragment, normalizeOkl, kernelsOf, type Compound, type For, type FunctionDef, type Declaration } from "../../src/okl/index.js";
import { OklError } from "../../src/errors.js";

const K = (body: string, params = "int n, float *x") => `@kernel void k(${params}) {\n${body}\n}`;
const LOOPS = (inner: string) => `for (int o = 0; o < n; ++o; @outer) {\n  for (int i = 0; i < 16; ++i; @inner) {\n    ${inner}\n  }\n}`;

function oklError(f: () => unknown): OklError {
  try {
    f();
  } catch (e) {
    if (e instanceof OklError) return e;
    throw new Error(`expected an OklError, got ${String(e)}`);
  }
  throw new Error("expected an OklError, nothing was thrown");
}

function kernel(src: string, opts = {}): FunctionDef {
  return kernelsOf(parseOklAst(src, opts))[0]!;
}
const outerOf = (f: FunctionDef) => f.body!.items.find((s): s is For => s.kind === "for")!;

describe("the AST", () => {
  it("gives kernels, parameters and decoded loops", () => {
    const f = kernel(K(LOOPS("x[o * 16 + i] = 2.0f * x[o * 16 + i];"), "const int n, float *x @restrict"));
    expect(f.name).toBe("k");
    expect(f.params.map((p) => [p.declarator.name, p.spec.base.kind === "builtin" && p.spec.base.name, p.declarator.pointers.length])).toEqual([["n", "int", 0], ["x", "float", 1]]);
    expect(f.params[1]!.declarator.okl.restrict).toBe(true);
    const outer = outerOf(f);
    expect(outer.okl).toEqual({ kind: "outer", axis: undefined });
    const inner = (outer.body as Compound).items[0] as For;
    expect(inner.okl).toEqual({ kind: "inner", axis: undefined });
    expect(inner.attributes[0]!.placement).toBe("forClause");
  });

  it("decodes @tile with nested attributes and check=", () => {
    const f = kernel(K("for (int i = 0; i < n; ++i; @tile(16, @outer(1), @inner, check=false)) x[i] = 0;"));
    const t = outerOf(f).okl!;
    expect(t.kind).toBe("tile");
    if (t.kind !== "tile") return;
    expect(t.size).toMatchObject({ kind: "int", value: 16 });
    expect(t.outer).toEqual({ kind: "outer", axis: 1 });
    expect(t.inner).toEqual({ kind: "inner", axis: undefined });
    expect(t.check).toBe(false);
    expect(outerOf(f).attributes[0]!.argsText).toBe("16, @outer(1), @inner, check=false");
  });

  it("reads the normalized [[okl_*]] form the same as the legacy one", () => {
    const legacy = outerOf(kernel(K("for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) x[i] = 0;")));
    const norm = outerOf(kernel(`[[okl_kernel("")]] void k(int n, float *x) { [[okl_tile("(16,@outer,@inner)")]] for (int i = 0; i < n; ++i) x[i] = 0; }`));
    expect(norm.okl?.kind).toBe("tile");
    expect(norm.attributes[0]!.syntax).toBe("normalized");
    expect(JSON.stringify(norm.okl, (k, v) => (k === "pos" ? undefined : v))).toBe(JSON.stringify(legacy.okl, (k, v) => (k === "pos" ? undefined : v)));
  });

  it("attaches @shared, @exclusive, @dim and @dimOrder to declarators in every position", () => {
    const f = kernel(K(`for (int o = 0; o < n; ++o; @outer) {
  @shared float s[16];
  @exclusive float r;
  for (int i = 0; i < 16; ++i; @inner) { s[i] = r; }
}`, "int n, float *a @dim(n, n) @dimOrder(1, 0), @dim(4) float *b"));
    expect(f.params[1]!.declarator.okl).toMatchObject({ dimOrder: [1, 0] });
    expect(f.params[1]!.declarator.okl.dim?.length).toBe(2);
    expect(f.params[2]!.declarator.okl.dim?.length).toBe(1);
    const body = (outerOf(f).body as Compound).items;
    expect((body[0] as Declaration).declarators[0]!.okl.shared).toBe(true);
    expect((body[1] as Declaration).declarators[0]!.okl.exclusive).toBe(true);
  });

  it("has barrier and atomic statements", () => {
    const f = kernel(K(`for (int o = 0; o < n; ++o; @outer) {
  @shared float s[16];
  for (int i = 0; i < 16; ++i; @inner) { s[i] = 0; @barrier; @atomic x[0] += s[i]; @barrier("warp"); }
}`));
    const inner = (outerOf(f).body as Compound).items[1] as For;
    const kinds = (inner.body as Compound).items.map((s) => (s.kind === "barrier" ? `barrier:${s.scope}` : s.kind));
    expect(kinds).toEqual(["expr", "barrier:block", "atomic", "barrier:warp"]);
  });

  it("parses full C expressions with literal suffixes, casts, sizeof, ternaries and compound assignments", () => {
    const f = kernel(K(LOOPS("x[i] += (float)(i << 2u) * 1.5e-3f + sizeof(double) + (i > 2 ? x[i - 1] : 0.0) - 'a' + 0x1FULL;")));
    const stmt = ((outerOf(f).body as Compound).items[0] as For).body as Compound;
    const e = stmt.items[0]!;
    expect(e.kind).toBe("expr");
    if (e.kind !== "expr" || e.expr.kind !== "assign") throw new Error("expected an assignment");
    expect(e.expr.op).toBe("+=");
    const lits: string[] = [];
    const walk = (x: unknown): void => {
      if (x && typeof x === "object") {
        const o = x as Record<string, unknown>;
        if ((o.kind === "int" || o.kind === "float") && typeof o.suffix === "string") lits.push(`${o.text}|${o.suffix}`);
        for (const v of Object.values(o)) walk(v);
      }
    };
    walk(e.expr.value);
    expect(lits).toEqual(["2u|u", "1.5e-3f|f", "8UL|ul", "2|", "1|", "0.0|", "0x1FULL|ull"]); // sizeof(double): C's size_t 8, folded by the front end
  });

  it("records 1-based line:column and offsets of the original source", () => {
    const src = K(LOOPS("x[i] = 0;"));
    const f = kernel(src);
    const outer = outerOf(f);
    expect([outer.pos.line, outer.pos.column]).toEqual([2, 1]);
    expect(src.slice(outer.pos.offset, outer.pos.offset + 3)).toBe("for");
    expect(src.slice(outer.pos.offset, outer.pos.end).endsWith("}")).toBe(true);
  });
});

describe("the preprocessor", () => {
  it("expands object- and function-like macros with # and ##, keeping the invocation's place", () => {
    const src = `#define BS 16
#define IDX(a, b) ((a) * BS + (b))
#define NAME(p) p##_tmp
#define STR(s) #s
${K(LOOPS("float NAME(v) = x[IDX(o, i)]; const char *s = STR(hello world);"))}`;
    const f = kernel(src);
    const inner = (outerOf(f).body as Compound).items[0] as For;
    const decl = (inner.body as Compound).items[0] as Declaration;
    expect(decl.declarators[0]!.name).toBe("v_tmp");
    const s = ((inner.body as Compound).items[1] as Declaration).declarators[0]!.init;
    expect(s).toMatchObject({ kind: "string", value: "hello world" });
    expect(decl.pos.line).toBe(8);
  });

  it("evaluates #if/#ifdef/#elif/#else with defined(), user defines and OCCA's predefined macros", () => {
    const src = `#if defined(__OKL__) && OKL_VERSION >= 20000 && MODE == 2
#define BODY x[i] = 2;
#elif MODE == 1
#define BODY x[i] = 1;
#else
#error no mode
#endif
#ifndef MODE
#error MODE must be set
#endif
${K(LOOPS("BODY"))}`;
    expect(() => parseOklAst(src, { defines: { MODE: 2 } })).not.toThrow();
    expect(() => parseOklAst(src, { defines: { MODE: 1 } })).not.toThrow();
    expect(oklError(() => parseOklAst(src, { defines: { MODE: 3 } })).message).toMatch(/#error no mode/);
  });

  it("reads #include through the injected reader, searching the include paths", () => {
    const files: Record<string, string> = { "/inc/consts.h": "#define N 64\ntypedef float real;\n" };
    const src = `#include "consts.h"\n${K(LOOPS("real y = x[i] * N;"))}`;
    const f = kernel(src, { includePaths: ["/inc"], readFile: (p: string) => files[p] });
    expect(f.name).toBe("k");
    const e = oklError(() => parseOklAst(src, { readFile: () => undefined }));
    expect(e.message).toMatch(/File does not exist: "consts.h"/);
  });

  it("applies @directive and #pragma occa attributes", () => {
    const src = `@directive("#define TILE 8")
@kernel void k(int n, float *x) {
#pragma occa attributes @tile(TILE, @outer, @inner)
  for (int i = 0; i < n; ++i) x[i] = 0;
}`;
    const t = outerOf(kernel(src)).okl!;
    expect(t.kind === "tile" && t.size).toMatchObject({ kind: "int", value: 8 });
  });

  it("keeps other #pragma lines as pragma statements", () => {
    const f = kernel(K(LOOPS("#pragma unroll 4\n    for (int k = 0; k < 4; ++k) x[k] = 0;")));
    const inner = (outerOf(f).body as Compound).items[0] as For;
    expect((inner.body as Compound).items[0]).toMatchObject({ kind: "pragma", text: "unroll 4" });
  });
});

describe("diagnostics: OklError with line, column, caret excerpt and rule", () => {
  const cases: [string, string, number, number, RegExp, string][] = [
    ["@shared outside @outer", K(`  @shared float s[4];\n${LOOPS("x[i] = 0;")}`), 2, 3, /Must define \[@shared\] variables between \[@outer\] and \[@inner\] loops/, "@shared placement"],
    ["bad @outer axis", K("  for (int o = 0; o < n; ++o; @outer(3)) {}"), 2, 31, /\[@outer\] argument must be 0, 1, or 2/, "@outer arguments"],
    ["@inner without @outer", K(`${LOOPS("x[i] = 0;")}\nfor (int i = 0; i < n; ++i; @inner) {}`), 7, 1, /Cannot have \[@inner\] loop outside of an \[@outer\] loop/, "loop structure"],
    ["mismatched inner loops in branches", K(`for (int o = 0; o < n; ++o; @outer) {
  if (n > 2) {
    for (int i = 0; i < 4; ++i; @inner) { for (int j = 0; j < 4; ++j; @inner) {} }
  } else {
    for (int i = 0; i < 4; ++i; @inner) {}
  }
}`), 6, 5, /Mismatch of \[@inner\] loops: expected loop inside/, "loop structure"],
    ["break in an @inner body", K(LOOPS("break;")), 4, 5, /Statement cannot be directly inside an \[@inner\] loop/, "break/continue"],
    ["@dim arity", K(LOOPS("x(i, o, 1) = 0;"), "int n, float *x @dim(n, n)"), 4, 5, /Too many dimensions, expected 2 argument\(s\)/, "@dim arity"],
    ["@dimOrder not a permutation", K(LOOPS("x[i] = 0;"), "int n, float *x @dim(n, n) @dimOrder(0, 0)"), 1, 43, /\[@dimOrder\] Duplicate index/, "@dimOrder arguments"],
    ["unknown attribute", K("  @outr for (int o = 0; o < n; ++o) {}"), 2, 3, /unknown attribute @outr/, "attribute name"],
    ["loop update", K("  for (int o = 0; o < n; o *= 2; @outer) { for (int i = 0; i < 4; ++i; @inner) {} }"), 2, 26, /Expected update \[o\] with one of these operators/, "OKL loop form"],
    ["C++ function template", "template <typename T> T f(T x) { return x; }", 1, 1, /C\+\+ templates \(only struct templates are supported, not function templates\): outside Loom's OKL subset/, "OKL subset"],
    ["C++ class inheritance", "class A : B { int x; };", 1, 9, /C\+\+ inheritance: outside Loom's OKL subset/, "OKL subset"],
    ["no kernel", "void f() {}", 1, 1, /No \[@kernel\] functions found/, "@kernel"],
  ];
  for (const [what, src, line, column, re, rule] of cases) {
    it(what, () => {
      const e = oklError(() => parseOklAst(src, { filename: "t.okl" }));
      expect(e.detail).toMatch(re);
      expect(e.rule).toBe(rule);
      expect([e.line, e.column]).toEqual([line, column]);
      expect(e.message.startsWith(`t.okl:${line}:${column}: `)).toBe(true);
      expect(e.excerpt.split("\n")[1]).toBe(" ".repeat(column - 1) + "^");
    });
  }

  it("an error inside an included file names that file", () => {
    const e = oklError(() => parseOklAst(`#include "a.h"\n${K(LOOPS("x[i] = 0;"))}`, { readFile: (p) => (p === "a.h" ? "int f( {" : undefined) }));
    expect(e.filename).toBe("a.h");
    expect(e.line).toBe(1);
  });
});

describe("fragments (OCCA's parser tests)", () => {
  it("parses statements at the top level and checks @dim calls", () => {
    expect(parseOklFragment("@dim(1,2,3) @dimOrder(2,0,1) int *x; x(1,2,3);").length).toBe(2);
    expect(oklError(() => parseOklFragment("@dim(1,2,3) int *x; x(1,2);")).detail).toMatch(/Missing dimensions, expected 3/);
  });
});

describe("normalizeOkl", () => {
  it("moves 4th-clause and postfix attributes to the front", () => {
    const out = normalizeOkl("@kernel void f(const float *a @restrict) { for (int i = 0; i < 4; ++i; @outer(0)) { int b[4] @dim(2, 2); } }");
    expect(out.replace(/\s+/g, " ")).toBe(
      '[[okl_kernel("")]] void f([[okl_restrict("")]] const float *a ) { [[okl_outer("(0)")]] for (int i = 0; i < 4; ++i ) { [[okl_dim("(2,2)")]] int b[4] ; } }',
    );
  });

  it("its output parses to the same loops as its input", () => {
    const src = K(LOOPS("x[i] = 0;"));
    const a = outerOf(kernel(src));
    const b = outerOf(kernel(normalizeOkl(src)));
    expect(b.okl).toEqual(a.okl);
  });
});
