/**
 * Substitution rules (loopy/transform/subst.py): extractSubst, assignmentToSubst, expandSubst.
 * Laws: each keeps the meaning of the kernel (autoTestVsRef), and
 * expandSubst(extractSubst(k, …)) has the instructions of expandSubst(k).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import {
  exprToString, insnToString, mapExpr, v, walkExpr, type Assignment, type Expr, type Kernel,
} from "../../src/ir/index.js";
import { makeKernel, parseExpr } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { assignmentToSubst, expandSubst, extractSubst } from "../../transforms/subst.js";
import { parseTemplate } from "../../transforms/template.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };

const rhs = (k: Kernel, id?: string): string => {
  const insn = (id ? k.instructions.find((i) => i.id === id) : k.instructions[0]) as Assignment;
  return exprToString(insn.rhs);
};
const rules = (k: Kernel) => k.substitutions.map((r) => `${r.name}(${r.params.join(", ")}) := ${exprToString(r.expr)}`);

async function sameMeaning(k: Kernel, t: Kernel, params: Record<string, number> = {}): Promise<void> {
  const r = await autoTestVsRef(k, t, { params, seed: 7 });
  if (!r.ok) throw new Error(`not equivalent: ${r.mismatches.slice(0, 3).join("; ")}`);
}

describe("extractSubst", () => {
  const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 23*b[i]**2 + 25*b[i]**2", ["b, out: float64[n]", "n: int32"]);

  it("loopy's example: alpha*b[i]**2 with parameter alpha", async () => {
    const t = extractSubst(k, "bsquare", "alpha*b[i]**2", "alpha");
    expect(rhs(t)).toBe("bsquare(23) + bsquare(25)");
    expect(rules(t)).toEqual(["bsquare(alpha) := alpha*b[i]**2"]);
    await sameMeaning(k, t, { n: 6 });
  });

  it("a[i, j] with parameters i, j matches every access, with its own indices", () => {
    const k2 = makeKernel("{[i,j]: 0<=i,j<n}", "out[i,j] = a[i,j] + a[j,i]*a[i,0]", ["a, out: float64[n,n]", "n: int32"]);
    const t = extractSubst(k2, "f", "a[i,j]", ["i", "j"]);
    expect(rhs(t)).toBe("f(i, j) + f(j, i)*f(i, 0)");
    expect(exprToString((t.instructions[0] as Assignment).lhs)).toBe("out[i, j]");
  });

  it("a parameter used twice matches equal expressions only", () => {
    const k2 = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]*a[i] + a[i]*b[i]", ["a, b, out: float64[n]", "n: int32"]);
    expect(rhs(extractSubst(k2, "sq", "x*x", "x"))).toBe("sq(a[i]) + a[i]*b[i]");
  });

  it("outermost matches win and the arguments are searched too", () => {
    const k2 = makeKernel("{[i]: 0<=i<n}", "out[i] = 1 + (1 + (1 + a[i]))", ["a, out: float64[n]", "n: int32"]);
    const t = extractSubst(k2, "inc", "1 + x", "x");
    expect(rhs(t)).toBe("inc(inc(inc(a[i])))");
    expect(insnToString(expandSubst(t).instructions[0]!)).toBe(insnToString(k2.instructions[0]!));
  });

  it("takes the template as an expression too, and rewrites predicates and other rules", () => {
    const k2 = makeKernel("{[i]: 0<=i<n}", ["g(x) := x + b[i]*2", "out[i] = g(b[i]*2) {if=b[i]*2 > 0}"], ["b, out: float64[n]", "n: int32"]);
    const t = extractSubst(k2, "twice", parseExpr("b[i]*2"));
    expect(rhs(t)).toBe("g(twice())");
    expect(exprToString(t.instructions[0]!.predicates[0]!)).toBe("twice() > 0");
    expect(rules(t)).toEqual(["g(x) := x + twice()", "twice() := b[i]*2"]);
  });

  it("a parameter under a reduction of the template cannot take the reduction's iname", () => {
    const k2 = makeKernel("{[i,j]: 0<=i,j<n}", "out[i] = sum(j, a[j]*b[i]) + sum(j, a[j]*j)", ["a, b, out: float64[n]", "n: int32"]);
    expect(rhs(extractSubst(k2, "dot", "sum(j, a[j]*x)", "x"))).toBe("dot(b[i]) + sum(j, a[j]*j)");
  });

  it("within limits the instructions rewritten", () => {
    const k2 = makeKernel("{[i]: 0<=i<n}", ["x[i] = 2*a[i] {id=one}", "y[i] = 2*a[i] {id=two}"], ["a, x, y: float64[n]", "n: int32"]);
    const t = extractSubst(k2, "f", "2*a[i]", [], { within: "id:two" });
    expect([rhs(t, "one"), rhs(t, "two")]).toEqual(["2*a[i]", "f()"]);
  });

  it("refuses what cannot work, saying why", () => {
    const bad = (f: () => unknown, re: RegExp) => { expect(f).toThrow(TransformError); expect(f).toThrow(re); };
    bad(() => extractSubst(k, "b", "b[i]"), /"b" is already a name/);
    bad(() => extractSubst(k, "sin", "b[i]"), /built-in/);
    bad(() => extractSubst(k, "2f", "b[i]"), /identifier/);
    bad(() => extractSubst(k, "f", "alpha*b[i]", "beta"), /"beta" does not occur/);
    bad(() => extractSubst(k, "f", "alpha*b[i]", "alpha, alpha"), /listed twice/);
    bad(() => extractSubst(k, "f", "x", "x"), /match every expression/);
    bad(() => extractSubst(k, "f", "c[i]"), /matches no subexpression/);
    bad(() => extractSubst(k, "f", "b[i] +* 2"), /template 1:7: expected a number/);
  });
});

describe("expandSubst", () => {
  const k = makeKernel("{[i]: 0<=i<n}", [
    "f(x) := x*x", "g(x, y) := f(x) - y", "unused(z) := z",
    "p[i] = g(a[i], 1) {id=one}", "q[i] = f(a[i] + 1) {id=two}",
  ], ["a, p, q: float64[n]", "n: int32"]);

  it("expands rules (calling rules) and removes the ones no longer called", async () => {
    const t = expandSubst(k);
    expect([rhs(t, "one"), rhs(t, "two")]).toEqual(["a[i]*a[i] - 1", "(a[i] + 1)*(a[i] + 1)"]);
    expect(t.substitutions).toEqual([]);
    await sameMeaning(k, t, { n: 5 });
  });

  it("within expands only there; rules still called stay", () => {
    const t = expandSubst(k, "id:one");
    expect([rhs(t, "one"), rhs(t, "two")]).toEqual(["a[i]*a[i] - 1", "f(a[i] + 1)"]);
    expect(t.substitutions.map((r) => r.name)).toEqual(["f"]);
  });

  it("reports endless rules and wrong arities", () => {
    const loop = { ...k, substitutions: [{ name: "f", params: ["x"], expr: { kind: "call", fn: "f", args: [v("x")] } as Expr }] };
    expect(() => expandSubst(loop as Kernel)).toThrow(/expands without end/);
    const arity = { ...k, substitutions: [{ name: "f", params: ["x", "y"], expr: v("x") }, ...k.substitutions.slice(1)] };
    expect(() => expandSubst(arity as Kernel)).toThrow(/takes 2 arguments \(x, y\), called with 1/);
  });
});

describe("assignmentToSubst", () => {
  const k = makeKernel("{[i,j]: 0<=i<8 and 0<=j<8}", ["<> t[i] = 2*a[i] + i {id=def}", "out[j] = t[7-j]*t[j] {id=use}"], ["a, out: float64[8]"]);

  it("turns t[i] = … into t_subst(i) := … and its reads into calls; the assignment and temporary go", async () => {
    const t = assignmentToSubst(k, "t");
    expect(rules(t)).toEqual(["t_subst(i) := 2*a[i] + i"]);
    expect(t.instructions.map((i) => i.id)).toEqual(["use"]);
    expect(rhs(t, "use")).toBe("t_subst(7 - j)*t_subst(j)");
    expect(t.temporaries).toEqual([]);
    await sameMeaning(k, t);
  });

  it("a scalar becomes a rule without parameters; dependencies pass through the removed assignment", async () => {
    const k2 = makeKernel("{[i,j]: 0<=i,j<n}", [
      "x[i] = a[i] {id=first}", "<> s = x[i]*x[i] {id=def, dep=first}", "out[i,j] = s + j {id=use, dep=def}",
    ], ["a, x: float64[n]", "out: float64[n,n]", "n: int32"]);
    const t = assignmentToSubst(k2, "s");
    expect(rules(t)).toEqual(["s_subst() := x[i]*x[i]"]);
    expect(t.instructions.find((i) => i.id === "use")!.dependsOn).toEqual(["first"]);
    await sameMeaning(k2, t, { n: 4 });
  });

  it("refuses what a rule cannot express", () => {
    const bad = (f: () => unknown, re: RegExp) => { expect(f).toThrow(TransformError); expect(f).toThrow(re); };
    const mk = (insns: string[], args = ["a, out: float64[8]"]) => makeKernel("{[i,j]: 0<=i<8 and 0<=j<8}", insns, args);
    bad(() => assignmentToSubst(k, "out"), /"out" is an argument, not a temporary; temporaries are t/);
    bad(() => assignmentToSubst(k, "zz"), /no temporary "zz"/);
    bad(() => assignmentToSubst(mk(["<> t[i] = a[i] {id=d1}", "t[i] = 2*t[i] {id=d2, dep=d1}", "out[i] = t[i] {dep=d2}"]), "t"), /assigned by 2 instructions \(d1, d2\)/);
    bad(() => assignmentToSubst(mk(["<> t[i] = a[i] {id=d, if=i > 2}", "out[i] = t[i] {dep=d}"]), "t"), /conditional/);
    bad(() => assignmentToSubst(mk(["<> t[7-i] = a[i] {id=d}", "out[i] = t[i] {dep=d}"]), "t"), /indices must be distinct inames/);
    bad(() => assignmentToSubst(mk(["<> t = a[i] {id=d}", "out[j] = t {dep=d, inames=j}"]), "t"), /depends on iname\(s\) i, which instruction "insn" is not inside/);
    const noDep = mk(["<> t[i] = a[i] {id=d}", "out[j] = t[j] {id=u}"]);
    const unordered = { ...noDep, instructions: noDep.instructions.map((i) => ({ ...i, dependsOn: [] })) } as Kernel;
    bad(() => assignmentToSubst(unordered, "t"), /"u" reads "t" but does not depend on its assignment "d"/);
    // (makeKernel would order d after the only writer of a; say "late" explicitly.)
    const lateK = mk(["<> t[i] = a[i] {id=d}", "out[i] = t[i] {id=u}", "a[i] = 0 {id=late}"]);
    const deps: Record<string, string[]> = { d: [], u: ["d"], late: ["u"] };
    const late = { ...lateK, instructions: lateK.instructions.map((i) => ({ ...i, dependsOn: deps[i.id]! })) } as Kernel;
    bad(() => assignmentToSubst(late, "t"), /"a", which instruction "late" writes without running before it/);
  });
});

// ---- the template parser agrees with parseExpr --------------------------------------------

const LEAVES = ["a[i]", "b[i]", "a[n - 1 - i]", "i", "n", "2", "3.5", "0.5f", "1d", "x", "a[[i]]"];
const exprText: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof({ depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...LEAVES),
    fc.tuple(tie("e"), fc.constantFrom("+", "-", "*", "/", "//", "%", "**", "<", "==", "and", "or"), tie("e")).map(([l, op, r]) => `(${l}) ${op} (${r})`),
    tie("e").map((x) => `-(${x})`),
    tie("e").map((x) => `not (${x})`),
    fc.tuple(tie("e"), tie("e"), tie("e")).map(([p, q, r]) => `if(${p}, ${q}, ${r})`),
    tie("e").map((x) => `sum(k, ${x})`),
    tie("e").map((x) => `max((k, l), ${x})`),
    tie("e").map((x) => `sqrt(${x})`),
    tie("e").map((x) => `cast(float32, ${x})`)),
})).e;

describe("law: parseTemplate(s) = parseExpr(s)", () => {
  it("on tricky texts", () => {
    for (const s of ["-3**2", "--3", "-(3)", "-((2.5f))", "-(-3)", "-x**-2", "2**3**2", "a - -3", "f()", "1e3 + .5", "max(x, y)", "min((k), y)", "cast(int64, 3)", "+x", "a[[i + 1]]", "(-3)**2", "a[i, j + 1]"]) {
      expect(parseTemplate(s, "t")).toEqual(parseExpr(s));
    }
  });
  it("on random texts, and printed expressions read back the same", () => {
    fc.assert(fc.property(exprText, (s) => {
      let e: Expr;
      try {
        e = parseExpr(s);
      } catch {
        return true; // e.g. a reduction over an iname already reduced
      }
      expect(parseTemplate(s, "t")).toEqual(e);
      expect(parseTemplate(exprToString(e), "t")).toEqual(parseExpr(exprToString(e)));
    }), RUNS);
  });
});

// ---- properties: meaning is kept ----------------------------------------------------------

const FLOAT_LEAVES = ["a[i]", "b[i]", "a[n - 1 - i]", "2", "3.5", "i", "b[0]"];
const floatExpr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof({ depthSize: "small", withCrossShrink: true, maxDepth: 4 },
    fc.constantFrom(...FLOAT_LEAVES),
    fc.tuple(tie("e"), fc.constantFrom("+", "-", "*"), tie("e")).map(([l, op, r]) => `(${l}) ${op} (${r})`),
    // Not -(-x): the interpreter emits that as JavaScript's `--` (reported to the lead).
    tie("e").map((x) => (x.startsWith("-") ? `2*${x}` : `-(${x})`)),
    tie("e").map((x) => `(${x})**2`)),
})).e;

const ARGS = ["a, b, out: float64[n]", "n: int32"];

/** Every subexpression of `e`, in pre-order. */
function subtrees(e: Expr): Expr[] {
  const out: Expr[] = [];
  walkExpr(e, (n) => { out.push(n); });
  return out;
}

