/**
 * Integer traps in the C family's code (codegen/targets/int-traps.ts): every C-family target
 * checks what the interpreter refuses at run time — an integer division or modulo by 0, a shift
 * count outside 0..width-1, a negative integer exponent — and records it at a numbered site: c
 * and openmp in the static `loopy_int_trap`, device targets in a trap buffer the kernel takes
 * last. Nothing is checked where nothing can trap, and the names the checks add collide with no
 * user name. The runtimes' side is test/run/int-traps.property.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { CUCL_PRELUDES } from "../../codegen/targets/cucl-prelude.js";
import { makeKernel } from "../../src/parse/index.js";
import type { TargetName } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { nativeBackends } from "../../src/run/native.js";
import { availableNative } from "../run/native-helpers.js";
import { hasGxx, SPELLINGS, syntaxCheck } from "../targets/sycl-metal-alpaka-ispc-cases.js";
import { compileBudgetMs, GCC_FLAGS, hasGcc, hasNvcc } from "./compile-helpers.js";

const C_FAMILY: readonly TargetName[] = ["c", "openmp", "opencl", "cuda", "hip", "sycl", "metal", "ispc", "alpaka", "cucl", "okl"];
const FLAG: ReadonlySet<TargetName> = new Set(["c", "openmp"]);

const trapping = makeKernel("{[i]: 0<=i<n}", [
  "q[i] = a[i] / b[i] {id=div}", "f[i] = a[i] // b[i] {id=fdiv}", "m[i] = a[i] % b[i] {id=mod}",
  "s[i] = a[i] << b[i] {id=shl}", "p[i] = a[i] ** b[i] {id=pow}", "w[i] = l[i] >> c[i] {id=wide}",
], ["a, b, q, f, m, s, p: int32[n]", "l, w: int64[n]", "c: uint64[n]", "n: int32"], { name: "trapping" });

/** Nothing here can trap: literal divisors, counts proved in 0..31 (a literal, `% 8`, `& 7`), a literal exponent. */
const safe = makeKernel("{[i]: 0<=i<n}", [
  "o[i] = a[i] // 4 + a[i] % 8 + (a[i] << 3) + (a[i] >> (b[i] % 8)) + (a[i] >> (b[i] & 7)) + a[i] ** 2 + a[i] / 3 {id=safe}",
], ["a, b, o: int32[n]", "n: int32"], { name: "safe" });

/** Counts bounded by their loop: `j` in 0..7 shifts unchecked (and is an exponent), `k` in 0..40 does not. */
const loops = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<8 and 0<=k<41}", [
  "o[i, j] = (a[i] << j) + a[i] ** j {id=inrange}", "p[i, k] = a[i] >> k {id=outrange}",
], ["a: int32[n]", "o: int32[n, 8]", "p: int32[n, 41]", "n: int32"], { name: "loopcounts" });

const traps = (t: TargetName, k = trapping) => (generateCode(k, t)).intTraps;

