/**
 * Hostile names on the sycl, metal, alpaka and ispc targets (issue 22): a kernel whose kernel,
 * array, iname and size names are reserved words of these languages or the printers' own names
 * generates the same code as with plain names, but for a consistent renaming to names no dialect
 * reserves (fast-check over the targets' reserved words).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { allReservedWords, isReserved } from "../../codegen/names.js";
import { LoomError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { hostileKernel } from "./sycl-metal-alpaka-ispc-cases.js";

const TARGETS = ["sycl", "metal", "alpaka", "ispc"] as const;
const WORDS = allReservedWords().filter((w) => /^[A-Za-z]\w*$/.test(w) && TARGETS.some((t) => isReserved(w, t)));
const PLAIN = ["p_kernel", "p_x", "p_out", "p_i", "p_n"] as const;

/** `code` as identifiers and the text between them. */
const tokens = (code: string) => code.match(/[A-Za-z_]\w*|[^A-Za-z_]+/g) ?? [];

function built(names: readonly [string, string, string, string, string]): Kernel | undefined {
  try {
    return hostileKernel(names);
  } catch (e) {
    if (e instanceof LoomError) return undefined; // a word Loom's own syntax takes (`sum`, `if`)
    throw e;
  }
}

describe("hostile names on sycl, metal, alpaka and ispc", () => {
  it("the code is the plain-named code with each name consistently replaced by one the dialect does not reserve", () => {
    const plain = hostileKernel(PLAIN);
    const words = fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 5, maxLength: 5 }) as fc.Arbitrary<[string, string, string, string, string]>;
    fc.assert(fc.property(words, (names) => {
      const k = built(names);
      fc.pre(k !== undefined);
      for (const t of TARGETS) {
        const a = generateCode(plain, t);
        const b = generateCode(k!, t);
        const ta = tokens(`${a.deviceCode}\n${a.hostCode}`);
        const tb = tokens(`${b.deviceCode}\n${b.hostCode}`);
        expect(tb.length, t).toBe(ta.length);
        const to = new Map<string, string>();
        const from = new Map<string, string>();
        const own = new Set<string>();
        ta.forEach((x, n) => {
          const y = tb[n]!;
          if (x === y) {
            own.add(x);
            return;
          }
          expect(PLAIN.some((p) => x.startsWith(p)), `${t}: ${x} became ${y}`).toBe(true);
          expect(isReserved(y, t), `${t}: ${y} is reserved`).toBe(false);
          expect(to.get(x) ?? y, `${t}: ${x} printed two ways`).toBe(y);
          expect(from.get(y) ?? x, `${t}: ${y} stands for two names`).toBe(x);
          to.set(x, y);
          from.set(y, x);
        });
        // A renamed name is none of the printer's own (`loopy_item`, `uniform`, `sycl`).
        for (const y of from.keys()) expect(own.has(y), `${t}: ${y} is also the printer's`).toBe(false);
      }
    }), { numRuns: 12, examples: [[["loopy_item", "loopy_cgh", "loopy_acc", "loopy_lid1", "loopy_queue"]], [["task", "kernel", "uniform", "programIndex", "sycl"]]] });
  }, 60_000);
});
