/**
 * lp.plotTuning: a well-formed SVG document whatever the names and values; the metric axis is
 * monotone; the best variant is starred and named; not-ok variants are crosses by status; the
 * heatmap has one cell per pair of values; options are checked.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { allElements, parseXml, type XmlElement } from "./plot-xml.js";

type Rec = lp.TuningRecord;

/** Records over every point of `space`, with the status and time `f` gives. */
function records(space: Record<string, readonly (number | string)[]>, f: (p: lp.TuningPoint, i: number) => { status?: lp.TuningStatus; ms?: number; gflops?: number }): Rec[] {
  const names = Object.keys(space);
  const points: lp.TuningPoint[] = [{}];
  for (const n of names) points.splice(0, points.length, ...points.flatMap((p) => space[n]!.map((v) => ({ ...p, [n]: v }))));
  return points.map((point, i) => {
    const { status = "ok", ms = 1, gflops } = f(point, i);
    const ok = status === "ok";
    return {
      point, ok, status, times: ok ? [ms] : [], medianMs: ok ? ms : NaN,
      ...(ok && gflops !== undefined ? { gflops } : {}),
      ...(ok ? {} : { error: `${status} variant` }),
      backend: "js", params: { n: 64 }, kernel: { name: "matmul", hash: "0123456789abcdef" },
    };
  });
}

const texts = (root: XmlElement) => allElements(root).filter((e) => e.name === "text").map((e) => e.text);
const fmt4 = (v: number) => String(Number(v.toPrecision(4)));
const SVG_ELEMENTS = new Set(["svg", "title", "rect", "line", "text", "circle", "polyline", "path", "polygon"]);