describe("every C-family target checks each integer trap", () => {
  for (const target of C_FAMILY) {
    it(`${target}: a numbered site per check, recorded ${FLAG.has(target) ? "in the static flag" : "in the trap buffer, the kernel's last parameter"}`, () => {
      const code = generateCode(trapping, target).deviceCode;
      const table = traps(target)!;
      expect(table.mode).toBe(FLAG.has(target) ? "flag" : "buffer");
      expect(table.sites).toEqual([
        { insn: "div", what: "division" }, { insn: "fdiv", what: "division" }, { insn: "mod", what: "modulo" },
        { insn: "shl", what: "shift", width: 32 }, { insn: "pow", what: "power" }, { insn: "wide", what: "shift", width: 64, unsigned: true },
      ]);
      expect(table.kernels).toEqual([!FLAG.has(target)]);
      expect(code).toMatch(/void loopy_trap\(/);
      const checks = [["loopy_div_int32(a[i], b[i], ", 1], ["loopy_floor_div_chk_int32(a[i], b[i], ", 2], ["loopy_mod_chk_int32(a[i], b[i], ", 3],
        ["loopy_shc_32_int32(b[i], ", 4], ["loopy_pow_chk_int32(a[i], b[i], ", 5], ["loopy_shc_64_uint64(c[i], ", 6]] as const;
      if (FLAG.has(target)) {
        // In the loop, each check lowers its own key (codegen/targets/int-trap-loops.ts), which the
        // loop's end records: the least iteration's, the first printed among those of one iteration,
        // with its count or exponent read again there (nothing the loop writes).
        checks.forEach(([call, site], x) => {
          const acc = call.replace(/_(u?int\d+)\(/, "_acc_$1(");
          expect(code).toContain(`${acc}&loopy_trap_k${x + 1}, loopy_trap_ord(i))`);
          expect(code).toContain(`if (loopy_trap_u == ${x}u) loopy_trap(${site}u, ${site <= 3 ? "0" : `(int64_t) (${["b[i]", "b[i]", "c[i]"][site - 4]})`});`);
        });
        expect(code).toContain("loopy_shc_64_acc_uint64(uint64_t b, uint32_t *k, uint32_t o) { { uint32_t key = o | ((uint32_t) ((uint64_t) b > 63u) - 1u);");
        return;
      }
      // Each check passes its site and the buffer; the count of a uint64 is compared unsigned.
      for (const [call, site] of checks) expect(code).toContain(`${call}${table.param}, ${site}u)`);
      expect(code).toMatch(/loopy_shc_64_uint64\([^)]*\) \{ if \(b > 63\)/);
      expect(code).toMatch(new RegExp(`\\b${table.param}\\b[^,]*\\)`));
    });
  }

  it("the host listings pass the trap buffer to the kernels that take it", () => {
    expect(generateCode(trapping, "opencl").hostCode).toContain("trapping(a, b, q, f, m, s, p, l, w, c, n, loom_trap);");
    expect(generateCode(trapping, "sycl").hostCode).toMatch(/unsigned int \*loom_trap\)\n\{\n {2}trapping\(loopy_queue, .*, loom_trap\)\.wait\(\);/);
    expect(generateCode(trapping, "metal").hostCode).toContain("setBuffer(loom_trap, 0, 11);");
  });
});

describe("no check where nothing can trap", () => {
  for (const target of C_FAMILY) {
    it(`${target}: literal divisors, counts proved in range and literal exponents print plainly`, () => {
      const code = generateCode(safe, target).deviceCode;
      expect(traps(target, safe)).toBeUndefined();
      expect(code).not.toMatch(/loopy_trap|loom_trap|loopy_shc|_chk_/);
    });
  }
});

describe("a count or exponent bounded by its loop", () => {
  for (const target of ["c", "opencl", "cuda"] as const) {
    it(`${target}: in range, unchecked; out of range, checked`, () => {
      expect(traps(target, loops)!.sites).toEqual([{ insn: "outrange", what: "shift", width: 32 }]);
      const code = generateCode(loops, target).deviceCode;
      expect(code).toMatch(/\(a\[i\] << j\)/);
      expect(code).toMatch(/loopy_pow_int32\(a\[i\], j\)/);
      expect(code).toMatch(target === "c" ? /a\[i\] >> loopy_shc_32_acc_int32\(k, / : /a\[i\] >> loopy_shc_32_int32\(k, /);
    });
  }
});

describe("the names the checks add collide with no user name", () => {
  const hostile = makeKernel("{[i]: 0<=i<n}", ["loom_trap[i] = loopy_trap[i] // loopy_int_trap[i] {id=d}", "loopy_shc_32_int32[i] = loopy_trap[i] << loopy_int_trap[i] {id=s}"],
    ["loom_trap, loopy_trap, loopy_int_trap, loopy_shc_32_int32: int32[n]", "n: int32"], { name: "hostile" });
  const args = () => ({ loopy_trap: Int32Array.from([7, 8, 9]), loopy_int_trap: Int32Array.from([2, 0, 1]), n: 3 });

  it("the trap buffer parameter is a fresh name, the helpers' names are reserved", () => {
    const table = traps("opencl", hostile)!;
    expect(table.param).not.toBe("loom_trap");
    const code = generateCode(hostile, "opencl").deviceCode;
    expect(code).toContain(`__global uint *__restrict__ ${table.param})`);
    expect(code).not.toMatch(/__global int const \*__restrict__ loopy_trap\b/);
  });

  for (const backend of availableNative(["c", "opencl"])) {
    it(`${backend}: runs, and reports the interpreter's error`, async () => {
      const want = await run(hostile, args()).then(() => "no error", (e: Error) => e.message);
      expect(want).toBe('instruction "d": integer division by zero');
      await expect(run(hostile, args(), { backend })).rejects.toThrow(want);
    }, 120_000);
  }
});

describe("cucl on OpenCL reports traps too", () => {
  it.skipIf(availableNative(["opencl"]).length === 0)("a shift count of 40 is the interpreter's error", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "o[i] = a[i] << b[i] {id=sh}", ["a, b, o: int32[n]", "n: int32"], { name: "cushift" });
    const args = { a: Int32Array.from([1, 2]), b: Int32Array.from([3, 40]), n: 2 };
    const want = await run(k, args).then(() => "no error", (e: Error) => e.message);
    expect(want).toMatch(/"sh": shift count 40 is out of range/);
    await expect(nativeBackends.cucl(k, args, {})).rejects.toThrow(want);
    const ok = await nativeBackends.cucl(k, { ...args, b: Int32Array.from([3, 4]) }, {});
    expect([...ok.outputs.o!]).toEqual([8, 32]);
  }, 120_000);
});

describe("the checks compile", () => {
  const dir = mkdtempSync(join(tmpdir(), "loom-int-traps-"));
  const write = (target: TargetName, ext: string) => {
    const file = join(dir, `trapping_${target}.${ext}`);
    writeFileSync(file, generateCode(trapping, target).deviceCode);
    return file;
  };
  const compile = (cmd: string, args: string[]) => {
    try {
      execFileSync(cmd, args, { stdio: "pipe", timeout: compileBudgetMs(2), cwd: dir });
    } catch (e) {
      expect.fail(`${cmd} failed:\n${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
    }
  };
  if (!hasNvcc) console.warn("[skip] int traps in CUDA code: nvcc not found (it needs the CUDA toolkit)");

  it.skipIf(!hasGcc)("c and openmp with gcc -Wall -Werror", () => {
    // One gcc for both (each object beside its source, in `dir`).
    compile("gcc", [...GCC_FLAGS, write("c", "c"), write("openmp", "c")]);
  }, compileBudgetMs(2) + 10_000);

  it.skipIf(!hasNvcc)("cuda, and cucl after CUCL's CUDA prelude, with one nvcc -ptx (no GPU runs them here)", () => {
    const cucl = join(dir, "trapping_cucl.cu");
    writeFileSync(cucl, CUCL_PRELUDES.cuda + generateCode(trapping, "cucl").deviceCode);
    compile("nvcc", ["-ptx", "-diag-suppress", "177", "--output-directory", dir, write("cuda", "cu"), cucl]);
  }, compileBudgetMs(2) + 10_000);
});

describe.skipIf(!hasGxx)("sycl, metal, alpaka and ispc checks pass g++ -fsyntax-only against the API declarations", () => {
  // ISPC's recorder walks the active program instances: declared here as for a gang of one (the shim has no foreach_active).
  const ispc = {
    ...SPELLINGS.ispc,
    include: `${SPELLINGS.ispc.include}\n#define foreach_active(lane) for (int lane = 0; lane < 1; ++lane)\ntemplate <typename T> T extract(T x, int) { return x; }`,
  };
  for (const target of ["sycl", "metal", "alpaka", "ispc"] as const) {
    it(target, () => syntaxCheck([trapping], target, target === "ispc" ? ispc : SPELLINGS[target]), compileBudgetMs(1) + 10_000);
  }
});
