/**
 * OCCA's vector types import by scalarization: a `float3` local or parameter is three scalars, a
 * by-value `float3` argument three value arguments `<arg>_x/_y/_z`, a `float3 *` an array with an
 * innermost axis of 3 (OCCA's serial layout), and vector expressions are expanded per component
 * with OCCA's definitions of the operators and of length/normalize/dot/clamp.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { oklError, TARGETS } from "./helpers.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";

const SRC = `
float3 scale(const float3 v, const float s) { return s * v; }
float3 towards(float3 p, const float3 target, const float step) {
  int n = 0;
  while (length(target - p) > step) {
    p += step * normalize(target - p);
    n = n + 1;
    if (n > 100) return p;
  }
  return target;
}
@kernel void vec(const int n, const float3 *pts, float3 *out, float *len, const float3 shift, int4 *iv) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    float3 p = pts[i];
    float3 q = float3(1.0f, 2.0f, 3.0f);
    const float3 m = make_float3(0.5f, -1.0f, 2.0f);
    float3 r = p + 2.0f * q - m / 2.0f;
    r += shift;
    r.y -= 1.0f;
    out[6*i] = r;
    float3 w = {1.0f, 0.0f};
    w = cross(w, q);
    out[6*i + 1] = cross(p, q) + w;
    out[6*i + 1].z += 10.0f;
    out[6*i + 2] = clamp(p, -1.0f, 1.0f) - fabs(-p) * 0.5f;
    out[6*i + 3] = scale(normalize(p), 2.0f);
    out[6*i + 4] = towards(float3(0.0f, 0.0f), p, 0.25f);
    float3 acc = float3(0.0f, 0.0f, 0.0f);
    int k = 0;
    while (k < 3) { acc.x += 1.0f; acc += p; ++k; }
    out[6*i + 5] = -acc;
    len[2*i] = length(p);
    len[2*i + 1] = dot(p, q) + clamp(p.x, 0.0f, 1.0f) + min(p, q).z + max(p, q).s0;
    int4 k4 = make_int4(i, 2*i, -i, 7);
    iv[i] = k4 * 2 + 1;
  }
}`;

type V3 = [number, number, number];
const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (s: number, a: V3): V3 => [s * a[0], s * a[1], s * a[2]];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const clamp = (x: number, lo: number, hi: number) => (x < lo ? lo : hi < x ? hi : x);

const N = 6;
const PTS: V3[] = [[0.5, -2, 1.5], [3, 4, 0], [-0.25, 0.75, -3], [1, 1, 1], [2.5, -0.5, 0.5], [-1.5, 2, 2]];
const SHIFT: V3 = [0.25, -0.5, 1];

/** What C computes (in float64; compared with a float32 tolerance). */
function expected() {
  const out: number[] = [];
  const len: number[] = [];
  const iv: number[] = [];
  PTS.forEach((p, i) => {
    const q: V3 = [1, 2, 3];
    const m: V3 = [0.5, -1, 2];
    const r = add(add(add(p, mul(2, q)), mul(-0.5, m)), SHIFT);
    r[1] -= 1;
    const c = add(cross(p, q), cross([1, 0, 0], q));
    c[2] += 10;
    const cl = p.map((x) => clamp(x, -1, 1) - Math.abs(x) * 0.5) as V3;
    const l = Math.hypot(...p);
    out.push(...r, ...c, ...cl, ...mul(2 / l, p), ...p, ...mul(-1, add(mul(3, p), [3, 0, 0])));
    len.push(l, dot(p, q) + clamp(p[0], 0, 1) + Math.min(p[2], q[2]) + Math.max(p[0], q[0]));
    iv.push(2 * i + 1, 4 * i + 1, -2 * i + 1, 15);
  });
  return { out, len, iv };
}

async function outputs(backend: "interp" | "js" | "c" | "openmp" | "opencl") {
  const [k] = parseOkl(SRC);
  const r = await run(k!, {
    n: N, pts: Float32Array.from(PTS.flat()), out: new Float32Array(6 * 3 * N), len: new Float32Array(2 * N), iv: new Int32Array(4 * N),
    shift_x: SHIFT[0], shift_y: SHIFT[1], shift_z: SHIFT[2],
  }, { backend, checkBounds: false });
  return { out: Array.from(r.out as Float32Array), len: Array.from(r.len as Float32Array), iv: Array.from(r.iv as Int32Array) };
}

function expectClose(got: readonly number[], want: readonly number[]) {
  expect(got.length).toBe(want.length);
  got.forEach((g, k) => expect(Math.abs(g - want[k]!), `element ${k}: ${g} vs ${want[k]}`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want[k]!))));
}

