/**
 * Host code for the targets whose launches are code of their own (SYCL's queue submission,
 * alpaka's `exec`, ISPC's `launch`): the host program of codegen/host.ts — its launches in order,
 * inside the host loops a global barrier needs — with each launch written by the target, wrapped
 * in a host function whose parameters are the kernels' arguments.
 */
import type { TargetName } from "../../src/ir/index.js";
import type { Schedule } from "../../src/schedule/index.js";
import { hostCodeOf, withTrapBuffer } from "../host.js";
import type { LoweredArg, LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";
import type { GeneratedCode, GeneratedKernelInfo } from "../types.js";

/** The launch of kernel `n` in codegen/host.ts's listing, found again by its line (nothing else prints `name();` alone). */
const MARK = "loopy_launch_marker_";

/** What a target's host code is made of. */
export interface HostSpelling {
  /** The lines of one launch (no indentation), given the launch information of kernel `n` with printed names. */
  readonly launch: (info: GeneratedKernelInfo, n: number) => readonly string[];
  /** The host function's head, given its printed parameters and its name (`void k_host(sycl::queue &q, float *a)`). */
  readonly head: (params: readonly string[], name: string) => string;
  /** A host function parameter. */
  readonly param: (a: LoweredArg, name: string) => string;
  /** Lines at the top of the host function (alpaka's vector type). */
  readonly prologue?: readonly string[];
  /** A host loop's iname type (ISPC: `uniform int`). */
  readonly loopType?: string;
}

/** Every argument of the kernels but the host inames (the host loops' own), once each, in order of first use, with its printed name. */
export function hostArgs(lowered: readonly LoweredKernel[], names: NameAllocator, hostInames: ReadonlySet<string> = new Set()): { arg: LoweredArg; name: string }[] {
  const seen = new Map<string, { arg: LoweredArg; name: string }>();
  for (const lk of lowered) {
    for (const a of lk.args) {
      if (hostInames.has(a.name)) continue;
      const had = seen.get(a.name);
      if (!had) seen.set(a.name, { arg: a, name: names.user(a.name) });
      else if (a.written && !had.arg.written) seen.set(a.name, { arg: a, name: had.name });
    }
  }
  return [...seen.values()];
}

/** The host function of `code` on `target`, launches spelled by `h`. */
export function hostFunction(s: Schedule, code: GeneratedCode, lowered: readonly LoweredKernel[], names: NameAllocator, target: TargetName, h: HostSpelling): string {
  const marked: GeneratedCode = { target: code.target, deviceCode: code.deviceCode, kernels: code.kernels.map((_, n) => ({ name: `${MARK}${n}`, globalSize: [], localSize: [], args: [] })) };
  const listing = hostCodeOf(s, marked, target).split("\n").slice(1).filter((l) => l !== "");
  // codegen/host.ts writes the user's names (arguments, host inames): printed as the device code prints them.
  const user = new Set(lowered.flatMap((lk) => lk.args.map((a) => a.name)));
  const print = (code: string) => code.replace(/\b[A-Za-z_]\w*\b/g, (w) => (user.has(w) ? names.user(w) : w));
  // A kernel that may trap takes the trap buffer last (int-traps.ts): the host function's last parameter, which the caller zeroes and reads.
  const printed = code.kernels.map((info, n) => withTrapBuffer(code, {
    ...info, args: info.args.map((a) => names.user(a)), globalSize: info.globalSize.map(print), localSize: info.localSize.map(print),
  }, n));
  const defines = listing.filter((l) => l.startsWith("#"));
  const lines = listing.filter((l) => !l.startsWith("#")).flatMap((l) => {
    const m = new RegExp(`^(\\s*)${MARK}(\\d+)\\(\\);`).exec(l);
    if (!m) return [`  ${print(h.loopType ? l.replace(/^(\s*)for \(int /, `$1for (${h.loopType} `) : l)}`];
    return h.launch(printed[Number(m[2])]!, Number(m[2])).map((x) => `  ${m[1]}${x}`);
  });
  const params = hostArgs(lowered, names, new Set(s.deviceKernels.flatMap((dk) => dk.hostInames ?? []))).map(({ arg, name }) => h.param(arg, name));
  const traps = code.intTraps;
  if (traps?.param && traps.kernels.some((t) => t)) params.push(h.param({ name: traps.param, kind: "array", dtype: "uint32", written: true }, traps.param));

  // `KERNEL_host`, checked as every generated name is: "atomic_host" is reserved on ISPC and Metal (their atomic_* functions).
  const name = names.fresh(`${code.kernels[0]?.name ?? "kernel"}_host`);
  return [...defines, h.head(params, name), "{", ...(h.prologue ?? []).map((l) => `  ${l}`), ...lines, "}", ""].join("\n");
}

/** Sizes per axis padded to three, fastest (axis 0) last: the order of SYCL ranges and alpaka vectors. */
export function slowestFirst(sizes: readonly string[]): string[] {
  return [2, 1, 0].map((n) => sizes[n] ?? "1");
}
