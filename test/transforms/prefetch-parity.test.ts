/**
 * Prefetch as loopy's add_prefetch (issue 15, points 4 and 14; issue 16, points 6 and 7): each
 * kernel from loopy's cases run on every backend against a plain TypeScript reference, and each
 * refusal a TransformError naming its cause.
 */
import { describe, expect, it } from "vitest";
import { TransformError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, setTemporaryAddressSpace, splitIname, tagInames } from "../../transforms/index.js";
import { expectOnEveryBackend } from "./every-backend.js";

const rowSums = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[i] = sum(j, a[i,j])", ["a: float64[n,4]", "out: float64[n]", "n: int32"]);
const rowSumsRef = (a: Float64Array, n: number) => Float64Array.from({ length: n }, (_, i) => a[4 * i]! + a[4 * i + 1]! + a[4 * i + 2]! + a[4 * i + 3]!);
const data = (len: number) => Float64Array.from({ length: len }, (_, x) => ((x * 7) % 11) - 3);

describe("a private prefetch's fetch stays within one work-item (issue 16, point 7)", () => {
  const fetched = () => addPrefetch(rowSums(), "a", { sweepInames: ["j"], temporaryAddressSpace: "private" });
  it("tagging its fetch iname l or g is refused, naming the temporary and the iname", () => {
    for (const tag of ["l.0", "g.0"]) {
      expect(() => tagInames(fetched(), { a_dim_0: tag })).toThrow(/"a_dim_0" cannot be tagged .*private temporary "a_fetch"/);
    }
    expect(() => splitIname(fetched(), "a_dim_0", 2, { innerTag: "l.0" })).toThrow(TransformError);
  });
  it("so is making a temporary private when its fetch iname already is on work-items", () => {
    const local = tagInames(addPrefetch(rowSums(), "a", { sweepInames: ["j"], defaultTag: null }), { a_dim_0: "l.0" });
    expect(() => setTemporaryAddressSpace(local, "a_fetch", "private")).toThrow(/private temporary "a_fetch"/);
  });
  it("the sequential private fetch runs right on every backend, i on work-items", async () => {
    const k: Kernel = splitIname(fetched(), "i", 2, { outerTag: "g.0", innerTag: "l.0" });
    const a = data(24);
    await expectOnEveryBackend(k, { a, n: 6 }, { out: rowSumsRef(a, 6) });
  });
});