describe("plotTuning: lines", () => {
  const space = { ti: [1, 2, 4, 8, 16], tj: [1, 4], gl: ["no", "yes"] };
  const recs = records(space, (p) => {
    if (p.ti === 16 && p.tj === 4) return { status: "invalid" };
    if (p.ti === 2 && p.gl === "yes") return { status: p.tj === 1 ? "wrong" : "failed" };
    return { ms: 1 + Math.abs(Math.log2(p.ti as number) - 2) * 0.5 + (p.tj === 4 ? 0.1 : 0) + (p.gl === "yes" ? 0.05 : 0) };
  });

  it("is a well-formed SVG document titled with the kernel, the metric and the x parameter", () => {
    const svg = lp.plotTuning(recs);
    expect(svg.startsWith("<?xml")).toBe(true);
    const root = parseXml(svg);
    expect(root.name).toBe("svg");
    expect(root.attrs.xmlns).toBe("http://www.w3.org/2000/svg");
    const t = texts(root);
    expect(t[0]).toBe("matmul: median time (ms) against ti");
    expect(t).toContain("ti");
    expect(t).toContain("median time (ms)");
    // x ticks: the values of ti in ascending order.
    const ticks = allElements(root).filter((e) => e.name === "text" && ["1", "2", "4", "8", "16"].includes(e.text) && e.attrs["text-anchor"] === "middle");
    expect(ticks.map((e) => e.text)).toEqual(["1", "2", "4", "8", "16"]);
    expect(ticks.map((e) => Number(e.attrs.x))).toEqual([...ticks.map((e) => Number(e.attrs.x))].sort((a, b) => a - b));
  });

  it("marks the best variant with a star and names its point and value in the legend", () => {
    const root = parseXml(lp.plotTuning(recs));
    const ok = recs.filter((r) => r.ok);
    const best = ok.reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
    expect(allElements(root).filter((e) => e.name === "polygon")).toHaveLength(2); // on the plot and in the legend
    const t = texts(root);
    expect(t).toContain(`best: ${fmt4(best.medianMs)} ms`);
    for (const [k, v] of Object.entries(best.point)) expect(t).toContain(`${k}=${v}`);
  });

  it("draws each not-ok status as crosses in its own colour, one row per status, with counts in the legend", () => {
    const root = parseXml(lp.plotTuning(recs));
    const crosses = allElements(root).filter((e) => e.name === "path");
    const byColour = new Map<string, number>();
    for (const c of crosses) byColour.set(c.attrs.stroke!, (byColour.get(c.attrs.stroke!) ?? 0) + 1);
    // invalid: 2 records at one x (one cross, count "2"); wrong and failed: one each; plus one legend cross per status.
    expect([...byColour.values()].sort()).toEqual([2, 2, 2]);
    const t = texts(root);
    expect(t).toContain("invalid (2): refused");
    expect(t).toContain("wrong (1): mismatch");
    expect(t).toContain("failed (1): error");
    expect(t.filter((s) => s === "invalid" || s === "wrong" || s === "failed").sort()).toEqual(["failed", "invalid", "wrong"]);
  });

  it("places better values lower on the time axis (a law over random times)", () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0.01, max: 50, noNaN: true }), { minLength: 2, maxLength: 8 }), (ms) => {
      const space = { v: ms.map((_, i) => i) };
      const rs = records(space, (_p, i) => ({ ms: ms[i]! }));
      const root = parseXml(lp.plotTuning(rs));
      const dots = allElements(root).filter((e) => e.name === "circle" && e.attrs.r === "3.6");
      expect(dots).toHaveLength(ms.length);
      for (let a = 0; a < ms.length; a++) for (let b = 0; b < ms.length; b++) {
        if (ms[a]! < ms[b]!) expect(Number(dots[a]!.attrs.cy)).toBeGreaterThanOrEqual(Number(dots[b]!.attrs.cy));
      }
    }), { numRuns: 40 });
  });

  it("draws one coloured line per value of the series parameter, through the best of each cell", () => {
    const root = parseXml(lp.plotTuning(recs, { x: "ti", series: "tj" }));
    const lines = allElements(root).filter((e) => e.name === "polyline");
    expect(lines).toHaveLength(2);
    expect(new Set(lines.map((l) => l.attrs.stroke)).size).toBe(2);
    expect(texts(root)).toEqual(expect.arrayContaining(["tj", "1", "4", "each ok variant"]));
    expect(texts(root)[1]).toMatch(/best over gl$/);
  });

  it("uses a log scale when the values span more than 30×, or when asked", () => {
    const wide = records({ v: [1, 2, 3] }, (p) => ({ ms: 10 ** (p.v as number) }));
    expect(texts(parseXml(lp.plotTuning(wide)))).toContain("median time (ms), log scale");
    expect(texts(parseXml(lp.plotTuning(wide, { logY: false })))).toContain("median time (ms)");
    expect(texts(parseXml(lp.plotTuning(records({ v: [1, 2] }, (p) => ({ ms: p.v as number })), { logY: true })))).toContain("median time (ms), log scale");
  });

  it("plots GFLOP/s with the highest as best, and refuses the metric when no record has it", () => {
    const rs = records({ v: [1, 2, 3] }, (p) => ({ ms: 1, gflops: [5, 9, 7][(p.v as number) - 1]! }));
    const t = texts(parseXml(lp.plotTuning(rs, { metric: "gflops" })));
    expect(t[0]).toBe("matmul: GFLOP/s against v");
    expect(t).toContain("best: 9 GFLOP/s");
    expect(() => lp.plotTuning(recs, { metric: "gflops" })).toThrow(/no ok record has gflops/);
  });

  it("still draws a document when no variant is ok", () => {
    const bad = records({ v: [1, 2] }, () => ({ status: "wrong" }));
    const root = parseXml(lp.plotTuning(bad));
    expect(texts(root)).toContain("no ok variant: nothing was timed");
    expect(allElements(root).filter((e) => e.name === "polygon")).toHaveLength(0);
  });
});

describe("plotTuning: heatmap", () => {
  const space = { ti: [1, 2, 4], tj: [1, 2, 4, 8], gl: ["no", "yes"] };
  const recs = records(space, (p) => {
    if (p.ti === 4 && p.tj === 8) return { status: "invalid" };
    return { ms: (p.ti as number) + 2 / (p.tj as number) + (p.gl === "yes" ? 0.5 : 0) };
  }).filter((r) => !(r.point.ti === 1 && r.point.tj === 1)); // one cell never measured

  it("has one cell per pair of values: coloured when some variant is ok, a cross when none is, dashed when unmeasured", () => {
    const root = parseXml(lp.plotTuning(recs, { heatmap: ["tj", "ti"] }));
    const cells = allElements(root).filter((e) => e.name === "rect" && (e.attrs.fill?.startsWith("#") ?? false) && e.attrs.width !== "16" && e.attrs.height !== undefined && Number(e.attrs.width) > 40 && e.attrs.fill !== "none");
    expect(cells).toHaveLength(12 + 1); // 12 cells and the white background
    expect(cells.filter((c) => c.attrs["stroke-dasharray"])).toHaveLength(1);
    expect(cells.filter((c) => c.attrs.fill === "#ececec")).toHaveLength(1);
    // The best cell (smallest time: ti=1, tj=8... unless unmeasured) carries the thick outline and its value.
    const best = recs.filter((r) => r.ok).reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
    const outline = allElements(root).filter((e) => e.name === "rect" && e.attrs["stroke-width"] === "3");
    expect(outline).toHaveLength(1);
    expect(texts(root)).toContain(fmt4(best.medianMs));
    expect(texts(root)).toContain(`${fmt4(best.medianMs)} (best)`);
    expect(texts(root)[0]).toBe("matmul: median time (ms) against tj × ti");
  });
});

