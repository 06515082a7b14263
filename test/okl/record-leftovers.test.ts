/**
 * Structs mixing int and double fields, the leftovers of issue 20, in the style of the CFD code's
 * boundary-condition kernels: `&bcs[f].pts[1]` passed to device functions that read and write
 * through it, two-dimensional local / @shared / @exclusive arrays of such structs, initializers of
 * arrays of nested structs (fully braced and with C's brace elision), OCCA vector types as fields
 * (OCCA's serial layout: components aligned to their size), and oklStructUnpack, the
 * inverse of oklStructPack. Each kernel runs on interp and openmp against its serial meaning
 * written out here; the split arguments' layouts are checked against cc (offsetof, sizeof).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";
import { BC_DEFAULTS, NODE_GRID, VECTOR_BOUNDARY, WALL_POINTS } from "./record-leftover-kernels.js";
import { nativeAvailable } from "../run/native-helpers.js";

type Point = { x: number; y: number; tag: number };
type Bc = { type: number; time: number; pts: Point[]; vals: number[] };

describe("&bcs[f].pts[1]: a struct inside an array field of a struct element, passed to device functions", () => {
  const [k] = lp.parseOkl(WALL_POINTS);
  const F = 5, nrm = seeded(2 * F, 51), xy = seeded(6 * F, 52), v = seeded(2 * F, 53);
  const recs: Bc[] = Array.from({ length: F }, (_, f) => ({
    type: f % 2, time: 1 + f / 4, vals: [v[2 * f]!, v[2 * f + 1]!],
    pts: [0, 1, 2].map((j) => ({ x: xy[6 * f + 2 * j]!, y: xy[6 * f + 2 * j + 1]!, tag: 10 * f + j })),
  }));

  /** The kernel's meaning, one face at a time; `r` is changed as the kernel changes bcs[f]. */
  const serial = (rs: Bc[]): { out: number[]; after: Bc[] } => {
    const after = structuredClone(rs);
    const reflect = (p: Point, nx: number, ny: number) => {
      const d = p.x * nx + p.y * ny;
      p.x = p.x - 2.0 * d * nx;
      p.y -= 2.0 * d * ny;
      p.tag += 1;
    };
    const dist2 = (p: Point, q: Point) => (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y);
    const out = after.flatMap((r, f) => {
      if (r.type === 1) reflect(r.pts[1]!, nrm[2 * f]!, nrm[2 * f + 1]!);
      r.vals[1] = r.vals[1]! * r.time;
      const bc = structuredClone(r);
      reflect(bc.pts[2]!, 0.0, 1.0);
      return [dist2(r.pts[0]!, r.pts[1]!) + bc.pts[2]!.tag, dist2(bc.pts[2]!, r.pts[2]!) + bc.vals[1]!];
    });
    return { out, after };
  };

  it("runs on interp and openmp against its serial meaning: the outputs and the struct fields written through the pointers", async () => {
    const { out, after } = serial(recs);
    const want = lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", after));
    expect(Object.keys(want)).toEqual(["bcs_type", "bcs_time", "bcs_pts_x", "bcs_pts_y", "bcs_pts_tag", "bcs_vals"]);
    const args = () => ({ Nfaces: F, ...lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", recs)), nrm: Float64Array.from(nrm), out: new Float64Array(2 * F) });
    await expectSerialMeaning(k!, args, { out, bcs_pts_x: want.bcs_pts_x as Float64Array, bcs_pts_y: want.bcs_pts_y as Float64Array, bcs_pts_tag: want.bcs_pts_tag as Int32Array, bcs_vals: want.bcs_vals as Float64Array }, 1e-14);
  });

  it("oklStructUnpack reads the structs the kernel wrote back into JS objects", async () => {
    const bytes = lp.oklStructPack(k!, "bcs", recs);
    const res = await lp.run(k!, { Nfaces: F, ...lp.oklStructArrays(k!, "bcs", bytes), nrm: Float64Array.from(nrm), out: new Float64Array(2 * F) });
    expect(lp.oklStructUnpack(k!, "bcs", bytes)).toEqual(recs);
    const back = lp.oklStructUnpack(k!, "bcs", lp.oklStructBytes(k!, "bcs", res, bytes));
    expect(back).toEqual(serial(recs).after);
  });

  it.skipIf(!nativeAvailable("c"))("bcData's layout (an array of int-and-double points inside) and vbc_t's (double2, float3[2] as OCCA's serial mode defines them) are cc's: every leaf element's offsetof, sizeof, _Alignof (one compile)", () => {
    const [vk] = lp.parseOkl(VECTOR_BOUNDARY);
    const cases = [
      { a: lp.oklStructArg(k!, "bcs"), decl: WALL_POINTS.slice(0, WALL_POINTS.indexOf("void reflect")) },
      { a: lp.oklStructArg(vk!, "bcs"), decl: `typedef struct { double x, y; } double2;\ntypedef struct { float x, y, z; } float3;\n${VECTOR_BOUNDARY.slice(0, VECTOR_BOUNDARY.indexOf("double2 reflect2"))}` },
    ];
    // Each leaf element's designator: pts[1].x from the field path and element j (one array along the path here).
    const designators = (a: lp.OklStructArg) => a.fields.flatMap((f) => {
      const [head, leaf] = f.name.split(".");
      return (f.elements ?? [f.offset]).map((_, j) => `${head}${f.elements ? `[${j}]` : ""}${leaf === undefined ? "" : `.${leaf}`}`);
    });
    const dir = mkdtempSync(join(tmpdir(), "loom-leftovers-"));
    const prints = cases.map(({ a }) => `printf("%zu %zu${designators(a).map(() => " %zu").join("")}\\n", sizeof(${a.struct}), _Alignof(${a.struct})${designators(a).map((d) => `, offsetof(${a.struct}, ${d})`).join("")});`);
    writeFileSync(join(dir, "l.c"), `#include <stdio.h>\n#include <stddef.h>\n${cases.map((c) => c.decl).join("\n")}\nint main(void) {\n${prints.join("\n")}\nreturn 0;\n}\n`);
    execFileSync("cc", ["-std=gnu11", "-o", join(dir, "l"), join(dir, "l.c")]);
    const lines = execFileSync(join(dir, "l"), { encoding: "utf8" }).trim().split("\n");
    cases.forEach(({ a }, c) => expect([a.size, a.align, ...a.fields.flatMap((f) => f.elements ?? [f.offset])].join(" ")).toBe(lines[c]));
  });
});