describe("OCCA vector types import by scalarization", () => {
  it("flattens by-value vectors into <arg>_x/_y/_z and gives vector pointers an innermost axis of N", () => {
    const [k] = parseOkl(SRC);
    expect(k!.args.map((a) => a.name)).toEqual(["n", "pts", "out", "len", "shift_x", "shift_y", "shift_z", "iv"]);
    for (const a of k!.args.filter((x) => x.name.startsWith("shift_"))) expect(a).toMatchObject({ kind: "value", dtype: "float32" });
    const pts = k!.args.find((a) => a.name === "pts")!;
    expect(pts.kind === "array" && pts.shape?.length).toBe(2);
    expect(pts.kind === "array" && pts.shape?.[1]).toMatchObject({ kind: "const", value: 3 });
    const iv = k!.args.find((a) => a.name === "iv")!;
    expect(iv).toMatchObject({ dtype: "int32" });
    // Locals are one private scalar per component.
    expect(k!.temporaries.map((t) => t.name)).toEqual(expect.arrayContaining(["p_x", "p_y", "p_z", "r_x", "acc_z"]));
  });

  it("computes OCCA's semantics on the interpreter", async () => {
    const got = await outputs("interp");
    const want = expected();
    expectClose(got.out, want.out);
    expectClose(got.len, want.len);
    expect(got.iv).toEqual(want.iv);
  });

  for (const backend of ["js", ...availableNative(["c", "openmp", "opencl"])] as const) {
    it(`${backend} agrees with the interpreter`, async () => {
      const a = await outputs(backend as "js");
      const b = await outputs("interp");
      expectClose(a.out, b.out);
      expectClose(a.len, b.len);
      expect(a.iv).toEqual(b.iv);
    });
  }

  it("lowers to every target", () => {
    const [k] = parseOkl(SRC);
    for (const t of TARGETS) {
      const code = generateCode(k!, t).deviceCode;
      expect(code, t).toMatch(/shift_x/);
      expect(code, t).not.toMatch(/\bfloat3\b/);
    }
  });

  it("supports other vector types and double precision", async () => {
    const src = `
double2 rot(const double2 v) { return make_double2(-v.y, v.x); }
@kernel void k(const int n, double2 *a, const uchar4 c, int *o) {
  for (int i = 0; i < n; ++i; @outer) { for (int j = 0; j < 1; ++j; @inner) {
    a[i] = rot(a[i]) + 0.5 * a[i];
    uchar4 u = c + c;
    o[i] = u.x + u.w;
  } }
}`;
    const [k] = parseOkl(src);
    expect(k!.args.map((x) => x.name)).toEqual(["n", "a", "c_x", "c_y", "c_z", "c_w", "o"]);
    const r = await run(k!, { n: 2, a: Float64Array.from([1, 2, -3, 4]), c_x: 200, c_y: 1, c_z: 2, c_w: 3, o: new Int32Array(2) }, { backend: "interp" });
    expect(Array.from(r.a as Float64Array)).toEqual([-2 + 0.5, 1 + 1, -4 - 1.5, -3 + 2]);
    expect(Array.from(r.o as Int32Array)).toEqual([(400 % 256) + 6, (400 % 256) + 6]); // uchar wraps
  });
});

describe("vector forms Loom cannot lower are OklErrors at the construct", () => {
  const kernelWith = (body: string, pre = "") => `${pre}
@kernel void k(const int n, float3 *a, const float3 s) {
  for (int i = 0; i < n; ++i; @outer) {
    for (int j = 0; j < 4; ++j; @inner) {
      ${body}
    }
  }
}`;
  const fails = (src: string, construct: string, msg: RegExp) => {
    const err = oklError(() => parseOkl(src));
    expect(err.message).toMatch(msg);
    const at = src.indexOf(construct);
    const line = src.slice(0, at).split("\n").length;
    expect(err.line, err.message).toBe(line);
  };

  it("swizzles", () => fails(kernelWith("float2 v = a[i].xy;"), "a[i].xy", /no component "xy".*swizzles/));
  it("comparisons of vectors", () => fails(kernelWith("if (a[i] < s) a[i] = s;"), "a[i] < s", /operator "<" on "float3" vectors is not supported/));
  it("a scalar where a vector is expected", () => fails(kernelWith("float3 v = 1.0f; a[i] = v;"), "float3 v", /a "float3" is expected here, not a scalar/));
  it("a vector where a scalar is expected", () => fails(kernelWith("float x = a[i] * 2.0f; a[i].x = x;"), "float x", /vector is used where a scalar is expected/));
  it("mixed vector types", () => fails(kernelWith("int3 m = make_int3(1, 2, 3); a[i] = a[i] + m;"), "a[i] = a[i] + m", /vector types are not converted/));
  it("assigning a vector argument", () => fails(kernelWith("s.x = 1.0f; a[i] = s;"), "s.x", /cannot assign to "s.x"/));
  it("@atomic on a vector", () => fails(kernelWith("@atomic a[0] += s;"), "@atomic", /@atomic on a "float3" vector/));
  it("a one-argument constructor", () => fails(kernelWith("a[i] = float3(2.0f);"), "float3(2.0f)", /sets only .x/));
});