/** `s` with the subtrees picked by `holes` (pre-order, root excluded) replaced by fresh parameters. */
function punch(s: Expr, holes: readonly boolean[]): { template: Expr; params: string[] } {
  const params: string[] = [];
  let n = 0;
  const template = mapExpr(s, (node) => {
    if (node === s) return undefined;
    if (!holes[n++ % holes.length]) return undefined;
    const p = `p${params.length}`;
    params.push(p);
    return v(p);
  });
  return { template, params };
}

describe("law: extractSubst keeps the meaning, and expandSubst undoes it", () => {
  it("for random expressions, subexpressions and parameters", async () => {
    await fc.assert(fc.asyncProperty(floatExpr, fc.nat(), fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 6 }),
      async (text, pick, holes, n) => {
        const k = makeKernel("{[i]: 0<=i<n}", `out[i] = ${text}`, ARGS);
        const all = subtrees((k.instructions[0] as Assignment).rhs);
        const { template, params } = punch(all[pick % all.length]!, holes);
        if (template.kind === "var" && params.includes(template.name)) return true;
        const t = extractSubst(k, "f", exprToString(template), params);
        expect(t.instructions.map(insnToString)).not.toEqual(k.instructions.map(insnToString));
        expect(expandSubst(t).instructions).toEqual(k.instructions);
        await sameMeaning(k, t, { n });
        return true;
      }), RUNS);
  });
});

