/**
 * Atomic updates when run: every backend agrees with the interpreter on order-independent atomic
 * updates of few cells by many work-items, and the interpreter's race rule: atomic updates of one
 * cell by different work-items are no race, an atomic and a plain access of it are.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import type { Dtype, Kernel, TypedArray } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { CellTracker, Clock } from "../../src/run/race-tracker.js";
import { CORPUS } from "../okl/corpus-path.js";
import { availableNative } from "./native-helpers.js";
import { tag } from "./parallel-helpers.js";

const GRID = "{[io,ii]: 0<=io<8 and 0<=ii<16}";
const PAR = { io: "g.0", ii: "l.0" };

/** 128 work-items OR, XOR, AND (and add, min, max) into 3 (or 2) cells: results independent of order. */
function bits(d: Dtype): Kernel {
  return tag(makeKernel(GRID, [
    "o[ii % 3] = o[ii % 3] | a[16*io+ii] {id=or, atomic}",
    "x[ii % 2] = x[ii % 2] ^ a[16*io+ii] {id=xor, atomic}",
    "m[ii % 3] = m[ii % 3] & ~a[16*io+ii] {id=and, atomic}",
    "s[io % 2] = s[io % 2] + a[16*io+ii] {id=add, atomic}",
    "lo[ii % 3] = min(lo[ii % 3], a[16*io+ii]) {id=lo, atomic}",
    "hi[0] = max(a[16*io+ii], hi[0]) {id=hi, atomic}",
    "e[ii % 4] = ii % 4 + 7 {id=xchg, atomic}",
  ], [`a: ${d}[128]`, `o, m, lo: ${d}[3]`, `x, s: ${d}[2]`, `hi: ${d}[1]`, `e: ${d}[4]`], { name: `bits_${d}` }), PAR);
}

function inputs(d: Dtype): Record<string, TypedArray> {
  const wide = d === "int64" || d === "uint64";
  const arr = (n: number, f: (i: number) => number): TypedArray => {
    const xs = Array.from({ length: n }, (_, i) => f(i));
    if (d === "int32") return Int32Array.from(xs);
    if (d === "uint32") return Uint32Array.from(xs.map((x) => x >>> 0));
    return d === "int64" ? BigInt64Array.from(xs.map(BigInt)) : BigUint64Array.from(xs.map((x) => BigInt.asUintN(64, BigInt(x))));
  };
  // Bit patterns spread over the word, with the sign bit in some of them.
  const a = arr(128, (i) => ((i * 2654435761) ^ (1 << (i % 31))) | 0);
  const all = wide ? -1 : d === "uint32" ? 0xffffffff : -1;
  return { a, o: arr(3, () => 0), m: arr(3, () => all), lo: arr(3, () => 0x7fffffff), x: arr(2, () => 0), s: arr(2, () => 0), hi: arr(1, () => (d.startsWith("u") ? 0 : -0x80000000)), e: arr(4, () => 0) };
}

const fresh = (xs: Record<string, TypedArray>) => Object.fromEntries(Object.entries(xs).map(([n, v]) => [n, v.slice()]));
const native = availableNative(["c", "openmp", "opencl"]);
/** The js backend runs one work-item at a time like the interpreter; the native ones in parallel. */
const backends = ["js", ...native] as const;

describe("backends agree with the interpreter on atomic updates of few cells by many work-items", () => {
  for (const d of ["int32", "uint32", "int64", "uint64"] as const) {
    it(`${d}: | ^ & + min max and exchange on ${backends.join(", ")}`, async () => {
      const k = bits(d);
      const ins = inputs(d);
      const want = await run(k, fresh(ins) as never);
      expect([...want.o!].some((v) => v !== 0 && v !== 0n)).toBe(true);
      for (const backend of backends) {
        const got = await run(k, fresh(ins) as never, { backend });
        for (const name of ["o", "x", "m", "s", "lo", "hi", "e"]) expect([...got[name]!], `${backend} ${name}`).toEqual([...want[name]!]);
      }
    }, 60_000);
  }

  it("float32 add, subtract, min and max of exact values (compare-and-swap loops on OpenCL)", async () => {
    const k = tag(makeKernel(GRID, [
      "s[io % 2] = s[io % 2] - a[16*io+ii] {id=sub, atomic}",
      "lo[ii % 3] = min(lo[ii % 3], a[16*io+ii]) {id=lo, atomic}",
      "hi[0] = max(hi[0], a[16*io+ii]) {id=hi, atomic}",
    ], ["a: float32[128]", "s: float32[2]", "lo: float32[3]", "hi: float32[1]"], { name: "floats" }), PAR);
    const ins = { a: Float32Array.from({ length: 128 }, (_, i) => ((i * 37) % 101) - 50), s: new Float32Array(2), lo: new Float32Array(3).fill(1e9), hi: new Float32Array(1).fill(-1e9) };
    const want = await run(k, fresh(ins) as never);
    expect(want.hi![0]).toBe(50);
    for (const backend of backends) {
      const got = await run(k, fresh(ins) as never, { backend });
      for (const name of ["s", "lo", "hi"]) expect([...got[name]!], `${backend} ${name}`).toEqual([...want[name]!]);
    }
  }, 60_000);

  it("OCCA's reductionWithAtomics example runs on the interpreter and agrees with the native backends", async () => {
    const src = readFileSync(join(CORPUS, "occa/examples/cpp/06_shared_memory/reduction.okl"), "utf8");
    const k = parseOkl(src, { defines: { block: 16 } }).find((x) => x.name === "reductionWithAtomics")!;
    const vec = Float32Array.from({ length: 100 }, (_, i) => i + 1);
    for (const backend of ["interp", "js", ...native] as const) {
      const got = await run(k, { entries: 100, vec, sum: new Float32Array(1) } as never, { backend });
      expect(got.sum![0], backend).toBe(5050);
    }
  }, 60_000);
});

