/**
 * A BLIS-style matmul from public transformations (issue 18, packing): block k and j, pack the
 * block of a for the current (i_outer, k_outer) and the panel of b for the current (k_outer,
 * j_outer) into contiguous private temporaries, b laid out as BLIS's micro-panels, and a register
 * micro-tile of MR `ilp` rows x NR `vec` columns over the packed panels, accumulating in registers
 * across the k block.
 *
 *   for i_outer (g.0: the OpenMP parallel loop, MC rows of c per thread)
 *     c[i block, :] = 0
 *     for k_outer (KC of the reduction)
 *       a_fetch[MC][KC] = a[i block, k block]                 (packed once per k block)
 *       for j_outer (NC columns)
 *         b_fetch[NC/NR][KC][NR] = b[k block, j block]        (micro-panels: each k step reads the next 64 bytes)
 *         for i_mid, j_mid (the micro-tiles of the block)
 *           acc[MR][NR] = 0; for k_inner: acc += a_fetch * b_fetch    (ilp lanes: registers)
 *           c[micro-tile] += acc
 *
 * The kernel is written as an update over k blocks (`c[i, j] = c[i, j] + sum(k_inner, …)` inside
 * a loop over k_outer), which is what lets the panels be packed once per k block outside the
 * micro-tile loops: a single reduction over all of k keeps its loops innermost around each
 * element of c (see docs/transformations.md, "Packing").
 *
 * Export: `packedMatmul(n)` (the kernel, transformed) and `packedMatmulPipeline` / `matmulUpdate`
 * (the untransformed kernel and the steps) for bench/cpu.ts. Run `npx tsx bench/packing-matmul.ts
 * [n…]` to measure it against the same blocking without packing and a plain register-tiled
 * schedule on `openmp` (GFLOP/s, best of rounds, load average printed).
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import * as lp from "../src/index.js";

/**
 * Block sizes: rows of c per thread block, columns per panel, depth of a k block, micro-tile.
 * The micro-tile is MR rows (`ilp`) by NR columns (`vec`, one SIMD row): C and OpenMP keep its
 * accumulators in vector values across the k block (codegen/lower/vec-registers.ts), 6 x 16 floats
 * = 12 AVX registers, two loads of b and 6 broadcasts of a for 12 FMAs a k step (BLIS's Haswell
 * shape). Larger tiles (4 x 32: 16 accumulators and 4 loads of b) need more than AVX2's 16
 * registers and spill. MC = 512 at most, and half of n rounded up to whole micro-tiles where
 * that is less: one row block per thread on 2 threads (n = 1024: 512 + 512 rows, n = 1000:
 * 504 + 496), so each thread packs each panel of b once. The order i_mid, j_mid keeps a
 * micro-panel of a (6 x 256 floats, 6 KiB) in L1 across the 16 micro-panels of b, and b_fetch
 * (256 KiB) in the core's 512 KiB L2. Single-thread CPU time against OpenBLAS, side by side (load
 * 12-15): n = 1024 0.90-0.95 (packing a per j block and b row-major: 0.73-0.85), n = 1000
 * 0.76-0.82 (0.60-0.76); MC = 504 at n = 1000 0.84, 0.77 against 512's 0.83, 0.71. KC = 512
 * (NC 128 or 256) and NC = 128 were slower (0.76-0.83).
 */
export const BLOCKS = { MC: 512, NC: 256, KC: 256, MR: 6, NR: 16 } as const;

