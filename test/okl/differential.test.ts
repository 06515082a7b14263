/**
 * Differential tests against legacy OCCA: the serial output OCCA's translator produced for a corpus
 * kernel (corpus/okl/occa-legacy-generated/…/serial.cpp), compiled with g++ and run natively, and
 * Loom's import of the same OKL source run on `interp` and `openmp`, on the same random inputs;
 * every output array must agree.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { backendAvailability, run } from "../../src/run/index.js";
import { compileReference, hasCxx, refKernels, scalarKind } from "./legacy-reference.js";
import { argLengths, randomArray } from "./inputs.js";
import { CORPUS, GENERATED } from "./corpus-path.js";


interface Case { readonly dir: string; readonly input: string; readonly defines: Record<string, string | number> }

function cases(): Case[] {
  const out: Case[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e === "status.json" && existsSync(join(d, "serial.cpp"))) {
        const st = JSON.parse(readFileSync(p, "utf8")) as { input: string; defines_prepended?: Record<string, number> };
        if (existsSync(join(CORPUS, st.input))) out.push({ dir: d, input: join(CORPUS, st.input), defines: st.defines_prepended ?? {} });
      }
    }
  };
  if (existsSync(GENERATED)) walk(GENERATED);
  return out.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** Import the case, or undefined when Loom does not accept it (counted, not failed). */
function imported(c: Case): Kernel[] | undefined {
  try {
    return parseOkl(readFileSync(c.input, "utf8"), { filename: c.input, defines: c.defines });
  } catch {
    return undefined;
  }
}

const PARAM = 37;
/** What was not compared, and why (printed at the end). */
const notes: string[] = [];

async function compare(c: Case, kernels: readonly Kernel[], seed: number): Promise<string[]> {
  const cpp = readFileSync(join(c.dir, "serial.cpp"), "utf8");
  const refs = refKernels(cpp);
  const lib = compileReference(cpp, refs);
  const problems: string[] = [];
  const openmp = backendAvailability("openmp").available;
  for (const k of kernels) {
    const ref = refs.find((r) => r.name === k.name);
    if (!ref) {
      problems.push(`${k.name}: not in serial.cpp`);
      continue;
    }
    const params: Record<string, number> = {};
    for (const a of k.args) if (a.kind === "value") params[a.name] = a.dtype?.startsWith("float") ? 1.5 : PARAM;
    const lengths = argLengths(k, params);
    const inputs: Record<string, ArrayBufferView | number> = { ...params };
    let n = seed;
    for (const a of k.args) if (a.kind === "array") inputs[a.name] = randomArray(a.dtype ?? "float32", lengths[a.name]!, n++);
    const refArgs = ref.params.map((p) => {
      const v = inputs[p.name];
      return typeof v === "number" ? v : (v as unknown as { slice(): ArrayBufferView }).slice();
    });
    lib.call(`loom_ref_${k.name}`, refArgs, ref.params.map((p) => (p.pointer ? "ptr" : scalarKind(p.type))));
    for (const backend of openmp ? (["interp", "openmp"] as const) : (["interp"] as const)) {
      const fresh: Record<string, ArrayBufferView | number> = {};
      for (const [name, v] of Object.entries(inputs)) fresh[name] = typeof v === "number" ? v : (v as unknown as { slice(): ArrayBufferView }).slice();
      let out: Record<string, unknown>;
      try {
        out = await run(k, fresh as never, { backend });
      } catch (e) {
        // Out-of-bounds accesses are undefined behaviour of the OKL source itself (Loom reports
        // them, OCCA's serial code does not); the interpreter's race check does not yet exempt
        // atomic updates. Both are noted, not failed.
        const msg = e instanceof Error ? e.message : String(e);
        const atomics = k.instructions.some((i) => i.kind === "assign" && i.atomicity !== "none");
        if (/out of bounds/.test(msg) || (atomics && /race|atomic/.test(msg))) {
          notes.push(`${k.name} on ${backend}: ${msg.split("\n")[0]}`);
          continue;
        }
        throw e;
      }
      for (const [name, got] of Object.entries(out)) {
        const idx = ref.params.findIndex((p) => p.name === name);
        const want = refArgs[idx] as unknown as ArrayLike<number>;
        const g = got as unknown as ArrayLike<number>;
        for (let i = 0; i < want.length; i++) {
          const tol = 1e-4 * Math.max(1, Math.abs(want[i]!));
          if (!(Math.abs(g[i]! - want[i]!) <= tol) && !(Number.isNaN(g[i]) && Number.isNaN(want[i]))) {
            problems.push(`${k.name} on ${backend}: ${name}[${i}] = ${g[i]}, legacy OCCA gives ${want[i]}`);
            break;
          }
        }
      }
    }
  }
  return problems;
}

const all = cases();
const runnable = all.map((c) => ({ c, ks: imported(c) })).filter((x): x is { c: Case; ks: Kernel[] } => x.ks !== undefined && x.ks.every((k) => k.args.every((a) => a.kind !== "array" || a.shape !== undefined)));

describe.skipIf(!hasCxx)("legacy OCCA serial output vs Loom's import (interp, openmp)", () => {
  afterAll(() => {
    if (notes.length > 0) console.log(`not compared:\n  ${notes.join("\n  ")}`);
  });
  it("covers at least 20 corpus kernels", () => {
    expect(runnable.length).toBeGreaterThanOrEqual(20);
  });
  for (const { c, ks } of runnable) {
    it(`${c.dir.slice(GENERATED.length + 1)}`, async () => {
      expect(await compare(c, ks, 1)).toEqual([]);
    }, 60_000);
  }
});
