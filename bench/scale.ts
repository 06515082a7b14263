/**
 * Compile cost at scale (issue 21): unrolled element kernels of 100, 1,000 and 3,000 instructions,
 * the shape HPC codes unroll by hand (a chain of private temporaries per element node, every
 * fourth one stored), each taken through its front end, a transformation pipeline and C
 * generation, by two routes:
 *
 *   okl:  OKL source (an @outer element loop, @inner node loops, an @shared operator matrix
 *         filled by a sequential loop) -> parseOkl -> split the fill loop by 4 -> C
 *   make: instruction text -> makeKernel -> split the element loop by 4 (g/l tags) -> C
 *   gbar: the same with a global barrier and one store after it (two device kernels)
 *
 * It prints, per route and size, the time of each stage and the time per instruction relative to
 * the smallest size: a super-linear stage shows as a growing ratio (the goal: under 2x from 100 to
 * 3,000). C generation is split into its scheduling passes and the lowering and printing after
 * them, and its CPU time is printed beside the wall time: on a machine shared with other work the
 * wall time counts theirs too (the CPU time is this process's alone). Each size runs once after four warm-up runs of about half the smallest size (a kernel of thousands of
 * instructions is its own warm-up). Run: `npx tsx bench/scale.ts [sizes...] [--json]`.
 *
 * The okl route's front column is a first import, barely warmed: 215 ms for 1,001 instructions and
 * 386 ms for 3,001 on the quiet 2-core machine (compiled, before 2026-11-30's import steps 6-8),
 * most of it V8 warming up; a warm import of the same kernel takes a third to a half of a first
 * one's CPU time (loaded machine, 2026-11-30). docs/okl.md ("Scale") has the figures, instruction
 * counts that compare builds where time is noise, and issue 20's 100 ms budget.
 *
 * C generation of okl-scale's 3,730-instruction kernel (2026-11-30, compiled, warm, CPU, load 5-6,
 * before/after the day's codegen scale commits in one run, same code): 841 -> 750 ms median (A/A
 * 1.007); allocation 178 -> 118 MB. Per instruction it is flat (355: 308 us, 3,730: 201 us); a
 * first call in a process costs 2-3x a warm one (V8 compiling the passes), which is okl-scale's
 * "fixed cost" at its smallest size.
 */
import { performance } from "node:perf_hooks";
import { generateCode, scheduleForTarget } from "../codegen/index.js";
import type { Kernel } from "../src/ir/index.js";
import { parseOkl } from "../src/okl/index.js";
import { assemblySource } from "./okl-scale.js";
import { makeKernel } from "../src/parse/index.js";
import { splitIname } from "../transforms/index.js";

/** OKL: `insns` unrolled statements (a chain of temporaries, every fourth stored) in one @inner loop. */
export function oklElementKernel(insns: number): string {
  return assemblySource((_, bodyLines) => bodyLines < insns - 4);
}

/**
 * makeKernel: the same element kernel as instruction text, `insns` instructions over (e, n); with
 * `globalBarrier`, the last two are a global barrier and a store after it (two device kernels).
 */
export function makeElementKernel(insns: number, globalBarrier = false): Kernel {
  const lines: string[] = [];
  let stores = 0;
  for (let k = 0; lines.length < insns - (globalBarrier ? 2 : 0); k++) {
    const prev = k === 0 ? "g[e, n, 0]" : `t${k - 1}`;
    lines.push(`<> t${k} = g[e, n, 1] * d[${k % 16}, n] + g[e, n, 2] * d[n, ${(k * 7) % 16}] + ${prev} * w`);
    if (k % 4 === 3 && lines.length < insns - (globalBarrier ? 2 : 0)) lines.push(`out[e, n, ${stores++}] = t${k} - t${k - 2} {id=store${stores}}`);
  }
  if (globalBarrier) lines.push(`... gbarrier {id=gb, dep=store*}`, `out[e, n, 0] = 2 * w {id=after, dep=gb}`);
  return makeKernel("{[e, n]: 0 <= e < nel and 0 <= n < 16}", lines.join("\n"), [
    "g: float64[nel, 16, 3]", "d: float64[16, 16]", `out: float64[nel, 16, ${Math.max(1, stores)}]`, "w: float64", "nel: int32", "...",
  ], { name: "element", assumptions: "nel >= 1" });
}

interface Stages { front: number; frontCpu: number; pipeline: number; codegen: number; insns: number; schedule: number; codegenCpu: number }