describe("plotTuning: hostile names and values", () => {
  const nasty = fc.oneof(
    fc.constantFrom("<script>alert(1)</script>", "&amp;", "a\"b'c", "]]>", "<!--", "x\u0000y", "\ud800", "&#0;", "\u202e", "<svg onload=x>"),
    fc.string({ unit: "binary", maxLength: 12 }),
  );

  it("escapes every name, value and title: the document stays well-formed and holds only the plot's own elements", () => {
    fc.assert(fc.property(nasty, nasty, nasty, nasty, fc.boolean(), (p1, p2, value, title, heat) => {
      fc.pre(p1 !== p2 && p1 !== "" && p2 !== "");
      const rs = records({ [p1]: [1, 2], [p2]: [value, "other"] }, (_p, i) => (i === 3 ? { status: "failed" } : { ms: i + 1 }))
        .map((r) => ({ ...r, kernel: { name: value, hash: "x" }, error: `<b>${value}</b>` }));
      const svg = lp.plotTuning(rs, heat ? { heatmap: [p1, p2], title } : { x: p1, series: p2, title });
      const root = parseXml(svg);
      for (const e of allElements(root)) expect(SVG_ELEMENTS.has(e.name)).toBe(true);
      expect(svg).not.toMatch(/<script|<svg onload|<!--/i);
    }), { numRuns: 150 });
  });

  it("shows a name with markup as text", () => {
    const rs = records({ "<script>": [1, 2], "a&b": ["\"q\"", "'r'"] }, (_p, i) => ({ ms: i + 1 }));
    const t = texts(parseXml(lp.plotTuning(rs, { x: "<script>", series: "a&b", title: "</title><script>x</script>" })));
    expect(t).toEqual(expect.arrayContaining(["</title><script>x</script>", "<script>", "a&b", "\"q\"", "'r'"]));
  });
});

describe("plotTuning: mistakes are LoomErrors naming what and what is accepted", () => {
  const rs = records({ ti: [1, 2], tj: [1] }, () => ({ ms: 1 }));
  it.each([
    ["not an array", () => lp.plotTuning({} as never), /records must be an array/],
    ["no records", () => lp.plotTuning([]), /no records to plot/],
    ["a record without a status", () => lp.plotTuning([{ point: {} } as never]), /record 0 is not a tuning record/],
    ["an unknown x", () => lp.plotTuning(rs, { x: "tk" }), /x "tk" is not a parameter of the records; parameters are ti, tj/],
    ["series equal to x", () => lp.plotTuning(rs, { x: "ti", series: "ti" }), /series must differ from x/],
    ["a heatmap of one parameter twice", () => lp.plotTuning(rs, { heatmap: ["ti", "ti"] }), /two different parameters/],
    ["a heatmap with x", () => lp.plotTuning(rs, { heatmap: ["ti", "tj"], x: "ti" }), /either heatmap or x\/series/],
    ["an unknown metric", () => lp.plotTuning(rs, { metric: "speed" as never }), /metric must be one of time, gflops, gbps; got "speed"/],
    ["a tiny width", () => lp.plotTuning(rs, { width: 10 }), /width must be a number of pixels/],
  ])("%s", (_what, f, message) => {
    expect(f).toThrow(lp.LoomError);
    expect(f).toThrow(message);
  });
});

describe("plotTuning on a real sweep", () => {
  it("plots the records of lp.autotune (js backend) with their statuses", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "twice" });
    const { records: rs } = await lp.autotune(k, {
      space: { t: [1, 2, 4, 0] }, params: { n: 64 }, repeats: 1,
      build: (_k, p) => (p.t === 0 ? lp.split("nosuch", 2) : lp.split("i", p.t as number)),
    });
    const root = parseXml(lp.plotTuning(rs));
    expect(texts(root)[0]).toBe("twice: median time (ms) against t");
    expect(texts(root)).toContain("invalid (1): refused");
  });
});
