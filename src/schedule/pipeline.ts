/**
 * The one route from a kernel to its schedule, as an ordered list of named passes (Halide's
 * `Lower.cpp`, loopy's preprocess → linearize → codegen). The interpreter runs this list up to
 * "device kernels"; the code generators run the same list, then (CPU targets) "cpu lowering",
 * then their own passes (codegen/pipeline.ts: names → lower → render). So the reference and every
 * target see the same preprocessed kernel: the same realized reductions, address spaces, barriers
 * and device kernels.
 *
 *   types → preprocess → linearize → barriers → device kernels [→ cpu lowering]
 */
import { inferTypes, show, type Kernel } from "../ir/index.js";
import { lowerForCpu } from "./cpu.js";
import { deviceKernels } from "./device.js";
import { checkDeviceKernelBoundaries } from "./kernel-boundaries.js";
import { linearize } from "./linearize.js";
import { preprocess } from "./preprocess.js";
import { showSchedule } from "./show.js";
import type { Schedule, ScheduleNode } from "./types.js";
import { placeBarriers } from "./uniform-bounds.js";

/** What flows between the passes: the kernel, then its loop nest, then the schedule. */
export interface LoweringState {
  readonly kernel: Kernel;
  /** The linearized loop nest of `kernel` (from "linearize" on). */
  readonly nodes?: readonly ScheduleNode[];
  /** The device kernels (from "device kernels" on). */
  readonly schedule?: Schedule;
}

/** One named pass of the route. */
export interface Pass {
  readonly name: string;
  readonly run: (s: LoweringState) => LoweringState;
}

/** One pass's output, as `lowerStages` reports it. */
export interface Stage {
  readonly name: string;
  /** The kernel, loop nest or schedule the pass produced (frozen values: share, do not change). */
  readonly value: unknown;
  /** The same, printed: `show(kernel)`, a loop-nest listing, or `showSchedule`. */
  readonly text: string;
}

const nodesOf = (s: LoweringState): readonly ScheduleNode[] => s.nodes ?? linearize(s.kernel);
const scheduleOf = (s: LoweringState): Schedule => {
  if (s.schedule) return s.schedule;
  const nodes = nodesOf(s);
  // Object.assign, not a spread of the fresh result (V8's slow path, see src/parse/make-kernel.ts).
  const out: Schedule = Object.assign({ kernel: s.kernel }, deviceKernels(s.kernel, nodes));
  checkDeviceKernelBoundaries(out, nodes);
  return out;
};

/** Whether every argument and temporary of `k` has a dtype (then `inferTypes(k)` is `k`). Indexed: the lists are frozen. */
function allTyped(k: Kernel): boolean {
  for (let x = 0; x < k.args.length; x++) if (!k.args[x]!.dtype) return false;
  for (let x = 0; x < k.temporaries.length; x++) if (!k.temporaries[x]!.dtype) return false;
  return true;
}

/** The passes every route runs, in order. */
export const SCHEDULE_PASSES: readonly Pass[] = Object.freeze([
  // A kernel whose arguments and temporaries all have dtypes is its own inferTypes: no pass made.
  { name: "types", run: (s: LoweringState) => ({ kernel: allTyped(s.kernel) ? s.kernel : inferTypes(s.kernel) }) },
  { name: "preprocess", run: (s: LoweringState) => ({ kernel: preprocess(s.kernel) }) },
  { name: "linearize", run: (s: LoweringState) => ({ kernel: s.kernel, nodes: linearize(s.kernel) }) },
  // May give loops uniform bounds (a new kernel) so that every work-item reaches their barriers.
  { name: "barriers", run: (s: LoweringState) => placeBarriers(s.kernel, nodesOf(s)) },
  // Split at global barriers; what cannot cross a kernel boundary (private values, dependencies across groups) is refused here.
  { name: "device kernels", run: (s: LoweringState) => Object.assign({}, s, { schedule: Object.freeze(scheduleOf(s)) }) },
]);

/** The pass CPU targets add: hardware axes become loops, private values live across barriers get a slot per work-item. */
export const CPU_LOWERING: Pass = Object.freeze({
  name: "cpu lowering",
  run: (s: LoweringState) => {
    const schedule = Object.freeze(lowerForCpu(scheduleOf(s)));
    return { kernel: schedule.kernel, schedule };
  },
});

/** The state after `passes`, starting from `k`; `trace` sees each pass's result. */
export function runPasses(k: Kernel, passes: readonly Pass[], trace?: (pass: Pass, s: LoweringState) => void): LoweringState {
  let s: LoweringState = { kernel: k };
  for (const p of passes) {
    s = p.run(s);
    trace?.(p, s);
  }
  return s;
}

/** A pass's result as a stage: the newest of schedule, nodes and kernel, printed. */
export function stageOf(pass: Pass, s: LoweringState, previous?: LoweringState): Stage {
  if (s.schedule && s.schedule !== previous?.schedule) return { name: pass.name, value: s.schedule, text: showSchedule(s.schedule) };
  if (s.nodes && s.nodes !== previous?.nodes) {
    return { name: pass.name, value: s.nodes, text: showSchedule({ kernel: s.kernel, deviceKernels: [{ name: s.kernel.name, body: s.nodes, groupAxes: [], localAxes: [], args: [] }] }) };
  }
  return { name: pass.name, value: s.kernel, text: show(s.kernel) };
}

/** The scheduling passes of a route: `SCHEDULE_PASSES`, and `CPU_LOWERING` for CPU targets. */
export function schedulePasses(cpu: boolean): readonly Pass[] {
  return cpu ? [...SCHEDULE_PASSES, CPU_LOWERING] : SCHEDULE_PASSES;
}

/** Each pass's output for `k`, up to device kernels (and `cpu lowering` when `cpu`); the last stage's value is the schedule. */
export function scheduleStages(k: Kernel, cpu = false): Stage[] {
  const stages: Stage[] = [];
  let previous: LoweringState | undefined;
  runPasses(k, schedulePasses(cpu), (p, s) => {
    stages.push(stageOf(p, s, previous));
    previous = s;
  });
  return stages;
}

const memo = new WeakMap<Kernel, { device?: Schedule; cpu?: Schedule }>();

/**
 * Schedule `k`: the passes up to device kernels (`cpu`: and the CPU lowering). Memoized by kernel
 * identity: kernels are frozen, and sweeps schedule many. `schedule(k).deviceKernels[0].body` is
 * the loop tree; `showSchedule(schedule(k))` lists it.
 */
export function schedule(k: Kernel, opts: { readonly cpu?: boolean } = {}): Schedule {
  let forKernel = memo.get(k);
  if (!forKernel) memo.set(k, (forKernel = {}));
  const device = (forKernel.device ??= runPasses(k, SCHEDULE_PASSES).schedule!);
  if (!opts.cpu) return device;
  return (forKernel.cpu ??= CPU_LOWERING.run({ kernel: device.kernel, schedule: device }).schedule!);
}
