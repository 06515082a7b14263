/**
 * Opaque blocks: the interpreter runs their statements with C semantics (while with a
 * data-dependent trip count, break/continue, early exits through nested loops); code generation
 * prints them for every target (exits as flags), and every backend computes what the interpreter
 * does. Passes that cannot see inside a block refuse with an error naming it.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ExecutionError, LoomError, TransformError } from "../../src/errors.js";
import { blockAccesses, checkBlock, checkOperandTypes, lowerExits, show, type BlockStmt, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { addPrefetch, assignmentToSubst } from "../../transforms/index.js";
import { availableNative, nativeAvailable } from "../run/native-helpers.js";
import { S, withBlock } from "./block-helpers.js";

const base = () => makeKernel("{[i]: 0<=i<n}", ["out[i] = 0 {id=b}"], ["a: int32[n]", "out: int32[n]", "n: int32"]);

/** Steps of the Collatz sequence from a[i] to 1: a while loop whose trip count depends on the data. */
const COLLATZ: BlockStmt[] = [
  S.decl("x", "int32", "a[i]"), S.decl("steps", "int32", "0"),
  S.while("x != 1", [S.if("x % 2 == 0", [S.set("x", "x / 2")], [S.set("x", "3*x + 1")]), S.set("steps", "steps + 1")]),
  S.set("out[i]", "steps"),
];
const collatz = (x: number) => { let s = 0; while (x !== 1) { x = x % 2 === 0 ? x / 2 : 3 * x + 1; s++; } return s; };

/** Sum of j < 20 skipping multiples of 3, stopping at the first j with j*a[i] > 60: break and continue. */
const JUMPS: BlockStmt[] = [
  S.decl("s", "int32", "0"),
  S.for([S.decl("j", "int32", "0")], "j < 20", [S.set("j", "j + 1")], [
    S.if("j % 3 == 0", [S.continue]),
    S.if("j * a[i] > 60", [S.break]),
    S.set("s", "s + j"),
  ]),
  S.set("out[i]", "s"),
];
const jumps = (a: number) => { let s = 0; for (let j = 0; j < 20; j++) { if (j % 3 === 0) continue; if (j * a > 60) break; s += j; } return s; };

/** The first (j, k) with j*k*a[i] > 50, as 100*j + k, else -1: an exit out of two nested loops (an inlined `return`). */
const SEARCH: BlockStmt[] = [
  S.decl("r", "int32", "-1"),
  S.labeled("find", [
    S.for([S.decl("j", "int32", "1")], "j < 8", [S.set("j", "j + 1")], [
      S.decl("k", "int32", "1"),
      S.doWhile([
        S.if("j * k * a[i] > 50", [S.set("r", "100*j + k"), S.exit("find")]),
        S.set("k", "k + 1"),
      ], "k < 8"),
    ]),
    S.set("r", "r - 1000"),
  ]),
  S.set("out[i]", "r"),
];
const search = (a: number) => { for (let j = 1; j < 8; j++) for (let k = 1; k < 8; k++) if (j * k * a > 50) return 100 * j + k; return -1 - 1000; };

const A = Int32Array.from([1, 2, 3, 6, 7, 27, 9, 12, 5, 4, 97]);
const cases: [string, BlockStmt[], (a: number) => number][] = [["collatz", COLLATZ, collatz], ["jumps", JUMPS, jumps], ["search", SEARCH, search]];

async function outOf(k: Kernel, backend: "interp" | "js" | "c" | "openmp" | "opencl", a = A): Promise<number[]> {
  const r = await run(k, { a, n: a.length }, { backend, checkBounds: false });
  return Array.from(r.out! as Int32Array);
}

describe("the interpreter runs blocks with C semantics", () => {
  for (const [name, body, ref] of cases) {
    it(`${name}`, async () => {
      expect(await outOf(withBlock(base(), "b", body), "interp")).toEqual(Array.from(A, ref));
    });
  }

  it("an exit lowered to flags (what code generation prints) means what the labeled exit means", async () => {
    for (const [, body, ref] of cases) {
      const flagged = lowerExits(body, new Set(["i", "a", "out", "n"]));
      expect(JSON.stringify(flagged)).not.toMatch(/"labeled"|"exit"/);
      expect(await outOf(withBlock(base(), "b", flagged), "interp")).toEqual(Array.from(A, ref));
    }
  });

  it("converts stores to the target's dtype and checks bounds like an assignment", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["out[i] = 0 {id=b}"], ["a: float32[n]", "out: int32[n]", "n: int32"]);
    const half = withBlock(k, "b", [S.decl("x", "float32", "a[i] / 2"), S.set("out[i]", "x")]);
    expect(Array.from((await run(half, { a: Float32Array.from([3, -5, 8]), n: 3 })).out! as Int32Array)).toEqual([1, -2, 4]);
    const oob = withBlock(k, "b", [S.decl("j", "int32", "i"), S.while("j < n + 1", [S.set("j", "j + 1")]), S.set("out[j]", "1")]);
    await expect(run(oob, { a: new Float32Array(3), n: 3 })).rejects.toThrow(/out of bounds|outside|index/i);
  });
});

