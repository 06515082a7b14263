/**
 * Structs mixing `int` and `double` fields in memory, as the CFD code's boundary kernels use them:
 * a pointer argument to an array of them (C's padding and alignment) and @shared arrays of them.
 * The importer splits each into one array per field (`bcs[i].u` is `bcs_u[i]`); oklStructArrays and
 * oklStructBytes move C's bytes to and from those arrays. Kernels run on interp, js and openmp
 * (where it builds) against their serial meaning; C's layout is checked against the C compiler.
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
import { BOUNDARY_ARRAY, SHARED_RECORDS } from "./real-world-kernels.js";
import { nativeAvailable } from "../run/native-helpers.js";

/** C's bytes of `n` bcData records of BOUNDARY_ARRAY, written field by field at C's offsets (independently of the importer). */
function bcBytes(n: number, rec: (i: number) => { idM: number; time: number; x: number; y: number; id: number; u: number; v: number; flag: number }): ArrayBuffer {
  const buf = new ArrayBuffer(64 * n);
  const v = new DataView(buf);
  for (let i = 0; i < n; i++) {
    const r = rec(i), b = 64 * i;
    v.setInt32(b, r.idM, true); v.setFloat64(b + 8, r.time, true); v.setFloat64(b + 16, r.x, true); v.setFloat64(b + 24, r.y, true);
    v.setInt32(b + 32, r.id, true); v.setFloat64(b + 40, r.u, true); v.setFloat64(b + 48, r.v, true); v.setInt8(b + 56, r.flag);
    v.setInt32(b + 4, 0x5a5a5a5a, true); // padding the kernel must never see nor overwrite
  }
  return buf;
}

describe("a pointer argument to structs mixing int and double fields: one array per field", () => {
  const [k] = lp.parseOkl(BOUNDARY_ARRAY);
  const N = 3, n = 4 * N;
  const xs = seeded(n, 1), ys = seeded(n, 2);
  const rec = (i: number) => ({ idM: i - 3, time: 0.25 * i, x: xs[i]!, y: ys[i]!, id: i % 3, u: -7, v: -8, flag: i % 4 === 1 ? 0 : 1 });

  it("splits the argument into the fields the kernel uses, in field order, and keeps C's layout", () => {
    expect(k!.args.map((a) => `${a.name}:${a.dtype}`)).toEqual([
      "Nelements:int32", "bcs_idM:int32", "bcs_time:float64", "bcs_x:float64", "bcs_y:float64", "bcs_id:int32", "bcs_u:float64", "bcs_v:float64", "bcs_flag:int8", "U:float64",
    ]);
    const s = lp.oklStructArg(k!, "bcs");
    expect([s.size, s.align]).toEqual([64, 8]);
    expect(s.fields.map((f) => [f.name, f.offset])).toEqual([["idM", 0], ["time", 8], ["x", 16], ["y", 24], ["id", 32], ["u", 40], ["v", 48], ["flag", 56]]);
    expect(k!.oklOptions?.restrict).toEqual(expect.arrayContaining(["bcs_u", "bcs_v", "U"]));
    for (const t of ["c", "openmp", "opencl", "cuda", "js", "okl"] as const) expect(lp.generateCode(k!, t).deviceCode).toContain("bcs_u");
  });

  it("runs on interp, js and openmp against its serial meaning, from C's bytes and back into them", async () => {
    const bytes = bcBytes(n, rec);
    const arrays = lp.oklStructArrays(k!, "bcs", bytes);
    expect(Array.from(arrays.bcs_idM as Int32Array)).toEqual(Array.from({ length: n }, (_, i) => i - 3));
    const U0 = seeded(n, 3);
    const wantU = Float64Array.from(U0), wantu = new Float64Array(n), wantv = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const r = rec(i);
      wantu[i] = r.u; wantv[i] = r.v;
      if (!r.flag) continue;
      wantu[i] = r.x * r.time + r.idM;
      wantv[i] = r.id === 2 ? 1 : -r.y;
      wantU[i] = wantu[i]! + wantv[i]!;
    }
    const args = () => ({ Nelements: N, ...Object.fromEntries(Object.entries(arrays).map(([a, x]) => [a, x.slice()])), U: Float64Array.from(U0) });
    await expectSerialMeaning(k!, args, { U: wantU, bcs_u: wantu, bcs_v: wantv }, 1e-15);
    const out = await lp.run(k!, args(), { backend: "js" });
    expect(Array.from(out.U as Float64Array)).toEqual(Array.from(wantU));
    // Back into the caller's bytes: the written fields change, everything else (padding too) is kept.
    const before = new Uint8Array(bytes.slice(0));
    const after = lp.oklStructBytes(k!, "bcs", out as Record<string, Float64Array>, bytes);
    const v = new DataView(after.buffer);
    for (let i = 0; i < n; i++) {
      expect([v.getFloat64(64 * i + 40, true), v.getFloat64(64 * i + 48, true)]).toEqual([wantu[i], wantv[i]]);
      expect(v.getInt32(64 * i + 4, true)).toBe(0x5a5a5a5a);
    }
    const changed = [...after].flatMap((b, q) => (b !== before[q] ? [q % 64] : []));
    expect(changed.every((o) => o >= 40 && o < 56)).toBe(true);
  });

  it("the helpers' mistakes are LoomErrors naming what there is", () => {
    expect(() => lp.oklStructArg(k!, "U")).toThrow(/no struct pointer argument "U" split into field arrays \(its struct pointer arguments split into field arrays are "bcs"\)/);
    expect(() => lp.oklStructArrays(k!, "bcs", new ArrayBuffer(64), 2)).toThrow(/2 structs "bcData" of 64 bytes need 128 bytes; the data holds 64/);
    expect(() => lp.oklStructBytes(k!, "bcs", { bcs_u: new Float64Array(1) }, undefined, 2)).toThrow(/field "u" \("bcs_u"\) has 1 values for 2 structs/);
  });
});

