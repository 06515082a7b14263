/**
 * Nested @tile (issue 15.18): `@tile(8, @outer, @inner)` around `@tile(16, @outer, @inner)`. OCCA
 * floats the inner tile's @outer block loop above the outer tile's @inner loop (tile.cpp's
 * floatOuterLoopUp; OKL.md §5): both block loops are work-group axes, both in-tile loops
 * work-item axes, and the iterations are the pairs of the two guarded ranges.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { run } from "../../src/run/index.js";
import { expectOnEveryBackend, oklError, only, values } from "./helpers.js";

const tile2d = (ty = 8, tx = 16) => `@kernel void tile2d(const int ny, const int nx, float *a) {
  for (int y = 0; y < ny; ++y; @tile(${ty}, @outer, @inner)) {
    for (int x = 0; x < nx; ++x; @tile(${tx}, @outer, @inner)) {
      a[y * nx + x] = y * 100 + x;
    }
  }
}`;

/** The plain TypeScript meaning: every (y, x) of the two ranges written once. */
function reference(ny: number, nx: number): Float32Array {
  const a = new Float32Array(ny * nx).fill(-1);
  for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) a[y * nx + x] = y * 100 + x;
  return a;
}

describe("nested @tile floats the inner block loop up (OCCA's floatOuterLoopUp)", () => {
  it("numbers the axes as OCCA's tile2d: y blocks g.1, x blocks g.0, y l.1, x l.0", () => {
    const k = only(tile2d());
    const tags = Object.entries(k.inameTags).map(([n, t]) => `${n}:${t.kind}.${"axis" in t ? t.axis : ""}`).sort();
    expect(tags).toEqual(["x_in_tile:l.0", "x_tile:g.0", "y_in_tile:l.1", "y_tile:g.1"]);
  });

  it("writes every (y, x) once on interp, js, c, openmp and opencl (ranges not multiples of the tiles)", async () => {
    const k = only(tile2d());
    const [ny, nx] = [13, 37];
    await expectOnEveryBackend(k, () => ({ ny, nx, a: new Float32Array(ny * nx).fill(-1) }), { a: reference(ny, nx) });
  });

  it("law: any tile sizes and ranges give the reference on the interpreter", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 11 }), fc.integer({ min: 1, max: 11 }), async (ty, tx, ny, nx) => {
        const out = await run(only(tile2d(ty, tx)), { ny, nx, a: new Float32Array(ny * nx).fill(-1) } as never, { backend: "interp" } as never);
        expect(values((out as Record<string, unknown>).a)).toEqual(values(reference(ny, nx)));
      }),
      { numRuns: 25 },
    );
  });

  it("floats through a guard and a block with one statement, as OCCA walks single-child statements", async () => {
    const k = only(`@kernel void f(const int ny, const int nx, float *a) {
  for (int y = 0; y < ny; ++y; @tile(4, @outer, @inner)) {
    if (y % 2 == 0) {
      for (int x = 0; x < nx; ++x; @tile(8, @outer, @inner)) a[y * nx + x] = 1.0f;
    }
  }
}`);
    const [ny, nx] = [7, 10];
    const want = new Float32Array(ny * nx);
    for (let y = 0; y < ny; y += 2) for (let x = 0; x < nx; x++) want[y * nx + x] = 1;
    await expectOnEveryBackend(k, () => ({ ny, nx, a: new Float32Array(ny * nx) }), { a: want });
  });

  it("three nested tiles: every block loop above every in-tile loop (g.2, g.1, g.0 over l.2, l.1, l.0), on every backend", async () => {
    const k = only(`@kernel void t3(const int nz, const int ny, const int nx, float *a) {
  for (int z = 0; z < nz; ++z; @tile(2, @outer, @inner)) {
    for (int y = 0; y < ny; ++y; @tile(4, @outer, @inner)) {
      for (int x = 0; x < nx; ++x; @tile(8, @outer, @inner)) {
        a[(z * ny + y) * nx + x] = z * 10000 + y * 100 + x;
      }
    }
  }
}`);
    const tags = Object.entries(k.inameTags).map(([n, t]) => `${n}:${t.kind}.${"axis" in t ? t.axis : ""}`).sort();
    expect(tags).toEqual(["x_in_tile:l.0", "x_tile:g.0", "y_in_tile:l.1", "y_tile:g.1", "z_in_tile:l.2", "z_tile:g.2"]);
    const [nz, ny, nx] = [3, 5, 11];
    const want = new Float32Array(nz * ny * nx);
    for (let z = 0; z < nz; z++) for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) want[(z * ny + y) * nx + x] = z * 10000 + y * 100 + x;
    await expectOnEveryBackend(k, () => ({ nz, ny, nx, a: new Float32Array(nz * ny * nx) }), { a: want });
  });

  it("refuses a floated block loop whose bounds use the @inner loop it crosses", () => {
    const e = oklError(() => only(`@kernel void f(const int n, float *a) {
  for (int y = 0; y < n; ++y; @tile(8, @outer, @inner)) {
    for (int x = y; x < n; ++x; @tile(16, @outer, @inner)) a[y * n + x] = 1.0f;
  }
}`));
    expect(e.message).toMatch(/block loop "x" floats above the \[@inner\] loop "y".*cannot use "y"/);
  });

  it("does not float past a statement beside the nested tile: @outer inside @inner stays an error", () => {
    const e = oklError(() => only(`@kernel void f(const int n, float *a) {
  for (int y = 0; y < n; ++y; @tile(8, @outer, @inner)) {
    a[y] = 0.0f;
    for (int x = 0; x < n; ++x; @tile(16, @outer, @inner)) a[y * n + x] = 1.0f;
  }
}`));
    expect(e.message).toContain("Cannot have [@outer] loop inside an [@inner] loop");
  });
});