describe("blocks on every backend", () => {
  const backends = ["js", ...availableNative(["c", "openmp", "opencl"])] as const;
  for (const [name, body] of cases) {
    it(`${name}: ${backends.join(", ")} agree with the interpreter`, async () => {
      const k = withBlock(base(), "b", body);
      const want = await outOf(k, "interp");
      for (const b of backends) expect(await outOf(k, b as "js")).toEqual(want);
    });
  }

  it("prints loops, breaks and exit flags in each target's dialect", () => {
    const k = withBlock(base(), "b", SEARCH);
    for (const t of ["c", "openmp", "opencl", "cuda", "js", "okl"] as const) {
      const code = generateCode(k, t).deviceCode;
      expect(code, t).toMatch(/while \(/);
      expect(code, t).toMatch(/\bdo\b[\s\S]*\} while \(/);
      expect(code, t).toMatch(/find_exit = 1;/);
      expect(code, t).toMatch(/break;/);
    }
  });

  it("renames a local that a kernel name would shadow", () => {
    const k = withBlock(base(), "b", [S.decl("n", "int32", "a[i]"), S.set("out[i]", "n")]);
    const code = generateCode(k, "c").deviceCode;
    expect(code).toMatch(/int32_t n_0 = a\[i\];/);
    expect(code).toMatch(/out\[i\] = n_0;/);
  });
});

describe("what a block touches", () => {
  it("reads and writes whole variables; locals are its own", () => {
    const acc = blockAccesses(SEARCH);
    expect([...acc.writes]).toEqual(["out"]);
    expect([...acc.reads].sort()).toEqual(["a", "i"]);
  });

  it("show prints the statements", () => {
    expect(show(withBlock(base(), "b", JUMPS))).toMatch(/\.\.\. block {2}\{id=b\}\n\s+<int32> s = 0;\n\s+for \(<int32> j = 0; j < 20; j = j \+ 1;\) \{/);
  });
});

describe("errors name the block", () => {
  it("a malformed block is a LoomError on every path", async () => {
    expect(checkBlock([S.break])).toMatch(/"break" outside a loop/);
    expect(checkBlock([S.exit("L")])).toMatch(/outside the region labeled L/);
    const bad = withBlock(base(), "b", [S.break]);
    await expect(run(bad, { a: A, n: A.length })).rejects.toThrow(ExecutionError);
    expect(() => generateCode(bad, "c")).toThrow(LoomError);
    expect(() => generateCode(bad, "c")).toThrow(/block "b": "break" outside a loop/);
  });

  it("operand types are checked with the block's locals in scope", () => {
    // A float local in a bitwise operation is refused, naming the block.
    const floatLocal = withBlock(base(), "b", [S.decl("x", "float32", "a[i]"), S.set("out[i]", "x & 1")]);
    expect(checkOperandTypes(floatLocal)).toEqual({ insn: "b", message: expect.stringMatching(/bitwise operator "&" needs integer operands/) });
    // An int local shadowing a float argument is an integer inside the block.
    const k0 = makeKernel("{[i]: 0<=i<n}", ["out[i] = 0 {id=b}"], ["a: int32[n]", "s: float32", "out: int32[n]", "n: int32"]);
    const shadow = withBlock(k0, "b", [S.decl("s", "int32", "a[i]"), S.set("out[i]", "s & 1")]);
    expect(checkOperandTypes(shadow)).toBeUndefined();
    // A block's float local does not leak: the int argument of that name is an integer outside it.
    const k1 = makeKernel("{[i]: 0<=i<n}", ["out[i] = 0 {id=b}", "out[i] = out[i] + (s & 1) {id=c, dep=b}"], ["a: int32[n]", "s: int32", "out: int32[n]", "n: int32"]);
    expect(checkOperandTypes(withBlock(k1, "b", [S.decl("s", "float32", "a[i]"), S.set("out[i]", "s > 0")]))).toBeUndefined();
  });

  it("addPrefetch refuses an array a block reads", () => {
    const k = withBlock(base(), "b", COLLATZ);
    expect(() => addPrefetch(k, "a", { sweepInames: ["i"] })).toThrow(TransformError);
    expect(() => addPrefetch(k, "a", { sweepInames: ["i"] })).toThrow(/block "b" reads a; accesses inside a block are not affine/);
  });

  it("assignmentToSubst refuses a temporary a block writes", () => {
    const k0 = makeKernel("{[i]: 0<=i<8}", ["<int32> t[i] = 0 {id=b}", "out[i] = t[i] {id=use, dep=b}"], ["a, out: int32[8]"]);
    const k = withBlock(k0, "b", [S.set("t[i]", "a[i] + 1")]);
    expect(() => assignmentToSubst(k, "t")).toThrow(/written by block "b"/);
  });

  it.skipIf(!nativeAvailable("c"))("native runs refuse to run unproved block accesses unless checkBounds is off", async () => {
    const backend = "c";
    const k = withBlock(base(), "b", COLLATZ);
    await expect(run(k, { a: A, n: A.length }, { backend })).rejects.toThrow(/block "b" .*accesses a, out .*checkBounds: false/);
    expect(Array.from((await run(k, { a: A, n: A.length }, { backend, checkBounds: false })).out! as Int32Array)).toEqual(Array.from(A, collatz));
  });
});
