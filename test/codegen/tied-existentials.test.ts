/**
 * Domains whose constraints tie several existentials together (an instruction that runs within
 * some inames of a domain whose other inames are coupled, as a private prefetch of a split swept
 * iname leaves it): code generation guards them exactly, as a disjunction of untied pieces
 * (src/poly/lattice.ts), for every target; the js backend agrees with the interpreter.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { iterationDomain, type Kernel, type TypedArray } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { isEmpty } from "../../src/poly/index.js";
import { tiesExistentials } from "../../src/poly/lattice.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { tagInames } from "../../transforms/index.js";
import { fromJSON } from "../../transforms/pipeline.js";

function sameBits(a: TypedArray, b: TypedArray): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

async function agree(k: Kernel, args: Record<string, TypedArray | number>): Promise<boolean> {
  const ref = await run(k, args);
  const js = await run(k, args, { backend: "js" });
  return Object.keys(ref).every((name) => sameBits(ref[name]!, js[name]!));
}

const TIED = [
  // The shape a private prefetch of a split swept iname leaves (random pipeline, seed 57).
  "{[i,j,a,b]: 0<=i<n and 0<=j<8 and 0<=a<=2 and 0<=b<=6 and 0 <= 7a + b <= 15 and 0 <= j + 35a + 5b < m}",
  "{[i,j,a,b]: 0<=i<n and 0<=j<8 and 0<=a<=3 and 0<=b<=3 and 3a + 5b <= 2i + j <= 3a + 5b + 1}",
  "{[i,j,a,b]: 0<=i<n and 0<=j<8 and 0<=a<=3 and 0<=b<=3 and 2i + 3j = 4a + 6b + 1}",
  "{[i,j,a,b]: 0<=i<n and 0<=j<8 and 0<=a<=2 and 0<=b<=6 and 3 <= 7a + 2b and 0 <= 3j - 35a - 5b + m <= 2}",
  // No change of variables unties these rows: a case split on a (3 pieces), guarded as a disjunction.
  "{[i,j,a,b]: 0<=i<n and 0<=j<8 and 0<=a<=2 and 0<=b<=3 and 0 <= -6 - 4i - 2j - 2a + 5b and 0 <= 1 + 4i + 3j - 5a - b and 0 <= -2 + m + 4a - 4b}",
];

describe("a domain tying existentials in one constraint", () => {
  const kernels = TIED.map((d) => makeKernel(d, "out[i,j] = 1 + i + j {inames=i:j}", ["out: int32[n,8]", "n, m: int32"]));

  it("ties them after projection onto the instruction's inames", () => {
    for (const k of kernels) expect(tiesExistentials(iterationDomain(k, ["i", "j"]))).toBe(true);
  });

  it("generates code for c, opencl and js", () => {
    for (const k of kernels) {
      for (const t of ["c", "js"] as const) expect(() => generateCode(k, t)).not.toThrow();
      expect(generateCode(tagInames(k, { i: "g.0", j: "l.0" }), "opencl").deviceCode).toContain("get_local_id");
    }
    // An equality over both existentials becomes a divisibility test: 2i + 3j - 1 is even.
    expect(generateCode(kernels[4]!, "c").deviceCode).toContain(" || ");
    expect(generateCode(kernels[2]!, "c").deviceCode).toMatch(/mod\w*\(2 \* i \+ 3 \* j - 1, 2\) == 0/);
  });

  it("js agrees with the interpreter for every m (the guard is exact)", async () => {
    for (const k of kernels) {
      for (let m = -3; m <= 40; m += 1) {
        expect(await agree(k, { out: new Int32Array(4 * 8), n: 4, m })).toBe(true);
        expect(await agree(tagInames(k, { i: "g.0", j: "l.0" }), { out: new Int32Array(2 * 8), n: 2, m })).toBe(true);
      }
    }
  });

  it("the private prefetch of a split swept iname with a g.2 tag (random pipeline, seed 57)", async () => {
    const ref = makeKernel(["{[i,j]: 0<=i<n and 0<=j<m}"], ["out[i,j] = a[i,j]*2 + j"], ["a, out: float64[n,m]", "n, m: int32"]);
    const p = fromJSON([
      { op: "tile", args: [["i", "j"], [2, 5], { innerTags: ["l.1", "l.0"] }] },
      { op: "tile", args: [["i_outer", "j_outer"], [5, 16], { outerTags: ["g.1", "g.0"] }] },
      { op: "addPrefetch", args: ["a", { sweepInames: ["j_outer_inner"], temporaryAddressSpace: "private" }] },
      { op: "splitIname", args: ["j_outer_inner", 7] },
      { op: "tagInames", args: [{ j_outer_inner_outer: "g.2" }] },
    ]);
    const k2 = p(ref);
    for (const t of ["c", "opencl", "js"] as const) expect(() => generateCode(k2, t)).not.toThrow();
    for (const [n, m] of [[0, 0], [3, 4], [19, 7], [4, 90], [2, 171]] as const) {
      for (const backend of ["interp", "js"] as const) {
        const r = await autoTestVsRef(ref, k2, { params: { n, m }, backend });
        expect(r.mismatches).toEqual([]);
      }
    }
  });
});

describe("property: tied existentials, js and interp agree", () => {
  const coef = fc.integer({ min: -4, max: 4 });
  const nz = fc.integer({ min: 1, max: 6 }).chain((x) => fc.constantFrom(x, -x));
  const row = fc.record({ i: coef, j: coef, n: fc.integer({ min: -1, max: 1 }), a: nz, b: nz, c: fc.integer({ min: -8, max: 12 }), eq: fc.boolean() });
  const term = (x: number, v: string) => (x === 0 ? "" : ` + ${x}*${v}`);
  it("for random rows tying a and b, and tags none or g/l", async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(row, { minLength: 2, maxLength: 3 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 5 }), fc.boolean(),
      async (rows, A, Bmax, n, gl) => {
        const cons = rows.map((r, k) => `0 ${r.eq && k === 0 ? "=" : "<="} ${r.c}${term(r.i, "i")}${term(r.j, "j")}${term(r.n, "n")}${term(r.a, "a")}${term(r.b, "b")}`);
        const dom = `{[i,j,a,b]: 0<=i<n and 0<=j<8 and 0<=a<=${A} and 0<=b<=${Bmax} and ${cons.join(" and ")}}`;
        let k = makeKernel(dom, "out[i,j] = 1 + i + 3*j {inames=i:j}", ["out: int32[n,8]", "n: int32"]);
        // A domain empty for every n is another matter (code generation finds no loop bounds).
        if (isEmpty(k.domains[0]!)) return true;
        if (gl) k = tagInames(k, { i: "g.0", j: "l.0" });
        try {
          for (const t of ["c", "js"] as const) generateCode(k, t);
        } catch (e) {
          // Rows tying j to a and b can leave the l.0 iname without a work-group size (about one
          // case in a thousand): the scheduler rightly refuses that kernel.
          if (gl && e instanceof ScheduleError && /iname "j" is tagged l\.0, but its extent is neither/.test(e.message)) return true;
          throw e;
        }
        return agree(k, { out: new Int32Array(n * 8), n });
      }), { numRuns: 300 });
  }); // the suite's budget (vitest.config.ts): 60 s ran out at load 20
});
