/**
 * The one check every public entry point makes of the kernel it is handed: a user calling Loom from
 * JavaScript may pass anything, and each entry refuses it in its own error class.
 */
import { shown, type LoomError } from "../errors.js";
import type { Kernel } from "./kernel.js";

/**
 * Throws `make(message)` unless `k` has a kernel's shape (a name, and domains, instructions and
 * arguments as arrays). `checkKernelArg(null, "run", (m) => new ExecutionError(m))` throws
 * `run: the first argument must be a kernel (from makeKernel or parseOkl); got null`.
 */
export function checkKernelArg(k: unknown, who: string, make: (message: string) => LoomError, which = "the first argument"): asserts k is Kernel {
  const x = k as Partial<Record<keyof Kernel, unknown>> | null;
  if (x === null || typeof x !== "object" || typeof x.name !== "string" || !Array.isArray(x.domains) || !Array.isArray(x.instructions) || !Array.isArray(x.args)) {
    throw make(`${who}: ${which} must be a kernel (from makeKernel or parseOkl); got ${shown(k)}`);
  }
}
