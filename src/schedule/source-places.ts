/**
 * Names in the CPU lowering's messages with where they come from in the OKL source: the importer
 * keeps "line:column" per instruction id, loop iname and local's temporary (Kernel.oklOptions.places),
 * since the IR itself has no positions. Other kernels' names are quoted alone.
 *
 *   quoted(k, "insn_2")   // '"insn_2" (at 14:9)' for a kernel imported from OKL, '"insn_2"' otherwise
 */
import type { Kernel } from "../ir/index.js";

/** `"name"`, followed by its OKL source place where the kernel records one. */
export function quoted(k: Kernel, name: string): string {
  const at = k.oklOptions?.places?.[name];
  return at === undefined ? `"${name}"` : `"${name}" (at ${at})`;
}
