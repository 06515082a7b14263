/**
 * lp.display / lp.show (API.md, "Display"): the text form everywhere, HTML inside tslab, every
 * name and message escaped, and tslab never needed.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as lp from "../../src/index.js";
import { show as showKernelText } from "../../src/ir/index.js";
import { highlightCode } from "../../src/display/highlight.js";
import { escapeHtml } from "../../src/display/index.js";
import type { TuningRecord } from "../../src/tune/index.js";
import { fakeTslab, foreignMarkup, htmlText, prefetchedMatmul, twice } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** What display(x) hands to tslab (HTML), with a fake tslab kernel loaded for the call. */
function htmlOfDisplay(x: Parameters<typeof lp.display>[0]): string {
  const t = fakeTslab();
  try {
    expect(lp.display(x)).toBeUndefined();
  } finally {
    t.stop();
  }
  expect(t.shown).toHaveLength(1);
  return t.shown[0]!;
}

function record(point: Record<string, number | string>, status: TuningRecord["status"], medianMs: number, error?: string): TuningRecord {
  const ok = status === "ok";
  return { point, ok, status, times: ok ? [medianMs, medianMs * 1.1] : [], medianMs: ok ? medianMs : NaN, ...(error ? { error } : {}) };
}

describe("show: the text form", () => {
  it("of a kernel is loopy's str(knl), and String(k) is the same", () => {
    const k = twice();
    expect(lp.show(k)).toBe(showKernelText(k));
    expect(String(k)).toBe(lp.show(k));
    expect(`${k}`).toContain("INAME TAGS:");
  });

  it("toString is no field of the kernel: JSON and keys are unchanged", () => {
    const k = twice();
    expect(Object.keys(k)).not.toContain("toString");
    expect(JSON.stringify(k)).not.toContain("toString");
    expect(JSON.parse(JSON.stringify(k))).toEqual(JSON.parse(JSON.stringify({ ...k })));
  });

  it("of a schedule is the LINEARIZATION listing, barriers included", () => {
    const s = lp.schedule(prefetchedMatmul());
    expect(lp.show(s)).toBe(lp.showSchedule(s));
    expect(lp.show(s)).toMatch(/lbarrier/);
  });

  it("of generated code has a header per device kernel and the code", () => {
    const c = lp.generateCode(twice(), "opencl");
    const text = lp.show(c);
    expect(text).toContain("// target: opencl");
    expect(text).toContain(`// kernel ${c.kernels[0]!.name}:`);
    expect(text).toContain(c.deviceCode.trim());
  });

  it("of a count map is a table with a row per entry", () => {
    const m = lp.getOpMap(lp.fixParameters(twice(), { n: 64 }));
    const lines = lp.show(m).split("\n");
    expect(lines.length).toBe(2 + m.entries().length);
    expect(lines.slice(2).join("\n")).toContain("mul");
  });

  it("of a Count is its polynomial", () => {
    const total = lp.getOpMap(twice()).sum();
    expect(lp.show(total)).toBe(total.toString());
  });

  it("of tuning records marks the best ok record, and an autotune result shows its records", () => {
    const records = [record({ f: 8 }, "ok", 3), record({ f: 16 }, "ok", 1.5), record({ f: 7 }, "invalid", NaN, "factor")];
    const lines = lp.show(records).split("\n");
    const best = lines.filter((l) => l.startsWith("*"));
    expect(best).toHaveLength(1);
    expect(best[0]).toMatch(/^\*\s+16\s+ok/);
    expect(lp.show({ best: records[1]!, records })).toBe(lp.show(records));
  });

  it("of something it does not know is a LoomError naming what it shows", () => {
    for (const x of [42, null, undefined, [1, 2], { a: 1 }]) {
      expect(() => lp.show(x as never)).toThrow(lp.LoomError);
      expect(() => lp.show(x as never)).toThrow(/Kernel, a Schedule/);
    }
  });
});

describe("display outside tslab", () => {
  it("prints the text form and returns undefined", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const k = twice();
    expect(lp.display(k)).toBeUndefined();
    expect(log).toHaveBeenCalledWith(lp.show(k));
  });

  it("after a tslab cell has finished (no cell executing) prints text again", () => {
    const t = fakeTslab();
    t.stop();
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    lp.display("plain");
    expect(log).toHaveBeenCalledWith("plain");
    expect(t.shown).toEqual([]);
  });

  it("summarizes an SVG in one line", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    lp.display('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>');
    expect(String(log.mock.calls[0]![0])).toMatch(/^<svg> \(\d+ characters\)/);
  });
});