function timed<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** `f`'s result, its wall time and its CPU time (ms). */
function timedCpu<T>(f: () => T): [T, number, number] {
  const c0 = cpuMs();
  const [r, wall] = timed(f);
  return [r, wall, cpuMs() - c0];
}

/** C generation for `k`: wall time in all, of its scheduling passes (remembered for the kernel, so `generateCode` reuses them), and CPU time. */
function cCode(k: Kernel): { codegen: number; schedule: number; codegenCpu: number } {
  const c0 = cpuMs();
  const [, schedule] = timed(() => scheduleForTarget(k, "c"));
  const [, rest] = timed(() => generateCode(k, "c"));
  return { codegen: schedule + rest, schedule, codegenCpu: cpuMs() - c0 };
}

const routes: Record<string, (n: number) => Stages> = {
  okl: (n) => {
    const src = oklElementKernel(n);
    const [ks, front, frontCpu] = timedCpu(() => parseOkl(src));
    const [k, pipeline] = timed(() => splitIname(ks[0]!, "m", 4));
    return { front, frontCpu, pipeline, ...cCode(k), insns: k.instructions.length };
  },
  make: (n) => {
    const [k0, front, frontCpu] = timedCpu(() => makeElementKernel(n));
    const [k, pipeline] = timed(() => splitIname(k0, "e", 4, { outerTag: "g.0", innerTag: "l.0" }));
    return { front, frontCpu, pipeline, ...cCode(k), insns: k.instructions.length };
  },
  // Two device kernels: what crosses the global barrier is checked for every temporary.
  gbar: (n) => {
    const [k0, front, frontCpu] = timedCpu(() => makeElementKernel(n, true));
    const [k, pipeline] = timed(() => splitIname(k0, "e", 4, { outerTag: "g.0", innerTag: "l.0" }));
    return { front, frontCpu, pipeline, ...cCode(k), insns: k.instructions.length };
  },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const json = process.argv.includes("--json");
  const given = process.argv.slice(2).map(Number).filter((x) => x > 0);
  const sizes = given.length > 0 ? given : [100, 1000, 3000];
  const rows: { route: string; size: number; insns: number; front: number; frontCpu: number; pipeline: number; codegen: number; schedule: number; codegenCpu: number; perInsn: number; ratio: number }[] = [];
  for (const [route, run] of Object.entries(routes)) {
    // Warm-up: other texts (makeKernel remembers the last ones), a few, so that the smallest size
    // is not measured half in V8's baseline tier (its per-instruction cost is the yardstick).
    for (let w = 0; w < 4; w++) run(Math.max(8, Math.floor(sizes[0]! / 2)) + w);
    let base: number | undefined;
    for (const size of sizes) {
      const s = run(size);
      const perInsn = (s.front + s.pipeline + s.codegen) / s.insns;
      base ??= perInsn;
      rows.push({ route, size, insns: s.insns, front: s.front, frontCpu: s.frontCpu, pipeline: s.pipeline, codegen: s.codegen, schedule: s.schedule, codegenCpu: s.codegenCpu, perInsn, ratio: perInsn / base });
    }
  }
  const ms = (x: number) => x.toFixed(1).padStart(9);
  console.log("route   size  insns     front (CPU)  pipeline   C code (schedule, CPU)     ms/insn  vs smallest");
  for (const r of rows) {
    console.log(`${r.route.padEnd(5)} ${String(r.size).padStart(6)} ${String(r.insns).padStart(6)} ${ms(r.front)} (${ms(r.frontCpu).trim()}) ${ms(r.pipeline)} ${ms(r.codegen)} (${ms(r.schedule).trim()}, ${ms(r.codegenCpu).trim()}) ${r.perInsn.toFixed(3).padStart(9)} ${r.ratio.toFixed(2).padStart(8)}x`);
  }
  console.log(`(ms; ${process.argv[1]?.endsWith(".js") ? "compiled JavaScript, plain node" : "TypeScript sources under tsx"})`);
  if (json) console.log(JSON.stringify({ scale: rows.map((r) => ({ route: r.route, insns: r.insns, msPerInsn: +r.perInsn.toFixed(4), ratio: +r.ratio.toFixed(3), codegenMs: +r.codegen.toFixed(1), codegenCpuMs: +r.codegenCpu.toFixed(1), frontCpuMs: +r.frontCpu.toFixed(1) })) }));
}
