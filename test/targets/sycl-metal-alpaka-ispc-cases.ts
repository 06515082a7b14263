/**
 * The kernels the sycl, metal, alpaka and ispc targets are checked on — loopy's classics (vector
 * add split g/l, tiled matmul with local prefetch, a reduction over an `l` axis, a stencil with a
 * 2-D local tile), a few OCCA examples imported from OKL, atomics — and their check: a C++17
 * syntax-only compile (g++ -fsyntax-only) of device and host code against the declaration headers
 * in headers/, all kernels of a target in one compiler run. None of these compilers is installable
 * here: this checks syntax and types against the APIs as declared, it runs nothing.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { AtomicOp, Dtype, Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { compileBudgetMs, has } from "../codegen/compile-helpers.js";
import { loopyClassics } from "../codegen/kernels.js";
import { CORPUS } from "../okl/corpus-path.js";
import { hostLoops } from "../schedule/schedule-kernels.js";

export const hasGxx = has("g++", ["--version"]);
export const HEADERS = join(import.meta.dirname, "headers");

/**
 * Loopy's four classics (test/codegen/kernels.ts) as loopy's examples generate them: the matmul
 * assumes n a multiple of 16, so it has no guards: `[vecadd, matmul, reduction, stencil]`.
 */
export function classics(): Kernel[] {
  return Object.values(loopyClassics({ matmulAssumptions: "n mod 16 = 0 and n >= 16" })).map((c) => c.knl);
}

export { hostLoops };

/** OCCA examples from the OKL corpus (vector add, shared-memory and atomic reductions, powers of pi, a device function) and two transpiler tests. */
export const OKL_EXAMPLES: readonly { readonly rel: string; readonly defines?: Readonly<Record<string, number>> }[] = [
  { rel: "occa/examples/cpp/01_add_vectors/addVectors.okl" },
  // The example's host sets the defines (`block` is the work-group size; 06's main uses 256).
  { rel: "occa/examples/cpp/06_shared_memory/reduction.okl", defines: { block: 256 } },
  { rel: "occa/examples/cpp/18_nonblocking_streams/powerOfPi.okl", defines: { group: 8, block: 64 } },
  { rel: "occa/examples/cpp/30_device_function/addVectors.okl" },
  // Two of OCCA's transpiler tests, which the whole corpus's syntax check caught: a branch whose
  // body is only a barrier (a comment on ispc), float atomics of an int value (alpaka deduces both).
  { rel: "occa-transpiler/data/transpiler/backends/cuda/barrier/barrier_warp.cpp" },
  { rel: "occa-transpiler/data/transpiler/backends/cuda/atomic/atomic_in_one_line_if_or_loop.cpp" },
];

export function oklExamples(): Kernel[] {
  return OKL_EXAMPLES.flatMap(({ rel, defines }) => {
    const file = join(CORPUS, rel);
    return parseOkl(readFileSync(file, "utf8"), { filename: file, ...(defines ? { defines } : {}) });
  });
}

/**
 * 32 work-items (4 groups of 8) updating a cell atomically by `op`: of global `r`, or (`local`) of
 * a local temporary then copied out: `atomicKernel("min", "float32", true)`.
 */
export function atomicKernel(op: AtomicOp, d: Dtype, local = false): Kernel {
  const cell = local ? "t[0]" : "r[ii % 3]";
  const value = op === "=" ? "v[8*io+ii] + 1" : "v[8*io+ii]";
  const rhs = op === "=" ? value : op === "min" || op === "max" ? `${op}(${cell}, ${value})` : `${cell} ${op} ${value}`;
  const name = `atomic_${({ "+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor", min: "min", max: "max", "=": "xchg" } as const)[op]}_${d}${local ? "_local" : ""}`;
  const insns = local ? ["t[0] = 0 {id=z}", `${cell} = ${rhs} {id=u, atomic, dep=z}`, "r[io] = t[0] {id=w, dep=u}"] : [`${cell} = ${rhs} {id=u, atomic}`];
  const args = [`v: ${d}[32]`, `r: ${d}[4]`, ...(local ? [temporary("t", d, [1], "local")] : [])];
  return tagInames(makeKernel("{[io,ii]: 0<=io<4 and 0<=ii<8}", insns, args, { name }), { io: "g.0", ii: "l.0" });
}

/**
 * A vector add whose kernel, array, iname and size names are `names` (reserved words of a
 * target, its printer's own names): `[kernel, x, out, i, n]`.
 */
export function hostileKernel([kernel, x, out, i, n]: readonly [string, string, string, string, string]): Kernel {
  const k = makeKernel(`{[${i}]: 0<=${i}<${n}}`, `${out}[${i}] = 2*${x}[${i}] + 1`, [`${x}: float32[${n}]`, `${out}: float32[${n}]`, `${n}: int32`], { name: kernel });
  return splitIname(k, i, 32, { outerTag: "g.0", innerTag: "l.0" });
}

/** What each target's check needs beyond the generated code. */
export interface CheckSpelling {
  /** The headers, included once at the top (each kernel's own includes are then no-ops). */
  readonly include: string;
  /** Code after a kernel's device and host code (alpaka: an explicit instantiation of the host template). */
  readonly after?: (hostCode: string) => string;
  /** A rewrite of what the C++ compiler cannot read (ISPC's `launch[…]`, `2.5d`). */
  readonly rewrite?: (code: string) => string;
}