describe("whole-struct copies between a local and an array of them", () => {
  const SRC = `typedef struct { int id; double x; double u; } bcData;
typedef struct { double x; int id; } other;
void userBC(bcData *bc) { bc->u = bc->x * bc->id; }
@kernel void copyBC(const int N, const bcData *in, bcData *out) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < 1; ++n; @inner) {
    bcData bc = in[e];
    userBC(&bc);
    out[e] = bc;
  }
}`;
  it("bcData bc = in[e]; … out[e] = bc; copies every field, from C's bytes to C's bytes, on interp, js and openmp", async () => {
    const [k] = lp.parseOkl(SRC);
    expect(k!.args.map((a) => a.name)).toEqual(["N", "in_id", "in_x", "in_u", "out_id", "out_x", "out_u"]);
    const N = 5, xs = seeded(N, 9);
    const bytes = new ArrayBuffer(24 * N), v = new DataView(bytes);
    for (let e = 0; e < N; e++) { v.setInt32(24 * e, e - 2, true); v.setFloat64(24 * e + 8, xs[e]!, true); v.setFloat64(24 * e + 16, 99, true); }
    const input = lp.oklStructArrays(k!, "in", bytes);
    const args = () => ({ N, ...input, out_id: new Int32Array(N), out_x: new Float64Array(N), out_u: new Float64Array(N) });
    const want = { out_id: Array.from({ length: N }, (_, e) => e - 2), out_x: xs, out_u: xs.map((x, e) => x * (e - 2)) };
    await expectSerialMeaning(k!, args, want, 1e-15);
    const out = await lp.run(k!, args(), { backend: "js" });
    const back = new DataView(lp.oklStructBytes(k!, "out", out as Record<string, Float64Array>).buffer);
    expect(back.byteLength).toBe(24 * N);
    for (let e = 0; e < N; e++) expect([back.getInt32(24 * e, true), back.getFloat64(24 * e + 8, true), back.getFloat64(24 * e + 16, true)]).toEqual([e - 2, xs[e], want.out_u[e]]);
  });

  it("a copy from another struct type or with += is refused, naming the struct", () => {
    expect(oklError(() => lp.parseOkl(SRC.replace("out[e] = bc;", "out[e] += bc;"))).message).toMatch(/struct "bcData": whole structs can only be copied with "=" \(not "\+="\)/);
    expect(oklError(() => lp.parseOkl(SRC.replace("bcData bc = in[e];", "bcData bc = in[e]; other o = {1.0, 2};").replace("out[e] = bc;", "out[e] = o;"))).message)
      .toMatch(/a struct "bcData" can only be assigned a struct "bcData" \(a local, an element of an array of them, \*p or a nested struct field\), not a struct "other"/);
  });
});

