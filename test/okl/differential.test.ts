/**
 * Differential tests against legacy OCCA: the serial output OCCA's translator produced for a corpus
 * kernel (corpus/okl/occa-legacy-generated/…/serial.cpp), compiled with g++ and run natively, and
 * Loom's import of the same OKL source run on `interp` and `openmp`, on the same random inputs;
 * every output array must agree.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exprToString, walkExpr, type Expr, type Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { backendAvailability, run } from "../../src/run/index.js";
import { compileReference, hasCxx, refKernels, scalarKind } from "./legacy-reference.js";
import { argLengths, randomArray } from "./inputs.js";
import { CORPUS, GENERATED } from "./corpus-path.js";
import { SPECIAL, type SpecialCase } from "./legacy-special.js";
import { vectorTypeNamed } from "../../src/okl/lower/vectors.js";

/** OCCA's vector type names (`float3`), as C parameter types of legacy outputs. */


interface Case { readonly dir: string; readonly input: string; readonly defines: Readonly<Record<string, string | number>>; readonly special?: SpecialCase }

function cases(): Case[] {
  const out: Case[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e === "status.json" && existsSync(join(d, "serial.cpp"))) {
        const st = JSON.parse(readFileSync(p, "utf8")) as { input: string; defines_prepended?: Record<string, number> };
        const special = SPECIAL[d.slice(GENERATED.length + 1)];
        if (existsSync(join(CORPUS, st.input))) out.push({ dir: d, input: join(CORPUS, st.input), defines: special?.defines ?? st.defines_prepended ?? {}, special });
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

/**
 * Instructions whose stored value depends on a parallel index (work-group or work-item) that the
 * written cell does not: several work-items write different values to one cell, so the result
 * depends on their order (OCCA's serial mode runs them in one order, GPUs in any). Such kernels
 * (OCCA's transpiler tests of axis numbering write `ab[i]` inside parallel `j` loops) are noted,
 * not compared.
 */
function orderDependent(k: Kernel): string | undefined {
  for (const insn of k.instructions) {
    if (insn.kind !== "assign" || insn.atomicity !== "none" || (insn.lhs.kind !== "subscript" && insn.lhs.kind !== "linear")) continue;
    const target = insn.lhs.array;
    if (!k.args.some((a) => a.name === target)) continue; // local memory is one copy per group
    const vars = (e: Expr, out = new Set<string>()) => {
      walkExpr(e, (n) => {
        if (n.kind === "var") out.add(n.name);
      });
      return out;
    };
    const cell = vars(insn.lhs);
    const value = vars(insn.rhs);
    for (const p of insn.predicates) vars(p, value);
    const p = insn.withinInames.find((i) => ["g", "l"].includes(k.inameTags[i]?.kind ?? "") && !cell.has(i) && value.has(i));
    if (p) return `${insn.id} writes ${exprToString(insn.lhs)} with a value that depends on parallel index ${p}`;
  }
  return undefined;
}

/**
 * Kernels where Loom means something other than OCCA's output, on purpose (OKL.md §5): a @tile of a
 * loop with a step d != 1 covers the whole range in Loom (the documented span semantics), while both
 * OCCA tools step the block loop by K*d and skip iterations.
 */
const TILE_STRIDE = "@tile of a loop with a step other than 1: Loom implements the documented span semantics, OCCA's output skips iterations (OKL.md §5)";
const DIVERGENCES: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  ["cuda", "hip", "launcher"].flatMap((b) => ["inc", "dec"].map((d) => [`${b}/tile/outer_inner_${d}`, { addVectors1: TILE_STRIDE, addVectors5: TILE_STRIDE }])),
);

const PARAM = 37;
const UNSIZED = 4096;
/** What was not compared, and why (printed at the end). */
const notes: string[] = [];

async function compare(c: Case, kernels: readonly Kernel[], seed: number, legacy = readFileSync(join(c.dir, "serial.cpp"), "utf8")): Promise<string[]> {
  const cpp = c.special ? c.special.rewrite(legacy) : legacy;
  const refs = refKernels(cpp);
  let lib;
  try {
    lib = compileReference(cpp, refs);
  } catch (e) {
    // Some legacy outputs are not valid C++ (OCCA's translator keeps OKL-only constructs).
    notes.push(`${c.dir.slice(GENERATED.length + 1)}: the legacy serial output does not compile (${String((e as Error).message).split("\n")[1] ?? ""})`);
    return [];
  }
  const problems: string[] = [];
  const openmp = backendAvailability("openmp").available;
  for (const k of kernels) {
    if (!k.args.some((a) => a.kind === "array" && a.isOutput)) {
      notes.push(`${k.name}: writes no argument (only local memory); nothing to compare`);
      continue;
    }
    const divergence = Object.entries(DIVERGENCES).find(([where]) => c.dir.endsWith(where))?.[1][k.name];
    if (divergence) {
      notes.push(`${k.name}: ${divergence}`);
      continue;
    }
    const order = orderDependent(k);
    if (order) {
      notes.push(`${k.name}: order-dependent (${order})`);
      continue;
    }
    const ref = refs.find((r) => r.name === k.name);
    if (!ref) {
      problems.push(`${k.name}: not in serial.cpp`);
      continue;
    }
    const params: Record<string, number> = {};
    for (const a of k.args) if (a.kind === "value") params[a.name] = c.special?.inputs[a.name] ?? (a.dtype?.startsWith("float") ? 1.5 : PARAM);
    const lengths = argLengths(k, params);
    // An argument whose footprint Loom cannot bound (a modulo or data-dependent subscript, maxima of
    // different forms) gets the largest length of the others, at least UNSIZED: both sides read the
    // same buffer, and an access past it is reported by the interpreter (noted below), not compared.
    const unsized = Math.max(UNSIZED, ...k.args.filter((a) => a.kind === "array" && a.shape !== undefined).map((a) => lengths[a.name]!));
    for (const a of k.args) if (a.kind === "array" && a.shape === undefined) lengths[a.name] = unsized;
    const inputs: Record<string, ArrayBufferView | number> = { ...params };
    let n = seed;
    for (const a of k.args) if (a.kind === "array") inputs[a.name] = randomArray(a.dtype ?? "float32", lengths[a.name]!, n++);
    // A struct passed by value is flattened into one argument per field read, and an argument Loom
    // cannot represent is left out while unused: the reference's signature has no Loom counterpart.
    // A vector passed by value is one argument per component in Loom; the reference reads the N floats.
    for (const p of ref.params) {
      if (!p.pointer && vectorTypeNamed(p.type) !== undefined && !(p.name in inputs) && `${p.name}_x` in inputs) {
        inputs[p.name] = Float32Array.from(["x", "y", "z", "w"].map((cn) => inputs[`${p.name}_${cn}`]).filter((v): v is number => typeof v === "number"));
      }
    }
    const missing = ref.params.find((p) => !(p.name in inputs));
    if (missing) {
      notes.push(`${k.name}: reference parameter "${missing.name}" (${missing.type}) is flattened or left out by Loom; not compared`);
      continue;
    }
    const refArgs = ref.params.map((p) => {
      const v = inputs[p.name];
      return typeof v === "number" ? v : (v as unknown as { slice(): ArrayBufferView }).slice();
    });
    lib.call(`loom_ref_${k.name}`, refArgs, ref.params.map((p) => (p.pointer || typeof inputs[p.name] !== "number" ? "ptr" : scalarKind(p.type))));
    // A kernel whose work-groups race on global memory has no one answer: once the interpreter
    // reports the race, the parallel backend is not compared either.
    let racy = false;
    for (const backend of openmp ? (["interp", "openmp"] as const) : (["interp"] as const)) {
      if (racy) continue;
      const fresh: Record<string, ArrayBufferView | number> = {};
      for (const [name, v] of Object.entries(inputs)) {
        if (k.args.some((a) => a.name === name)) fresh[name] = typeof v === "number" ? v : (v as unknown as { slice(): ArrayBufferView }).slice();
      }
      let out: Record<string, unknown>;
      try {
        out = await run(k, fresh as never, { backend, ...(c.special?.unchecked && backend !== "interp" ? { checkBounds: false } : {}) });
      } catch (e) {
        // Out-of-bounds accesses and work-groups writing different values to one cell are undefined
        // behaviour of the OKL source itself (Loom reports them, OCCA's serial code runs the groups
        // in order); the interpreter's race check does not yet exempt atomic updates; native
        // backends refuse subscripts whose bounds they cannot prove. All are noted, not failed.
        const msg = e instanceof Error ? e.message : String(e);
        const atomics = k.instructions.some((i) => i.kind === "assign" && i.atomicity !== "none");
        if (/out of bounds|outside its bounds|races? on global|cannot prove/.test(msg) || (atomics && /race|atomic/.test(msg))) {
          notes.push(`${k.name} on ${backend}: ${msg.split("\n")[0]}`);
          racy ||= /races? on global/.test(msg);
          continue;
        }
        throw e;
      }
      for (const [name, got] of Object.entries(out)) {
        const idx = ref.params.findIndex((p) => p.name === name);
        const want = refArgs[idx] as unknown as ArrayLike<number>;
        const g = got as unknown as ArrayLike<number>;
        if (c.special) {
          problems.push(...c.special.compare(`${k.name} on ${backend}`, g, want, backend));
          continue;
        }
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
const runnable = all.map((c) => ({ c, ks: imported(c) })).filter((x): x is { c: Case; ks: Kernel[] } => x.ks !== undefined);

describe.skipIf(!hasCxx)("legacy OCCA serial output vs Loom's import (interp, openmp)", () => {
  afterAll(() => {
    if (notes.length > 0) console.log(`not compared:\n  ${notes.join("\n  ")}`);
    const reports = Object.values(SPECIAL).flatMap((x) => x.report);
    if (reports.length > 0) console.log(`compared with a tolerance:\n  ${reports.join("\n  ")}`);
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

// OCCA's finite-difference example at its own size (w = h = 1000, 16 x 16 tiles) writes past the
// end of each row from its last tile column, so work-groups race on global memory and nothing is
// compared above. At w = h = 64 the tiles divide the grid: the same legacy serial output with the
// size substituted (1000 -> 64, the source point 500 -> 32) is the reference.
const FD2D = "occa-examples/examples/cpp/15_finite_difference/fd2d";
describe.skipIf(!hasCxx || !existsSync(join(GENERATED, FD2D)))("fd2d.okl (file-scope constant tables, a device function) vs legacy OCCA", () => {
  it("agrees at w = h = 64", async () => {
    const c = all.find((x) => x.dir.endsWith(FD2D))!;
    const small = { ...c, defines: { ...c.defines, w: 64, h: 64, mX: 32, mY: 32 } };
    const cpp = readFileSync(join(c.dir, "serial.cpp"), "utf8").replace(/\b1000\b/g, "64").replace(/\b500\b/g, "32");
    const ks = imported(small)!;
    expect(ks.map((k) => k.name)).toEqual(["fd2d"]);
    const before = notes.length;
    expect(await compare(small, ks, 3, cpp)).toEqual([]);
    expect(notes.slice(before)).toEqual([]);
  }, 60_000);
});
