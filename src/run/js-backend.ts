/**
 * The "js" execution backend: the kernel's JavaScript from the js code generator, compiled once
 * per kernel and argument dtypes with `new Function`, run on the interpreter's argument handling.
 */
import { generateCodeAndSchedule } from "../../codegen/index.js";
import type { Kernel, TypedArray } from "../ir/index.js";
import type { Schedule } from "../schedule/index.js";
import { ExecutionError } from "../errors.js";
import { layoutOf, prepareArgs, type ArgValue } from "./args.js";
import { checkBounds, type ArrayExtents } from "./bounds.js";
import { H } from "./arith-helpers.js";
import { forEachLaunch } from "./host-program.js";

type KernelFn = (h: typeof H, ...args: unknown[]) => void;

interface CompiledJs {
  readonly fns: readonly { readonly fn: KernelFn; readonly args: readonly string[] }[];
  readonly source: string;
  /** The schedule the code was generated from: its host program says which function runs when. */
  readonly schedule: Schedule;
}

const cache = new WeakMap<Kernel, Map<string, CompiledJs>>();

/** Compile the js target's code for `typed` (every dtype known); `checkedAccess`: every array index checked as it runs. */
export function compileJs(typed: Kernel, checkedAccess = false): CompiledJs {
  const { code, schedule } = generateCodeAndSchedule(typed, "js", { checkedAccess });
  const names = code.kernels.map((k) => k.name);
  const factory = new Function(`"use strict";\n${code.deviceCode}\nreturn [${names.join(", ")}];`) as () => KernelFn[];
  const fns = factory();
  return { fns: code.kernels.map((k, n) => ({ fn: fns[n]!, args: k.args })), source: code.deviceCode, schedule };
}

/** Run `k` with the js backend: same arguments and results as the interpreter. */
export async function runJs(k: Kernel, args: Readonly<Record<string, ArgValue>>): Promise<Record<string, TypedArray>> {
  const prep = prepareArgs(k, args);
  const typed = prep.kernel;
  const key = JSON.stringify([typed.args.map((a) => a.dtype ?? "?"), typed.temporaries.map((t) => t.dtype ?? "?")]);
  let perKernel = cache.get(k);
  if (!perKernel) cache.set(k, (perKernel = new Map()));
  let c = perKernel.get(key);
  if (!c) perKernel.set(key, (c = compileJs(typed)));
  const params = new Map([...prep.values].map(([n, x]) => [n, Number(x)]));
  // The fast code indexes typed arrays unchecked: where the accesses cannot be proved inside their
  // arrays for this run (data-dependent subscripts, or a real overflow), run code that checks each
  // access and throws at the first one outside, as the interpreter does.
  if (!provedInBounds(c.schedule.kernel, prep, params)) {
    const checkedKey = `${key}:checked`;
    c = perKernel.get(checkedKey) ?? compileJs(typed, true);
    perKernel.set(checkedKey, c);
  }
  const fns = c.fns;
  forEachLaunch(c.schedule, params, (d, host) => {
    const { fn, args: names } = fns[d]!;
    fn(H, ...names.map((n) => (host.has(n) ? host.get(n) : prep.arrays.get(n)?.data ?? prep.values.get(n))));
  });
  return Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data]));
}

/** Whether every access of the scheduled kernel provably stays inside its array for this run. */
function provedInBounds(k: Kernel, prep: ReturnType<typeof prepareArgs>, params: ReadonlyMap<string, number>): boolean {
  const arrays = new Map<string, ArrayExtents>();
  for (const a of k.args) {
    if (a.kind !== "array") continue;
    const s = prep.arrays.get(a.name);
    if (!s) continue;
    arrays.set(a.name, { extents: layoutOf(a, params)?.extents, size: s.data.length, data: s.data });
  }
  for (const t of k.temporaries) {
    const layout = layoutOf(t, params);
    if (layout) arrays.set(t.name, { extents: layout.extents, size: layout.size });
  }
  try {
    checkBounds(k, prep.values, arrays);
    return true;
  } catch (e) {
    if (e instanceof ExecutionError) return false;
    throw e;
  }
}
