/**
 * The match language (loopy/match.py): terms, `not` > `and` > `or`, parentheses, errors with a
 * column; and for all match trees m: parseMatch(print(m)) selects what m means.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ParseError, TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { parseMatch, parseStackMatch, selectInstructions, type RuleCallFrame } from "../../transforms/match.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 200) };

const k = makeKernel("{[i,j]: 0<=i,j<n}", [
  "<> acc = 0 {id=init_acc, tags=setup}",
  "acc = acc + a[i,j] {id=update_acc, tags=hot:inner}",
  "out[i] = acc*x[j] {id=store, tags=output}",
  "... nop {id=gather, dep=store}",
  "y[i] = 2*x[i] {id=init_y, tags=setup:output}",
], ["a: float64[n,n]", "x, out, y: float64[n]", "n: int32"]);

const ids = (text: string) => k.instructions.filter(parseMatch(text)).map((i) => i.id);

describe("terms", () => {
  it("id: and a bare glob select by id", () => {
    expect(ids("id:store")).toEqual(["store"]);
    expect(ids("init_*")).toEqual(["init_acc", "init_y"]);
    expect(ids("id:?tore")).toEqual(["store"]);
  });
  it("* selects everything", () => expect(ids("*")).toEqual(k.instructions.map((i) => i.id)));
  it("tag: selects by any tag", () => {
    expect(ids("tag:setup")).toEqual(["init_acc", "init_y"]);
    expect(ids("tag:out*")).toEqual(["store", "init_y"]);
  });
  it("writes: selects by the assigned variable", () => {
    expect(ids("writes:acc")).toEqual(["init_acc", "update_acc"]);
    expect(ids("writes:o*")).toEqual(["store"]);
  });
  it("reads: selects by any variable read (right-hand side, indices, predicates)", () => {
    expect(ids("reads:x")).toEqual(["store", "init_y"]);
    expect(ids("reads:acc")).toEqual(["update_acc", "store"]);
    expect(ids("reads:i")).toEqual(["update_acc", "store", "init_y"]);
  });
  it("iname: selects by the loops around", () => {
    expect(ids("iname:j")).toEqual(["update_acc", "store"]);
    expect(ids("iname:i")).toEqual(["update_acc", "store", "init_y"]);
  });
});

describe("operators: not binds tighter than and, and tighter than or", () => {
  it("a or b and c is a or (b and c)", () => {
    expect(ids("id:store or tag:setup and writes:y")).toEqual(["store", "init_y"]);
    expect(ids("(id:store or tag:setup) and writes:y")).toEqual(["init_y"]);
  });
  it("not a and b is (not a) and b", () => {
    expect(ids("not tag:setup and iname:i")).toEqual(["update_acc", "store"]);
    expect(ids("not (tag:setup and iname:i)")).toEqual(["init_acc", "update_acc", "store", "gather"]);
  });
  it("not not, and loopy's example", () => {
    expect(ids("not not id:gather")).toEqual(["gather"]);
    expect(ids("id:init_acc and (not writes:acc or tag:setup)")).toEqual(["init_acc"]);
  });
  it("keywords need word boundaries: `andy` is an id glob", () => {
    expect(ids("andy or id:store")).toEqual(["store"]);
  });
});

describe("errors carry a column", () => {
  const column = (text: string): number => {
    try {
      parseMatch(text);
    } catch (e) {
      expect(e).toBeInstanceOf(ParseError);
      return (e as ParseError).column;
    }
    throw new Error(`no error for ${text}`);
  };
  it("unknown term", () => expect(column("id:a or foo:b")).toBe(9));
  it("missing closing parenthesis", () => expect(column("(id:a or id:b")).toBe(14));
  it("dangling operator", () => expect(column("id:a and")).toBe(9));
  it("two terms in a row", () => expect(column("id:a id:b")).toBe(6));
  it("empty glob", () => expect(column("writes:")).toBe(8));
  it("empty expression says to use *", () => expect(() => parseMatch("  ")).toThrow(/use \*/));
  it("parseMatch refuses a stack match, pointing to parseStackMatch", () => {
    expect(() => parseMatch("a > b")).toThrow(/stack match .*parseStackMatch/);
    expect(column("a > b")).toBe(3);
  });
  it("a stray character", () => expect(column("id:a & id:b")).toBe(6));
});

describe("in_kernel: matches the kernel's name", () => {
  it("selects every instruction of a kernel whose name matches, none of another", () => {
    const named = makeKernel("{[i]: 0<=i<n}", ["out[i] = a[i] {id=s}"], ["a, out: float64[n]", "n: int32"], { name: "matmul_tiled" });
    expect(named.instructions.filter(parseMatch("in_kernel:matmul*", named)).map((i) => i.id)).toEqual(["s"]);
    expect(named.instructions.filter(parseMatch("in_kernel:conv*", named))).toEqual([]);
    expect(selectInstructions(named, "in_kernel:mat* and id:s", "t")).toEqual(["s"]);
    expect(() => selectInstructions(named, "in_kernel:conv", "who")).toThrow(/selects no instruction/);
  });
  it("needs the kernel", () => expect(() => parseMatch("in_kernel:k")).toThrow(/needs the kernel: parseMatch\(text, k\)/));
});

