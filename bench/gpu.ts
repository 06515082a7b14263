/**
 * `npx tsx bench/gpu.ts [--quick] [--json] [--backend opencl]`: Loom's CUDA backend on a real GPU, against cuBLAS
 * and PyTorch measured in the same run.
 *
 * (1) A float32 matrix product C = A·B (n = 4096): loopy's classic GPU recipe (i and j split into
 *     work-groups and work-items, k split, A's and B's tiles prefetched into local memory), with a
 *     register tile of C per work-item (ilp inames along i and j), autotuned exhaustively. Every
 *     variant is checked against the interpreter on small sizes before it is timed. The peer is
 *     cuBLAS SGEMM through PyTorch (`torch.mm`, TF32 off, so both do float32 FMAs).
 * (2) A float32 triad a = b + s·c over 2^27 elements (1.5 GiB moved), its work-group size and
 *     elements per work-item tuned,
 *     against PyTorch's `torch.add(b, c, alpha=s, out=a)`: bandwidth-bound, so the ratio says how
 *     close the generated code's memory access is to the device's own.
 *
 * Times: Loom's are the launch-to-synchronize time of the kernel (the host clock around
 * cuLaunchKernel and cuCtxSynchronize), median of the repeats; PyTorch's are CUDA events around
 * each call, median of 20 after 3 warm-ups. The peer is skipped, with the reason, where python3 or
 * torch with CUDA is absent. Without a CUDA GPU the script says so and exits 0.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import * as lp from "../src/index.js";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const json = argv.includes("--json");
const say = (s: string) => { if (!json) console.log(s); else process.stderr.write(`${s}\n`); };

// `--backend opencl` runs the same sweeps on OpenCL (PoCL on a CPU: a check of this script without a GPU).
const backend = (argv.includes("--backend") ? argv[argv.indexOf("--backend") + 1] : "cuda") as lp.BackendName;
const status = lp.backendAvailability(backend);
if (!status.available) {
  say(`bench/gpu: the ${backend} backend is not available here, nothing to measure: ${status.reason}`);
  process.exit(0);
}

const n = quick ? 512 : 4096;
const triadN = quick ? 1 << 20 : 1 << 27;

const PEER = String.raw`
import json, sys, torch
n, m = int(sys.argv[1]), int(sys.argv[2])
torch.backends.cuda.matmul.allow_tf32 = False
def timed(f):
    for _ in range(3): f()
    ts = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts) // 2]
a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
c = torch.empty(n, n, device="cuda")
mm = timed(lambda: torch.mm(a, b, out=c))
x, y, z = (torch.randn(m, device="cuda") for _ in range(3))
triad = timed(lambda: torch.add(y, z, alpha=2.5, out=x))
print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "mmMs": mm, "triadMs": triad}))
`;

function peer(): { device: string; torch: string; mmMs: number; triadMs: number } | string {
  const r = spawnSync("python3", ["-c", PEER, String(n), String(triadN)], { encoding: "utf8", timeout: 300_000 });
  if (r.error) return `python3 did not run: ${r.error.message}`;
  if (r.status !== 0) return `the PyTorch peer failed: ${(r.stderr || r.stdout).trim().split("\n").slice(-2).join(" ")}`;
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

const matmul = lp.makeKernel("{ [i, j, k]: 0 <= i, j, k < n }", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "sgemm", assumptions: "n mod 128 = 0 and n >= 128" });

/**
 * t×t work-items per group, each computing an ri×r register tile of C (ri rows, r columns: `ilp`
 * inames), k in steps of tk; A's and B's tiles prefetched into local memory.
 */
function matmulVariant(_k: lp.Kernel, p: lp.TuningPoint): lp.Step {
  const [t, ri, r, tk] = [p.t as number, p.ri as number, p.r as number, p.tk as number];
  return lp.pipeline(
    lp.split("i", t * ri, { outerTag: "g.1" }),
    lp.split("i_inner", t, { outerTag: "ilp", innerTag: "l.1" }),
    lp.split("j", t * r, { outerTag: "g.0" }),
    lp.split("j_inner", t, { outerTag: "ilp", innerTag: "l.0" }),
    lp.split("k", tk),
    lp.prefetch("a", { sweepInames: ["i_inner_outer", "i_inner_inner", "k_inner"] }),
    lp.prefetch("b", { sweepInames: ["k_inner", "j_inner_outer", "j_inner_inner"] }),
  );
}
/** At most 128 rows and columns of C per group (n mod 128 = 0: no guards), 32 registers of C per work-item, 48 KiB of tiles. */
const matmulFits = (p: lp.TuningPoint) => {
  const [t, ri, r, tk] = [p.t as number, p.ri as number, p.r as number, p.tk as number];
  return t * ri <= 128 && t * r <= 128 && ri * r <= 32 && (t * ri + t * r) * tk * 4 <= 48 * 1024;
};

