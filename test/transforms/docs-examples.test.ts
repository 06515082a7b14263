/**
 * Every one-line example of the "Transformations" table in docs/transformations.md runs as written: each `lp.X(k, …)`
 * span is read out of docs/transformations.md and evaluated on the kernel listed for it below (the two-statement
 * kernel `n2` by default), which has the names it uses; the result must be a new kernel that
 * generates OpenCL. A changed or new example that does not run fails here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import type { Kernel } from "../../src/index.js";

const readme = readFileSync(new URL("../../docs/transformations.md", import.meta.url), "utf8");
const section = readme.slice(readme.indexOf("## Transformations"), readme.indexOf("\n## ", readme.indexOf("## Transformations") + 5));
const examples = [...section.matchAll(/`(lp\.\w+\(k[,)][^`]*)`/g)].map((m) => m[1]!).filter((e) => !e.includes("…"));

const n2 = () => lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<16}", ["out[i, j] = 2*a[i, j] {id=s1}", "out2[i, j] = a[i, j] + 1 {id=s2}"],
  ["a, out, out2: float32[n, 16]", "n: int32"], { name: "two" });
const steps = () => lp.makeKernel("{[i]: 0<=i<n}", ["out[i] = 0 {id=init}", "out[i] = out[i] + a[i] {id=upd, dep=init}", "out2[i] = 2*out[i] {id=store, dep=upd}"],
  ["a, out, out2: float32[n]", "n: int32"], { name: "steps" });
const ab = () => lp.makeKernel("{[i]: 0<=i<n}", ["x[i] = a[i] {id=a}", "y[i] = 2*a[i] {id=b}", "z[i] = 3*a[i] {id=debug_out, tags=debug}"],
  ["a, x, y, z: float32[n]", "n: int32"], { name: "ab" });
const unused = () => lp.makeKernel("{[i,j,m]: 0<=i<n and 0<=j<16 and 0<=m<4}", "out[i, j] = 2*a[i, j]", ["a, out: float32[n, 16]", "n: int32"], { name: "unused" });
const twice = () => lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<8}", "s[i] = sum(j, a[i, j]) + sum(j, 2*a[i, j])", ["a: float32[n, 8]", "s: float32[n]", "n: int32"], { name: "twice" });
const reduction = () => lp.makeKernel("{[i,j,l]: 0<=i<n and 0<=j<8 and 0<=l<4}", "s[i] = sum((j, l), a[i, j]*(l + 1))",
  ["a: float32[n, 8]", "s: float32[n]", "n: int32"], { name: "red" });
const matmul = () => lp.makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b, c: float32[n, n]", "n: int32"], { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" });
const tiledMatmul = () => lp.splitIname(lp.splitIname(lp.splitIname(matmul(), "i", 16, { outerTag: "g.0", innerTag: "l.1" }), "j", 16, { outerTag: "g.1", innerTag: "l.0" }), "k", 16);
const temp = () => lp.makeKernel("{[i]: 0<=i<n}", ["<float32> t = 2*a[i] {id=t}", "out[i] = t + 1 {dep=t}"], ["a, out: float32[n]", "n: int32"], { name: "temp" });
const acc = () => lp.splitIname(lp.makeKernel("{[i,j]: 0<=i<16 and 0<=j<n}",
  ["for i", "<float64> acc = 0 {id=init}", "for j", "acc = acc + a[i,j] {id=upd, dep=init}", "end", "out[i] = acc {dep=upd}", "end"],
  ["a: float64[16,n]", "out: float64[16]", "n: int32"], { name: "acc" }), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
const features = () => lp.makeKernel("{[ifeat,i,j]: 0<=ifeat<nf and 0<=i<4 and 0<=j<4}", [
  "out[ifeat,i,j] = 2*f[ifeat,i,j] - f[ifeat,j,i] {id=conv}",
  "out2[ifeat,i] = f[ifeat,i,0] {id=s2}",
], ["f, out: float64[nf,4,4]", "out2: float64[nf,4]", "nf: int32"], { name: "feat" });
const rule = () => lp.splitIname(lp.makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x] + 1", "out[i] = f(i)"], ["a, out: float32[n]", "n: int32"], { name: "rule" }), "i", 16, { outerTag: "g.0", innerTag: "l.0" });
const uses = () => lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", ["f(x, y) := a[x, y]*2", "s[i, j] = f$one(i, j+1) {id=s1}", "t[i, j] = f(i, j) + f$two(i, j) {id=s2}"],
  ["a: float32[n, 5]", "s, t: float32[n, 4]", "n: int32"], { name: "uses" });
const buf = () => lp.makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x] + 1", "s[i] = f$one(i) {id=s1}", "out[i] = s[i] + f$two(i) {id=s2}"],
  ["a: float32[n+1]", "out, s: float32[n]", "n: int32", lp.temporary("buf", "float32", ["n"], "global")], { name: "reuse" });
const tagged = () => lp.splitIname(lp.makeKernel("{[i]: 0<=i<n}", ["out[i] = a$x[i] + a[i] + b[i] {id=s1}", "out2[i] = buf[i] {id=s2}"],
  ["a, b, out, out2: float32[n]", "n: int32", lp.temporary("buf", "float32", [16], "local")], { name: "tagged", assumptions: "n mod 16 = 0" }),
"i", 16, { outerTag: "g.0", innerTag: "l.0" });
const square = () => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]*a[i] + 1", ["a, out: float32[n]", "n: int32"], { name: "sq" });
const nested = () => lp.makeKernel("{[i]: 0<=i<n}", ["h(x) := a[x]", "f(x) := h(x) + 1", "g(x) := f(x)*2", "out[i] = g(i) + f(i) {id=store}"],
  ["a, out: float32[n]", "n: int32"], { name: "nested" });
const fetchUse = () => lp.makeKernel("{[i]: 0<=i<16}", ["<float32> t[i] = a[i] {id=fetch}", "out[i] = t[15 - i] {id=use, dep=fetch}"],
  ["a, out: float32[16]"], { name: "fu" });

/** loopy's tutorial "rotate": a private value live across a global barrier, on g.0/l.0. */
const rotate = () => lp.splitIname(lp.makeKernel("{[i]: 0<=i<n}", `
  for i
    <>tmp = arr[i] {id=maketmp,dep=*}
    ... gbarrier {id=gb,dep=maketmp}
    arr[(i+1) % n] = tmp {id=rotate,dep=gb}
  end`, ["arr: float32[n]", "..."]), "i", 16, { outerTag: "g.0", innerTag: "l.0" });

