/** guardedSubscripts: each access with the conditions under which C evaluates it (selects, &&, ||). */
import { describe, expect, it } from "vitest";
import { exprToString, guardedSubscripts } from "../../src/ir/index.js";
import { parseExpr } from "../../src/parse/index.js";

const show = (src: string) => guardedSubscripts(parseExpr(src)).map((g) => `${exprToString(g.node)} | ${g.guards.map(exprToString).join(" ; ")}`);

describe("guardedSubscripts", () => {
  it("a select guards its branches by the condition and its negation", () => {
    const got = show("a[i] if i < n else b[j]");
    expect(got[0]).toBe("a[i] | i < n");
    expect(got[1]).toMatch(/^b\[j\] \| (!|not)/);
  });

  it("&& and || guard their right operand; the condition itself is unguarded", () => {
    expect(show("i < n and a[i] > 0")).toEqual(["a[i] | i < n"]);
    expect(show("i >= n or a[i] > 0")[0]).toMatch(/^a\[i\] \| (!|not)/);
    expect(show("(a[i] > 0) and (b[i] > 0)")).toEqual(["a[i] | ", "b[i] | a[i] > 0"]);
  });

  it("nested accesses (an index read through another array) keep the guards around them", () => {
    expect(show("a[idx[i]] if i < n else 0")).toEqual(["a[idx[i]] | i < n", "idx[i] | i < n"]);
  });
});
