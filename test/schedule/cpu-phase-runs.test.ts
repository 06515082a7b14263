/**
 * The CPU lowering keeps one slot for all work-items of a private value that every run of a phase
 * writes before it reads it (cpu-phase-runs.ts, `assignedBeforeRead`; OCCA's iso3dfd). The law: random
 * OKL kernels whose second `@inner` loop, in a loop of trips holding the barrier, runs a random
 * program over an `@exclusive` scalar or two-cell array (each work-item's own value set before the
 * trips) — plain writes, updates, writes under an `if`, in a loop of 0, 1, 2 or `m` trips — compute
 * on js (and c where gcc runs here) what the interpreter computes. A wrong single slot hands every
 * work-item the last work-item's value of the trip before.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { withKernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { ScheduleError } from "../../src/errors.js";
import { run } from "../../src/run/index.js";
import { assignedBeforeRead } from "../../src/schedule/cpu-phase-runs.js";
import type { ScheduleNode } from "../../src/schedule/types.js";
import { compileBudgetMs } from "../codegen/compile-helpers.js";
import { availableNative } from "../run/native-helpers.js";

/** One statement of the program: what it assigns (`value`, `va[0]`, `va[1]`), how, and where. */
interface Stmt {
  readonly cell: 0 | 1;
  readonly how: "set" | "add";
  readonly where: "plain" | "if" | "loop" | "ifelse";
  readonly cond: string;
  readonly trips: string;
  readonly rhs: string;
}

interface Program {
  readonly group: number;
  readonly array: boolean;
  readonly stmts: readonly Stmt[];
}

const genStmt: fc.Arbitrary<Stmt> = fc.record({
  cell: fc.constantFrom(0 as const, 1 as const),
  how: fc.constantFrom("set" as const, "add" as const),
  where: fc.constantFrom("plain" as const, "if" as const, "loop" as const, "ifelse" as const),
  cond: fc.constantFrom("t % 2 == 0", "it > 0", "t < 2", "m > 1"),
  trips: fc.constantFrom("0", "1", "2", "m"),
  rhs: fc.constantFrom("a[i % n]", "(float) t", "s[(t + 1) % G]", "0.25f * it"),
});

const genProgram: fc.Arbitrary<Program> = fc.record({
  group: fc.integer({ min: 2, max: 5 }),
  array: fc.boolean(),
  stmts: fc.array(genStmt, { minLength: 1, maxLength: 4 }),
});

/** The OKL source of `p`: `v` names the value (`value`, or a cell of `va`); `runtime`: the work-group size is the argument `L`. */
function source(p: Program, runtime = false): string {
  const G = runtime ? "L" : String(p.group);
  const v = (c: 0 | 1) => (p.array ? `va[${c}]` : "value");
  const stmt = (x: Stmt): string => {
    const rhs = x.rhs.replace("% G", `% ${G}`);
    const body = x.how === "set" ? `${v(x.cell)} = ${rhs};` : `${v(x.cell)} += ${rhs};`;
    switch (x.where) {
      case "plain": return `        ${body}`;
      case "if": return `        if (${x.cond}) ${body}`;
      case "loop": return `        for (int r = 0; r < ${x.trips}; ++r) { ${body.replace(";", " + r;")} }`;
      case "ifelse": return `        if (${x.cond}) ${body} else ${v(x.cell)} = 2.0f;`;
    }
  };
  return [
    `@kernel void runs(const int n, const int m,${runtime ? " const int L," : ""} const float *a, float *out) {`,
    `  for (int g = 0; g < (n + ${G} - 1) / ${G}; ++g; @outer) {`,
    `    @shared float s[${runtime ? 8 : G}];`,
    p.array ? "    @exclusive float va[2];" : "    @exclusive float value;",
    // Each work-item's own value before the trips: a single slot would show another's.
    `    for (int t = 0; t < ${G}; ++t; @inner) { ${p.array ? "va[0] = t + 0.5f; va[1] = 3.0f - t;" : "value = t + 0.5f;"} }`,
    "    for (int it = 0; it < 3; ++it) {",
    `      for (int t = 0; t < ${G}; ++t; @inner) { const int i = g * ${G} + t; s[t] = i < n ? a[i] : 0; }`,
    `      for (int t = 0; t < ${G}; ++t; @inner) {`,
    `        const int i = g * ${G} + t;`,
    ...p.stmts.map(stmt),
    `        if (i < n) out[it * n + i] = ${p.array ? "va[0] * 2.0f + va[1]" : "value"};`,
    "      }",
    "    }",
    "  }",
    "}",
  ].join("\n");
}