const triad = lp.makeKernel("{ [i]: 0 <= i < n }", "x[i] = y[i] + s*z[i]",
  ["x, y, z: float32[n]", "s: float32", "n: int32"], { name: "triad", assumptions: "n mod 1024 = 0 and n >= 1024" });

async function sweep(name: string, k: lp.Kernel, space: Record<string, (number | string)[]>, build: (k: lp.Kernel, p: lp.TuningPoint) => lp.Step,
  params: Record<string, number>, testParams: Record<string, number>, restrictions: ((p: lp.TuningPoint) => boolean)[] = []) {
  const t0 = performance.now();
  const { best, records } = await lp.autotune(k, { space, build, params, testParams, backend, repeats: 5, strategy: "exhaustive", restrictions });
  const statuses = new Map<string, number>();
  for (const r of records) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  say(`${name}: ${records.length} variants in ${((performance.now() - t0) / 1000).toFixed(1)} s (${[...statuses].map(([s, c]) => `${c} ${s}`).join(", ")})`);
  for (const r of records.filter((x) => !x.ok).slice(0, 3)) say(`  not ok ${JSON.stringify(r.point)}: ${r.status} ${(r.error ?? r.mismatches?.[0] ?? "").slice(0, 200)}`);
  const top = records.filter((r) => r.ok).sort((a, b) => a.medianMs - b.medianMs).slice(0, 3);
  for (const r of top) say(`  ${JSON.stringify(r.point)}: ${r.medianMs.toFixed(3)} ms`);
  return { best, records };
}

say(`Loom on ${backend}; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
const mm = await sweep("sgemm n=" + n, matmul, { t: [8, 16, 32], ri: [1, 2, 4, 8], r: [1, 2, 4, 8], tk: [16, 32] }, matmulVariant,
  { n }, { n: 128 }, [matmulFits]);
// e elements per work-item (an ilp iname between the group and the work-item, so that each access stays coalesced).
const tr = await sweep("triad n=" + triadN, triad, { g: [128, 256, 512, 1024], e: [1, 2, 4] },
  (_k, p) => lp.pipeline(lp.split("i", (p.g as number) * (p.e as number), { outerTag: "g.0" }), lp.split("i_inner", p.g as number, { outerTag: "ilp", innerTag: "l.0" })),
  { n: triadN, s: 2.5 }, { n: 4096, s: 2.5 });

const flops = 2 * n ** 3;
const bytes = 3 * 4 * triadN;
const loom = { sgemmMs: mm.best.medianMs, sgemmGflops: flops / mm.best.medianMs / 1e6, sgemmPoint: mm.best.point,
  triadMs: tr.best.medianMs, triadGBs: bytes / tr.best.medianMs / 1e6, triadPoint: tr.best.point };
say(`\nLoom best sgemm ${loom.sgemmMs.toFixed(3)} ms = ${loom.sgemmGflops.toFixed(0)} GFLOP/s ${JSON.stringify(loom.sgemmPoint)}; triad ${loom.triadMs.toFixed(3)} ms = ${loom.triadGBs.toFixed(0)} GB/s`);
const p = peer();
const out: Record<string, unknown> = { n, triadN, ...loom, loadavg: loadavg()[0] };
if (typeof p === "string") say(`peer skipped: ${p}`);
else {
  const ratios = { sgemmVsCublas: p.mmMs / loom.sgemmMs, triadVsTorch: p.triadMs / loom.triadMs };
  say(`cuBLAS (torch ${p.torch}, ${p.device}) sgemm ${p.mmMs.toFixed(3)} ms = ${(flops / p.mmMs / 1e6).toFixed(0)} GFLOP/s; torch triad ${p.triadMs.toFixed(3)} ms = ${(bytes / p.triadMs / 1e6).toFixed(0)} GB/s`);
  say(`Loom / peer speed: sgemm ${ratios.sgemmVsCublas.toFixed(3)}, triad ${ratios.triadVsTorch.toFixed(3)}`);
  Object.assign(out, { peer: p, ...ratios });
}
if (json) console.log(JSON.stringify(out));
