/**
 * Atomic updates in generated code: `x = x op v` (op + - & | ^ min max) and the exchange `x = v`,
 * spelled per target, with fallbacks where a target has no instruction for a dtype; compilable.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { CodegenError } from "../../src/errors.js";
import { atomicUpdateOf, exprToString, type AtomicOp, type Dtype, type Kernel } from "../../src/ir/index.js";
import { parseExpr } from "../../src/parse/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { tagInames } from "../../transforms/index.js";
import { compile, compileAll, compileBudgetMs, GCC_FLAGS, hasGcc, hasNvcc } from "./compile-helpers.js";

const OPS: readonly AtomicOp[] = ["+", "-", "&", "|", "^", "min", "max", "="];
const INTS: readonly Dtype[] = ["int32", "uint32", "int64", "uint64"];
const FLOATS: readonly Dtype[] = ["float32", "float64"];

/** The right-hand side of an update of `r[c]` by `op`. */
function update(op: AtomicOp, cell: string, value: string): string {
  if (op === "=") return value;
  if (op === "min" || op === "max") return `${op}(${cell}, ${value})`;
  return `${cell} ${op} ${value}`;
}

/** 32 work-items (4 groups of 8) updating the 3 cells of `r` atomically. */
function updates(op: AtomicOp, d: Dtype, name = `upd_${d}`): Kernel {
  const value = op === "=" ? "v[ii % 3] + 1" : "v[8*io+ii]";
  const k = makeKernel("{[io,ii]: 0<=io<4 and 0<=ii<8}", `r[ii % 3] = ${update(op, "r[ii % 3]", value)} {id=u, atomic}`,
    [`v: ${d}[32]`, `r: ${d}[3]`], { name });
  return tagInames(k, { io: "g.0", ii: "l.0" });
}

describe("atomicUpdateOf: which update an atomic assignment is", () => {
  const of = (lhs: string, rhs: string) => {
    const u = atomicUpdateOf(parseExpr(lhs), parseExpr(rhs));
    return u && `${u.op} ${exprToString(u.value)}`;
  };
  it("x op v (either side for commutative ops), min/max, exchange; nothing else", () => {
    expect(of("x[i]", "x[i] | a[i]")).toBe("| a[i]");
    expect(of("x[i]", "a[i] ^ x[i]")).toBe("^ a[i]");
    expect(of("x[i]", "x[i] - 1")).toBe("- 1");
    expect(of("x[i]", "1 - x[i]")).toBeUndefined();
    expect(of("x[i]", "max(a[i], x[i])")).toBe("max a[i]");
    expect(of("x[i]", "x[j] + 1")).toBe("= x[j] + 1");
    expect(of("x[i]", "x[i] + x[i]")).toBeUndefined();
    expect(of("x[i]", "2 * x[i]")).toBeUndefined();
  });
});

const line = (code: string, re: RegExp) => code.split("\n").map((l) => l.trim()).find((l) => re.test(l));

