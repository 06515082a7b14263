/**
 * Structs mixing field types with array fields and nested structs (issue 20): the CFD code's
 * boundary data with `double uM[2]`, a nested normal and `int flags[3]`, `@exclusive` arrays of such
 * structs, a settings struct read by a device function with a while loop (an opaque block). Each
 * kernel runs on interp and openmp against its serial meaning written out here, with its data packed
 * from JS objects into C's bytes (oklStructPack) and split into field arrays (oklStructArrays);
 * C's layout of random nested structs is checked against the C compiler; the okl target's print
 * of a split kernel imports again to the same meaning.
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
import { BOUNDARY_VALUES, EXCLUSIVE_RECORDS, NEWTON_RECORDS } from "./real-world-kernels.js";
import { kernelFromJSON, kernelToJSON } from "../../src/tune/executor/kernel-json.js";
import { nativeAvailable } from "../run/native-helpers.js";

/** `k` printed by the okl target and imported again (the split field arrays are plain pointer arguments there). */
const reimported = (k: lp.Kernel): lp.Kernel => lp.parseOkl(lp.generateCode(k, "okl").deviceCode)[0]!;

describe("the CFD code's boundary data with an array field and a nested struct", () => {
  const [k] = lp.parseOkl(BOUNDARY_VALUES);
  const E = 3, n = 4 * E, time = 0.75;
  const xs = seeded(n, 11), ys = seeded(n, 12), nx = seeded(n, 13), ny = seeded(n, 14), U = seeded(2 * n, 15), g = seeded(2 * n, 16);
  const recs = Array.from({ length: n }, (_, i) => ({
    id: (i * 5) % 7, time: -1, x: xs[i]!, y: ys[i]!, n: { nx: nx[i]!, ny: ny[i]! }, uM: [g[2 * i]!, g[2 * i + 1]!], flags: [i, -i, 2 * i], wall: i % 3 === 0 ? 1 : 0,
  }));

  it("C's layout: sizeof 80, the nested struct's fields at 32 and 40, array fields with each element's offset", () => {
    const s = lp.oklStructArg(k!, "bcs");
    expect([s.size, s.align]).toEqual([80, 8]);
    expect(s.fields.map((f) => [f.name, f.offset, f.elements ?? null])).toEqual([
      ["id", 0, null], ["time", 8, null], ["x", 16, null], ["y", 24, null], ["n.nx", 32, null], ["n.ny", 40, null],
      ["uM", 48, [48, 56]], ["flags", 64, [64, 68, 72]], ["wall", 76, null],
    ]);
    // The layout travels with the kernel to tuning workers (kernel JSON).
    expect(kernelFromJSON(JSON.parse(JSON.stringify(kernelToJSON(k!)))).oklOptions?.structArgs).toEqual(k!.oklOptions?.structArgs);
    expect(k!.args.map((a) => a.name)).toEqual(["Nelements", "time", "bcs_id", "bcs_time", "bcs_x", "bcs_y", "bcs_n_nx", "bcs_n_ny", "bcs_uM", "bcs_flags", "bcs_wall", "U", "UP"]);
  });

  it("packed from JS objects into C's bytes, split into field arrays, runs on interp and openmp against its serial meaning", async () => {
    const bytes = lp.oklStructPack(k!, "bcs", recs);
    expect(bytes.byteLength).toBe(80 * n);
    const v = new DataView(bytes.buffer);
    expect([v.getFloat64(80 * 5 + 40, true), v.getInt32(80 * 5 + 68, true), v.getInt8(80 * 6 + 76)]).toEqual([ny[5], -5, 1]);
    const arrays = lp.oklStructArrays(k!, "bcs", bytes);
    expect(Array.from(arrays.bcs_flags as Int32Array).slice(3, 9)).toEqual([1, -1, 2, 2, -2, 4]);
    const want = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      const r = recs[i]!, u0 = U[2 * i]!, u1 = U[2 * i + 1]!;
      const un = u0 * r.n.nx + u1 * r.n.ny;
      const uP = r.wall ? [u0 - 2 * un * r.n.nx, u1 - 2 * un * r.n.ny] : [r.x * time, r.flags[r.id % 3]!];
      want[2 * i] = uP[0]! + (r.uM[0]! * r.n.nx + r.uM[1]! * r.n.ny);
      want[2 * i + 1] = uP[1]! + r.flags[0]!;
    }
    // bc.flags[bc.id % 3] reads memory in its subscript, which the native bounds proof cannot cover.
    await expectSerialMeaning(k!, () => ({ Nelements: E, time, ...arrays, U: Float64Array.from(U), UP: new Float64Array(2 * n) }), { UP: want }, 1e-14, { checkBounds: false });
  });

  it("the okl target prints the field arrays, and that OKL imports again to the same meaning", async () => {
    const okl = lp.generateCode(k!, "okl").deviceCode;
    expect(okl).toMatch(/const double \*bcs_uM @restrict/);
    const [again] = lp.parseOkl(okl);
    expect(again!.args.map((a) => `${a.name}:${a.dtype}`)).toEqual(k!.args.map((a) => `${a.name}:${a.dtype}`));
    const args = () => ({ Nelements: E, time, ...lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", recs)), U: Float64Array.from(U), UP: new Float64Array(2 * n) });
    const [a, b] = [await lp.run(k!, args()), await lp.run(again!, args())];
    expect(Array.from(b.UP as Float64Array)).toEqual(Array.from(a.UP as Float64Array));
  });

  it("property: JS objects -> oklStructPack -> oklStructArrays -> oklStructBytes gives the packed bytes back (every field used)", () => {
    // A kernel that uses every field, so that every field has an argument.
    const [all] = lp.parseOkl(BOUNDARY_VALUES.replace("UP[2 * id + 1] = uP[1] + bc.flags[0];", "UP[2 * id + 1] = uP[1] + bc.flags[0] + bcs[id].y + bcs[id].time + bcs[id].flags[2];"));
    const d = fc.double({ noNaN: true, noDefaultInfinity: true }), i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    const rec = fc.record({ id: i32, time: d, x: d, y: d, n: fc.record({ nx: d, ny: d }), uM: fc.tuple(d, d), flags: fc.tuple(i32, i32, i32), wall: fc.integer({ min: -128, max: 127 }) });
    fc.assert(fc.property(fc.array(rec, { maxLength: 5 }), (rs) => {
      const bytes = lp.oklStructPack(all!, "bcs", rs);
      const back = lp.oklStructBytes(all!, "bcs", lp.oklStructArrays(all!, "bcs", bytes), undefined, rs.length);
      expect(Array.from(back)).toEqual(Array.from(bytes));
      const v = new DataView(bytes.buffer);
      rs.forEach((r, k) => expect([v.getFloat64(80 * k + 56, true), v.getInt32(80 * k + 72, true)]).toEqual([r.uM[1], r.flags[2]]));
    }), { numRuns: 40, seed: 20 });
  });

  it("oklStructPack's mistakes name the field", () => {
    expect(() => lp.oklStructPack(k!, "bcs", [{ id: 1, velocity: 2 }])).toThrow(/struct "bcData" has no field "velocity" \(record 0\); its fields are id, time, x, y, n, uM, flags, wall/);
    expect(() => lp.oklStructPack(k!, "bcs", [{ uM: [1, 2, 3] }])).toThrow(/field "uM" of record 0 needs 2 numbers, got \[1,2,3\]/);
    expect(() => lp.oklStructPack(k!, "bcs", [{ n: 3 }])).toThrow(/record 0: n is number; expected an object with field "nx"/);
  });
});

describe("@exclusive arrays of structs mixing int and double[2]", () => {
  it("per-work-item records carried across two @inner loops, on interp and openmp against the serial meaning", async () => {
    const [k] = lp.parseOkl(EXCLUSIVE_RECORDS);
    expect(k!.temporaries.map((t) => `${t.name}:${t.addressSpace}:${t.shape.map((e) => (e.kind === "const" ? e.value : "?")).join("x")}`))
      .toEqual(["s_q:local:4", "r_st_count:private:2", "r_st_acc:private:4"]);
    const E = 3, Nq = 4, q = seeded(E * Nq, 21), owner = Array.from({ length: E * Nq }, (_, i) => (i * 3) % 5);
    const want = new Float64Array(E * Nq);
    for (let e = 0; e < E; e++) for (let i = 0; i < Nq; i++) {
      const sq = q.slice(e * Nq, e * Nq + Nq), c0 = owner[e * Nq + i]!, c1 = c0 + 1;
      const acc0 = [0, 0];
      let acc1 = 0;
      for (let m = 0; m < Nq; m++) {
        acc0[m % 2] += sq[m]! * (i + 1);
        acc1 += c1 * sq[(i + m) % Nq]!;
      }
      want[e * Nq + i] = acc0[0]! - acc0[1]! + acc1 + c0;
    }
    const args = () => ({ Nelements: E, q: Float64Array.from(q), owner: Int32Array.from(owner), out: new Float64Array(E * Nq) });
    await expectSerialMeaning(k!, args, { out: want }, 1e-14);
    await expectSerialMeaning(reimported(k!), args, { out: want }, 1e-14);
  });
});

describe("a settings struct read inside opaque blocks", () => {
  it("a device function with a while loop and a while loop in the kernel read a struct local copied from the argument", async () => {
    const [k] = lp.parseOkl(NEWTON_RECORDS);
    const N = 7;
    const recs = Array.from({ length: N }, (_, i) => ({ iters: 2 + (i % 4), tol: 0.5, coef: [-(i + 1), 0.5 * (i % 3), 1] }));
    const x0 = seeded(N, 31).map((x) => 2 + x);
    const wantX = new Float64Array(N), wantSteps = new Int32Array(N);
    recs.forEach((s, i) => {
      const f = (x: number) => s.coef[0]! + x * (s.coef[1]! + x * s.coef[2]!);
      let x = x0[i]!, k = 0, fx = f(x);
      while (Math.abs(fx) > 1e-12 && k < s.iters) {
        x = x - fx / (s.coef[1]! + 2.0 * s.coef[2]! * x);
        fx = f(x);
        ++k;
      }
      wantX[i] = x;
      let j = 0;
      while (j < s.iters && s.coef[j % 3] !== 0) ++j;
      wantSteps[i] = j;
    });
    const arrays = lp.oklStructArrays(k!, "sv", lp.oklStructPack(k!, "sv", recs));
    expect(Object.keys(arrays)).toEqual(["sv_iters", "sv_tol", "sv_coef"]); // the copy s = sv[i] reads every field
    const args = () => ({ N, ...arrays, x0: Float64Array.from(x0), x: new Float64Array(N), steps: new Int32Array(N) });
    await expectSerialMeaning(k!, args, { x: wantX, steps: wantSteps }, 1e-14, { checkBounds: false }); // opaque blocks: no native bounds proof
    const again = await lp.run(reimported(k!), args());
    expect([Array.from(again.x as Float64Array), Array.from(again.steps as Int32Array)]).toEqual([Array.from(wantX), Array.from(wantSteps)]);
  });
});

describe("what is refused names the field, with line:column", () => {
  const SRC = (decl: string, body: string, arg = "struct R *r") => `struct P { double x, y; };
struct R { int k; double v[3]; struct P p; struct P ps[2]; };
${decl}
@kernel void f(const int n, ${arg}, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) {
    ${body}
  }
}`;
  it.each([
    ["struct L { int k; double *vals; };", "struct L l[2]; out[i] = 0;", "struct R *r", /6:14: array of struct "l": struct "L" has a pointer field \(field "vals" is a pointer \(line 3:26\): OCCA copies a struct's bytes to the device as they are/],
    ["struct L { int k; double *vals; };", "out[i] = l[i].k;", "struct L *l", /6:14: argument "l": struct "L" cannot be lowered: field "vals" is a pointer \(line 3:26\).*pass what it points to as a pointer argument of the kernel/],
    ["union U { int a; float b; }; struct V { int k; union U u; };", "out[i] = w[i].k;", "struct V *w", /6:14: argument "w": struct "V" cannot be lowered: field type "U" cannot be lowered \(it is a union \(its fields overlap\)\); accepted are structs of numeric scalar fields, OCCA vector types/],
    ["", "out[i] = r[i].p.s1;", "struct R *r", /struct "P" has no field "s1" \(its fields: x, y\)/],
    ["struct W { int k; struct Q *next; };", "out[i] = w[i].k;", "struct W *w", /struct "W" cannot be lowered: field "next" is a pointer \(line 3:28\)/],
    ["", "out[i] = r[i].v;", "struct R *r", /6:14: array field "r\.v" used without a subscript/],
    ["", "out[i] = r[i].p * 2.0;", "struct R *r", /"r\.p" is a value of struct "P" used as a scalar; use one of its fields \(x, y\)/],
    ["", "out[i] = r[i].v[0].x;", "struct R *r", /"\.x" on "r\.v", a scalar field/],
    ["", "out[i] = r[i].ps.x;", "struct R *r", /"\.x" on array field "r\.ps": subscript it first/],
    ["", "out[i] = r[i].q;", "struct R *r", /struct "R" has no field "q" \(its fields: k, v, p, ps\)/],
    ["", "out[i] = r[i].p.z;", "struct R *r", /struct "P" has no field "z" \(its fields: x, y\)/],
    ["", "struct R l = {.k = 1}; out[i] = l.k;", "struct R *r", /6:24: struct "R" "l": designated initializers are not supported \(in l\); accepted are lists of values in C's order/],
    ["", "struct R l[2] = {{1}, {2, {3.0}, {.x = 1.0}}}; out[i] = l[0].k;", "struct R *r", /6:44: array of struct "R" "l": designated initializers are not supported \(in l\[1\]\.p\)/],
    ["", "struct R l = {1, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0}; out[i] = l.k;", "struct R *r", /6:68: struct "R" "l": too many initializers for l \(struct "R"\)/],
    ["", "struct R l = {1, {2.0, 3.0, 4.0, 5.0}}; out[i] = l.k;", "struct R *r", /6:38: struct "R" "l": too many initializers for l\.v \(an array of 3\)/],
    ["", "struct R l[2] = {1, 2.0}; struct R m[2] = l; out[i] = l[0].k;", "struct R *r", /6:47: array of struct "R" "m" must be initialized with \{…\}/],
  ])("%s %s", (decl, body, arg, msg) => {
    expect(oklError(() => lp.parseOkl(SRC(decl, body, arg))).message).toMatch(msg);
  });

  it("the nested struct, its array of structs and braced initializers that are accepted mean what C means", async () => {
    const [k] = lp.parseOkl(SRC("double g(const struct P *q) { return q->x - q->y; }", `struct R l = {i, {1.0, 2.0, 3.0}, {0.5, -0.5}};
    l.ps[1] = r[i].p;
    out[i] = l.k + l.v[2] + g(&l.p) + g(&l.ps[1]) + r[i].ps[1].y;`));
    const N = 4, recs = Array.from({ length: N }, (_, i) => ({ k: i, v: [0, 0, 0], p: { x: i, y: 2 * i }, ps: [{ x: 0, y: 0 }, { x: 0, y: 10 * i }] }));
    const out = await lp.run(k!, { n: N, ...lp.oklStructArrays(k!, "r", lp.oklStructPack(k!, "r", recs)), out: new Float64Array(N) });
    expect(Array.from(out.out as Float64Array)).toEqual(recs.map((r, i) => i + 3 + 1 + (r.p.x - r.p.y) + 10 * i));
  });
});

describe("device functions taking such a struct by value, or reading p[0].f", () => {
  it("by value into a one-line function, a statement function and a function with a loop (an opaque block); p[0].f; on interp and openmp", async () => {
    const [k] = lp.parseOkl(`typedef struct { int type; double vals[3]; struct { double x, y; } n; } bc_t;
double weight(bc_t b) { return b.vals[1] * b.type + b.n.y; }
void store(bc_t b, double *o) { *o = b.vals[2] - b.n.x; }
double total(const bc_t b) { double s = 0; int i = 0; while (i < 3) { s += b.vals[i]; ++i; } return s; }
double first(const bc_t *p) { return p[0].vals[0]; }
@kernel void byValue(const int N, const bc_t *bcs, double *out) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < 1; ++n; @inner) {
    bc_t bc = bcs[(e + 1) % N];
    double o;
    store(bcs[e], &o);
    out[4 * e + 0] = weight(bcs[e]);
    out[4 * e + 1] = o + weight(bc);
    out[4 * e + 2] = total(bc);
    out[4 * e + 3] = first(&bc) + first(bcs + e);
  }
}`);
    const N = 3, v = seeded(3 * N, 41), p = seeded(2 * N, 42);
    const recs = Array.from({ length: N }, (_, i) => ({ type: i + 1, vals: v.slice(3 * i, 3 * i + 3), n: { x: p[2 * i]!, y: p[2 * i + 1]! } }));
    const weight = (r: (typeof recs)[number]) => r.vals[1]! * r.type + r.n.y;
    const want = recs.flatMap((r, e) => {
      const q = recs[(e + 1) % N]!;
      return [weight(r), r.vals[2]! - r.n.x + weight(q), q.vals[0]! + q.vals[1]! + q.vals[2]!, q.vals[0]! + r.vals[0]!];
    });
    await expectSerialMeaning(k!, () => ({ N, ...lp.oklStructArrays(k!, "bcs", lp.oklStructPack(k!, "bcs", recs)), out: new Float64Array(4 * N) }), { out: want }, 1e-14, { checkBounds: false });
  });

  it("a function that writes its struct parameter passed by value is refused, naming it", () => {
    const e = oklError(() => lp.parseOkl(`typedef struct { int type; double vals[3]; } bc_t;
double bump(bc_t b) { b.vals[0] += 1.0; return b.vals[0]; }
@kernel void f(const int N, bc_t *bcs, double *out) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < 1; ++n; @inner) out[e] = bump(bcs[e]);
}`));
    expect(e.message).toMatch(/2:\d+: device function "bump" writes \(or takes the address of\) its parameter "b", a struct "bc_t" passed by value/);
  });
});

describe("C's layout of nested mixed structs with array fields is the C compiler's", () => {
  const SCALARS = ["char", "short", "int", "long", "float", "double"] as const;
  type Member = { readonly t: string; readonly dims: readonly number[] };
  const member = (inner: readonly string[]) => fc.record({ t: fc.constantFrom(...SCALARS, ...inner), dims: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }) });
  it.skipIf(!nativeAvailable("c"))("random structs (two levels, array fields, arrays of structs): every leaf element's offset, sizeof and _Alignof agree with cc (one compile)", () => {
    const cases = fc.sample(fc.tuple(fc.array(member([]), { minLength: 1, maxLength: 3 }), fc.array(member(["struct In"]), { minLength: 2, maxLength: 5 })), { numRuns: 12, seed: 27 });
    const decl = (ms: readonly Member[]) => ms.map((m, f) => `${m.t} f${f}${m.dims.map((d) => `[${d}]`).join("")};`).join(" ");
    const sources = cases.map(([inner, outer]) => `struct In { ${decl(inner)} };\nstruct Out { int tag; ${decl(outer)} double last; };`);
    // Each leaf element's designator (f1[2].f0[1]), from the importer's field paths and elements.
    const kernels = sources.map((src) => lp.parseOkl(`${src}
@kernel void f(const int n, struct Out *p, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) out[i] = p[i].tag + p[i].last;
}`)[0]!);
    const designators = (s: number): string[] => {
      const [inner, outer] = cases[s]!;
      // Leaf by leaf (a field of a nested struct over all elements of the array of them), each leaf's elements row-major.
      const leaves = (ms: readonly Member[]): string[][] => ms.flatMap((m, f) => {
        const idx = m.dims.reduce<string[]>((acc, d) => acc.flatMap((a) => Array.from({ length: d }, (_, q) => `${a}[${q}]`)), [""]);
        return m.t === "struct In" ? leaves(inner).map((l) => idx.flatMap((x) => l.map((d) => `f${f}${x}.${d}`))) : [idx.map((x) => `f${f}${x}`)];
      });
      return ["tag", ...leaves(outer).flat(), "last"];
    };
    const dir = mkdtempSync(join(tmpdir(), "loom-records-"));
    const prints = sources.map((_, s) => `printf("%zu %zu${designators(s).map(() => " %zu").join("")}\\n", sizeof(struct Out${s}), _Alignof(struct Out${s})${designators(s).map((d) => `, offsetof(struct Out${s}, ${d})`).join("")});`);
    const defs = sources.map((src, s) => src.replace(/struct In\b/g, `struct In${s}`).replace(/struct Out\b/g, `struct Out${s}`));
    writeFileSync(join(dir, "l.c"), `#include <stdio.h>\n#include <stddef.h>\n${defs.join("\n")}\nint main(void) {\n${prints.join("\n")}\nreturn 0;\n}\n`);
    execFileSync("cc", ["-std=gnu11", "-o", join(dir, "l"), join(dir, "l.c")]);
    const lines = execFileSync(join(dir, "l"), { encoding: "utf8" }).trim().split("\n");
    kernels.forEach((k, s) => {
      const a = lp.oklStructArg(k, "p");
      const offsets = a.fields.flatMap((f) => f.elements ?? [f.offset]);
      expect([a.size, a.align, ...offsets].join(" "), sources[s]).toBe(lines[s]);
    });
  });
});
