/**
 * Loopy's six benchmark kernels (shared/reference/loopy-generated/bench-kernels.cl) rebuilt with
 * Loom, their OpenCL compared with loopy's by structure: work-group size, arguments, declarations,
 * loops and their nesting, barriers and their comments, guards, unrolled code, accumulators.
 * Affine expressions are Loom's own spelling (`128 * gid(0) + lid(0) < n` for loopy's
 * `-1 + -128 * gid(0) + -1 * lid(0) + n >= 0`); where the structure differs, a comment says why.
 * The prefetches are written by hand (addPrefetch is not built yet), with loopy's names:
 * fetch inames `a_dim_0`/`a_dim_1` on the axes of `i_inner`/`k_inner`, temporary `a_fetch`,
 * instruction `a_fetch_rule`.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { setTemporaryAddressSpace, splitIname, tagInames } from "../../transforms/index.js";
import { compile, GCC_FLAGS, hasGcc, hasNvcc } from "./compile-helpers.js";

// ---- the kernels ---------------------------------------------------------------------------

const rowsumRef = (name: string) =>
  makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j])", ["a: float32[n,m]", "out: float32[n]", "n, m: int32"], { name });

interface Example {
  readonly ref: () => Kernel;
  readonly knl: () => Kernel;
  /** Parameter sets for autoTestVsRef: non-multiples of the tile sizes where the kernel allows. */
  readonly sizes: readonly Record<string, number>[];
}

