/**
 * Round trip: for every corpus kernel Loom imports and runs, printing it as OKL and importing
 * that again gives an equivalent kernel (autoTestVsRef on random inputs).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { allocArray, isFloat, type Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { layoutOf, type ArgValue } from "../../src/run/args.js";
import { CORPUS, GENERATED } from "./corpus-path.js";
import { SPECIAL } from "./legacy-special.js";


interface Input { readonly input: string; readonly defines: Readonly<Record<string, string | number>>; readonly inputs: Readonly<Record<string, number>> }

function inputs(): Input[] {
  const out: Input[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e === "status.json") {
        const st = JSON.parse(readFileSync(p, "utf8")) as { input: string; defines_prepended?: Record<string, number> };
        // Special cases (legacy-special.ts) run at their smaller sizes, on their chosen inputs.
        const special = SPECIAL[d.slice(GENERATED.length + 1)];
        if (existsSync(join(CORPUS, st.input)) && !out.some((o) => o.input === join(CORPUS, st.input))) {
          out.push({ input: join(CORPUS, st.input), defines: special?.defines ?? st.defines_prepended ?? {}, inputs: special?.inputs ?? {} });
        }
      }
    }
  };
  if (existsSync(GENERATED)) walk(GENERATED);
  return out.sort((a, b) => a.input.localeCompare(b.input));
}

function lowers(k: Kernel): boolean {
  try {
    // A work-group as wide as the largest of sibling runtime-sized @inner loops prints as
    // `_l0 < max(n, 4)`, a bound OKL import cannot make a launch size (not affine): not compared.
    return !generateCode(k, "okl").kernels.some((x) => x.localSize.some((s) => /max/.test(s)));
  } catch {
    return false;
  }
}

const kernels: { file: string; k: Kernel; values: Readonly<Record<string, number>> }[] = [];
for (const c of inputs()) {
  try {
    for (const k of parseOkl(readFileSync(c.input, "utf8"), { filename: c.input, defines: c.defines })) {
      // Arguments no instruction uses are not printed by the okl target yet (a known gap).
      const used = new Set(k.instructions.flatMap((i) => JSON.stringify(i).match(/"(?:name|array)":"([^"]+)"/g) ?? []).map((m) => m.split('"')[3]));
      const allUsed = k.args.every((a) => used.has(a.name) || k.domains.some((d) => d.params.includes(a.name)));
      // Kernels that do not lower (runtime @inner sizes next to @shared memory) are counted by
      // scripts/okl-corpus-report.ts; kernels with empty loop bodies have nothing to compare.
      if (allUsed && k.args.every((a) => a.kind !== "array" || a.shape !== undefined) && lowers(k) && k.instructions.some((i) => i.kind === "assign")) kernels.push({ file: c.input.slice(CORPUS.length + 1), k, values: c.inputs });
    }
  } catch {
    // not imported: counted by the differential and corpus tests
  }
}

function sameRanks(a: Kernel, b: Kernel): boolean {
  return a.args.every((x) => {
    const y = b.args.find((z) => z.name === x.name);
    return x.kind !== "array" || (y?.kind === "array" && (y.shape?.length ?? 1) === (x.shape?.length ?? 1));
  });
}

/** Run both kernels on the same seeded flat buffers (sized by the original's shapes) and compare every written array. */
async function sameFlatBuffers(ref: Kernel, k: Kernel, params: Record<string, number>): Promise<{ ok: boolean; mismatches: string[] }> {
  const args: Record<string, ArgValue> = { ...params };
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (const a of ref.args) {
    if (a.kind !== "array" || !a.dtype) continue;
    // Shapes inferred from footprints may ask for a few more elements than the kernel touches.
    const other = k.args.find((b) => b.name === a.name);
    const size = Math.max(layoutOf(a, new Map(Object.entries(params)))?.size ?? 0,
      other?.kind === "array" ? layoutOf(other, new Map(Object.entries(params)))?.size ?? 0 : 0);
    const arr = allocArray(a.dtype, size);
    for (let q = 0; q < arr.length; q++) (arr as unknown as number[])[q] = isFloat(a.dtype) ? Math.round(rnd() * 64) / 8 : Math.floor(rnd() * 16);
    args[a.name] = arr;
  }
  const x = await run(ref, args);
  const y = await run(k, args);
  const mismatches: string[] = [];
  for (const [name, v] of Object.entries(x)) {
    const w = y[name];
    if (!w) {
      mismatches.push(`${name}: not written by the re-imported kernel`);
      continue;
    }
    for (let q = 0; q < v.length && mismatches.length < 5; q++) if (!Object.is(Number(v[q]), Number(w[q]))) mismatches.push(`${name}[${q}]: expected ${v[q]}, got ${w[q]}`);
  }
  return { ok: mismatches.length === 0, mismatches };
}

describe("parseOkl(generateCode(parseOkl(src)[i], 'okl')) is equivalent to the original", () => {
  it("covers the corpus kernels that import", () => {
    expect(kernels.length).toBeGreaterThanOrEqual(20);
  });
  for (const { file, k, values } of kernels) {
    it(`${file}: ${k.name}`, async () => {
      const text = generateCode(k, "okl").deviceCode;
      const again = parseOkl(text, { filename: `${k.name}.okl` });
      expect(again.map((x) => x.name)).toEqual([k.name]);
      const params: Record<string, number> = {};
      for (const a of k.args) if (a.kind === "value") params[a.name] = values[a.name] ?? (a.dtype?.startsWith("float") ? 1.5 : 37);
      let r;
      try {
        // A struct array's field axis (and any @dim array) prints as a flat pointer and re-imports
        // with another rank: both kernels then get the same flat C-order buffers.
        r = sameRanks(k, again[0]!) ? await autoTestVsRef(k, again[0]!, { params }) : await sameFlatBuffers(k, again[0]!, params);
      } catch (e) {
        // The source's own undefined behaviour / the interpreter's atomic race check (see differential.test.ts).
        if (e instanceof Error && /out of bounds|race/.test(e.message)) return;
        throw e;
      }
      expect(r.mismatches).toEqual([]);
      expect(r.ok).toBe(true);
    }, 60_000);
  }
});