/** What each target's check needs (see headers/). */
export const SPELLINGS: Readonly<Record<"sycl" | "metal" | "alpaka" | "ispc", CheckSpelling>> = {
  sycl: { include: "#include <sycl/sycl.hpp>\n#include <cmath>" },
  // Device code (MSL) and host code (metal-cpp) in one C++ file: only for this check.
  metal: { include: "#include <Metal/Metal.hpp>\n#include <metal_stdlib>" },
  // The host function is a template: instantiated on the serial accelerator, which instantiates the functor.
  alpaka: {
    include: "#include <alpaka/alpaka.hpp>\n#include <cmath>",
    after: (host) => {
      const m = /void (\w+)\(TQueue &loopy_queue(.*)\)\n/.exec(host);
      if (!m) throw new Error(`no alpaka host function in:\n${host}`);
      return `struct loopy_test_queue {};\ntemplate void ${m[1]}<alpaka::AccCpuSerial<alpaka::DimInt<3u>, std::size_t>, loopy_test_queue>(loopy_test_queue &${m[2]});`;
    },
  },
  ispc: {
    include: '#include "ispc-shim.h"',
    rewrite: (code) => code.replace(/launch\[(.*)\] (\w+)\((.*)\);/g, "loopy_launch($1); $2($3);").replace(/(?<![\w.])(\d+\.\d*(?:e[+-]?\d+)?)d\b/g, "$1"),
  },
};

/**
 * Device and host code of each kernel on `target`, each in a namespace of its own in one
 * translation unit (the headers parsed once), checked by `g++ -std=c++17 -fsyntax-only`; a
 * compiler error fails the test with its message (the file kept to read).
 */
export function syntaxCheck(ks: readonly Kernel[], target: keyof typeof SPELLINGS, spelling: CheckSpelling = SPELLINGS[target]): void {
  const dir = mkdtempSync(join(tmpdir(), `loom-${target}-`));
  const file = join(dir, `${target}.cpp`);
  const rewrite = spelling.rewrite ?? ((x: string) => x);
  const parts = ks.map((k, n) => {
    const code = generateCode(k, target);
    const host = code.hostCode ?? "";
    return [`namespace loopy_case_${n} {  // ${k.name}`, code.deviceCode, host, spelling.after?.(host) ?? "", `}  // namespace loopy_case_${n}`].join("\n");
  });
  writeFileSync(file, rewrite([spelling.include, ...parts].join("\n")));
  try {
    execFileSync("g++", ["-std=c++17", "-fsyntax-only", "-Wall", "-Wno-unknown-pragmas", "-Wno-attributes", "-Wno-unused", "-I", HEADERS, file],
      { stdio: "pipe", timeout: compileBudgetMs(1) });
  } catch (e) {
    const err = e as { stderr?: Buffer };
    expect.fail(`g++ -fsyntax-only failed on ${target} code of ${ks.map((k) => k.name).join(", ")} (${file}):\n${err.stderr?.toString() ?? String(e)}`);
  }
  // Kept where the check failed, to read.
  rmSync(dir, { recursive: true, force: true });
}

/** What a target's syntax-check suite checks beyond loopy's classics and the OCCA examples. */
export interface SuiteOptions {
  /** The headers, as the suite's title says them. */
  readonly against: string;
  /** Atomic kernels beyond the int32 updates and float32 add every target checks. */
  readonly atomics: readonly Kernel[];
  readonly hostile: readonly [string, string, string, string, string];
  readonly extra?: readonly Kernel[];
  /** A spelling of the generated code and a misspelling the headers must reject. */
  readonly misspell: readonly [string, string];
  /** OCCA kernels the target refuses (Metal: float atomics in threadgroup memory), by name and message: checked refused, not compiled. */
  readonly refuses?: Readonly<Record<string, RegExp>>;
}

/**
 * The syntax-check suite of `target`: loopy's classics, the OCCA examples, atomics, `extra` and a
 * kernel of hostile names pass one g++ -fsyntax-only run; the same check rejects a misspelling
 * (it can fail).
 */
export function syntaxCheckSuite(target: keyof typeof SPELLINGS, o: SuiteOptions): void {
  describe.skipIf(!hasGxx)(`${target}: C++17 syntax check against ${o.against} (not a ${target} compile)`, () => {
    it("loopy's classics, host loops, OCCA examples, atomics and hostile names pass g++ -fsyntax-only", () => {
      const atomics = (["+", "-", "&", "min", "max", "="] as const).map((op) => atomicKernel(op, "int32")).concat([atomicKernel("+", "float32"), ...o.atomics]);
      const refuses = o.refuses ?? {};
      const okl = oklExamples().filter((k) => {
        const why = refuses[k.name];
        if (why) expect(() => generateCode(k, target), k.name).toThrow(why);
        return !why;
      });
      syntaxCheck([...classics(), hostLoops(), ...okl, ...atomics, ...(o.extra ?? []), hostileKernel(o.hostile)], target);
    }, compileBudgetMs(1));

    it(`the check fails on code the headers do not declare (${o.misspell[1]})`, () => {
      const [from, to] = o.misspell;
      const own = SPELLINGS[target].rewrite ?? ((c: string) => c);
      const broken = { ...SPELLINGS[target], rewrite: (c: string) => own(c).replaceAll(from, to) };
      expect(() => syntaxCheck([classics()[1]!, atomicKernel("+", "int32")], target, broken)).toThrow(to);
    }, compileBudgetMs(1));
  });
}