const EXAMPLES: Readonly<Record<string, Example>> = {
  vecadd: {
    ref: () => makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + b[i]", ["a, b: float32[n]", "out: float32[n]", "n: int32"], { name: "vecadd" }),
    knl() {
      return splitIname(this.ref(), "i", 128, { outerTag: "g.0", innerTag: "l.0" });
    },
    sizes: [{ n: 1 }, { n: 128 }, { n: 300 }],
  },
  matmul_tiled_prefetch: {
    ref: () => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"],
      { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" }),
    knl: () => {
      // split i, j, k by 16 (i: g.0/l.1, j: g.1/l.0), then add_prefetch of a over (i_inner, k_inner)
      // and b over (k_inner, j_inner) with default_tag="l.auto": fetch inames on l.1 and l.0.
      const k = makeKernel([
        "{[i_outer,i_inner,j_outer,j_inner,k_outer,k_inner]: 0<=i_inner,j_inner,k_inner<16 and 0<=16*i_outer+i_inner<n and 0<=16*j_outer+j_inner<n and 0<=16*k_outer+k_inner<n}",
        "{[a_dim_0,a_dim_1,b_dim_0,b_dim_1]: 0<=a_dim_0,a_dim_1,b_dim_0,b_dim_1<16}",
      ], [
        "a_fetch[a_dim_0, a_dim_1] = a[16*i_outer + a_dim_0, 16*k_outer + a_dim_1] {id=a_fetch_rule}",
        "b_fetch[b_dim_0, b_dim_1] = b[16*k_outer + b_dim_0, 16*j_outer + b_dim_1] {id=b_fetch_rule}",
        "c[16*i_outer+i_inner, 16*j_outer+j_inner] = sum((k_outer,k_inner), a_fetch[i_inner,k_inner]*b_fetch[k_inner,j_inner]) {id=insn, dep=a_fetch_rule:b_fetch_rule}",
      ], [temporary("a_fetch", "float32", [16, 16], "local"), temporary("b_fetch", "float32", [16, 16], "local"), "a, b, c: float32[n,n]", "n: int32"],
      { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" });
      return tagInames(k, { i_outer: "g.0", i_inner: "l.1", j_outer: "g.1", j_inner: "l.0", a_dim_0: "l.1", a_dim_1: "l.0", b_dim_0: "l.1", b_dim_1: "l.0" });
    },
    sizes: [{ n: 16 }, { n: 48 }],
  },
  stencil5_2d_prefetch: {
    ref: () => makeKernel("{[i,j]: 0<=i,j<n}", "z[i+1,j+1] = -4*a[i+1,j+1] + a[i+1,j] + a[i+1,j+2] + a[i,j+1] + a[i+2,j+1]",
      ["a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" }),
    knl: () => {
      // split i (g.1/l.1) and j (g.0/l.0) by 16; prefetch a over (i_inner, j_inner) with
      // fetch_bounding_box: an 18x18 tile clipped to the array, its inames split by 16 over l.1/l.0.
      let k = makeKernel([
        "{[i_outer,i_inner,j_outer,j_inner]: 0<=i_inner,j_inner<16 and 0<=16*i_outer+i_inner<n and 0<=16*j_outer+j_inner<n}",
        "[i_outer,j_outer,n] -> {[a_dim_0,a_dim_1]: 0<=a_dim_0,a_dim_1<=17 and 16*i_outer+a_dim_0<=n+1 and 16*j_outer+a_dim_1<=n+1}",
      ], [
        "a_fetch[a_dim_0, a_dim_1] = a[16*i_outer + a_dim_0, 16*j_outer + a_dim_1] {id=a_fetch_rule}",
        "z[16*i_outer+i_inner+1, 16*j_outer+j_inner+1] = -4*a_fetch[i_inner+1, j_inner+1] + a_fetch[i_inner+1, j_inner] + a_fetch[i_inner+1, j_inner+2] + a_fetch[i_inner, j_inner+1] + a_fetch[i_inner+2, j_inner+1] {id=insn, dep=a_fetch_rule}",
      ], [temporary("a_fetch", "float32", [18, 18], "local"), "a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" });
      k = splitIname(k, "a_dim_0", 16, { innerTag: "l.1" });
      k = splitIname(k, "a_dim_1", 16, { innerTag: "l.0" });
      return tagInames(k, { i_outer: "g.1", i_inner: "l.1", j_outer: "g.0", j_inner: "l.0" });
    },
    sizes: [{ n: 1 }, { n: 16 }, { n: 21 }, { n: 40 }],
  },
  batched_matmul_dg_unroll: {
    ref: () => makeKernel("{[e,i,j,k]: 0<=e<nelements and 0<=i,j,k<8}", "out[e,i,j] = sum(k, d[i,k]*u[e,k,j])",
      ["d: float32[8,8]", "u, out: float32[nelements,8,8]", "nelements: int32"], { name: "batched_matmul" }),
    knl: () => {
      // split e by 8 (g.0/l.1), i: l.0, k: unr; prefetch d (the whole 8x8 matrix) over l.1/l.0.
      const k = makeKernel([
        "{[e_outer,e_inner,i,j,k]: 0<=e_inner<8 and 0<=8*e_outer+e_inner<nelements and 0<=i,j,k<8}",
        "{[d_dim_0,d_dim_1]: 0<=d_dim_0,d_dim_1<8}",
      ], [
        "d_fetch[d_dim_0, d_dim_1] = d[d_dim_0, d_dim_1] {id=d_fetch_rule}",
        "out[8*e_outer+e_inner, i, j] = sum(k, d_fetch[i, k]*u[8*e_outer+e_inner, k, j]) {id=insn, dep=d_fetch_rule}",
      ], [temporary("d_fetch", "float32", [8, 8], "local"), "d: float32[8,8]", "u, out: float32[nelements,8,8]", "nelements: int32"], { name: "batched_matmul" });
      return tagInames(k, { e_outer: "g.0", e_inner: "l.1", i: "l.0", k: "unr", d_dim_0: "l.1", d_dim_1: "l.0" });
    },
    sizes: [{ nelements: 1 }, { nelements: 8 }, { nelements: 13 }],
  },
  reduction_split: {
    ref: () => rowsumRef("rowsum"),
    knl: () => splitIname(splitIname(rowsumRef("rowsum"), "i", 128, { outerTag: "g.0", innerTag: "l.0" }), "j", 16, { innerTag: "unr" }),
    sizes: [{ n: 5, m: 1 }, { n: 130, m: 17 }, { n: 128, m: 32 }],
  },
  reduction_lpar_extra: {
    ref: () => rowsumRef("rowsum_lpar"),
    knl: () => splitIname(tagInames(rowsumRef("rowsum_lpar"), { i: "g.0" }), "j", 64, { innerTag: "l.0" }),
    sizes: [{ n: 3, m: 1 }, { n: 3, m: 64 }, { n: 4, m: 100 }, { n: 2, m: 200 }],
  },
};

// ---- structure -----------------------------------------------------------------------------

/**
 * The shape of a kernel body, one line per statement at its nesting depth: `for k_outer`, `if`,
 * `barrier <comment>`, `decl local a_fetch`, `acc_k =` (the assignment's target). Loopy's and
 * Loom's printers nest the same way (two spaces per level, braces at the level of their head).
 */
function skeleton(code: string): string[] {
  const body = code.slice(code.indexOf("{\n") + 2);
  const out: string[] = [];
  for (const line of body.split("\n")) {
    const t = line.trim();
    if (t === "" || t === "{" || t === "}") continue;
    const depth = (line.length - line.trimStart().length) / 2 - 1;
    let m: RegExpMatchArray | null;
    let s: string;
    if ((m = t.match(/^for \(int (\w+) =/))) s = `for ${m[1]}`;
    else if (t.startsWith("if (")) s = "if";
    else if ((m = t.match(/^barrier\(CLK_LOCAL_MEM_FENCE\) \/\* (.*) \*\/;$/))) s = `barrier ${m[1]}`;
    else if ((m = t.match(/^(__local )?(float|int) (\w+)(\[.*\])?;$/))) s = `decl${m[1] ? " local" : ""} ${m[3]}`;
    else if ((m = t.match(/^(\w+)(\[[^=]*\])? = /))) s = `${m[1]} =`;
    else s = `?? ${t}`;
    out.push(`${"  ".repeat(depth)}${s}`);
  }
  return out;
}

const cl = (name: string) => generateCode(EXAMPLES[name]!.knl(), "opencl").deviceCode;
const lines = (text: string) => text.trim().split("\n").map((l) => l.replace(/^ {6}/, ""));
const head = (code: string) => code.split("\n").find((l) => l.startsWith("__kernel"))!;

describe("loopy's examples: OpenCL structure", () => {
  it("vecadd: same as loopy (one remainder guard, no loop)", () => {
    const code = cl("vecadd");
    expect(head(code)).toBe("__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1))) vecadd(__global float const *__restrict__ a, __global float const *__restrict__ b, __global float *__restrict__ out, int const n)");
    expect(skeleton(code)).toEqual(lines(`
      if
        out =`));
    // loopy: if (-1 + -128 * gid(0) + -1 * lid(0) + n >= 0)
    expect(code).toContain("if (128 * gid(0) + lid(0) < n)\n    out[128 * gid(0) + lid(0)] = a[128 * gid(0) + lid(0)] + b[128 * gid(0) + lid(0)];");
  });

  it("matmul_tiled_prefetch: fetches and update share one k_outer loop with two barriers in it", () => {
    const code = cl("matmul_tiled_prefetch");
    expect(head(code)).toBe("__kernel void __attribute__ ((reqd_work_group_size(16, 16, 1))) matmul(__global float const *__restrict__ a, __global float const *__restrict__ b, __global float *__restrict__ c, int const n)");
    // Differs from loopy in one place: loopy puts the loop-carried (WAR) barrier at the start of
    // the k_outer body, Loom at its end. Both run one such barrier per iteration (loopy's first is
    // unneeded, Loom's last is) and both order iteration k's reads before iteration k+1's fetch.
    expect(skeleton(code)).toEqual(lines(`
      decl local a_fetch
      decl acc_k_outer_k_inner
      decl local b_fetch
      acc_k_outer_k_inner =
      for k_outer
        a_fetch =
        b_fetch =
        barrier for a_fetch (insn_k_outer_k_inner_update depends on a_fetch_rule)
        for k_inner
          acc_k_outer_k_inner =
        barrier for a_fetch (a_fetch_rule rev-depends on insn_k_outer_k_inner_update)
      c =`));
    // loopy: a_fetch[16 * 16]; the bound (-16 + n) / 16 equals (n - 1) / 16 since n mod 16 = 0.
    expect(code).toContain("__local float a_fetch[256];");
    expect(code).toContain("for (int k_outer = 0; k_outer <= (n - 1) / 16; ++k_outer)");
    expect(code).toContain("a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(0) + lid(1)) + 16 * k_outer + lid(0)];");
    expect(code).toContain("b_fetch[16 * lid(1) + lid(0)] = b[n * (16 * k_outer + lid(1)) + 16 * gid(1) + lid(0)];");
    expect(code).toContain("acc_k_outer_k_inner = acc_k_outer_k_inner + a_fetch[16 * lid(1) + k_inner] * b_fetch[16 * k_inner + lid(0)];");
    expect(code).toContain("c[n * (16 * gid(0) + lid(1)) + 16 * gid(1) + lid(0)] = acc_k_outer_k_inner;");
    expect(code).not.toContain("if (");
  });

  it("stencil5_2d_prefetch: fetch loops over the 18x18 tile, one barrier, guarded update", () => {
    const code = cl("stencil5_2d_prefetch");
    expect(head(code)).toBe("__kernel void __attribute__ ((reqd_work_group_size(16, 16, 1))) stencil5(__global float const *__restrict__ a, __global float *__restrict__ z, int const n)");
    // Differs from loopy: loopy guards the fetch loops with `16*gid + lid <= n + 1` on both axes;
    // Loom puts that condition into the loops' upper bounds (they run no iteration where it fails).
    expect(skeleton(code)).toEqual(lines(`
      decl local a_fetch
      for a_dim_0_outer
        for a_dim_1_outer
          a_fetch =
      barrier for a_fetch (insn depends on a_fetch_rule)
      if
        z =`));
    expect(code).toContain("__local float a_fetch[324];"); // loopy: [18 * 18]
    expect(code).toMatch(/for \(int a_dim_0_outer = 0; a_dim_0_outer <= min\(loopy_floor_div_int32\(n - 16 \* gid\(1\) - lid\(1\) \+ 1, 16\), \(-lid\(1\) \+ 17\) \/ 16\); \+\+a_dim_0_outer\)/);
    expect(code).toContain("a_fetch[18 * (16 * a_dim_0_outer + lid(1)) + 16 * a_dim_1_outer + lid(0)] = a[(n + 2) * (16 * gid(1) + 16 * a_dim_0_outer + lid(1)) + 16 * gid(0) + 16 * a_dim_1_outer + lid(0)];");
    // loopy: if (-1 + -16 * gid(0) + -1 * lid(0) + n >= 0 && -1 + -16 * gid(1) + -1 * lid(1) + n >= 0)
    expect(code).toContain("if (16 * gid(1) + lid(1) < n && 16 * gid(0) + lid(0) < n)");
    expect(code).toContain("-4.0f * a_fetch[18 * (lid(1) + 1) + lid(0) + 1] + a_fetch[18 * (lid(1) + 1) + lid(0)]");
  });

  it("batched_matmul_dg_unroll: same as loopy (fetch, barrier, guard around j, eight unrolled updates)", () => {
    const code = cl("batched_matmul_dg_unroll");
    expect(head(code)).toBe("__kernel void __attribute__ ((reqd_work_group_size(8, 8, 1))) batched_matmul(__global float const *__restrict__ d, __global float const *__restrict__ u, __global float *__restrict__ out, int const nelements)");
    expect(skeleton(code)).toEqual(lines(`
      decl acc_k
      decl local d_fetch
      d_fetch =
      barrier for d_fetch (insn_k_update depends on d_fetch_rule)
      if
        for j
          acc_k =
${"          acc_k =\n".repeat(8)}          out =`));
    expect(code).toContain("d_fetch[8 * lid(1) + lid(0)] = d[8 * lid(1) + lid(0)];");
    expect(code).toContain("if (8 * gid(0) + lid(1) < nelements)\n    for (int j = 0; j <= 7; ++j)");
    expect(code).toContain("acc_k = acc_k + d_fetch[8 * lid(0)] * u[64 * (8 * gid(0) + lid(1)) + j];");
    // loopy: `+ 8 * 7 + j`; Loom folds the unrolled constant.
    expect(code).toContain("acc_k = acc_k + d_fetch[8 * lid(0) + 7] * u[64 * (8 * gid(0) + lid(1)) + 56 + j];");
    expect(code).toContain("out[64 * (8 * gid(0) + lid(1)) + 8 * lid(0) + j] = acc_k;");
    expect(code).not.toContain("#pragma unroll");
  });

  it("reduction_split (rowsum): acc init, j_outer loop of 16 unrolled updates, 15 of them guarded", () => {
    const code = cl("reduction_split");
    expect(head(code)).toBe("__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1))) rowsum(__global float const *__restrict__ a, __global float *__restrict__ out, int const n, int const m)");
    // Differs from loopy: Loom guards the init and the store with `0 < m`. Loom's domain of i
    // is the projection of {[i,j]} (with m <= 0 it is empty: out stays unwritten, as the
    // interpreter defines it); loopy drops the constraints that involve j and writes 0.
    expect(skeleton(code)).toEqual(lines(`
      decl acc_j_outer_j_inner
      if
        if
          acc_j_outer_j_inner =
        for j_outer
          acc_j_outer_j_inner =
${"          if\n            acc_j_outer_j_inner =\n".repeat(15)}        if
          out =`));
    expect(code).toContain("if (128 * gid(0) + lid(0) < n)");
    // loopy: j_outer <= -1 + (15 + m) / 16, plain division being floor only for m >= -15;
    // without an assumption on m Loom uses the floor-division helper.
    expect(code).toContain("for (int j_outer = 0; j_outer <= loopy_floor_div_int32(m - 1, 16); ++j_outer)");
    // Copy 0 unguarded (the loop bound implies it), copy k guarded by 16 * j_outer + k < m.
    expect(code).toContain("{\n      acc_j_outer_j_inner = acc_j_outer_j_inner + a[m * (128 * gid(0) + lid(0)) + 16 * j_outer];");
    for (let c = 1; c < 16; c++) {
      expect(code).toContain(`if (16 * j_outer + ${c} < m)\n        acc_j_outer_j_inner = acc_j_outer_j_inner + a[m * (128 * gid(0) + lid(0)) + 16 * j_outer + ${c}];`);
    }
  });

  it("reduction_lpar_extra (rowsum_lpar): per-work-item sums, then a local tree with a barrier per stage", () => {
    const code = cl("reduction_lpar_extra");
    expect(head(code)).toBe("__kernel void __attribute__ ((reqd_work_group_size(64, 1, 1))) rowsum_lpar(__global float const *__restrict__ a, __global float *__restrict__ out, int const n, int const m)");
    // Differs from loopy:
    //  - no `neutral_j_inner` temporary (loopy's transfer adds the neutral element to acc_j_outer);
    //  - `0 < m` guards (the projection semantics, see reduction_split), not hoisted over the
    //    barriers because the sequential part's instructions spell their domains differently;
    //  - the per-work-item part is three statements each with its own `lid(0) < m`, where loopy
    //    groups them in one `if`;
    //  - stage ids are `insn_j_inner_stageN` (loopy: `red_j_inner_stage_N`);
    //  - the stage inames share the axis's full range with a `lid(0) < s` predicate (Loom's
    //    device mapping needs equal ranges on one axis), so the final store `out[gid(0)] =
    //    acc_j_inner[0]` runs on every work-item after a seventh barrier, where loopy runs it on
    //    work-item 0 right after the last stage, in the same `if (lid(0) == 0)`.
    // Like loopy: no barrier between the neutral init of acc_j_inner and the transfer (the same
    // work-item writes the same cell).
    const stages = [0, 1, 2, 3, 4, 5].map((s) => `
      barrier for acc_j_inner (insn_j_inner_stage${s} depends on ${s === 0 ? "insn_j_inner_init" : `insn_j_inner_stage${s - 1}`})
      if
        if
          acc_j_inner =`).join("");
    expect(skeleton(code)).toEqual(lines(`
      decl local acc_j_inner
      decl acc_j_outer
      if
        acc_j_inner =
      if
        acc_j_outer =
      for j_outer
        acc_j_outer =
      if
        acc_j_inner =${stages}
      barrier for acc_j_inner (insn depends on insn_j_inner_stage5)
      if
        out =`));
    expect(code).toContain("__local float acc_j_inner[64];");
    // loopy: j_outer <= -1 + -1 * lid(0) + (63 + m + 63 * lid(0)) / 64, i.e. 64 * j_outer + lid(0) < m.
    expect(code).toContain("for (int j_outer = 0; j_outer <= loopy_floor_div_int32(m - lid(0) - 1, 64); ++j_outer)");
    expect(code).toContain("acc_j_outer = acc_j_outer + a[m * gid(0) + 64 * j_outer + lid(0)];");
    for (const s of [32, 16, 8, 4, 2, 1]) {
      expect(code).toContain(`if (lid(0) < ${s})\n      acc_j_inner[lid(0)] = acc_j_inner[lid(0)] + acc_j_inner[lid(0) + ${s}];`);
    }
  });
});

// ---- meaning -------------------------------------------------------------------------------

describe("loopy's examples: the transformed kernel computes what the original does", () => {
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    for (const backend of ["interp", "js"] as const) {
      it(`${name} on ${backend}, sizes ${ex.sizes.map((p) => Object.values(p).join("x")).join(", ")}`, async () => {
        for (const params of ex.sizes) {
          const r = await autoTestVsRef(ex.ref(), ex.knl(), { params, backend });
          expect(r.mismatches, `${name} ${JSON.stringify(params)}`).toEqual([]);
          expect(r.ok).toBe(true);
        }
      }, 60_000);
    }
  }
});

// ---- compilers -----------------------------------------------------------------------------

describe.skipIf(!hasGcc)("loopy's examples: C and OpenMP compile with gcc -Wall -Werror", () => {
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    it(name, () => {
      compile(ex.knl(), "c", "c", "gcc", GCC_FLAGS);
      compile(ex.knl(), "openmp", "c", "gcc", GCC_FLAGS);
    });
  }
});

describe("loopy's examples: CUDA compiles with nvcc -ptx", () => {
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    it.skipIf(!hasNvcc)(`${name} (skipped without nvcc)`, () => {
      compile(ex.knl(), "cuda", "cu", "nvcc", ["-ptx"]);
    }, 60_000);
  }
});

// ---- several inames on one hardware axis ----------------------------------------------------

describe("several inames on one hardware axis (a prefetch beside the compute)", () => {
  const base = (assumptions?: string) => makeKernel("{ [io,ii,j]: 0<=ii,j<16 and 0<=16*io+ii<n }", [
    "<> t[j] = a[16*io + 15 - j] {id=fetch}",
    "out[16*io+ii] = t[ii] * 2 {id=use, dep=fetch}",
  ], ["a, out: float32[n]", "n: int32"], assumptions ? { assumptions } : {});
  const reversed = (assumptions?: string) =>
    setTemporaryAddressSpace(tagInames(base(assumptions), { io: "g.0", ii: "l.0", j: "l.0" }), "t", "local");
  it("OpenCL binds every iname of the axis to the local id, each instruction guarded by its own domain", () => {
    const code = generateCode((reversed()), "opencl").deviceCode;
    expect(code).toContain("t[lid(0)] = a[16 * gid(0) - lid(0) + 15];");
    // t[j] written and t[ii] read by the same work-item (j and ii are both the l.0 id): no barrier.
    expect(code).not.toContain("barrier");
    expect(code).toContain("if (16 * gid(0) + lid(0) < n)\n    out[16 * gid(0) + lid(0)] = t[lid(0)] * 2.0f;");
    const divisible = generateCode((reversed("n mod 16 = 0 and n >= 16")), "opencl").deviceCode;
    expect(divisible).not.toContain("if (");
  });

  it("C: the shared loop adds only the guards its bounds do not imply", () => {
    const code = generateCode((reversed("n mod 16 = 0 and n >= 16")), "c").deviceCode;
    // ii is replaced by the axis loop's iname j; no `j >= 0 && -j + 15 >= 0` inside `for j in 0..15`.
    expect(code).toContain("for (int j = 0; j <= 15; ++j)\n    {\n      t[j] = a[16 * io - j + 15];\n      out[16 * io + j] = t[j] * 2.0f;\n    }");
    expect(code).not.toContain("if (");
    const rest = generateCode((reversed()), "c").deviceCode;
    // The CPU lowering's predicate on the use is affine: it joins the use's domain (predicates.ts)
    // and prints as the domain's guard does.
    expect(rest).toContain("        if (16 * io + j < n)\n          out[16 * io + j] = t[j] * 2.0f;");
    expect(rest).not.toContain("j >= 0");
  });

  it("both compute what the sequential kernel computes (n a multiple of 16: the fetch reads a[16*io + 15 - j])", async () => {
    const assume = "n mod 16 = 0 and n >= 16";
    for (const n of [16, 48]) {
      for (const backend of ["interp", "js"] as const) {
        const r = await autoTestVsRef(base(assume), reversed(assume), { params: { n }, backend });
        expect(r.ok, r.mismatches.join("\n")).toBe(true);
      }
    }
  });
});