describe("stack matches (loopy's parse_stack_match): instruction first, then rule calls, outermost first", () => {
  const store = k.instructions.find((i) => i.id === "store")!;
  const init = k.instructions.find((i) => i.id === "init_acc")!;
  const st = (...names: string[]): RuleCallFrame[] => names.map((name) => ({ name }));
  it("a plain expression matches the instruction whatever the stack", () => {
    const m = parseStackMatch("id:store");
    expect([m(store, []), m(store, st("f", "g")), m(init, [])]).toEqual([true, true, false]);
  });
  it("each further level matches one rule call; without $ the stack may go on", () => {
    const m = parseStackMatch("id:store > id:f");
    expect([m(store, []), m(store, st("f")), m(store, st("f", "g")), m(store, st("g", "f")), m(init, st("f"))]).toEqual([false, true, true, false, false]);
  });
  it("$ ends the stack, ... skips any number of levels (loopy's \"... > id:h and tag:two > id:g and tag:two\")", () => {
    expect(parseStackMatch("id:store > id:f $")(store, st("f", "g"))).toBe(false);
    expect(parseStackMatch("id:store > id:f $")(store, st("f"))).toBe(true);
    const m = parseStackMatch("... > id:g > id:h $");
    expect([m(store, st("g", "h")), m(init, st("f", "g", "h")), m(store, st("h")), m(store, st("g", "h", "f"))]).toEqual([true, true, false, false]);
    const tagged = parseStackMatch("... > id:h and tag:two > id:g and tag:two");
    expect(tagged(store, [{ name: "h", tags: ["two"] }, { name: "g", tags: ["two"] }])).toBe(true);
    expect(tagged(store, [{ name: "h", tags: ["two"] }, { name: "g", tags: ["one"] }])).toBe(false);
  });
  it("writes:, reads:, iname: select no rule call (as in loopy)", () => {
    expect(parseStackMatch("* > reads:x")(store, st("x"))).toBe(false);
    expect(parseStackMatch("* > not writes:acc")(store, st("f"))).toBe(true);
  });
  it("errors point into the level", () => {
    expect(() => parseStackMatch("id:a > ")).toThrow(/empty level/);
    try {
      parseStackMatch("id:a > foo:b");
      expect.unreachable();
    } catch (e) {
      expect((e as ParseError).column).toBe(8);
    }
  });
  it("selectInstructions takes a stack match at the level of instructions (an empty rule stack)", () => {
    expect(selectInstructions(k, "... > id:store $", "t")).toEqual(["store"]);
    expect(() => selectInstructions(k, "id:store > id:f", "who")).toThrow(/selects rule calls inside instructions/);
  });
});

describe("selectInstructions", () => {
  it("takes a match string or a list of ids", () => {
    expect(selectInstructions(k, "writes:acc", "t")).toEqual(["init_acc", "update_acc"]);
    expect(selectInstructions(k, ["store", "init_acc"], "t")).toEqual(["init_acc", "store"]);
  });
  it("names what is wrong and what exists", () => {
    expect(() => selectInstructions(k, ["nope"], "who")).toThrow(TransformError);
    expect(() => selectInstructions(k, ["nope"], "who")).toThrow(/who: .*"nope".*init_acc, update_acc/);
    expect(() => selectInstructions(k, "writes:zzz", "who")).toThrow(/selects no instruction/);
    expect(() => selectInstructions(k, "id:(", "who")).toThrow(TransformError);
    expect(() => selectInstructions(k, 3 as unknown as string, "who")).toThrow(/match expression/);
  });
});

// ---- property: printed trees parse back to their meaning --------------------------------

type M = { t: "term"; text: string } | { t: "not"; a: M } | { t: "and" | "or"; a: M; b: M };

const TERMS = ["id:store", "init_*", "*", "tag:setup", "tag:o*", "writes:acc", "reads:x", "iname:j", "gather", "id:?pdate_acc"];
const tree: fc.Arbitrary<M> = fc.letrec<{ m: M }>((tie) => ({
  m: fc.oneof({ depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...TERMS).map((text): M => ({ t: "term", text })),
    tie("m").map((a): M => ({ t: "not", a })),
    fc.record({ t: fc.constantFrom("and" as const, "or" as const), a: tie("m"), b: tie("m") }) as fc.Arbitrary<M>),
})).m;

const PREC = { or: 1, and: 2, not: 3, term: 4 } as const;
/** With only the parentheses precedence needs (left-associative), so precedence is what is tested. */
function print(m: M): string {
  const wrap = (x: M, min: number) => (PREC[x.t] < min ? `(${print(x)})` : print(x));
  switch (m.t) {
    case "term": return m.text;
    case "not": return `not ${wrap(m.a, PREC.not)}`;
    default: return `${wrap(m.a, PREC[m.t])} ${m.t} ${wrap(m.b, PREC[m.t] + 1)}`;
  }
}
function evaluate(m: M, id: string): boolean {
  switch (m.t) {
    case "term": return ids(m.text).includes(id);
    case "not": return !evaluate(m.a, id);
    case "and": return evaluate(m.a, id) && evaluate(m.b, id);
    case "or": return evaluate(m.a, id) || evaluate(m.b, id);
  }
}

describe("law: parseMatch(print(m)) means m", () => {
  it("for random trees printed with minimal parentheses", () => {
    fc.assert(fc.property(tree, (m) => {
      const pred = parseMatch(print(m));
      return k.instructions.every((insn) => pred(insn) === evaluate(m, insn.id));
    }), RUNS);
  });
});