describe("law: expandSubst keeps the meaning", () => {
  it("for random rule bodies and calls", async () => {
    await fc.assert(fc.asyncProperty(floatExpr, floatExpr, floatExpr, fc.boolean(), fc.integer({ min: 1, max: 6 }),
      async (body, arg1, arg2, within, n) => {
        const f = body.replace(/a\[i\]/g, "x").replace(/b\[i\]/g, "y");
        const k = makeKernel("{[i]: 0<=i<n}", [
          `f(x, y) := ${f}`, `g(x) := f(x, 2) - x`,
          `out[i] = f(${arg1}, ${arg2}) + g(${arg2}) {id=one}`, `q[i] = g(a[i]) {id=two, dep=one}`,
        ], ["a, b, q, out: float64[n]", "n: int32"]);
        const t = expandSubst(k, within ? "id:two" : undefined);
        await sameMeaning(k, t, { n });
        if (!within) expect(t.substitutions).toEqual([]);
        return true;
      }), RUNS);
  });
});

describe("law: assignmentToSubst keeps the meaning", () => {
  it("for arrays read at other indices in another loop", async () => {
    await fc.assert(fc.asyncProperty(floatExpr, floatExpr, fc.constantFrom("7 - j", "j", "j // 2", "(j + 3) % 8"), async (def, use, idx) => {
      const k = makeKernel("{[i,j]: 0<=i<8 and 0<=j<8}", [
        `<> t[i] = ${def.replace(/n - 1 - i/g, "7 - i")} {id=def}`,
        `out[j] = ${use.replace(/\bi\b/g, "j").replace(/n - 1 - j/g, "7 - j")} + t[${idx}]*t[j] {id=use}`,
      ], ["a, b, out: float64[8]"]);
      const t = assignmentToSubst(k, "t");
      expect(t.temporaries).toEqual([]);
      await sameMeaning(k, t);
      return true;
    }), RUNS);
  });
  it("for scalars used in the same loop", async () => {
    await fc.assert(fc.asyncProperty(floatExpr, floatExpr, fc.integer({ min: 1, max: 6 }), async (def, use, n) => {
      const k = makeKernel("{[i]: 0<=i<n}", [`<> s = ${def} {id=def}`, `out[i] = ${use} - s*s {id=use}`], ARGS);
      await sameMeaning(k, assignmentToSubst(k, "s"), { n });
      return true;
    }), RUNS);
  });
});