describe("OCCA vector types as fields of a struct mixing int and double", () => {
  const [k] = lp.parseOkl(VECTOR_BOUNDARY);
  type V = { type: number; uv: { x: number; y: number }; n: { x: number; y: number; z: number }[]; time: number };
  const N = 6, r = seeded(8 * N, 91), U = seeded(2 * N, 92);
  const recs: V[] = Array.from({ length: N }, (_, e) => ({
    type: e % 2, time: 0.5 + e, uv: { x: r[8 * e]!, y: r[8 * e + 1]! },
    n: [0, 1].map((j) => ({ x: Math.fround(r[8 * e + 2 + 3 * j]!), y: Math.fround(r[8 * e + 3 + 3 * j]!), z: Math.fround(r[8 * e + 4 + 3 * j]!) })),
  }));

  it("whole-vector values (a device function, ?:, +, * scalar), components and s2 aliases; on interp and openmp against the serial meaning", async () => {
    expect(k!.args.map((a) => a.name)).toEqual(["N", "bcs_type", "bcs_uv_x", "bcs_uv_y", "bcs_n_x", "bcs_n_y", "bcs_n_z", "bcs_time", "U", "UP"]);
    const after = structuredClone(recs);
    const UP = recs.flatMap((bc, e) => {
      const u = { x: U[2 * e]!, y: U[2 * e + 1]! }, nn = bc.n[0]!;
      const d = u.x * nn.x + u.y * nn.y;
      const uP = bc.type === 1 ? { x: u.x - 2.0 * d * nn.x, y: u.y - 2.0 * d * nn.y } : { x: bc.uv.x * bc.time, y: bc.uv.y * bc.time };
      after[e]!.uv = { x: uP.x + bc.uv.x, y: uP.y + bc.uv.y };
      after[e]!.n[1]!.z = Math.fround(uP.x);
      return [uP.x, uP.y + (nn.x * bc.n[1]!.x + nn.y * bc.n[1]!.y + nn.z * bc.n[1]!.z)];
    });
    const want = lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", after));
    const args = () => ({ N, ...lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", recs)), U: Float64Array.from(U), UP: new Float64Array(2 * N) });
    // dot of float3 is float arithmetic: the last float bits differ from this double sum.
    await expectSerialMeaning(k!, args, { UP, bcs_uv_x: want.bcs_uv_x as Float64Array, bcs_uv_y: want.bcs_uv_y as Float64Array, bcs_n_z: want.bcs_n_z as Float32Array }, 1e-6);
    const bytes = lp.oklStructPack(k!, "bcs", recs);
    const res = await lp.run(k!, args());
    expect(lp.oklStructUnpack(k!, "bcs", lp.oklStructBytes(k!, "bcs", res, bytes))).toEqual(after);
  });

  it("a swizzle or a component the vector lacks is refused with line:column", () => {
    expect(oklError(() => lp.parseOkl(VECTOR_BOUNDARY.replace("bcs[e].n[1].s2", "bcs[e].uv.z"))).message).toMatch(/:16:\d+: "double2" has no component "z"; its components are x, y \(or s0…s1\)/);
    expect(oklError(() => lp.parseOkl(VECTOR_BOUNDARY.replace("UP[2 * e] = uP.x;", "UP[2 * e] = bc.uv.xy;"))).message).toMatch(/:17:\d+: "double2" has no component "xy".*swizzles such as "\.xy" are not supported/);
  });
});

describe("an array field of structs decays to a pointer to its first element, and q[1] through it is the next element", () => {
  it("bc.pts, &bc.pts[0] of a local and bcs[e].pts, &bcs[e].pts[1] of an argument, read and written through q[1], q[2]; on interp and openmp", async () => {
    const [k] = lp.parseOkl(`typedef struct { double x, y; int tag; } point_t;
typedef struct { int type; point_t pts[3]; } bcData;
double next(const point_t *q) { return q[1].x + q[2].tag; }
void bump(point_t *q, const int t) { q[1].x += 1.0; q->tag = t; }
@kernel void f(const int N, bcData *bcs, double *out) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < 1; ++n; @inner) {
    bcData bc = bcs[e];
    bump(bc.pts, 5);
    bump(&bc.pts[1], 6);
    bump(bcs[e].pts, 7);
    bump(&bcs[e].pts[1], 8);
    out[2 * e] = next(bc.pts) + next(&bc.pts[0]) * bc.pts[0].tag + bc.pts[1].tag;
    out[2 * e + 1] = next(bcs[e].pts) + next(&bcs[e].pts[0]) * bcs[e].pts[0].tag;
  }
}`);
    const N = 3, v = seeded(9 * N, 75);
    type Pt = { x: number; y: number; tag: number };
    const recs = Array.from({ length: N }, (_, e) => ({ type: e, pts: [0, 1, 2].map((j): Pt => ({ x: v[9 * e + 3 * j]!, y: v[9 * e + 3 * j + 1]!, tag: e + j })) }));
    const after = structuredClone(recs);
    const bump = (ps: Pt[], at: number, t: number) => {
      ps[at + 1]!.x += 1.0;
      ps[at]!.tag = t;
    };
    const next = (ps: Pt[]) => ps[1]!.x + ps[2]!.tag;
    const out = after.flatMap((r) => {
      const bc = structuredClone(r);
      bump(bc.pts, 0, 5);
      bump(bc.pts, 1, 6);
      bump(r.pts, 0, 7);
      bump(r.pts, 1, 8);
      return [next(bc.pts) + next(bc.pts) * bc.pts[0]!.tag + bc.pts[1]!.tag, next(r.pts) + next(r.pts) * r.pts[0]!.tag];
    });
    const want = lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", after));
    const args = () => ({ N, ...lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", recs)), out: new Float64Array(2 * N) });
    await expectSerialMeaning(k!, args, { out, bcs_pts_x: want.bcs_pts_x as Float64Array, bcs_pts_tag: want.bcs_pts_tag as Int32Array }, 1e-14);
  });
});

describe("two-dimensional local, @shared and @exclusive arrays of a struct mixing int and double fields", () => {
  it("node_t s[2][p_Nq], r[2][2], b[2][3]: row-major element storage, &s[0][i] and the row s[1] to a device function; on interp and openmp, also as the okl target prints it", async () => {
    const [k] = lp.parseOkl(NODE_GRID);
    const extent = (n: string) => k!.temporaries.find((t) => t.name === n)!.shape.map((e) => (e.kind === "const" ? e.value : "?"));
    expect([extent("s_id"), extent("s_w"), extent("r_c_x"), extent("b_w")]).toEqual([[8], [16], [4], [12]]);
    expect(k!.temporaries.filter((t) => t.name.startsWith("s_")).every((t) => t.addressSpace === "local")).toBe(true);
    const E = 3, Nq = 4, w = seeded(2 * E * Nq, 61), c = seeded(2 * E * Nq, 62);
    type Node = { id: number; w: number[]; c: { x: number; y: number } };
    const nodes: Node[] = Array.from({ length: E * Nq }, (_, q) => ({ id: (q * 7) % 5 - 2, w: [w[2 * q]!, w[2 * q + 1]!], c: { x: c[2 * q]!, y: c[2 * q + 1]! } }));
    const weigh = (a: Node) => a.w[0]! * a.c.x + a.id;
    const want = new Float64Array(E * Nq);
    for (let e = 0; e < E; e++) {
      const s0 = nodes.slice(e * Nq, e * Nq + Nq), s1 = nodes.slice((E - 1 - e) * Nq, (E - e) * Nq);
      for (let i = 0; i < Nq; i++) {
        const r10 = nodes[e * Nq + Nq - 1 - i]!, r01 = { id: 2 * i, cy: s1[i]!.w[1]! };
        const b12 = s1[Nq - 1 - i]!, b01 = { c: r10.c, id: r01.id };
        want[e * Nq + i] = weigh(b12) + weigh(s0[i]!) + weigh(s1[0]!) + b01.c.x * b01.id + r01.cy + s0[Nq - 1 - i]!.c.y;
      }
    }
    const args = () => ({ E, ...lp.oklStructArrays(k!, "nodes", lp.oklStructPack(k!, "nodes", nodes)), out: new Float64Array(E * Nq) });
    await expectSerialMeaning(k!, args, { out: want }, 1e-14);
    // The okl target prints the split arrays and temporaries as plain OKL, which imports again to the same meaning.
    await expectSerialMeaning(lp.parseOkl(lp.generateCode(k!, "okl").deviceCode)[0]!, args, { out: want }, 1e-14);
  });

  it("a member before all subscripts is refused with line:column", () => {
    const src = (body: string) => NODE_GRID.replace("out[e * p_Nq + i] = weigh(&b[1][2])", body);
    expect(oklError(() => lp.parseOkl(src("out[e * p_Nq + i] = b[1].id + weigh(&b[1][2])"))).message)
      .toMatch(/:23:27: "b" is an array of 2 dimensions of structs "node_t"; use b\[i\]\[j\]\.id/);
  });
});

describe("initializers of arrays of nested structs", () => {
  it("fully braced, brace-elided, a [] extent and two dimensions mean what C means; on interp and openmp", async () => {
    const [k] = lp.parseOkl(BC_DEFAULTS);
    const extent = (n: string) => k!.temporaries.find((t) => t.name === n)!.shape.map((e) => (e.kind === "const" ? e.value : "?"));
    expect([extent("ps"), extent("list_type"), extent("list_pts_x"), extent("grid_vals")]).toEqual([[3, 2], [2], [4], [8]]);
    const N = 4, g = seeded(N, 71);
    type P = { x: number; y: number };
    type B = { type: number; vals: number[]; pts: P[] };
    const bc = (type = 0, vals: number[] = [], pts: Partial<P>[] = []): B => ({
      type, vals: [vals[0] ?? 0, vals[1] ?? 0], pts: [0, 1].map((j) => ({ x: pts[j]?.x ?? 0, y: pts[j]?.y ?? 0 })),
    });
    const want = Array.from({ length: N }, (_, e) => {
      const ge = g[e]!, kk = e % 2;
      const table = [bc(1, [0.5, 1.5], [{ x: 1, y: 2 }, { x: 3, y: 4 }]), bc(2, [2.5], [{ x: 5 }])];
      const flat = [bc(3, [0.25, 0.75], [{ x: 7, y: 8 }, { x: 9, y: 10 }]), bc(4, [ge])];
      const ps = [{ x: 1, y: ge }, { x: 3, y: 4 }, { x: 5, y: 0 }];
      const one = bc(e, [ge], [{ x: 2, y: 3 }]);
      const grid = [[bc(1), bc(2)], [bc(3, [ge]), bc()]];
      const list = [bc(7), bc(8, [0.5])];
      return [
        table[kk]!.type + table[kk]!.vals[1]! + table[kk]!.pts[1]!.x * table[kk]!.pts[1]!.y,
        flat[0]!.type + flat[0]!.vals[1]! + flat[0]!.pts[1]!.y + flat[1]!.type + flat[1]!.vals[0]!,
        flat[1]!.vals[1]! + flat[1]!.pts[0]!.x,
        ps[0]!.y + ps[1]!.x * ps[1]!.y + ps[2]!.x + ps[2]!.y,
        one.type + one.vals[0]! + one.vals[1]! + one.pts[0]!.y + one.pts[1]!.x,
        grid[0]![1]!.type + grid[1]![0]!.type * grid[1]![0]!.vals[0]! + grid[1]![1]!.type,
        list[0]!.type + list[1]!.type + list[1]!.vals[0]!,
        list[1]!.pts[1]!.y + grid[1]![1]!.pts[1]!.x + table[1]!.pts[1]!.y,
      ];
    }).flat();
    await expectSerialMeaning(k!, () => ({ N, g: Float64Array.from(g), out: new Float64Array(8 * N) }), { out: want }, 1e-14);
  });

  it("a struct value in a list initializes its subobject whole, as in C (a struct element, a one-type struct, a vector); on interp and openmp", async () => {
    const [k] = lp.parseOkl(`typedef struct { double x, y; } pt_t;
typedef struct { int type; double2 uv; pt_t p; } bc_t;
@kernel void f(const int N, const bc_t *bcs, const pt_t *ps, double *out) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < 1; ++n; @inner) {
    const double2 w = make_double2(1.0, 2.0);
    bc_t two[2] = {bcs[e], {7, w * 3.0, ps[e]}};
    pt_t q[2] = {ps[e], {1.0, 2.0}};
    out[e] = two[0].type + two[0].uv.y + two[0].p.x + two[1].type + two[1].uv.x + two[1].p.y + q[0].y + q[1].x;
  }
}`);
    const N = 3, v = seeded(4 * N, 73), p = seeded(2 * N, 74);
    const recs = Array.from({ length: N }, (_, e) => ({ type: e - 1, uv: { x: v[4 * e]!, y: v[4 * e + 1]! }, p: { x: v[4 * e + 2]!, y: v[4 * e + 3]! } }));
    const want = recs.map((r, e) => r.type + r.uv.y + r.p.x + 7 + 3.0 + p[2 * e + 1]! + p[2 * e + 1]! + 1.0);
    await expectSerialMeaning(k!, () => ({ N, ...lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", recs)), ps: Float64Array.from(p), out: new Float64Array(N) }), { out: want }, 1e-14);
  });

  it("a 2-D array of structs initialized inside a device function with a while loop (an opaque block); on interp and openmp", async () => {
    const [k] = lp.parseOkl(`typedef struct { int type; double vals[2]; } bc_t;
double sumAll(const double g) {
  bc_t t[2][2] = {{{1, {g}}, 2, 0.5}, {{3}}};
  double s = 0;
  int i = 0;
  while (i < 2) { s += t[i][0].type * t[i][0].vals[0] + t[i][1].type + t[0][1].vals[0]; ++i; }
  return s;
}
@kernel void f(const int N, const double *g, double *out) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < 1; ++n; @inner) { out[e] = sumAll(g[e]); }
}`);
    const g = seeded(3, 72);
    // t[0][0] = {1, {g, 0}}, t[0][1] = {2, {0.5, 0}} (braces elided), t[1][0] = {3}, t[1][1] zero.
    const want = g.map((x) => (1 * x + 2 + 0.5) + (3 * 0 + 0 + 0.5));
    await expectSerialMeaning(k!, () => ({ N: 3, g: Float64Array.from(g), out: new Float64Array(3) }), { out: want }, 1e-14, { checkBounds: false });
  });

  it("what C refuses, or Loom does not take, is refused with line:column and what is accepted", () => {
    const src = (decl: string) => BC_DEFAULTS.replace("const int k = e % 2;", `${decl}\n      const int k = e % 2;`);
    expect(oklError(() => lp.parseOkl(src("bc_t d[1] = {{.type = 1}};"))).message).toMatch(/:14:29: array of struct "bc_t" "d": designated initializers are not supported \(in d\[0\]\); accepted are lists of values in C's order/);
    expect(oklError(() => lp.parseOkl(src("pt_t q[1] = {1.0, 2.0, 3.0};"))).message).toMatch(/:14:30: array of struct "pt_t" "q": too many initializers for q \(an array of 1\)/);
    expect(oklError(() => lp.parseOkl(src("bc_t d[1] = {{1, {1.0, 2.0, 3.0}}};"))).message).toMatch(/:14:35: array of struct "bc_t" "d": too many initializers for d\[0\]\.vals \(an array of 2\)/);
    expect(oklError(() => lp.parseOkl(BC_DEFAULTS.replace("for (int n = 0; n < 1; ++n; @inner) {", "@shared bc_t sh[2] = {{1}};\n    for (int n = 0; n < 1; ++n; @inner) {"))).message)
      .toMatch(/:7:26: @shared "sh" cannot have an initializer \(CUDA and OpenCL refuse them on shared memory\)/);
  });
});

describe("oklStructUnpack, the inverse of oklStructPack", () => {
  // Random structs: an int, a double array, an array of nested points of 2 or 3 fields, a char.
  const decl = (np: number, nv: number, three: boolean) => `typedef struct { double x; ${three ? "int k; " : ""}float y; } pt_t;
typedef struct { int type; double vals[${nv}]; pt_t pts[${np}]; char flag; } bc_t;
@kernel void f(const int n, bc_t *bcs, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) {
    bc_t b = bcs[i];
    out[i] = b.type;
  }
}`;
  it("property: unpack(pack(objects)) is the objects, and pack(unpack(bytes)) the bytes", () => {
    const f32 = fc.float({ noNaN: true, noDefaultInfinity: true }).map(Math.fround);
    const d = fc.double({ noNaN: true, noDefaultInfinity: true }), i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    const shape = fc.record({ np: fc.integer({ min: 1, max: 3 }), nv: fc.integer({ min: 2, max: 3 }), three: fc.boolean(), n: fc.integer({ min: 0, max: 3 }) });
    fc.assert(fc.property(shape.chain((s) => fc.tuple(fc.constant(s), fc.array(fc.record({
      type: i32, vals: fc.array(d, { minLength: s.nv, maxLength: s.nv }), flag: fc.integer({ min: -128, max: 127 }),
      pts: fc.array(s.three ? fc.record({ x: d, k: i32, y: f32 }) : fc.record({ x: d, y: f32 }), { minLength: s.np, maxLength: s.np }),
    }), { minLength: s.n, maxLength: s.n }))), ([s, recs]) => {
      const [k] = lp.parseOkl(decl(s.np, s.nv, s.three));
      const bytes = lp.oklStructPack(k!, "bcs", recs);
      // The declared shape (OklStructArg's dims): a one-element array of points is an array of one.
      const unpacked = lp.oklStructUnpack(k!, "bcs", bytes);
      expect(unpacked).toEqual(recs);
      expect(Array.from(lp.oklStructPack(k!, "bcs", unpacked))).toEqual(Array.from(bytes));
    }), { numRuns: 25, seed: 81 });
  });

  it("arrays of one-member nested structs and 2-D array fields come back in their declared shape, and the bytes survive the round trip", () => {
    const [k] = lp.parseOkl(`typedef struct { double v[3]; } one_t;
typedef struct { int id; one_t q[2]; long m[2][2]; } s_t;
@kernel void f(const int n, s_t *a, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) { s_t b = a[i]; out[i] = b.id; }
}`);
    const recs = [{ id: 3, q: [{ v: [1, 2, 3] }, { v: [4, 5, 6] }], m: [[1n, 2n], [3n, -4n]] }];
    const bytes = lp.oklStructPack(k!, "a", recs);
    const back = lp.oklStructUnpack(k!, "a", bytes);
    expect(back).toEqual(recs);
    expect(lp.oklStructArg(k!, "a").fields.map((f) => [f.name, f.dims])).toEqual([["id", [[]]], ["q.v", [[2], [3]]], ["m", [[2, 2]]]]);
    expect(Array.from(lp.oklStructPack(k!, "a", back))).toEqual(Array.from(bytes));
  });

  it("too few bytes, or an argument that was not split, is a LoomError naming it", () => {
    const [k] = lp.parseOkl(WALL_POINTS);
    expect(() => lp.oklStructUnpack(k!, "bcs", new Uint8Array(100), 1)).toThrow(/oklStructUnpack\("bcs"\): 1 structs "bcData" of 104 bytes need 104 bytes; the data holds 100/);
    expect(() => lp.oklStructUnpack(k!, "nrm", new Uint8Array(8))).toThrow(/has no struct pointer argument "nrm" split into field arrays \(its struct pointer arguments split into field arrays are "bcs"\)/);
  });
});

describe("the leftovers' kernels lower to every target of the corpus report", () => {
  it.each([["wallPoints", WALL_POINTS], ["nodeGrid", NODE_GRID], ["bcDefaults", BC_DEFAULTS], ["vectorBoundary", VECTOR_BOUNDARY]])("%s", (name, src) => {
    const [k] = lp.parseOkl(src);
    expect(k!.name).toBe(name);
    for (const t of ["c", "openmp", "opencl", "cuda", "js", "okl"] as const) expect(lp.generateCode(k!, t).deviceCode.length, t).toBeGreaterThan(0);
  });
});