/** c = a b (float32, row-major), written as an update over blocks of KC of the reduction. */
export function matmulUpdate(kc: number = BLOCKS.KC): lp.Kernel {
  return lp.makeKernel(
    ["{ [i, j]: 0 <= i, j < n }", `{ [k_outer, k_inner]: 0 <= k_inner < ${kc} and 0 <= ${kc}*k_outer + k_inner < n }`],
    ["c[i, j] = 0 {id=zero}", `c[i, j] = c[i, j] + sum(k_inner, a[i, ${kc}*k_outer + k_inner]*b[${kc}*k_outer + k_inner, j]) {id=update, dep=zero}`],
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul_packed" });
}

/**
 * The schedule (public transformations only) of `matmulUpdate(blocks.KC)` for size n; `pack: false`
 * leaves out the two prefetches (the same blocking reading a and b in place), for comparison.
 */
export function packedMatmulPipeline(n: number, opts: { pack?: boolean; blocks?: Partial<Record<keyof typeof BLOCKS, number>> } = {}): lp.Step {
  const { NC, KC, MR, NR } = { ...BLOCKS, ...opts.blocks };
  // Rows per thread block: at most MC, and no more than half of n rounded up to whole micro-tiles,
  // so two threads get equal shares (n = 1000: 504 + 496 rows rather than 512 + 488).
  const MC = opts.blocks?.MC ?? Math.min(BLOCKS.MC, MR * Math.ceil(n / (2 * MR)));
  // Where n is a multiple of the blocks, saying so drops the guards of partial blocks (the row
  // block MC only where it divides n, as 512 does not divide 1000).
  const lcm = (x: number, y: number) => (x * y) / gcd(x, y);
  const rowsExact = n % MC === 0 && MC % MR === 0;
  const blocks = [NC, KC, ...(rowsExact ? [MC] : [])].reduce(lcm);
  const exact = n % blocks === 0 && NC % NR === 0;
  // Elsewhere the last micro-tile row or column of each block is peeled (loopy's slabs): the
  // bulk runs full micro-tiles with constant bounds, which stay in registers.
  const peel = { slabs: [0, 1] as [number, number] };
  const rowSlabs = exact && rowsExact ? {} : peel;
  const slabs = exact ? {} : peel;
  return lp.pipeline(
    ...(exact ? [lp.step.assume(`n mod ${blocks} = 0 and n >= ${blocks}`)] : []),
    lp.split("i", MC, { outerTag: "g.0" }),
    lp.split("j", NC),
    lp.split("i_inner", MR, { innerTag: "ilp", outerIname: "i_mid", innerIname: "i_r", ...rowSlabs }),
    // The columns of the micro-tile: one SIMD row of NR lanes (vec), the accumulators privatized
    // over the lanes of both: the register tile.
    lp.split("j_inner", NR, { innerTag: "vec", outerIname: "j_mid", innerIname: "j_r", ...slabs }),
    // k_outer outside j_outer: a's block is packed once per k block, not once per panel of b.
    lp.prioritize("k_outer,j_outer,i_mid,j_mid,k_inner"),
    ...(opts.pack === false ? [] : [
      // The panel of b for (k_outer, j_outer): KC x NC, private to the thread.
      lp.prefetch("b", { sweepInames: ["k_inner", "j_mid", "j_r"], fetchOuterInames: ["k_outer", "j_outer"], temporaryAddressSpace: "private" }),
      // The block of a for (i_outer, k_outer): MC x KC.
      lp.prefetch("a", { sweepInames: ["k_inner", "i_mid", "i_r"], fetchOuterInames: ["i_outer", "k_outer"], temporaryAddressSpace: "private" }),
      // b_fetch as BLIS's micro-panels, [NC/NR][KC][NR]: a micro-tile's k steps read consecutive
      // 64-byte rows instead of rows 1 KiB apart. The packing loop runs over the rows of b
      // (b_dim_0) and then each micro-panel's NR columns: contiguous reads, 64-byte writes, and
      // (the column split matching the layout's) no division in its indices.
      lp.split("b_dim_1", NR, { outerIname: "b_jp", innerIname: "b_jr", ...slabs }),
      lp.prioritize("b_dim_0,b_jp,b_jr"),
      lp.step.splitArrayAxis("b_fetch", 1, NR),
      lp.step.tagArrayAxes("b_fetch", "N1,N2,N0"),
    ]),
  );
}

/** The BLIS-style matmul for size n: matmulUpdate() through packedMatmulPipeline(n). */
export function packedMatmul(n: number): lp.Kernel {
  return packedMatmulPipeline(n)(matmulUpdate(BLOCKS.KC));
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

// ---- measurement (only when run directly) -------------------------------------------------------

async function main(sizes: number[]): Promise<void> {
  const ref = lp.makeKernel("{ [i, j, k]: 0 <= i, j, k < n }", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
  // The register-tiled schedule without packing (as bench/cpu.ts's best before packing).
  const tiled = (n: number) => lp.pipeline(
    ...(n % 256 === 0 ? [lp.step.assume("n mod 256 = 0 and n >= 256")] : []),
    lp.split("i", 64, { outerTag: "g.0" }), lp.split("j", 128), lp.split("k", 256),
    lp.split("i_inner", 4, { innerTag: "ilp" }), lp.split("j_inner", 32, { innerTag: "ilp.seq" }),
    lp.prioritize("i_outer,j_outer,k_outer,i_inner_outer,j_inner_outer,k_inner,i_inner_inner,j_inner_inner"),
  )(ref);
  console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  for (const n of sizes) {
    const rnd = lp.seededRandom(n);
    const a = Float32Array.from({ length: n * n }, () => rnd() - 0.5);
    const b = Float32Array.from({ length: n * n }, () => rnd() - 0.5);
    const variants: [string, lp.Kernel][] = [
      ["packed (BLIS-style)", packedMatmul(n)],
      ["same blocking, unpacked", packedMatmulPipeline(n, { pack: false })(matmulUpdate())],
      ["register-tiled reduction, unpacked", tiled(n)],
    ];
    const best = new Map<string, number>();
    let check: Float32Array | undefined;
    for (let round = 0; round < 4; round++) {
      for (const [name, k] of variants) {
        const c = new Float32Array(n * n);
        const r = await lp.runTimed(k, { a, b, c, n }, { backend: "openmp" });
        const ms = r.kernelMs.reduce((x, y) => x + y, 0);
        best.set(name, Math.min(best.get(name) ?? Infinity, ms));
        const out = (r.outputs as Record<string, Float32Array> | undefined)?.c ?? c;
        if (check === undefined) check = out;
        else if (round === 0) {
          let d = 0;
          for (let x = 0; x < out.length; x++) d = Math.max(d, Math.abs(out[x]! - check[x]!));
          if (d > 1e-3 * Math.sqrt(n)) throw new Error(`${name}: differs from the packed result by ${d}`);
        }
      }
    }
    const gf = (ms: number) => (2 * n ** 3) / (ms * 1e6);
    const base = best.get(variants[2]![0])!;
    for (const [name] of variants) {
      const ms = best.get(name)!;
      console.log(`n=${n} ${name.padEnd(36)} ${gf(ms).toFixed(1).padStart(6)} GFLOP/s  (${(base / ms).toFixed(2)}x the register-tiled reduction)`);
    }
  }
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = process.argv.slice(2).map(Number).filter((x) => x > 0);
  await main(sizes.length > 0 ? sizes : [1024, 1000]);
}
