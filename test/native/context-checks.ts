/**
 * Checks every device context (native/index.ts: OpenCL, CUDA) passes, each on a program of its own
 * dialect that defines the same kernels: `echo` (every scalar kind into memory), `grid` (each item
 * writes x + 100*y + 10000*local size along x) and `one` (global size along x times 7 plus VALUE,
 * built with VALUE=3).
 */
import { expect } from "vitest";
import type { DeviceContext, DeviceProgram } from "../../native/index.js";

/** Scalars of every kind reach the kernel exactly: the edges of each integer kind, float32 rounded once. */
export function expectScalarsExact(c: DeviceContext, program: DeviceProgram): void {
  const [I, U, F] = [c.alloc(56), c.alloc(8), c.alloc(16)];
  c.launch(program, "echo", [I, U, F,
    { kind: "int8", value: -128 }, { kind: "uint8", value: 255 }, { kind: "int16", value: -32768 },
    { kind: "uint16", value: 65535 }, { kind: "int32", value: -2147483648 }, { kind: "uint32", value: 4294967295 },
    { kind: "int64", value: -(2n ** 63n) }, { kind: "uint64", value: 2n ** 64n - 1n },
    { kind: "float32", value: 0.1 }, { kind: "float64", value: 0.1 }], [], []);
  const ints = new BigInt64Array(7);
  const u64 = new BigUint64Array(1);
  const floats = new Float64Array(2);
  c.read(I, ints);
  c.read(U, u64);
  c.read(F, floats);
  expect(Array.from(ints)).toEqual([-128n, 255n, -32768n, 65535n, -2147483648n, 4294967295n, -(2n ** 63n)]);
  expect(u64[0]).toBe(2n ** 64n - 1n);
  expect(Array.from(floats)).toEqual([Math.fround(0.1), 0.1]);
}

/** Groups [2, 3] of local [4, 2] cover an 8 x 6 range (x fastest), and no sizes at all launch one item. */
export function expectGridMapping(c: DeviceContext, program: DeviceProgram): void {
  const width = 8;
  const out = c.alloc(4 * width * 6);
  c.launch(program, "grid", [out, { kind: "int32", value: width }], [2, 3], [4, 2]);
  const got = new Int32Array(width * 6);
  c.read(out, got);
  expect(got[width * 5 + 7]).toBe(7 + 500 + 40000);
  c.launch(program, "one", [out], [], []);
  c.read(out, got.subarray(0, 1));
  expect(got[0]).toBe(7 + 3);
}