const args = (n: number, m: number, L?: number) => ({
  n, m, ...(L === undefined ? {} : { L }), a: Float32Array.from({ length: n }, (_, i) => ((i * 7) % 5) - 1.5), out: new Float32Array(3 * n),
});

/** What `backend` computes for `p` and what the interpreter does: the cells that differ (the first few). */
async function mismatches(p: Program, backend: string, n: number, m: number, runtime = false): Promise<string[]> {
  const [k] = parseOkl(source(p, runtime));
  const L = runtime ? p.group : undefined;
  const want = ((await run(k!, args(n, m, L) as never, {} as never)) as Record<string, Float32Array>).out!;
  const got = ((await run(k!, args(n, m, L) as never, { backend, checkBounds: false } as never)) as Record<string, Float32Array>).out!;
  const bad: string[] = [];
  want.forEach((w, i) => { if (!(Math.abs(got[i]! - w) <= 1e-5 * Math.max(1, Math.abs(w)))) bad.push(`out[${i}]: ${w} on interp, ${got[i]} on ${backend}`); });
  return bad.slice(0, 3);
}

const show = (p: Program, n: number, m: number) => `n = ${n}, m = ${m}:\n${source(p)}`;

describe("CPU lowering: one slot for a private value written in each run of a phase before it is read", () => {
  it("law: random programs over an @exclusive value in a phase run again by a loop of trips compute on js what the interpreter computes", async () => {
    await fc.assert(fc.asyncProperty(genProgram, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 2 }), async (p, n, m) => {
      expect(await mismatches(p, "js", n, m), show(p, n, m)).toEqual([]);
    }), { numRuns: 40 });
  }, 120_000);

  it("law: with the work-group size an argument, a program lowers (and computes what the interpreter computes on js) exactly where a constant size keeps one slot; else it is refused", async () => {
    await fc.assert(fc.asyncProperty(genProgram, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 2 }), async (p, n, m) => {
      // A slot per work-item at a constant size G: `float value[G]`, `float va[2*G]`.
      const needsSlot = generateCode(parseOkl(source(p))[0]!, "c").deviceCode.includes(p.array ? `float va[${2 * p.group}];` : "float value[");
      let refused: unknown;
      try { generateCode(parseOkl(source(p, true))[0]!, "js"); } catch (e) { refused = e; }
      if (refused !== undefined) {
        expect(refused, show(p, n, m)).toBeInstanceOf(ScheduleError);
        expect(String(refused)).toMatch(/not a compile-time constant/);
      }
      expect(refused !== undefined, show(p, n, m)).toBe(needsSlot);
      if (refused === undefined) expect(await mismatches(p, "js", n, m, true), show(p, n, m)).toEqual([]);
    }), {
      numRuns: 25,
      // iso3dfd's shape (lowers), and a write under an `if` (refused), whatever the run's random cases.
      examples: [
        [{ group: 3, array: false, stmts: [{ cell: 0, how: "set", where: "plain", cond: "t < 2", trips: "0", rhs: "(float) t" }, { cell: 0, how: "add", where: "loop", cond: "t < 2", trips: "m", rhs: "s[(t + 1) % G]" }] }, 5, 2],
        [{ group: 2, array: false, stmts: [{ cell: 0, how: "set", where: "if", cond: "t % 2 == 0", trips: "0", rhs: "a[i % n]" }] }, 2, 0],
      ],
    });
  }, 120_000);

  it.runIf(availableNative(["c"]).length > 0)("law, on c: the same for a few programs", async () => {
    await fc.assert(fc.asyncProperty(genProgram, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 2 }), async (p, n, m) => {
      expect(await mismatches(p, "c", n, m), show(p, n, m)).toEqual([]);
    }), { numRuns: 4 });
  }, compileBudgetMs(4));

  it("the rule is not vacuous: a value rewritten in each run keeps one scalar; one written under a condition, in a loop, or in one cell gets a slot per work-item", () => {
    const c = (stmts: Stmt[], array = false) => generateCode(parseOkl(source({ group: 4, array, stmts }))[0]!, "c").deviceCode;
    const s = (o: Partial<Stmt>): Stmt => ({ cell: 0, how: "set", where: "plain", cond: "t < 2", trips: "2", rhs: "a[i % n]", ...o });
    // Written, then updated in a loop (iso3dfd's shape): one scalar.
    expect(c([s({}), s({ how: "add", where: "loop" })])).toMatch(/\bfloat value;/);
    for (const carried of [[s({ where: "if" })], [s({ where: "loop" })], [s({ where: "ifelse" })], [s({ how: "add" })]]) expect(c(carried)).toMatch(/\bfloat value\[4\];/);
    // Both cells written: two cells for the group; one only: two per work-item.
    expect(c([s({ cell: 0 }), s({ cell: 1 })], true)).toMatch(/\bfloat va\[2\];/);
    expect(c([s({ cell: 0 })], true)).toMatch(/\bfloat va\[8\];/);
  });
  it("a write under `if (f > 0)` does not cover a read under the same `if` once `f` has changed between them (makeKernel, on js)", async () => {
    // Work-item i: f = i % 2; if (f > 0) value = s[3 - i]; f = 1; if (f > 0) out = value: even i read
    // the value it kept from before the trips (i + 0.5), never written in a trip.
    const G = 2, V = 3;
    const x = Float64Array.from({ length: V * 4 * G }, (_, q) => q * 0.75 - 2);
    // Tags set on the record: tagInames's own check of values carried across g (transforms/private-checks.ts) is not what is tested here.
    const k0 = makeKernel("{[g,v,i,j]: 0<=g<G and 0<=v<V and 0<=i<4 and 0<=j<4}", [
      "value = i + 0.5 {id=init}",
      "s[j] = x[v, g*4+j] {id=sw, dep=init}",
      "f = i % 2 {id=f0, dep=sw, inames=g:v:i}",
      "value = s[3-i] {id=w, dep=f0:sw:init, if=f > 0, inames=g:v:i}",
      "f = 1 {id=f1, dep=w, inames=g:v:i}",
      "out[v, g*4+i] = value {id=r, dep=f1:w:init, if=f > 0, inames=g:v:i}",
    ], ["x, out: float64[V, 4*G]", "G, V: int32", temporary("s", "float64", [4], "local"),
      temporary("value", "float64", [], "private"), temporary("f", "int32", [], "private")]);
    const k = withKernel(k0, { inameTags: { ...k0.inameTags, g: { kind: "g", axis: 0 }, i: { kind: "l", axis: 0 }, j: { kind: "l", axis: 0 } } });
    expect(generateCode(k, "c").deviceCode).toMatch(/\bvalue\[4\]/);
    const want = Array.from({ length: V * 4 * G }, (_, q) => { const i = q % 4; return i % 2 === 1 ? x[q - i + 3 - i]! : i + 0.5; });
    for (const backend of ["interp", "js"]) {
      const got = ((await run(k, { x: Float64Array.from(x), G, V, out: new Float64Array(V * 4 * G) } as never, { backend } as never)) as Record<string, Float64Array>).out!;
      expect(Array.from(got), backend).toEqual(want);
    }
  });
  it("assignedBeforeRead: a write in one loop over j does not cover a read in another loop over j (the first may run no trip)", () => {
    const k = makeKernel("{[j]: 0<=j<n}", ["t = j {id=w}", "out[j] = t {id=r, dep=w}"],
      ["out: float64[n]", "n: int32", temporary("t", "float64", [], "private")]);
    const byId = new Map(k.instructions.map((x) => [x.id, x]));
    const insn = (id: string): ScheduleNode => ({ kind: "insn", id });
    const loop = (...body: ScheduleNode[]): ScheduleNode => ({ kind: "loop", iname: "j", body });
    expect([...assignedBeforeRead(k, [loop(insn("w"), insn("r"))], new Set(["t"]), byId)]).toEqual(["t"]);
    expect([...assignedBeforeRead(k, [loop(insn("w")), loop(insn("r"))], new Set(["t"]), byId)]).toEqual([]);
    // A barrier starts another run.
    expect([...assignedBeforeRead(k, [loop(insn("w"), { kind: "barrier", scope: "local", comment: "" }, insn("r"))], new Set(["t"]), byId)]).toEqual([]);
  });
});
