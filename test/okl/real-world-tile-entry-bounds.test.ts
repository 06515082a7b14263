/**
 * Issue 20: `@tile` loops bounded by a private scalar that the kernel assigns again after the loop
 * (an element's active-node count lowered between two sweeps). Plain and @inner loops read such a
 * bound at entry since entry-bounds.ts; @tile loops did not: their domain took the scalar as a
 * parameter, the scheduler ordered the later write before the loop, and the loop ran over the later
 * value on every backend (a silent wrong result). They now read it at entry too; a body that writes
 * its own @tile loop's bound is refused at the write.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const NP = 8, NFP = 3, MAXROW = 12;
const DEFINES = { defines: { dfloat: "double", dlong: "int", p_Np: NP, p_Nfp: NFP, p_tile: 4, p_block: 16, p_maxRow: MAXROW } };

// Per element: every node copied, then the first p_Nfp nodes lifted with their mirror node, the
// active count lowered between the two tiled sweeps.
const FACE_LIFT = `
@kernel void faceLift(const dlong Nelements, @restrict const dfloat *q, @restrict dfloat *Lq) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    dlong Nactive = p_Np;
    for (int n = 0; n < Nactive; ++n; @tile(p_tile, @inner, @inner)) Lq[e*p_Np + n] = q[e*p_Np + n];
    Nactive = p_Nfp;
    for (int n = 0; n < Nactive; ++n; @tile(p_tile, @inner, @inner)) Lq[e*p_Np + n] += 0.5*q[e*p_Np + p_Np - 1 - n];
  }
}`;

function faceLiftSerial(q: readonly number[], ne: number): number[] {
  const out = [...q];
  for (let e = 0; e < ne; e++) for (let n = 0; n < NFP; n++) out[e * NP + n]! += 0.5 * q[e * NP + NP - 1 - n]!;
  return out;
}

// Per row (a @tile(16, @outer, @inner) loop): its first rowCounts[r] values scaled, then the first
// half of them shifted, each a plain @tile loop over the row's count, halved between them.
const ROW_SCALE = `
@kernel void rowScale(const dlong Nrows, @restrict const dlong *rowCounts, @restrict const dfloat *vals, @restrict dfloat *out) {
  for (dlong r = 0; r < Nrows; ++r; @tile(p_block, @outer, @inner)) {
    if (r < Nrows) {
      dlong n = rowCounts[r];
      for (dlong j = 0; j < n; ++j; @tile(p_tile)) out[r*p_maxRow + j] = 2.0*vals[r*p_maxRow + j];
      n = n / 2;
      for (dlong j = 0; j < n; ++j; @tile(p_tile)) out[r*p_maxRow + j] += 10.0;
    }
  }
}`;

function rowScaleSerial(counts: readonly number[], vals: readonly number[]): number[] {
  const out = new Array<number>(counts.length * MAXROW).fill(0);
  counts.forEach((n, r) => {
    for (let j = 0; j < n; j++) out[r * MAXROW + j] = 2 * vals[r * MAXROW + j]!;
    for (let j = 0; j < Math.trunc(n / 2); j++) out[r * MAXROW + j]! += 10;
  });
  return out;
}

describe("a @tile loop bounded by a private scalar the kernel assigns again", () => {
  it("@tile(K, @inner, @inner) reads the bound at entry: the serial meaning on interp and openmp", async () => {
    const [k] = parseOkl(FACE_LIFT, { filename: "faceLift.okl", ...DEFINES });
    const ne = 3;
    const q = seeded(ne * NP, 5);
    const args = () => ({ Nelements: ne, q: Float64Array.from(q), Lq: new Float64Array(ne * NP) });
    await expectSerialMeaning(k!, args, { Lq: faceLiftSerial(q, ne) }, 1e-12, { checkBounds: false });
  });

  it("plain @tile(K) loops inside @tile(16, @outer, @inner) read the row's count at entry, for all counts", async () => {
    const [k] = parseOkl(ROW_SCALE, { filename: "rowScale.okl", ...DEFINES });
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 0, max: MAXROW }), { minLength: 1, maxLength: 20 }), fc.integer({ min: 1, max: 1000 }), async (counts, seed) => {
      const vals = seeded(counts.length * MAXROW, seed);
      const args = () => ({ Nrows: counts.length, rowCounts: Int32Array.from(counts), vals: Float64Array.from(vals), out: new Float64Array(counts.length * MAXROW) });
      await expectSerialMeaning(k!, args, { out: rowScaleSerial(counts, vals) }, 1e-12, { checkBounds: false });
    }), { numRuns: 3 });
  });

  it("the copy is a fresh temporary the tile's domain reads", () => {
    const [k] = parseOkl(ROW_SCALE, { filename: "rowScale.okl", ...DEFINES });
    const entry = k!.temporaries.filter((t) => t.name.startsWith("n_entry"));
    expect(entry.length).toBeGreaterThan(0);
    expect(k!.domains.some((d) => d.params.some((p) => entry.some((t) => t.name === p)))).toBe(true);
  });

  it("a @tile(…, @outer, …) nested in an @outer loop and bounded by a computed scalar is refused at the loop, naming the scalar", () => {
    const e = oklError(() => parseOkl(`
@kernel void nested(const dlong Nelements, @restrict const dlong *counts, @restrict dfloat *x) {
  for (dlong e = 0; e < Nelements; ++e; @outer(1)) {
    dlong cnt = counts[e];
    for (dlong i = 0; i < cnt; ++i; @tile(p_tile, @outer(0), @inner(0))) x[e*p_maxRow + i] = 1.0;
    cnt = 0;
  }
}`, { filename: "nested.okl", ...DEFINES }));
    expect([e.line, e.message]).toEqual([5, expect.stringMatching(/nested\.okl:5:5: @tile loop "i": its @outer level sizes the launch, before the kernel runs, but its bound reads "cnt", a value the kernel computes/)]);
  });

  it("an @inner level bounded by a computed scalar in a nest with @shared memory is refused at import, naming the scalar; the guarded form runs", async () => {
    const lift = (loop: string, first = "@tile(p_tile, @inner, @inner)") => `
@kernel void sharedLift(const dlong Nelements, @restrict const dlong *counts, @restrict const dfloat *q, @restrict dfloat *Lq) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_q[p_Np];
    dlong Nactive = counts[e];
    for (int n = 0; n < p_Np; ++n; ${first}) s_q[n] = q[e*p_Np + n];
    @barrier();
    ${loop}
  }
}`;
    const tile = oklError(() => parseOkl(lift("for (int n = 0; n < Nactive; ++n; @tile(p_tile, @inner, @inner)) Lq[e*p_Np + n] = s_q[p_Np - 1 - n];"), { filename: "lift.okl", ...DEFINES }));
    expect([tile.line, tile.message]).toEqual([8, expect.stringMatching(/lift\.okl:8:5: @tile loop "n": its @inner block level is a work-group axis in this nest with @shared memory or barriers, .* reads "Nactive", a value the kernel computes/)]);
    const inner = oklError(() => parseOkl(lift("for (int n = 0; n < Nactive; ++n; @inner) Lq[e*p_Np + n] = s_q[p_Np - 1 - n];", "@inner"), { filename: "lift.okl", ...DEFINES }));
    expect(inner.message).toMatch(/lift\.okl:8:5: @inner loop "n": its work-items are a work-group axis .* guard the work-items/);
    const [k] = parseOkl(lift("for (int n = 0; n < p_Np; ++n; @tile(p_tile, @inner, @inner)) if (n < Nactive) Lq[e*p_Np + n] = s_q[p_Np - 1 - n];"), { filename: "lift.okl", ...DEFINES });
    const ne = 3, q = seeded(ne * NP, 5), counts = [NP, 3, 0];
    const want = q.map((v, i) => (i % NP < counts[Math.floor(i / NP)]! ? q[Math.floor(i / NP) * NP + NP - 1 - (i % NP)]! : -1));
    await expectSerialMeaning(k!, () => ({ Nelements: ne, counts: Int32Array.from(counts), q: Float64Array.from(q), Lq: new Float64Array(ne * NP).fill(-1) }), { Lq: want });
  });

  it("a body that writes its @tile loop's bound is refused at the write", () => {
    const e = oklError(() => parseOkl(ROW_SCALE.replace("out[r*p_maxRow + j] += 10.0;", "{ out[r*p_maxRow + j] += 10.0; if (vals[r*p_maxRow + j] < 0) n = j; }"), { filename: "rowScale.okl", ...DEFINES }));
    expect(e.message).toMatch(/rowScale\.okl:8:\d+: loop "j": its body writes "n", which its bound `j < …` reads; OCCA expands @tile into a block loop and an in-tile loop/);
  });
});