describe("display inside tslab: HTML", () => {
  it("a kernel: its text and a table of inames with tags and ranges", () => {
    const html = htmlOfDisplay(twice());
    expect(html).toContain("<th>iname</th><th>tag</th><th>range</th><th>extent</th>");
    expect(html).toMatch(/<td>i_inner<\/td><td>l\.0<\/td><td>\[0, 15\]<\/td><td>16<\/td>/);
    expect(htmlText(html)).toContain(lp.show(twice()));
    expect(foreignMarkup(html)).toEqual([]);
  });

  it("a schedule: barriers and launches set off, device kernels with their grids", () => {
    const html = htmlOfDisplay(lp.schedule(prefetchedMatmul()));
    expect(html).toMatch(/<span class="loom-barrier">[^<]*lbarrier/);
    expect(html).toMatch(/<span class="loom-launch">[^<]*CALL KERNEL matmul/);
    expect(html).toContain("g.0: (n + 15)//16");
    expect(foreignMarkup(html)).toEqual([]);
  });

  it("generated code: highlighted, and the text unchanged by highlighting", () => {
    for (const target of ["c", "cuda", "opencl", "js"] as const) {
      const code = lp.generateCode(twice(), target);
      const html = htmlOfDisplay(code);
      expect(html).toMatch(/class="hljs-(keyword|type)"/);
      expect(htmlText(html)).toContain(code.deviceCode.trimEnd());
      expect(foreignMarkup(html)).toEqual([]);
    }
  });

  it("several targets' code side by side: a column each, highlighted", () => {
    const codes = (["c", "opencl", "js"] as const).map((t) => lp.generateCode(twice(), t));
    const html = htmlOfDisplay(codes);
    expect(html.match(/<div class="loom-col">/g)).toHaveLength(3);
    for (const c of codes) expect(htmlText(html)).toContain(c.deviceCode.trimEnd());
    expect(foreignMarkup(html)).toEqual([]);
    expect(lp.show(codes)).toBe(codes.map((c) => lp.show(c)).join("\n\n"));
  });

  it("count maps and tuning records: tables; the best record highlighted", () => {
    expect(htmlOfDisplay(lp.getMemAccessMap(lp.fixParameters(twice(), { n: 64 })))).toContain("<th>variable</th>");
    const records = [record({ f: 8 }, "ok", 3), record({ f: 16 }, "ok", 1.5), record({ f: 32 }, "wrong", NaN, "differs")];
    const html = htmlOfDisplay(records);
    expect(html).toMatch(/<tr class="loom-best"><td>16<\/td>/);
    expect(html).toMatch(/<tr class="loom-bad"><td>32<\/td>/);
  });

  it("an SVG document inline (nbconvert drops SVG outputs, keeps HTML), its XML prolog dropped", () => {
    const html = htmlOfDisplay('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><circle r="2"/></svg>');
    expect(html).toBe('<div class="loom-svg"><svg xmlns="http://www.w3.org/2000/svg"><circle r="2"/></svg></div>');
  });
});

describe("hostile text never reaches the HTML as markup", () => {
  const hostile = fc.oneof(fc.string(), fc.constantFrom("<script>alert(1)</script>", "</pre><img src=x onerror=alert(1)>", '"><svg onload=x>', "&lt;"));

  it("for all strings s: the text display is s, escaped", () => {
    fc.assert(fc.property(hostile, (s) => {
      fc.pre(!/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(s)); // an SVG is shown as markup
      const html = htmlOfDisplay(s);
      expect(foreignMarkup(html)).toEqual([]);
      expect(htmlText(html)).toBe(s);
    }), { numRuns: 60 });
  });

  it("for all kernel names: the kernel, its schedule and its code display no markup of the name", () => {
    fc.assert(fc.property(hostile, (name) => {
      let k: lp.Kernel;
      try {
        k = lp.makeKernel("{ [i]: 0 <= i < n }", "out[i] = 2*a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: name });
      } catch (e) {
        expect(e).toBeInstanceOf(lp.LoomError); // a name the parser refuses
        return;
      }
      k = lp.tagInames(lp.splitIname(k, "i", 8), { i_outer: "g.0", i_inner: "l.0" });
      for (const x of [k, lp.schedule(k)]) expect(foreignMarkup(htmlOfDisplay(x))).toEqual([]);
      let code: lp.GeneratedCode | undefined;
      try {
        code = lp.generateCode(k, "cuda");
      } catch (e) {
        expect(e).toBeInstanceOf(lp.CodegenError); // code generation refuses a name that is no identifier
      }
      if (code) expect(foreignMarkup(htmlOfDisplay(code))).toEqual([]);
    }), { numRuns: 25 });
  });

  it("for all tuning points and error messages: no foreign tag in the records table", () => {
    fc.assert(fc.property(fc.dictionary(hostile, hostile, { maxKeys: 3 }), hostile, (point, error) => {
      const html = htmlOfDisplay([record(point, "ok", 1), record(point, "failed", NaN, error)]);
      expect(foreignMarkup(html)).toEqual([]);
    }), { numRuns: 60 });
  });

  it("for all code: highlighting changes no character of it", () => {
    fc.assert(fc.property(hostile, fc.constantFrom("c", "cuda", "js", "wgsl"), (code, target) => {
      const html = highlightCode(code, target);
      expect(htmlText(html)).toBe(code);
      expect(foreignMarkup(html)).toEqual([]);
    }), { numRuns: 100 });
  });

  it("escapeHtml leaves no character that could open a tag or close an attribute", () => {
    fc.assert(fc.property(fc.string(), (s) => {
      expect(escapeHtml(s)).not.toMatch(/[<>"']/);
      expect(htmlText(escapeHtml(s))).toBe(s);
    }));
  });
});
