/**
 * oklStructUnpack gives back the declared shape of every field (OklStructArg's `dims`): 2-D array
 * fields as nested arrays, multi-dimensional arrays of nested structs as nested arrays of objects,
 * one-element arrays as arrays of one. Checked after a kernel writes one element through them
 * (interp and openmp), against the same element written into the JS objects.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { realWorldBackends } from "./real-world-helpers.js";

const SRC = `typedef struct { int k; double w[2]; } cell_t;
typedef struct { int id; cell_t g[2][3]; float m[2][2]; cell_t one[1]; } elem_t;
@kernel void touch(const int n, elem_t *es) {
  for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) {
    es[i].g[1][2].w[1] = es[i].id + es[i].m[1][0];
    es[i].one[0].k = es[i].g[0][1].k + 1;
  }
}`;

const cell = (s: number) => ({ k: s, w: [s + 0.5, s + 0.25] });
const elem = (i: number) => ({
  id: i, m: [[1, 2], [3 + i, 4]], one: [cell(9 * i)],
  g: [[cell(10 * i), cell(10 * i + 1), cell(10 * i + 2)], [cell(10 * i + 3), cell(10 * i + 4), cell(10 * i + 5)]],
});

describe("oklStructUnpack returns each field in its declared shape", () => {
  const [k] = lp.parseOkl(SRC);

  it("records each field's dims per path segment", () => {
    expect(lp.oklStructArg(k!, "es").fields.map((f) => [f.name, f.dims])).toEqual([
      ["id", [[]]], ["g.k", [[2, 3], []]], ["g.w", [[2, 3], [2]]], ["m", [[2, 2]]], ["one.k", [[1], []]], ["one.w", [[1], [2]]],
    ]);
  });

  it("gives back the objects packed and, after a run on interp and openmp, the element the kernel wrote", async () => {
    const recs = [elem(0), elem(1), elem(2)];
    const bytes = lp.oklStructPack(k!, "es", recs);
    expect(lp.oklStructUnpack(k!, "es", bytes)).toEqual(recs);
    const want = recs.map((r) => {
      const x = structuredClone(r);
      x.g[1]![2]!.w[1] = r.id + r.m[1]![0]!;
      x.one[0]!.k = r.g[0]![1]!.k + 1;
      return x;
    });
    for (const backend of realWorldBackends()) {
      const out = await lp.run(k!, { n: recs.length, ...lp.oklStructArrays(k!, "es", bytes) }, { backend } as never);
      expect(lp.oklStructUnpack(k!, "es", lp.oklStructBytes(k!, "es", out, bytes)), backend).toEqual(want);
    }
  });
});
