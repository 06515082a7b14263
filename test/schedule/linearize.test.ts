/** The sequential schedule: loop nesting and instruction order. */
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { withKernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { inameOrder, linearize, type ScheduleNode } from "../../src/schedule/index.js";

/** A schedule as compact text: `i{a j{b}} c`. */
function text(nodes: readonly ScheduleNode[]): string {
  return nodes.map((n) => (n.kind === "insn" ? n.id : n.kind === "barrier" ? "|" : `${n.iname}{${text(n.body)}}`)).join(" ");
}

describe("loop nesting", () => {
  it("nests inames in domain order by default", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = 1 {id=a}");
    expect(text(linearize(k))).toBe("i{j{a}}");
  });

  it("honours loop priorities", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = 1 {id=a}");
    expect(text(linearize(withKernel(k, { loopPriority: [["j", "i"]] })))).toBe("j{i{a}}");
  });

  it("keeps a child domain inside the iname its bounds use, whatever the priority", () => {
    const k = withKernel(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<i}"], "out[i,j] = 1 {id=a}"), { loopPriority: [["j", "i"]] });
    expect(inameOrder(k)).toEqual(["i", "j"]);
    expect(text(linearize(k))).toBe("i{j{a}}");
  });

  it("places an instruction in exactly the loops it needs", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", [
      "<> acc = 0 {id=init, inames=i}",
      "acc = acc + a[i,j] {id=upd, dep=init, inames=i:j}",
      "out[i] = acc {id=store, dep=upd, inames=i}",
    ]);
    expect(text(linearize(k))).toBe("i{init j{upd} store}");
  });
});

describe("instruction order", () => {
  it("a scalar written then read in the same loop interleaves per iteration", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 2*a[i] {id=w}", "out[i] = t + 1 {id=r}"]);
    expect(text(linearize(k))).toBe("i{w r}");
  });

  it("follows dependencies over the order of the text", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["out[i] = t[i] {id=second, dep=first}", "t[i] = a[i] {id=first}"]);
    expect(text(linearize(k))).toBe("i{first second}");
  });

  it("breaks ties by priority, then by position", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["x[i] = 1 {id=low}", "y[i] = 2 {id=high, priority=5}", "z[i] = 3 {id=mid}"]);
    expect(text(linearize(k))).toBe("i{high low mid}");
  });

  it("enters a loop again when a dependency outside it requires", () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "a[i] = 1 {id=first}",
      "<> s = sum(i, a[i]) {id=total, dep=first}",
      "b[i] = a[i] / s {id=norm, dep=total}",
    ]);
    expect(text(linearize(k))).toBe("i{first} total i{norm}");
  });

  it("a dependency cycle is a ScheduleError naming the instructions", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["x[i] = 1 {id=a, dep=b}", "y[i] = 2 {id=b, dep=a}", "z[i] = 3 {id=c}"]);
    expect(() => linearize(k)).toThrow(ScheduleError);
    expect(() => linearize(k)).toThrow(/"a" -> "b"|"b" -> "a"/);
  });

  it("an unknown dependency is a ScheduleError", () => {
    const k0 = makeKernel("{[i]: 0<=i<n}", "x[i] = 1 {id=a}");
    const k = withKernel(k0, { instructions: k0.instructions.map((x) => ({ ...x, dependsOn: ["ghost"] })) });
    expect(() => linearize(k)).toThrow(/depends on "ghost", which is not an instruction/);
  });
});
