/**
 * Issue 20 (engineer K): plain loops bounded by a private scalar that the kernel assigns again
 * (libParanumal's AssignConformSimpleTri2D: `for (i = 0; i < counter; ++i) …; counter =
 * compactCounter;`). C reads a loop's start once, at entry, and its bound before every trip; Loom's
 * loop domain takes the scalar as a parameter, which the scheduler orders after every write of it:
 * the later write made a dependency cycle, or (where it did not depend on the loop) was scheduled
 * before the loop. The scalar is now copied at loop entry (entry-bounds.ts); a body that writes its
 * own bound is an ordinary C loop, or an OklError at the write where the loop holds @inner loops.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const NP = 8;
const DEFINES = { defines: { dfloat: "double", dlong: "int", p_Np: NP } };

// Per element: compact the flagged nodes, sum the compacted values, keep the positive ones' count
// as the new counter, and add one per kept node (a second loop over the reassigned counter).
const COMPACT = `
@kernel void compactSum(const dlong Nelements, @restrict const int *flag, @restrict const dfloat *q,
                        @restrict dfloat *qCompact, @restrict dfloat *sums, @restrict dlong *counts) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    for (int t = 0; t < 1; ++t; @inner(0)) {
      dlong counter = 0;
      for (int n = 0; n < p_Np; ++n) {
        if (flag[e*p_Np + n]) {
          qCompact[e*p_Np + counter] = q[e*p_Np + n];
          counter++;
        }
      }
      dfloat s = 0;
      dlong kept = 0;
      for (dlong i = 0; i < counter; ++i) {
        s += qCompact[e*p_Np + i];
        if (qCompact[e*p_Np + i] > 0) kept++;
      }
      counter = kept;
      for (dlong i = 0; i < counter; ++i) s += 1.0;
      sums[e] = s;
      counts[e] = counter;
    }
  }
}`;

function compactSerial(flag: readonly number[], q: readonly number[], ne: number) {
  const sums: number[] = [];
  const counts: number[] = [];
  for (let e = 0; e < ne; e++) {
    const c = q.slice(e * NP, (e + 1) * NP).filter((_, n) => flag[e * NP + n] !== 0);
    const kept = c.filter((v) => v > 0).length;
    sums.push(c.reduce((a, v) => a + v, 0) + kept);
    counts.push(kept);
  }
  return { sums, counts };
}

// A scan that stops at the first negative node (the body lowers its own bound: an ordinary C loop),
// from a start the body moves on (read once, at entry), the stop then halved by a device function
// taking it by reference.
const SCAN = `
void halve(dlong &n) { n = n / 2; }
@kernel void scanStop(const dlong Nelements, @restrict const dlong *first, @restrict const dfloat *q,
                      @restrict dfloat *sums, @restrict dlong *stops) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    for (int t = 0; t < 1; ++t; @inner(0)) {
      dlong hi = p_Np;
      dfloat s = 0;
      for (dlong i = 0; i < hi; ++i) {
        s += q[e*p_Np + i];
        if (q[e*p_Np + i] < 0) hi = i;
      }
      dlong lo = first[e];
      for (dlong i = lo; i < p_Np; ++i) {
        lo += 2;
        s += 10.0*q[e*p_Np + i];
      }
      for (dlong i = 0; i < hi; ++i) s += 100.0;
      halve(hi);
      sums[e] = s + lo;
      stops[e] = hi;
    }
  }
}`;

function scanSerial(first: readonly number[], q: readonly number[], ne: number) {
  const sums: number[] = [];
  const stops: number[] = [];
  for (let e = 0; e < ne; e++) {
    const x = q.slice(e * NP, (e + 1) * NP);
    let s = 0;
    let hi = NP;
    for (let i = 0; i < hi; i++) {
      s += x[i]!;
      if (x[i]! < 0) hi = i;
    }
    let lo = first[e]!;
    for (let i = lo; i < NP; i++) {
      lo += 2;
      s += 10 * x[i]!;
    }
    s += 100 * hi;
    sums.push(s + lo);
    stops.push(Math.trunc(hi / 2));
  }
  return { sums, stops };
}

describe("a plain loop bounded by a private scalar the kernel assigns again", () => {
  const [compact] = parseOkl(COMPACT, { filename: "compact.okl", ...DEFINES });

  it("reads the bound at loop entry: the serial meaning on interp and openmp", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1000 }), async (ne, seed) => {
      const flag = seeded(ne * NP, seed).map((v) => (v > 0 ? 1 : 0));
      const q = seeded(ne * NP, seed + 1);
      const args = () => ({
        Nelements: ne, flag: Int32Array.from(flag), q: Float64Array.from(q),
        qCompact: new Float64Array(ne * NP), sums: new Float64Array(ne), counts: new Int32Array(ne),
      });
      await expectSerialMeaning(compact!, args, compactSerial(flag, q, ne), 1e-12, { checkBounds: false });
    }), { numRuns: 3 });
  });

  it("the copy is a fresh temporary assigned just before the loop", () => {
    const entry = compact!.temporaries.filter((t) => t.name.startsWith("counter_entry"));
    expect(entry).toHaveLength(1);
    expect(compact!.domains.some((d) => d.params.includes(entry[0]!.name))).toBe(true);
    // A user local of that name takes another: generated names never collide.
    const [clash] = parseOkl(COMPACT.replace("dfloat s = 0;", "dfloat s = 0; dlong counter_entry = 1;").replace("counts[e] = counter;", "counts[e] = counter + counter_entry - 1;"), { filename: "c.okl", ...DEFINES });
    const names = clash!.temporaries.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("a bound the body lowers, a start the body moves, a bound halved through a reference after the loop", async () => {
    const [scan] = parseOkl(SCAN, { filename: "scan.okl", ...DEFINES });
    const ne = 3;
    const first = [0, 3, 7];
    const q = seeded(ne * NP, 11);
    const args = () => ({ Nelements: ne, first: Int32Array.from(first), q: Float64Array.from(q), sums: new Float64Array(ne), stops: new Int32Array(ne) });
    await expectSerialMeaning(scan!, args, scanSerial(first, q, ne), 1e-12, { checkBounds: false });
  });
});

// Per element, every one of its first Nverts[e] nodes in an @inner loop bounded by a private scalar
// that the element then lowers for a second @inner loop (it was run with the lowered value).
const INNER = `
@kernel void vertexMarks(const dlong Nelements, @restrict const dlong *Nverts, @restrict dlong *marks) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    dlong nv = Nverts[e];
    for (int n = 0; n < nv; ++n; @inner(0)) marks[e*2*p_Np + n] = n + 1;
    nv = nv / 2;
    for (int n = 0; n < p_Np; ++n; @inner(0)) if (n < nv) marks[e*2*p_Np + p_Np + n] = -1;
  }
}`;

describe("an @inner loop bounded by a private scalar the kernel assigns again", () => {
  it("runs its work-items over the value at entry: the serial meaning on interp and openmp", async () => {
    const [k] = parseOkl(INNER, { filename: "inner.okl", ...DEFINES });
    const nverts = [NP, 3, 0, 5];
    const want = nverts.flatMap((nv) => [
      ...Array.from({ length: NP }, (_, n) => (n < nv ? n + 1 : 0)),
      ...Array.from({ length: NP }, (_, n) => (n < Math.trunc(nv / 2) ? -1 : 0)),
    ]);
    const args = () => ({ Nelements: nverts.length, Nverts: Int32Array.from(nverts), marks: new Int32Array(nverts.length * 2 * NP) });
    await expectSerialMeaning(k!, args, { marks: want }, 0, { checkBounds: false });
  });

  it("a body that writes the bound is refused at the write (OCCA's modes disagree there)", () => {
    const e = oklError(() => parseOkl(INNER.replace("marks[e*2*p_Np + n] = n + 1;", "{ marks[e*2*p_Np + n] = n + 1; nv = 1; }"), { filename: "inner.okl", ...DEFINES }));
    expect(e.message).toMatch(/inner\.okl:5:\d+: loop "n": its body writes "nv", which its bound `n < …` reads; OCCA's serial mode re-reads/);
  });
});

describe("a bound the body writes, in a loop that holds @inner loops", () => {
  const src = (update: string) => `
@kernel void sweeps(const dlong Nelements, @restrict const dlong *nsweeps, @restrict dfloat *x) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_x[p_Np];
    for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] = x[e*p_Np + n];
    dlong nIt = nsweeps[e];
    for (dlong it = 0; it < nIt; ++it) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] *= 0.5;
      ${update}
    }
    for (int n = 0; n < p_Np; ++n; @inner(0)) x[e*p_Np + n] = s_x[n];
  }
}`;

  it("is refused at the write (C re-reads it every trip; every work-item runs the trips together)", () => {
    const e = oklError(() => parseOkl(src("if (nIt > 2) nIt = 2;"), { filename: "sweeps.okl", ...DEFINES }));
    expect(e.message).toMatch(/sweeps\.okl:9:\d+: loop "it": its body writes "nIt", which its bound `it < …` reads; C re-reads the bound/);
    expect(e.message).toMatch(/Accepted: such a loop without barriers or @inner loops inside/);
  });

  it("unless nothing in the body writes it", () => {
    expect(() => parseOkl(src(""), { filename: "sweeps.okl", ...DEFINES })).not.toThrow();
  });
});
