import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import type { Instruction } from "../../src/ir/insn.js";

const insn = (k: { instructions: readonly Instruction[] }, id: string) => k.instructions.find((i) => i.id === id)!;

describe("within-inames (loopy's rule)", () => {
  it("are the inames used, excluding reduction inames, sorted", () => {
    const k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[j, i] = sum(k, a[i,k]*b[k,j])");
    expect(k.instructions[0]!.withinInames).toEqual(["i", "j"]);
  });
  it("include the inames common to all writers of what is read", () => {
    // loopy tutorial: tmp is written inside i, so its reader sits in i too.
    const k = makeKernel("{[i,j]: 0<=i,j<n}", ["<> tmp = 2*a[i] {id=w}", "out[j] = tmp {id=r}"]);
    expect(insn(k, "r").withinInames).toEqual(["i", "j"]);
  });
  it("leave out the inames a writer indexes its assignee with", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["a[i] = 2*i {id=w}", "s = sum(i, a[i]) {id=r}"]);
    expect(insn(k, "r").withinInames).toEqual([]);
  });
  it("take only the inames shared by all writers", () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", [
      "<> t = a[i, j] {id=w1}", "t = t + b[i] {id=w2, dep=w1}", "out = t {id=r, dep=w2}",
    ]);
    expect(insn(k, "r").withinInames).toEqual(["i"]);
  });
  it("propagate to a fixed point through chains of temporaries", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> z = a[i] {id=a}", "<> y = 2*z {id=b}", "<> x = 3*y {id=c}", "out[0] = x {id=d}"]);
    expect(["a", "b", "c", "d"].map((id) => insn(k, id).withinInames)).toEqual([["i"], ["i"], ["i"], ["i"]]);
  });
  it("include parent inames of nested domains", () => {
    const k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<i}"], "s = a[j] {id=x}");
    expect(insn(k, "x").withinInames).toEqual(["i", "j"]);
  });
  it("follow data-dependent loop bounds to the writers of the bound", () => {
    const k = makeKernel(["{[i]: 0<=i<n}", "{[jj]: 0<=jj<rowlen}"], [
      "<> rowlen = lens[i] {id=len}", "out[jj] = 1 {id=body, dep=len}",
    ]);
    expect(insn(k, "body").withinInames).toEqual(["i", "jj"]);
    expect(k.args.map((a) => a.name)).toEqual(["lens", "out", "n"]);
  });
  it("are fixed by inames= (exact) and extended by inames=+", () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", ["<> t = a[i] {id=w}", "out[j] = t {id=r, inames=j}", "s[j] = 1 {id=p, inames=+i}"]);
    expect(insn(k, "r").withinInames).toEqual(["j"]);
    expect(insn(k, "p").withinInames).toEqual(["i", "j"]);
  });
});

describe("dependencies (single-writer heuristic)", () => {
  it("a read of a variable with exactly one writer depends on it", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = a[i] {id=w}", "out[i] = t {id=r}"]);
    expect(insn(k, "r").dependsOn).toEqual(["w"]);
    expect(insn(k, "w").dependsOn).toEqual([]);
  });
  it("reads in indices and predicates count", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> idx = 2 {id=a}", "<> p = i > 1 {id=b}", "out[idx] = 1 {id=c, if=p}"]);
    expect(insn(k, "c").dependsOn).toEqual(["a", "b"]);
  });
  it("variables with two writers give no automatic dependency", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["x[i] = 1 {id=a}", "x[i] = 2 {id=b}", "y[i] = x[i] {id=c}"]);
    expect(insn(k, "c").dependsOn).toEqual([]);
  });
  it("an instruction does not depend on itself", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["x[i] = x[i] + 1 {id=a}"]);
    expect(insn(k, "a").dependsOn).toEqual([]);
  });
  it("reads through substitution rules count", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 1 {id=a}", "f(x) := x + t", "out[i] = f(i) {id=b}"]);
    expect(insn(k, "b").dependsOn).toEqual(["a"]);
  });
  it("seqDependencies chains the instructions in order", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["x[i] = 1 {id=a}", "y[i] = 2 {id=b}", "... lbarrier {id=c}"], undefined, { seqDependencies: true });
    expect(k.instructions.map((i) => i.dependsOn)).toEqual([[], ["a"], ["b"]]);
  });
  it("dep= adds to the heuristic unless it starts with *", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 1 {id=a}", "x[i] = 2 {id=b}", "y[i] = t {id=c, dep=b}", "z[i] = t {id=d, dep=*b}"]);
    expect(insn(k, "c").dependsOn).toEqual(["a", "b"]);
    expect(insn(k, "d").dependsOn).toEqual(["b"]);
  });
});