describe("@shared arrays of structs mixing int and double fields", () => {
  it("an element-local neighbour gather through a @shared record array and a pointer into it, on interp, js and openmp", async () => {
    const [k] = lp.parseOkl(SHARED_RECORDS);
    const E = 3, Nq = 8, W = seeded(E * Nq, 5), owner = Array.from({ length: E * Nq }, (_, i) => (i * 7) % 3);
    const want = new Float64Array(E * Nq);
    for (let e = 0; e < E; e++) for (let i = 0; i < Nq; i++) {
      const a = e * Nq + i, b = e * Nq + ((i + 1) % Nq);
      want[a] = owner[a] === owner[b] ? W[a]! + W[b]! * 0.5 : W[a]!;
    }
    expect(k!.temporaries.filter((t) => t.addressSpace === "local").map((t) => `${t.name}:${t.dtype}`)).toEqual(["s_n_owner:int32", "s_n_w:float64", "s_n_s:float32"]);
    const args = () => ({ Nelements: E, W: Float64Array.from(W), owner: Int32Array.from(owner), out: new Float64Array(E * Nq) });
    await expectSerialMeaning(k!, args, { out: want }, 1e-15);
    expect(Array.from((await lp.run(k!, args(), { backend: "js" })).out as Float64Array)).toEqual(Array.from(want));
  });
});

describe("what is refused names the struct", () => {
  const kernelWith = (decl: string, body: string) => () => lp.parseOkl(`struct R { int k; double d; };
@kernel void f(const int n, struct R *r, double *out) {
  for (int i = 0; i < n; ++i; @outer) { ${decl} for (int j = 0; j < 1; ++j; @inner) { ${body} } }
}`);
  it.each([
    ["", "out[i] = r[i];", /"r" holds structs "R" \(fields k, d\); only their fields can be read and written/],
    ["", "out[i] = r[i].q;", /struct "R" has no field "q" \(its fields: k, d\)/],
    ["", "out[i] = r.d;", /"r" points to structs "R"; use r\[i\]\.d or r->d/],
    ["@shared struct R x[2] = {{1, 2.0}};", "out[i] = 0;", /@shared "x" cannot have an initializer \(CUDA and OpenCL refuse them on shared memory\)/],
  ])("%s %s", (decl, body, msg) => {
    const e = oklError(kernelWith(decl, body));
    expect(e.message).toMatch(msg);
  });
});

describe("C's layout of mixed structs is the C compiler's", () => {
  const TYPES = ["char", "short", "int", "long", "float", "double", "unsigned char", "unsigned int", "long long"] as const;
  it.skipIf(!nativeAvailable("c"))("random field lists: offsets, sizeof and _Alignof agree with cc (one compile)", () => {
    // Mixed: two fields differ in size or in kind (one-type structs, signedness aside, take the one-array path).
    const key = (t: string) => (t === "float" || t === "double" ? "f" : "i") + (t === "char" || t === "unsigned char" ? 1 : t === "short" ? 2 : t.includes("long") || t === "double" ? 8 : 4);
    const structs = fc.sample(fc.array(fc.constantFrom(...TYPES), { minLength: 2, maxLength: 7 }).filter((ts) => new Set(ts.map(key)).size > 1), { numRuns: 25, seed: 20 });
    const defs = structs.map((ts, s) => `struct S${s} { ${ts.map((t, f) => `${t} f${f};`).join(" ")} };`);
    const dir = mkdtempSync(join(tmpdir(), "loom-layout-"));
    const prints = structs.map((ts, s) => `printf("%zu %zu${ts.map(() => " %zu").join("")}\\n", sizeof(struct S${s}), _Alignof(struct S${s})${ts.map((_, f) => `, offsetof(struct S${s}, f${f})`).join("")});`);
    writeFileSync(join(dir, "l.c"), `#include <stdio.h>\n#include <stddef.h>\n${defs.join("\n")}\nint main(void) {\n${prints.join("\n")}\nreturn 0;\n}\n`);
    execFileSync("cc", ["-std=c11", "-o", join(dir, "l"), join(dir, "l.c")]);
    const lines = execFileSync(join(dir, "l"), { encoding: "utf8" }).trim().split("\n");
    structs.forEach((ts, s) => {
      const [k] = lp.parseOkl(`${defs[s]}
@kernel void f(const int n, struct S${s} *p, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) out[i] = ${ts.map((_, f) => `p[i].f${f}`).join(" + ")};
}`);
      const a = lp.oklStructArg(k!, "p");
      expect([a.size, a.align, ...a.fields.map((f) => f.offset)].join(" "), `struct S${s} { ${ts.join("; ")} }`).toBe(lines[s]);
    });
  });
});
