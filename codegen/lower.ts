/**
 * Schedule -> AST, once for every target. Per device kernel (`lower/kernel.ts`), in order:
 *   1. hardware inames become `base + gid(N)` / `base + lid(N)`, their ranges the first context;
 *   2. each loop gets bounds from its instructions' domains, gisted against the assumptions and
 *      what enclosing loops and guards already enforce (`n mod 16 = 0` drops remainder guards)
 *      (`lower/loops.ts`);
 *   3. guards hoisted to the outermost point where their variables are known (`lower/guards.ts`);
 *   4. unr/ilp loops unrolled, single-iteration loops become `int const i = …;`, slabs peeled
 *      (`lower/loops.ts`);
 *   5. instructions become assignments and blocks (`lower/statements.ts`).
 * Affine rows and their printing as index code are `lower/rows.ts`.
 */
import { CodegenError } from "../src/errors.js";
import type { DeviceKernel, Schedule } from "../src/schedule/index.js";
import { DeviceKernelLowering } from "./lower/kernel.js";
import type { LoweredKernel, LowerOptions, LoweringNames } from "./lower/host.js";
import { NameAllocator, userNamesOf } from "./names.js";

export type { LoweredArg, LoweredKernel, LowerOptions, LoweringNames } from "./lower/host.js";

/**
 * Lower every device kernel of `s`, taking the names the lowering introduces from `names` (the
 * kernel's `NameAllocator` on the target, which then prints the result: `t.render(lowered, names)`).
 */
export function lowerSchedule(s: Schedule, opts: LowerOptions, names: LoweringNames = new NameAllocator("c", userNamesOf(s.kernel))): LoweredKernel[] {
  if (opts.hwAxes) for (const dk of s.deviceKernels) checkAxisCount(dk);
  // Device kernels are named by the names pass (`k`, `k_0`, …): no name the lowering makes is one.
  names.take(s.deviceKernels.map((dk) => dk.name));
  return s.deviceKernels.map((dk) => new DeviceKernelLowering(s.kernel, dk, opts, names).lower());
}

/** GPU grids and work-groups have three axes: a g.3 or l.3 would index a fourth (`blockIdx.w` does not exist). */
function checkAxisCount(dk: DeviceKernel): void {
  const over = [...dk.groupAxes, ...dk.localAxes].find((ax) => ax.axis > 2);
  if (over) {
    throw new CodegenError(`device kernel "${dk.name}": iname "${over.iname}" is tagged ${over.tag}.${over.axis}, but grids and work-groups have three axes (${over.tag}.0, ${over.tag}.1, ${over.tag}.2); ` +
      `join inames (joinInames) or leave some sequential; the CPU targets accept any axis`);
  }
}
