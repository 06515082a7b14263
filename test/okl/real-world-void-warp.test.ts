/**
 * Issue 20, found widening the corpus: a `void *` argument the kernel never uses (libCEED's `ctx`)
 * is left out with a warning naming it, and using it is an OklError naming it and the line; CUDA's
 * warp shuffles are refused naming the function, its line and what to write instead.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { OklError } from "../../src/errors.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// libCEED's style: every kernel of a QFunction family takes the user context, most never read it.
const mass = `
@kernel void Mass(void *ctx, const int Q, const double *u, const double *rho, double *v) {
  for (int i = 0; i < Q; i++; @tile(32, @outer, @inner)) v[i] = rho[i] * u[i];
}`;

function oklError(f: () => unknown): OklError {
  try {
    f();
  } catch (e) {
    if (e instanceof OklError) return e;
    throw e;
  }
  throw new Error("no OklError");
}

describe("an unused void * argument", () => {
  it("is left out of the kernel's arguments with a warning naming it, and the kernel keeps its serial meaning", async () => {
    const ks = parseOkl(mass);
    expect(ks[0]!.args.map((a) => a.name)).toEqual(["Q", "u", "rho", "v"]);
    expect(ks.warnings).toHaveLength(1);
    expect(ks.warnings[0]!.detail).toContain('argument "ctx" is a `void *`');
    expect([ks.warnings[0]!.line, ks.warnings[0]!.column]).toEqual([2, 19]);
    const Q = 45;
    const u = seeded(Q, 1), rho = seeded(Q, 2);
    await expectSerialMeaning(ks[0]!, () => ({ Q, u: new Float64Array(u), rho: new Float64Array(rho), v: new Float64Array(Q) }), { v: u.map((x, i) => x * rho[i]!) });
  });

  it("is an OklError under warnings: \"error\"", () => {
    expect(oklError(() => parseOkl(mass, { warnings: "error" })).message).toContain('"ctx"');
  });

  it("used (read through a cast, passed on, compared) is an OklError naming it and its line:column", () => {
    const uses = ["((const double *) ctx)[0] * u[i]", "(ctx == 0 ? 1.0 : 2.0) * u[i]", "*((double *) ctx) + u[i]"];
    fc.assert(fc.property(fc.constantFrom(...uses), (use) => {
      const src = mass.replace("rho[i] * u[i]", use);
      const e = oklError(() => parseOkl(src));
      expect(e.message).toContain('argument "ctx" is a `void *`');
      const line = src.split("\n").findIndex((l) => l.includes(use)) + 1;
      const column = src.split("\n")[line - 1]!.indexOf("ctx") + 1;
      expect([e.line, e.column]).toEqual([line, column]);
    }), { numRuns: 6 });
  });
});

describe("CUDA warp votes and matches", () => {
  const kernel = (call: string) => `@kernel void warpSum(const int N, const double *x, double *out) {
  for (int b = 0; b < N; ++b; @outer) {
    for (int t = 0; t < 32; ++t; @inner) {
      double v = x[b*32 + t];
      v += ${call}(0xffffffff, v, 16, 32);
      out[b*32 + t] = v;
    }
  }
}`;
  it("are refused naming the function, its line:column, why and what to write instead", () => {
    // The shuffles themselves have a meaning since (real-world-warp-shuffles.test.ts); the votes and matches do not.
    for (const fn of ["__ballot_sync", "__any_sync", "__all_sync", "__match_any_sync"]) {
      const e = oklError(() => parseOkl(kernel(fn)));
      expect(e.message).toContain(`"${fn}" is a CUDA warp-level operation`);
      expect(e.message).toContain("OKL's model has no warps");
      expect(e.message).toContain("@shared");
      expect([e.line, e.column]).toEqual([5, 12]);
    }
  });

  it("a device function of the file with such a name is the file's own", () => {
    const own = `double __shfl_down_sync(const unsigned int m, const double v, const int d, const int w) { return v + d; }\n${kernel("__shfl_down_sync")}`;
    expect(parseOkl(own)).toHaveLength(1);
  });
});
