/**
 * The `c` and `openmp` backends: the generated C compiled into a cached shared object and called
 * in-process through the addon, one exported entry point per kernel; integer traps read back
 * from the code's static record after each launch (codegen/targets/int-traps.ts).
 */
import { createHash } from "node:crypto";
import type { ScalarKind } from "../../native/index.js";
import { C_TYPES } from "../../codegen/targets/cfamily.js";
import { recordedTrap } from "../../codegen/targets/int-traps.js";
import { ExecutionError } from "../errors.js";
import { findArg, INDEX_DTYPE, type Kernel, type TypedArray } from "../ir/index.js";
import { prepareArgs, type ArgValue } from "./args.js";
import { forEachLaunch } from "./host-program.js";
import { loadKernels } from "./native-compile.js";
import { outputsOf, paramsOf, planFor, proveBounds, proveIndexRange, requireAddon, storageFor, trapsOf, valueOf, type BackendResult, type NativeRunOptions, type Plan } from "./native-plan.js";

/**
 * The exported entry point of each generated kernel: `loom_<hash of the code>_<index>`, made
 * fresh against every identifier of the code. The hash makes another kernel's library (a cache
 * file swapped under this key) lack these symbols instead of offering ones of another signature.
 */
function entryNames(plan: Plan): readonly string[] {
  const used = new Set(plan.code.deviceCode.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  const hash = createHash("sha256").update(plan.code.deviceCode).digest("hex").slice(0, 16);
  return plan.kernels.map((_, x) => {
    let name = `loom_${hash}_${x}`;
    while (used.has(name)) name += "_";
    return name;
  });
}

/**
 * `void loom_<hash>_0(void **a) { k(a[0], …, *(int32_t *)a[3]); }` for each kernel: the addon's
 * one calling convention, and the only symbols the library exports (it is compiled with hidden
 * visibility).
 */
function entryPoints(plan: Plan, typed: Kernel, entries: readonly string[]): string {
  return plan.kernels.map(({ info, dk }, x) => {
    const actuals = info.args.map((name, y) => {
      const a = findArg(typed, name);
      // A host loop's iname is an index value.
      const dtype = dk.hostInames?.includes(name) ? INDEX_DTYPE : a?.kind === "value" ? a.dtype : undefined;
      if (dtype === undefined && a?.kind !== "value") return `a[${y}]`;
      const ct = dtype && C_TYPES[dtype];
      if (!ct) throw new ExecutionError(`value argument "${name}" has dtype ${dtype ?? "unknown"}, which the C backends cannot pass`);
      return `*(${ct} *)a[${y}]`;
    });
    return `__attribute__((visibility("default"))) void ${entries[x]}(void **a);\n` +
      `void ${entries[x]}(void **a)\n{\n  ${info.name}(${actuals.join(", ")});\n}\n`;
  }).join("\n") + (trapEntry(plan, entries) === undefined ? "" :
    `\n__attribute__((visibility("default"))) void ${trapEntry(plan, entries)}(void **a);\n` +
    `void ${trapEntry(plan, entries)}(void **a)\n{\n  *(uint32_t *)a[0] = loopy_int_trap.site;\n  *(int64_t *)a[1] = loopy_int_trap.value;\n` +
    "  loopy_int_trap.site = 0;\n  loopy_int_trap.claims = 0;\n}\n");
}

/**
 * Where the code checks integer traps (its helpers record the first in the static
 * `loopy_int_trap`), the entry point that reads and clears the record: `<first entry>_trap`.
 */
function trapEntry(plan: Plan, entries: readonly string[]): string | undefined {
  return trapsOf(plan)?.mode === "flag" && entries.length > 0 ? `${entries[0]}_trap` : undefined;
}

export async function runC(backend: "c" | "openmp", k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions): Promise<BackendResult> {
  requireAddon(backend);
  const prep = prepareArgs(k, args, { temporaries: false });
  const plan = planFor(k, prep.kernel, backend);
  const storage = storageFor(plan, prep);
  proveBounds(plan, prep, storage, opts);
  proveIndexRange(plan, prep);
  const entries = entryNames(plan);
  const optsKey = JSON.stringify([opts.cc, opts.flags, opts.libs]);
  let loading = plan.objects.get(optsKey);
  if (!loading) {
    const source = `${plan.code.deviceCode}\n/* entry points for Loom's native addon */\n${entryPoints(plan, prep.kernel, entries)}`;
    const trap = trapEntry(plan, entries);
    loading = loadKernels(source, opts, `${backend} code of kernel "${k.name}"`, trap === undefined ? entries : [...entries, trap]);
    plan.objects.set(optsKey, loading);
    loading.catch(() => plan.objects.delete(optsKey));
  }
  const lib = await loading;
  const trap = trapEntry(plan, entries);
  const kernelMs: number[] = [];
  forEachLaunch(plan.schedule, paramsOf(prep), (x, host) => {
    const values: (TypedArray | number | bigint)[] = [];
    const kinds: ("ptr" | ScalarKind)[] = [];
    for (const name of plan.kernels[x]!.info.args) {
      const v = valueOf(prep, host, name);
      if (v !== undefined) {
        values.push(v.value);
        kinds.push(v.kind);
      } else {
        values.push(storage.get(name)!.data);
        kinds.push("ptr");
      }
    }
    kernelMs.push(lib.call(entries[x]!, values, kinds) / 1e6);
    // The first trap of the launch, as the interpreter reports it (it stops at the first).
    if (trap !== undefined) {
      const site = new Uint32Array(1);
      const value = new BigInt64Array(1);
      lib.call(trap, [site, value], ["ptr", "ptr"]);
      const message = recordedTrap(trapsOf(plan)!, site[0]!, value[0]!);
      if (message !== undefined) throw new ExecutionError(message);
    }
  });
  return { outputs: outputsOf(prep), kernelMs };
}

