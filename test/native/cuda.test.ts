/**
 * The CUDA runtime (driver API + NVRTC): the same behaviours as the OpenCL tests. Skipped with a
 * warning where cudaStatus() is unavailable (no driver, no NVRTC or no GPU).
 */
import { afterAll, describe, expect, it } from "vitest";
import { cudaContext, cudaStatus, type DeviceContext } from "../../native/index.js";
import { expectGridMapping, expectScalarsExact } from "./context-checks.js";

const status = cudaStatus();
if (!status.available) console.warn(`CUDA tests skipped: ${status.reason}`);

const KERNELS = `
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void echo(long long *ints, unsigned long long *u64, double *floats, signed char a, unsigned char b,
                                short c, unsigned short d, int e, unsigned f, long long g, unsigned long long h, float x, double y) {
  ints[0] = a; ints[1] = b; ints[2] = c; ints[3] = d; ints[4] = e; ints[5] = f; ints[6] = g;
  u64[0] = h; floats[0] = x; floats[1] = y;
}
extern "C" __global__ void grid(int *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = x + 100 * y + 10000 * blockDim.x;
}
extern "C" __global__ void one(int *out) { out[0] = gridDim.x * blockDim.x * 7 + VALUE; }`;

describe("cudaStatus", () => {
  it("never throws, and says why CUDA is unavailable", () => {
    expect(typeof status.available).toBe("boolean");
    if (!status.available) {
      expect(status.reason).toMatch(/libcuda|libnvrtc|no CUDA device|native addon/);
      expect(status.devices).toEqual([]);
      expect(() => cudaContext()).toThrow(/unavailable|not loaded/);
    }
  });
});

let shared: DeviceContext | undefined;
function ctx(): DeviceContext {
  shared ??= cudaContext();
  return shared;
}
afterAll(() => shared?.release());

describe.skipIf(!status.available)("CUDA build, copy and launch", () => {
  it("lists GPUs and opens a context on the first", () => {
    expect(status.devices.length).toBeGreaterThan(0);
    expect(ctx().device).toEqual(status.devices[0]);
    expect(ctx().device.version).toMatch(/compute_\d+/);
  });

  it("adds two vectors", () => {
    const c = ctx();
    const n = 1000;
    const a = Float32Array.from({ length: n }, (_, i) => i);
    const b = Float32Array.from({ length: n }, (_, i) => 2 * i + 0.5);
    const out = new Float32Array(n);
    const program = c.build(KERNELS, ["-DVALUE=3"]);
    const [A, B, C] = [c.alloc(4 * n), c.alloc(4 * n), c.alloc(4 * n)];
    c.write(A, a);
    c.write(B, b);
    expect(c.launch(program, "vadd", [A, B, C, { kind: "int32", value: n }], [Math.ceil(n / 128)], [128])).toBeGreaterThan(0);
    c.read(C, out);
    expect(Array.from(out)).toEqual(Array.from(a, (x, i) => x + b[i]!));
  });

  it("passes scalars of every kind exactly", () => {
    const c = ctx();
    expectScalarsExact(c, c.build(KERNELS, ["-DVALUE=3"]));
  });

  it("maps groups to the grid and local to the block, and [] to one thread", () => {
    const c = ctx();
    expectGridMapping(c, c.build(KERNELS, ["-DVALUE=3"]));
  });
});

describe.skipIf(!status.available)("CUDA errors", () => {
  it("a failed build throws with NVRTC's log", () => {
    expect(() => ctx().build(`extern "C" __global__ void k(int *a) { a[0] = undeclared_thing; }`, [])).toThrow(
      /NVRTC_ERROR_COMPILATION[\s\S]*undeclared_thing/,
    );
  });

  it("launch errors name the API error and the kernel", () => {
    const c = ctx();
    const program = c.build(KERNELS, ["-DVALUE=3"]);
    const [A, B, C] = [c.alloc(16), c.alloc(16), c.alloc(16)];
    const n = { kind: "int32", value: 4 } as const;
    expect(() => c.launch(program, "vadd", [A, B, C, n], [1], [4096])).toThrow(/launch vadd: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE/);
    expect(() => c.launch(program, "vsub", [A, B, C, n], [1], [4])).toThrow(/launch vsub: .*CUDA_ERROR_NOT_FOUND/);
    expect(() => c.launch(program, "vadd", [A, B, C], [1], [4])).toThrow(/launch vadd: the kernel takes 4 arguments, got 3/);
  });

  it("checks host sizes against the buffer", () => {
    const c = ctx();
    const buf = c.alloc(8);
    expect(() => c.write(buf, new Float64Array(2))).toThrow(/write: data has 16 bytes but the buffer only 8/);
    expect(() => c.read(buf, new Uint8Array(9))).toThrow(/read: data has 9 bytes but the buffer only 8/);
  });

  it("released handles throw", () => {
    const c = cudaContext();
    const program = c.build(KERNELS, ["-DVALUE=3"]);
    const buf = c.alloc(16);
    buf.release();
    expect(() => c.write(buf, new Uint8Array(4))).toThrow(/released DeviceBuffer/);
    program.release();
    expect(() => c.launch(program, "vadd", [], [1], [1])).toThrow(/the program is released/);
    c.release();
    expect(() => c.alloc(4)).toThrow(/is released/);
  });
});