describe("each target spells each atomic operation on int32", () => {
  const cases: readonly [AtomicOp, string, string, string][] = [
    // op, CUDA, OpenCL, OKL
    ["+", "atomicAdd", "atomic_add", "+="], ["-", "atomicSub", "atomic_sub", "-="], ["&", "atomicAnd", "atomic_and", "&="],
    ["|", "atomicOr", "atomic_or", "|="], ["^", "atomicXor", "atomic_xor", "^="], ["min", "atomicMin", "atomic_min", ""],
    ["max", "atomicMax", "atomic_max", ""], ["=", "atomicExch", "atomic_xchg", "="],
  ];
  for (const [op, cu, cl, okl] of cases) {
    it(`"${op}": CUDA ${cu}, OpenCL ${cl}, OKL ${okl || "(none)"}`, () => {
      const k = updates(op, "int32");
      // (int32 data arithmetic wraps, computed unsigned: codegen/ast.ts)
      const value = op === "=" ? "(int) ((uint) v[lid(0) % 3] + 1u)" : "v[8 * gid(0) + lid(0)]";
      expect(generateCode(k, "opencl").deviceCode).toContain(`${cl}(&r[lid(0) % 3], ${value});`);
      expect(generateCode(k, "cuda").deviceCode).toMatch(new RegExp(`${cu}\\(&r\\[\\(\\(int\\) threadIdx\\.x\\) % 3\\], `));
      if (okl) expect(generateCode(k, "okl").deviceCode).toContain(`@atomic r[_l0 % 3] ${okl} `);
      else expect(() => generateCode(k, "okl")).toThrow(/okl target has no atomic "m(in|ax)" update/);
    });
  }

  it("OpenMP: `#pragma omp atomic` before `x op= v`, `atomic write` before an exchange, `critical` around min/max", () => {
    for (const op of ["+", "-", "&", "|", "^"] as const) {
      expect(generateCode(updates(op, "int32"), "openmp").deviceCode).toMatch(new RegExp(`#pragma omp atomic\\n\\s*r\\[ii % 3\\] \\${op}= v\\[8 \\* io \\+ ii\\];`));
    }
    expect(generateCode(updates("=", "int32"), "openmp").deviceCode).toMatch(/#pragma omp atomic write\n\s*r\[ii % 3\] = \(int32_t\) \(\(uint32_t\) v\[ii % 3\] \+ 1u\);/);
    expect(generateCode(updates("max", "int32"), "openmp").deviceCode).toMatch(/#pragma omp critical\n\s*r\[ii % 3\] = loopy_max_int32\(r\[ii % 3\], v\[8 \* io \+ ii\]\);/);
  });

  it("c and js write the plain update: they run one work-item at a time", () => {
    expect(generateCode(updates("|", "int32"), "c").deviceCode).toContain("r[ii % 3] = r[ii % 3] | v[8 * io + ii];");
    expect(generateCode(updates("^", "int32"), "js").deviceCode).toMatch(/r\[.*\] = \(\(r\[.*\] \^ v\[/);
  });
});

describe("fallbacks where a target has no instruction for the dtype", () => {
  it("CUDA: int64 through the unsigned long long overloads; 64-bit subtraction as addition of 0 - v", () => {
    expect(line(generateCode(updates("|", "int64"), "cuda").deviceCode, /atomic/)).toMatch(/^atomicOr\(\(unsigned long long \*\) &r\[.*\], \(unsigned long long\) \(v\[.*\]\)\);$/);
    expect(line(generateCode(updates("-", "uint64"), "cuda").deviceCode, /atomic/)).toMatch(/^atomicAdd\(\(unsigned long long \*\) &r\[.*\], 0ULL - \(unsigned long long\) \(v\[.*\]\)\);$/);
    expect(line(generateCode(updates("min", "int64"), "cuda").deviceCode, /atomic/)).toMatch(/^atomicMin\(&r\[/);
  });

  it("CUDA: float subtraction adds the negation, float min/max and double exchange reinterpret the bits", () => {
    expect(line(generateCode(updates("-", "float32"), "cuda").deviceCode, /atomic/)).toMatch(/^atomicAdd\(&r\[.*\], -\(v\[.*\]\)\);$/);
    expect(generateCode(updates("max", "float32"), "cuda").deviceCode).toContain("loopy_old = atomicCAS(loopy_p, loopy_seen, __float_as_uint(fmaxf(__uint_as_float(loopy_seen), loopy_v)));");
    expect(generateCode(updates("min", "float64"), "cuda").deviceCode).toContain("__double_as_longlong(fmin(__longlong_as_double((long long) loopy_seen), loopy_v))");
    expect(generateCode(updates("=", "float64"), "cuda").deviceCode).toContain("atomicExch((unsigned long long *) &r[");
  });

  it("OpenCL: 64-bit integers use atom_* under the cl_khr_int64 extension their operation needs", () => {
    const base = generateCode(updates("+", "int64"), "opencl").deviceCode;
    expect(base).toContain("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable");
    expect(base).toContain("atom_add(&r[");
    const ext = generateCode(updates("^", "uint64"), "opencl").deviceCode;
    expect(ext).toContain("#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable");
    expect(ext).toContain("atom_xor(&r[");
  });

  it("OpenCL: float updates are compare-and-swap loops (double ones on 64-bit words), float exchange is atomic_xchg", () => {
    expect(generateCode(updates("-", "float32"), "opencl").deviceCode).toContain("atomic_cmpxchg(loopy_p, loopy_seen, as_uint(as_float(loopy_seen) - loopy_v))");
    expect(generateCode(updates("max", "float32"), "opencl").deviceCode).toContain("as_uint(fmax(as_float(loopy_seen), loopy_v))");
    const dbl = generateCode(updates("+", "float64"), "opencl").deviceCode;
    expect(dbl).toContain("volatile __global unsigned long *loopy_p");
    expect(dbl).toContain("atom_cmpxchg(loopy_p, loopy_seen, as_ulong(as_double(loopy_seen) + loopy_v))");
    expect(generateCode(updates("=", "float32"), "opencl").deviceCode).toContain("atomic_xchg(&r[");
  });

  it("OpenCL: the loop's pointer is in the address space of the target (__local for a local temporary)", () => {
    const k = tagInames(makeKernel("{[io,ii]: 0<=io<4 and 0<=ii<8}", [
      "t[0] = 0 {id=z}",
      "t[0] = max(t[0], v[8*io+ii]) {id=u, atomic, dep=z}",
      "r[io] = t[0] {id=w, dep=u}",
    ], [temporary("t", "float32", [1], "local"), "v: float32[32]", "r: float32[4]"], { name: "local_max" }), { io: "g.0", ii: "l.0" });
    expect(generateCode(k, "opencl").deviceCode).toContain("volatile __local unsigned int *loopy_p = (volatile __local unsigned int *) &t[0];");
  });

  it("8- and 16-bit cells have no atomics on GPU targets: a CodegenError says what there is", () => {
    const k = updates("|", "int16");
    expect(() => generateCode(k, "cuda")).toThrow(CodegenError);
    expect(() => generateCode(k, "cuda")).toThrow(/no atomic "\|" update of int16; it has atomics on 32- and 64-bit/);
    expect(() => generateCode(k, "opencl")).toThrow(/no atomic "\|" update of int16/);
  });

  it("an atomic assignment that is no update nor exchange is refused where it matters", () => {
    const k = tagInames(makeKernel("{[io,ii]: 0<=io<4 and 0<=ii<8}", "r[ii % 3] = 2 * r[ii % 3] {id=u, atomic}", ["r: int32[3]"], { name: "twice" }), { io: "g.0", ii: "l.0" });
    for (const t of ["cuda", "opencl", "openmp"] as const) expect(() => generateCode(k, t), t).toThrow(/must be x = x op v .* got 2\*r/);
    expect(generateCode(k, "c").deviceCode).toContain("= (int32_t) (2u * (uint32_t) r[");
  });
});

/** Every operation on every dtype it applies to. */
const ALL: readonly Kernel[] = [...INTS, ...FLOATS].flatMap((d) =>
  OPS.filter((op) => INTS.includes(d) || !["&", "|", "^"].includes(op)).map((op, x) => updates(op, d, `upd_${d}_${x}`)));

describe.skipIf(!hasGcc)("gcc -Wall -Werror compiles every atomic operation", () => {
  it("c and openmp", () => {
    for (const k of ALL) {
      compile(k, "c", "c", "gcc", GCC_FLAGS);
      compile(k, "openmp", "c", "gcc", GCC_FLAGS);
    }
  });
});

describe.skipIf(!hasNvcc)("nvcc compiles every atomic operation", () => {
  it("cuda (nvcc -ptx, one nvcc process for every kernel)", () => {
    compileAll(ALL, "cuda", "cu", "nvcc", ["-ptx"]);
  }, compileBudgetMs(ALL.length) + 10_000);
});
