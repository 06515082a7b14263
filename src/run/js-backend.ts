/**
 * The "js" execution backend: the kernel's JavaScript from the js code generator, compiled once
 * per kernel and argument dtypes with `new Function`, run on the interpreter's argument handling.
 */
import { generateCode } from "../../codegen/index.js";
import type { Kernel, TypedArray } from "../ir/index.js";
import { prepareArgs, type ArgValue } from "./args.js";
import { H } from "./arith.js";

type KernelFn = (h: typeof H, ...args: unknown[]) => void;

interface CompiledJs {
  readonly fns: readonly { readonly fn: KernelFn; readonly args: readonly string[] }[];
  readonly source: string;
}

const cache = new WeakMap<Kernel, Map<string, CompiledJs>>();

/** Compile the js target's code for `typed` (every dtype known). */
export function compileJs(typed: Kernel): CompiledJs {
  const code = generateCode(typed, "js");
  const names = code.kernels.map((k) => k.name);
  const factory = new Function(`"use strict";\n${code.deviceCode}\nreturn [${names.join(", ")}];`) as () => KernelFn[];
  const fns = factory();
  return { fns: code.kernels.map((k, n) => ({ fn: fns[n]!, args: k.args })), source: code.deviceCode };
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
  for (const { fn, args: names } of c.fns) {
    fn(H, ...names.map((n) => prep.arrays.get(n)?.data ?? prep.values.get(n)));
  }
  return Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data]));
}
