/**
 * The OpenCL runtime on whatever platform is installed (PoCL's CPU device here): build, copy,
 * launch, and the errors of each. Skipped with a warning where OpenCL is unavailable.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openclContext, openclStatus, type DeviceContext } from "../../native/index.js";
import { expectGridMapping, expectScalarsExact } from "./context-checks.js";

const status = openclStatus();
if (!status.available) console.warn(`OpenCL tests skipped: ${status.reason}`);

const VADD = `
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}`;

const ECHO = `
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void echo(__global long *ints, __global ulong *u64, __global double *floats,
                   char a, uchar b, short c, ushort d, int e, uint f, long g, ulong h, float x, double y) {
  ints[0] = a; ints[1] = b; ints[2] = c; ints[3] = d; ints[4] = e; ints[5] = f; ints[6] = g;
  u64[0] = h; floats[0] = x; floats[1] = y;
}
__kernel void grid(__global int *out, int width) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * width + x] = x + 100 * y + 10000 * (int)get_local_size(0);
}
__kernel void one(__global int *out) { out[0] = (int)get_global_size(0) * 7 + VALUE; }`;

let shared: DeviceContext | undefined;
function ctx(): DeviceContext {
  shared ??= openclContext();
  return shared;
}
afterAll(() => shared?.release());

describe.skipIf(!status.available)("openclStatus", () => {
  it("lists devices with platform, name, type and version", () => {
    expect(status.devices.length).toBeGreaterThan(0);
    for (const d of status.devices) {
      for (const key of ["platform", "name", "type", "version"] as const) expect(typeof d[key]).toBe("string");
      expect(d.version).toMatch(/^OpenCL /);
    }
    expect(ctx().device).toEqual(status.devices[0]);
  });

  it("rejects a device index past the list", () => {
    expect(() => openclContext(status.devices.length)).toThrow(/no device/);
  });
});

describe.skipIf(!status.available)("OpenCL build, copy and launch", () => {
  it("adds two vectors (a ragged last group guarded by n)", () => {
    const c = ctx();
    const n = 1000;
    const a = Float32Array.from({ length: n }, (_, i) => i);
    const b = Float32Array.from({ length: n }, (_, i) => 2 * i + 0.5);
    const out = new Float32Array(n);
    const program = c.build(VADD, []);
    expect(typeof program.log).toBe("string");
    const [A, B, C] = [c.alloc(4 * n), c.alloc(4 * n), c.alloc(4 * n)];
    expect(A.bytes).toBe(4 * n);
    c.write(A, a);
    c.write(B, b);
    const ns = c.launch(program, "vadd", [A, B, C, { kind: "int32", value: n }], [Math.ceil(n / 64)], [64]);
    expect(ns).toBeGreaterThan(0);
    c.read(C, out);
    expect(Array.from(out)).toEqual(Array.from(a, (x, i) => x + b[i]!));
  });

  it("passes scalars of every kind exactly", () => {
    const c = ctx();
    expectScalarsExact(c, c.build(ECHO, ["-D VALUE=3"]));
  });

  it("maps groups x local to a 2-D global range, and [] to one work-item", () => {
    const c = ctx();
    expectGridMapping(c, c.build(ECHO, ["-DVALUE=3"]));
  });

  it("reads into and writes from a prefix smaller than the buffer", () => {
    const c = ctx();
    const buf = c.alloc(64);
    c.write(buf, new Uint8Array(16).fill(9));
    const back = new Uint8Array(8);
    c.read(buf, back);
    expect(Array.from(back)).toEqual(new Array(8).fill(9));
    expect(c.alloc(0).bytes).toBe(0);
  });
});

describe.skipIf(!status.available)("OpenCL errors", () => {
  it("a failed build throws with the compiler's log", () => {
    expect(() => ctx().build("__kernel void k(__global int *a) { a[0] = undeclared_thing; }", [])).toThrow(
      /CL_BUILD_PROGRAM_FAILURE[\s\S]*undeclared_thing/,
    );
  });

  it("launch errors name the API error and the kernel", () => {
    const c = ctx();
    const program = c.build(VADD, []);
    const [A, B, C] = [c.alloc(16), c.alloc(16), c.alloc(16)];
    const n = { kind: "int32", value: 4 } as const;
    expect(() => c.launch(program, "vadd", [A, B, C, n], [1], [1 << 20])).toThrow(/launch vadd: .*CL_INVALID_WORK_(GROUP|ITEM)_SIZE/);
    expect(() => c.launch(program, "vsub", [A, B, C, n], [1], [4])).toThrow(/launch vsub: .*CL_INVALID_KERNEL_NAME.*kernels are vadd/);
    expect(() => c.launch(program, "vadd", [A, B, C], [1], [4])).toThrow(/launch vadd: the kernel takes 4 arguments, got 3/);
    expect(() => c.launch(program, "vadd", [A, B, C, { kind: "int64", value: 4 }], [1], [4])).toThrow(/argument 3: .*CL_INVALID_ARG_SIZE/);
    expect(() => c.launch(program, "vadd", [A, B, C, { kind: "int32", value: 1.5 }], [1], [4])).toThrow(/argument 3 \(int32\): 1.5 is not an integer/);
    expect(() => c.launch(program, "vadd", [A, B, C, n], [1, 1], [4])).toThrow(/groups has 2 axes but local has 1/);
    expect(() => c.launch(program, "vadd", [A, B, C, n], [1, 1, 1, 1], [4, 1, 1, 1])).toThrow(/at most 3/);
    expect(() => c.launch(program, "vadd", [A, B, C, n], [0], [4])).toThrow(/must be positive/);
  });

  it("checks host sizes against the buffer", () => {
    const c = ctx();
    const buf = c.alloc(8);
    expect(() => c.write(buf, new Float64Array(2))).toThrow(/write: data has 16 bytes but the buffer only 8/);
    expect(() => c.read(buf, new Uint8Array(9))).toThrow(/read: data has 9 bytes but the buffer only 8/);
    expect(() => c.write(buf, [1, 2] as unknown as ArrayBufferView)).toThrow(/must be an ArrayBufferView/);
    expect(() => c.alloc(-1)).toThrow(/non-negative/);
  });

  it("rejects objects that are not its own buffers and programs", () => {
    const c = ctx();
    const program = c.build(VADD, []);
    const buf = c.alloc(16);
    const fake = { bytes: 16, release() {} };
    expect(() => c.write(fake, new Uint8Array(4))).toThrow(/must be a DeviceBuffer, got an object/);
    expect(() => c.write(program as never, new Uint8Array(4))).toThrow(/must be a DeviceBuffer/);
    expect(() => c.launch(buf as never, "vadd", [], [], [])).toThrow(/must be a DeviceProgram/);
    const other = openclContext();
    try {
      expect(() => other.write(buf, new Uint8Array(4))).toThrow(/belongs to another DeviceContext/);
      expect(() => other.launch(program, "vadd", [], [], [])).toThrow(/belongs to another DeviceContext/);
    } finally {
      other.release();
    }
  });

  it("released handles throw, and releasing twice is harmless", () => {
    const c = openclContext();
    const program = c.build(VADD, []);
    const buf = c.alloc(16);
    buf.release();
    buf.release();
    expect(() => c.write(buf, new Uint8Array(4))).toThrow(/released DeviceBuffer/);
    expect(() => c.launch(program, "vadd", [buf, buf, buf, { kind: "int32", value: 1 }], [1], [1])).toThrow(/argument 0 is a released DeviceBuffer/);
    program.release();
    expect(() => c.launch(program, "vadd", [], [1], [1])).toThrow(/the program is released/);
    const kept = c.alloc(16);
    c.release();
    c.release();
    expect(() => c.alloc(4)).toThrow(/alloc: the DeviceContext .* is released/);
    expect(() => c.build(VADD, [])).toThrow(/is released/);
    expect(() => c.read(kept, new Uint8Array(4))).toThrow(/is released/);
    kept.release();
  });
});
