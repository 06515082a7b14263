/**
 * OKL rules that need the loop tree or scopes (validate.ts): @shared/@exclusive uses outside @inner
 * loops, @max_inner_dims against known @inner extents, placement of @nobarrier, @simd_length and
 * @max_inner_dims, duplicate axes of nested loops, and typedefs scoped to their block. Each broken
 * rule is an OklError at the offending place: line, column, caret excerpt, rule.
 */
import { describe, expect, it } from "vitest";
import { parseOklAst, parseOklFragment } from "../../src/okl/index.js";
import { OklError } from "../../src/errors.js";

function rejects(src: string, opts = {}): OklError {
  try {
    parseOklAst(src, opts);
  } catch (e) {
    if (e instanceof OklError) return e;
    throw new Error(`expected an OklError, got ${String(e)}`);
  }
  throw new Error("expected an OklError, nothing was thrown");
}

const accepts = (src: string, opts = {}) => expect(() => parseOklAst(src, opts)).not.toThrow();

/** The caret excerpt points at `column` of the line shown. */
function expectAt(e: OklError, line: number, text: string, src: string): void {
  const column = src.split("\n")[line - 1]!.indexOf(text) + 1;
  expect(column, `"${text}" on line ${line}`).toBeGreaterThan(0);
  expect([e.line, e.column]).toEqual([line, column]);
  const [shown, caret] = e.excerpt.split("\n");
  expect(shown).toContain(text);
  expect(caret).toBe(" ".repeat(column - 1) + "^");
}

