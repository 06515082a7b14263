/**
 * The OKL corpus table of docs/okl.md is the output of scripts/okl-corpus-report.ts, so it cannot go
 * stale: regenerate it with `npx tsx scripts/okl-corpus-report.ts --write`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { corpusReport, tableIn, withTable } from "../../scripts/okl-corpus-report.js";
import { corpusPresent } from "./corpus-cases.js";

describe.runIf(corpusPresent)("docs/okl.md: OKL corpus table", () => {
  it("equals the output of scripts/okl-corpus-report.ts", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../docs/okl.md"), "utf8");
    expect(tableIn(readme), "run: npx tsx scripts/okl-corpus-report.ts --write").toBe(corpusReport().table);
  }, 600_000); // the whole corpus imported: a budget for a loaded machine, not a speed check

  it("--write replaces only the marked block", () => {
    const doc = "# T\n\ntext\n";
    const once = withTable(doc, "| a |\n");
    expect(once).toContain("## OKL corpus");
    expect(tableIn(once)).toBe("| a |\n");
    const twice = withTable(once, "| b |\n");
    expect(tableIn(twice)).toBe("| b |\n");
    expect(twice.replace("| b |", "| a |")).toBe(once);
  });
});