describe("the interpreter's race rule for atomic updates", () => {
  const TILE = "{[io,ii]: 0<=io<2 and 0<=ii<4}";
  const local = (insns: string[]) => tag(makeKernel(TILE, insns, [temporary("t", "int32", [2], "local"), "a, out: int32[8]"], { name: "loc" }), PAR);
  const a = Int32Array.from([1, 2, 4, 8, 16, 32, 64, 128]);

  it("atomic updates of one cell by different work-items in one phase are no race", async () => {
    const k = local([
      "t[ii % 2] = 0 {id=z}",
      "t[ii % 2] = t[ii % 2] | a[4*io+ii] {id=or, atomic, dep=z}",
      "out[4*io+ii] = t[ii % 2] {id=use, dep=or}",
    ]);
    expect([...(await run(k, { a, out: new Int32Array(8) })).out!]).toEqual([5, 10, 5, 10, 80, 160, 80, 160]);
  });

  it("a plain read of a cell another work-item updated atomically in the same phase is a race", async () => {
    const k = local([
      "t[ii % 2] = 0 {id=z}",
      "t[ii % 2] = t[ii % 2] | a[4*io+ii] {id=or, atomic, dep=z}",
      "out[4*io+ii] = t[ii % 2] {id=use, dep=or, nosync=or@local}",
    ]);
    await expect(run(k, { a, out: new Int32Array(8) })).rejects.toThrow(/race on local temporary "t" at cell \d: instruction "or" in .* atomically updated it and instruction "use" in work-item \{ii: \d\} read it/);
  });

  it("a plain write of a cell that other work-items update atomically in the same phase is a race", async () => {
    const k = local([
      "t[ii % 2] = 0 {id=z}",
      "t[ii % 2] = t[ii % 2] | a[4*io+ii] {id=or, atomic, dep=z}",
      "t[ii % 2] = 9 {id=w, dep=or, nosync=or@local}",
      "out[4*io+ii] = t[ii % 2] {id=use, dep=w}",
    ]);
    await expect(run(k, { a, out: new Int32Array(8) })).rejects.toThrow(/race on local temporary "t" .*"or" .* atomically updated it and instruction "w" .* wrote it/);
  });

  it("groups updating one global cell atomically are no race; without `atomic` they are", async () => {
    const k = (atomic: string) => tag(makeKernel(TILE, `s[0] = s[0] + a[4*io+ii] {id=add${atomic}}`, ["a, s: int32[8]"], { name: "sum" }), { io: "g.0" });
    expect((await run(k(", atomic"), { a, s: new Int32Array(8) })).s![0]).toBe(255);
    // `s[0]` across g.0 is a write race the scheduler sees before running (schedule/races.ts) …
    await expect(run(k(""), { a, s: new Int32Array(8) })).rejects.toThrow(/instruction "add" contains a write race on global array "s": .*"io" \(g\.0\)/);
    // … and one through an index read from memory (every group's `at[io]` is 0) is the interpreter's to report.
    const viaIndex = tag(makeKernel(TILE, "s[at[io]] = s[at[io]] + a[4*io+ii] {id=add}", ["a, s: int32[8]", "at: int32[2]"], { name: "sum" }), { io: "g.0" });
    await expect(run(viaIndex, { a, s: new Int32Array(8), at: new Int32Array(2) })).rejects.toThrow(/race on global array "s" at cell 0/);
  });

  describe("CellTracker, access by access", () => {
    const setup = () => {
      const clock = new Clock("work-item");
      const data = new Int32Array(2);
      return { clock, data, t: new CellTracker("t", "local temporary", 2, clock) };
    };
    const as = (clock: Clock, agent: number, f: () => void) => {
      clock.agent = agent;
      f();
    };

    it("atomic vs atomic: no race, however many agents", () => {
      const { clock, data, t } = setup();
      for (let w = 0; w < 4; w++) as(clock, w, () => t.awr(data, t.ard(0, "u"), data[0]! | (1 << w), "u"));
      expect(data[0]).toBe(15);
    });

    it("atomic then a plain read or a changing plain write by another agent: race; by the same agent: none", () => {
      const { clock, data, t } = setup();
      as(clock, 0, () => t.awr(data, t.ard(0, "u"), 3, "u"));
      as(clock, 0, () => t.rd(0, "mine"));
      expect(() => as(clock, 1, () => t.rd(0, "r"))).toThrow(ExecutionError);
      expect(() => as(clock, 1, () => t.wr(data, 0, 5, "w"))).toThrow(/atomically updated it .* wrote it/);
    });

    it("a plain read or write by another agent, then an atomic update: race", () => {
      const a = setup();
      as(a.clock, 0, () => a.t.rd(1, "r"));
      expect(() => as(a.clock, 1, () => a.t.awr(a.data, a.t.ard(1, "u"), 1, "u"))).toThrow(/"r" in work-item .* read it and instruction "u" .* atomically updated it/);
      const b = setup();
      as(b.clock, 0, () => b.t.wr(b.data, 1, 2, "w"));
      expect(() => as(b.clock, 1, () => b.t.ard(1, "u"))).toThrow(/"w" .* wrote it and instruction "u" .* atomically updated it/);
    });

    it("a new phase (a barrier) forgets the atomic accesses", () => {
      const { clock, data, t } = setup();
      as(clock, 0, () => t.awr(data, t.ard(0, "u"), 3, "u"));
      clock.phase++;
      as(clock, 1, () => t.rd(0, "r"));
      as(clock, 2, () => t.wr(data, 1, 7, "w"));
    });
  });
});