describe("Cannot use [@shared]/[@exclusive] variables outside an [@inner] loop (OCCA okl.cpp)", () => {
  const kernel = (between: string, after = "") => `@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    @shared float s[16];
    @exclusive float r;
    ${between}
    for (int i = 0; i < 16; ++i; @inner) {
      s[i] = x[i];
      r = s[i];
      for (int j = 0; j < 2; ++j) { x[i] += s[j] + r; }
    }
    ${after}
  }
}`;

  it("accepts uses inside @inner loops, also inside regular loops there", () => {
    accepts(kernel(""));
  });

  it("rejects a @shared use between the @outer and @inner loops, at the use", () => {
    const src = kernel("s[0] = 1.0f;");
    const e = rejects(src);
    expect(e.detail).toMatch(/^Cannot use \[@shared\] variables outside an \[@inner\] loop \("s", declared at line 3, is used here between the \[@outer\] and \[@inner\] loops/);
    expect(e.rule).toBe("@shared use");
    expectAt(e, 5, "s[0]", src);
  });

  it("rejects an @exclusive use after the @inner loop", () => {
    const src = kernel("", "x[o] = r;");
    const e = rejects(src);
    expect(e.detail).toMatch(/^Cannot use \[@exclusive\] variables outside an \[@inner\] loop \("r", declared at line 4/);
    expect(e.rule).toBe("@exclusive use");
    expectAt(e, 11, "r;", src);
  });

  it("rejects uses in conditions and in initializers of other declarations", () => {
    expect(rejects(kernel("if (s[0] > 0) x[o] = 0;")).detail).toContain('"s"');
    expect(rejects(kernel("float t = r;")).detail).toContain('"r"');
    expect(rejects(kernel("@exclusive float t = s[1];")).detail).toContain('"s"');
  });

  it("counts the header of an @inner loop as inside it, that of an @outer loop as outside", () => {
    accepts(kernel("", "for (int i = 0; i < (int) s[0]; ++i; @inner) { x[i] = 0; }"));
    const src = `@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    @shared int n[1];
    for (int p = 0; p < n[0]; ++p; @outer) {
      for (int i = 0; i < 16; ++i; @inner) { x[i] = n[0]; }
    }
  }
}`;
    const e = rejects(src);
    expect(e.rule).toBe("@shared use");
    expectAt(e, 4, "n[0]", src);
  });

  it("follows typedefs (typedef float sh @shared) and respects shadowing", () => {
    const viaTypedef = `typedef float sh @shared;
@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    sh a[16];
    a[0] = 0;
    for (int i = 0; i < 16; ++i; @inner) { a[i] = x[i]; }
  }
}`;
    const e = rejects(viaTypedef);
    expect(e.rule).toBe("@shared use");
    expectAt(e, 5, "a[0]", viaTypedef);
    // `s` in another block is another variable.
    accepts(kernel("{ float s = 1.0f; x[o] = s; }"));
  });

  it("is part of the structural validation (okl/validate=false skips it, as in OCCA)", () => {
    accepts(kernel("s[0] = 1.0f;"), { structure: false });
  });
});

describe("@max_inner_dims against compile-time @inner extents (OCCA serial.cpp, PR #625)", () => {
  const kernel = (dims: string, ni: string, nj: string, pre = "") => `@kernel void k(float *x, int n) {
  ${pre}
  for (int o = 0; o < 4; ++o; @outer @max_inner_dims(${dims})) {
    for (int j = 0; j < ${nj}; ++j; @inner) {
      for (int i = 0; i < ${ni}; ++i; @inner) { x[i + 32 * j] = 0; }
    }
  }
}`;

  it("rejects more work-items than the product allows, at the attribute, naming each loop", () => {
    const src = kernel("32, 2", "32", "4");
    const e = rejects(src);
    expect(e.detail).toBe(
      '[@inner] loop dimensions larger than allowed by [@max_inner_dims]: the [@inner] loops "j" 4 x "i" 32 run 128 work-items, @max_inner_dims(32, 2) allows 64',
    );
    expect(e.rule).toBe("@max_inner_dims extents");
    expectAt(e, 3, "@max_inner_dims", src);
  });

  it("compares products as OCCA does: one axis over its bound is fine when the product fits", () => {
    accepts(kernel("32, 2", "64", "1"));
    accepts(kernel("32, 2", "32", "2"));
  });

  it("skips loops whose extent is not a compile-time constant", () => {
    accepts(kernel("4", "n", "64"));
  });

  it("uses constants declared in the kernel and the in-tile extent of @tile", () => {
    expect(rejects(kernel("16", "N", "1", "const int N = 32;")).detail).toContain('"i" 32 run 32 work-items');
    accepts(`@kernel void k(float *x, int n) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner) @max_inner_dims(16)) { x[i] = 0; }
}`);
    const tiled = `@kernel void k(float *x, int n) {
  for (int i = 0; i < n; i += 2; @tile(16, @outer, @inner) @max_inner_dims(4)) { x[i] = 0; }
}`;
    expect(rejects(tiled).detail).toContain('"i" 8 run 8 work-items');
  });

  it("uses OCCA's path: the first deepest @inner path of the block", () => {
    // OCCA's own max_inner_dims golden: a later sibling path (2 x 5 x 7) exceeds the bound, the first (2 x 3 x 5) does not.
    accepts(`@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer @max_inner_dims(2, 3, 5)) {
    for (int n = 0; n < 2; ++n; @inner) {
      for (int m = 0; m < 3; ++m; @inner) { for (int q = 0; q < 5; ++q; @inner) { x[q] = 0; } }
      for (int m = 0; m < 5; ++m; @inner) { for (int q = 0; q < 7; ++q; @inner) { x[q] = 0; } }
    }
  }
}`);
  });
});

describe("placement of @nobarrier, @simd_length and @max_inner_dims", () => {
  const nest = (outerAttrs: string, innerAttrs: string, middle = "") => `@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer ${outerAttrs}) {${middle}
    for (int i = 0; i < 16; ++i; @inner ${innerAttrs}) { x[i] = 0; }
  }
}`;

  it("accepts each where OCCA reads it", () => {
    accepts(nest("@simd_length(16) @max_inner_dims(16)", "@nobarrier"));
    accepts(`@kernel void k(float *x, int n) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner) @nobarrier @simd_length(8)) { x[i] = 0; }
}`);
  });

  it("@nobarrier only on @inner loops", () => {
    const src = nest("@nobarrier", "");
    const e = rejects(src);
    expect(e.detail).toBe("[@nobarrier] only applies to [@inner] loops (it removes the implicit barrier after an [@inner] loop; this is an [@outer] loop)");
    expect(e.rule).toBe("@nobarrier placement");
    expectAt(e, 2, "@nobarrier", src);
    expect(rejects(nest("", "", "\n    for (int r = 0; r < 2; ++r; @nobarrier) { x[r] = 1; }")).detail).toContain("this is a regular loop");
  });

  it("@simd_length and @max_inner_dims only on the outer-most @outer loop", () => {
    const src = nest("", "@simd_length(16)");
    const e = rejects(src);
    expect(e.detail).toBe("[@simd_length] only applies to the outer-most [@outer] loop (this is an [@inner] loop)");
    expect(e.rule).toBe("@simd_length placement");
    expectAt(e, 3, "@simd_length", src);
    const nested = `@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    for (int p = 0; p < 4; ++p; @outer @max_inner_dims(16)) {
      for (int i = 0; i < 16; ++i; @inner) { x[i] = 0; }
    }
  }
}`;
    const n = rejects(nested);
    expect(n.detail).toBe("[@max_inner_dims] only applies to the outer-most [@outer] loop (this [@outer] loop is nested in another one; move it to the outer-most)");
    expectAt(n, 3, "@max_inner_dims", nested);
    expect(rejects(`@kernel void k(float *x, int n) {
  for (int i = 0; i < n; ++i; @tile(16, @inner, @inner) @max_inner_dims(16)) { x[i] = 0; }
}`, { structure: false }).detail).toContain("a [@tile] whose block loop is not [@outer]");
  });
});

describe("nested loops need different axes", () => {
  it("rejects an @inner(0) loop inside another @inner(0) loop, at the nested one", () => {
    const src = `@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    for (int i = 0; i < 16; ++i; @inner(0)) {
      for (int j = 0; j < 16; ++j; @inner(0)) { x[i + 16 * j] = 0; }
    }
  }
}`;
    const e = rejects(src);
    expect(e.detail).toMatch(
      /^Duplicate \[@inner\] axis 0 \(x\): this \[@inner\(0\)\] loop "j" is nested in the \[@inner\(0\)\] loop "i" at line 3; nested \[@inner\] loops must use different axes/,
    );
    expect(e.rule).toBe("loop axes");
    expectAt(e, 4, "for (int j", src);
  });

  it("rejects @outer(k) in @outer(k) through regular loops, and explicit axes that clash with automatic ones", () => {
    const outer = `@kernel void k(float *x) {
  for (int a = 0; a < 4; ++a; @outer(1)) {
    for (int r = 0; r < 2; ++r) {
      for (int b = 0; b < 4; ++b; @outer(1)) {
        for (int i = 0; i < 16; ++i; @inner) { x[i] = 0; }
      }
    }
  }
}`;
    expect(rejects(outer).detail).toMatch(/^Duplicate \[@outer\] axis 1 \(y\): this \[@outer\(1\)\] loop "b" is nested in the \[@outer\(1\)\] loop "a" at line 2/);
    const auto = `@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    for (int i = 0; i < 16; ++i; @inner(0)) {
      for (int j = 0; j < 16; ++j; @inner) { x[i + 16 * j] = 0; }
    }
  }
}`;
    expect(rejects(auto).detail).toContain('this [@inner] (numbered 0 automatically) loop "j" is nested in the [@inner(0)] loop "i"');
  });

  it("accepts distinct axes, siblings on one axis, and the two levels of one @tile (OCCA's goldens write @tile(4, @inner(1), @inner(1)))", () => {
    accepts(`@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer(1)) {
    for (int p = 0; p < 4; ++p; @outer(0)) {
      for (int i = 0; i < 16; ++i; @inner(1)) { for (int j = 0; j < 16; ++j; @inner(0)) { x[i + 16 * j] = 0; } }
      for (int i = 0; i < 16; ++i; @inner(1)) { for (int j = 0; j < 16; ++j; @inner(0)) { x[i + 16 * j] = 1; } }
    }
  }
}`);
    accepts(`@kernel void k(float *x, int n) {
  for (int i = 0; i < n; ++i; @tile(4, @outer(0), @inner(0))) {
    for (int j = 0; j < n; ++j; @tile(4, @inner(1), @inner(1))) { x[i] = j; }
  }
}`);
  });
});

describe("typedefs are scoped to their block", () => {
  it("a typedef in a function body does not leak into later functions", () => {
    // With the leak, `T * 2` would parse as a declaration of a pointer named 2.
    accepts(`void f(float *y) { typedef int T; T t = 1; y[0] = t; }
@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    for (int i = 0; i < 16; ++i; @inner) { int T = 3; x[i] = T * 2; }
  }
}`);
  });

  it("nor do its OKL attributes: a block-local @shared typedef does not make later variables shared", () => {
    accepts(`void f() { typedef float sh @shared; }
@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) {
    sh a[16];
    a[0] = 0;
    for (int i = 0; i < 16; ++i; @inner) { x[i] = 0; }
  }
}`);
  });

  it("is visible in nested blocks, and an outer typedef of the same name survives the block", () => {
    accepts(`typedef float T;
void f(float *y) {
  { typedef int T; { T t = 1; y[0] = (T) t; } }
  T u = 1.5f;
  y[1] = (T) u;
}
@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) { for (int i = 0; i < 16; ++i; @inner) { x[i] = 0; } }
}`);
  });

  it("a cast to a typedef that went out of scope is an error, not a cast", () => {
    const src = `void f(float *y) { { typedef int T; y[0] = (T) 1; } y[1] = (T) 2; }
@kernel void k(float *x) {
  for (int o = 0; o < 4; ++o; @outer) { for (int i = 0; i < 16; ++i; @inner) { x[i] = 0; } }
}`;
    expect(() => parseOklAst(src)).toThrow(OklError);
    expect(() => parseOklFragment("{ typedef int T; T a = 1; } int b = (int) 2;")).not.toThrow();
  });
});
