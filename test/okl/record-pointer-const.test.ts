/**
 * Writing through a struct local's pointer-to-const field (record-pointers.ts) is refused at import,
 * as C refuses it: an OklError naming the field, the line of the write and the field's declaration.
 * Before, only the C compiler rejected the generated code. Reading through it, and writing through
 * a field without `const`, keep their meaning (run against the serial meaning).
 */
import { describe, expect, it } from "vitest";
import { OklError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

/** A kernel with struct `bc_t` whose pointer field `w` is `qual double *`, the statements `body` at line 9 of the kernel's `@inner` loop. */
function kernel(qual: string, body: string, fn = ""): string {
  return [
    "typedef struct {",
    "  int id;",
    `  ${qual}double *w;`,
    "} bc_t;",
    fn || "void nop(bc_t *p) { }",
    "@kernel void k(const int N, double *W, const double *A, double *out) {",
    "  for (int b = 0; b < N; ++b; @outer) for (int i = 0; i < 4; ++i; @inner) {",
    "    bc_t bc; bc.id = i; bc.w = W + 4*b;",
    `    ${body}`,
    "    out[4*b + i] = bc.w[i] + A[4*b + i];",
    "  }",
    "}",
  ].join("\n");
}

function refusal(src: string): OklError {
  try {
    parseOkl(src, { filename: "bc.okl" });
  } catch (e) {
    expect(e).toBeInstanceOf(OklError);
    return e as OklError;
  }
  throw new Error("expected an OklError");
}

describe("a struct local's pointer-to-const field", () => {
  const writes: readonly [string, string, string?][] = [
    ["a subscript", "bc.w[i] = A[i];"],
    ["a compound assignment", "bc.w[i] += 1.0;"],
    ["an increment", "bc.w[i]++;"],
    ["a dereference", "*bc.w = 2.0;"],
    ["pointer arithmetic", "*(bc.w + i) = 2.0;"],
    ["a prefix decrement", "--bc.w[0];"],
    ["an opaque block (while loop)", "int t = 0; while (t < 2) { bc.w[t] = 1.0; t++; }"],
  ];
  for (const [what, body] of writes) {
    it(`written through with ${what}: an OklError at the write naming the field and its declaration`, () => {
      const e = refusal(kernel("const ", body));
      expect(e.message).toMatch(/cannot write through pointer field "bc\.w"/);
      expect(e.message).toMatch(/declared at line 3:\d+ as a pointer to const/);
      expect(e.line).toBe(9);
    });
  }

  it("written through in a device function given &bc (bc->w[k]): refused at the function's line", () => {
    const e = refusal(kernel("const ", "touch(&bc);", "void touch(bc_t *p) { p->w[p->id] = 1.0; }"));
    expect(e.message).toMatch(/cannot write through pointer field "bc\.w"/);
    expect(e.line).toBe(5);
  });

  it("`dfloat const *` (const after the type) is a pointer to const too", () => {
    const src = kernel("", "bc.w[i] = 1.0;").replace("  double *w;", "  double const *w;");
    expect(refusal(src).message).toMatch(/pointer field "bc\.w"/);
  });

  it("read through, and written through a field without const, runs as its serial meaning", async () => {
    const N = 3;
    const W0 = seeded(4 * N, 5);
    const A = seeded(4 * N, 6);
    const read = parseOkl(kernel("const ", "out[4*b + i] = 0.0;"))[0]!;
    const args = () => ({ N, W: Float64Array.from(W0), A: Float64Array.from(A), out: new Float64Array(4 * N) });
    await expectSerialMeaning(read, args, { out: W0.map((w, j) => w + A[j]!) }, 1e-12);
    const write = parseOkl(kernel("", "bc.w[i] = 2.0 * A[4*b + i];"))[0]!;
    await expectSerialMeaning(write, args, { out: A.map((a) => 3 * a), W: A.map((a) => 2 * a) }, 1e-12);
  });
});