/** The kernel each example runs on, by the example's text (prefix) or function. */
const fixtures: [RegExp, () => Kernel][] = [
  [/^lp\.tagInames\(/, () => lp.splitIname(n2(), "i", 16)],
  [/^lp\.prioritizeLoops\(/, () => lp.splitIname(lp.splitIname(n2(), "i", 16), "j", 4)],
  [/^lp\.(duplicateInames|setInstructionPriority|fixParameters)\(/, steps],
  [/^lp\.(addDependency|removeInstructions)\(/, ab],
  [/^lp\.(splitReductionInward|splitReductionOutward)\(/, reduction],
  [/^lp\.makeReductionInamesUnique\(/, twice],
  [/^lp\.removeUnusedInames\(/, unused],
  [/^lp\.addPrefetch\(k, "a", /, tiledMatmul],
  [/^lp\.addPrefetch\(k, "f\[/, features],
  [/^lp\.addPrefetch\(k, "a\$x"|^lp\.addPrefetch\(k, "b"/, tagged],
  [/^lp\.precompute\(k, "f", /, rule],
  [/^lp\.precompute\(k, "f\$two"/, buf],
  [/^lp\.precompute\(/, uses],
  [/^lp\.(setTemporaryAddressSpace|assignmentToSubst)\(/, temp],
  [/^lp\.privatize\(/, acc],
  [/^lp\.extractSubst\(/, square],
  [/^lp\.expandSubst\(/, nested],
  [/^lp\.addBarrier\(/, fetchUse],
  [/^lp\.saveAndReloadTemporaries\(/, rotate],
  [/^lp\./, n2],
];

describe("docs/transformations.md: the transformations table", () => {
  it("has its examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(40);
  });
  it.each(examples)("%s", (example) => {
    const fixture = fixtures.find(([re]) => re.test(example))![1];
    const run = new Function("lp", "k", `return ${example};`) as (l: typeof lp, k: Kernel) => Kernel;
    const k = fixture();
    const t = run(lp, k);
    expect(t).not.toBe(k);
    expect(Array.isArray(t.instructions)).toBe(true);
    expect(lp.generateCode(t, "opencl").deviceCode.length).toBeGreaterThan(0);
  });
});
