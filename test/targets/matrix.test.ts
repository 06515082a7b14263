/**
 * The target table of the README and docs/targets.md is rendered from test/targets/matrix.ts, and
 * each row's evidence is real: every built target has a row, and the test files a row cites exist
 * and name the tool the row names. (`npx tsx scripts/targets-table.ts` prints the table.)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_TARGETS } from "../../codegen/index.js";
import { TARGET_NAMES } from "../../src/ir/index.js";
import { renderTargetTable, TARGET_MATRIX } from "./matrix.js";

const root = join(import.meta.dirname, "..", "..");

describe("the target table", () => {
  it("has one row per target of the API, in the API's order, and every target is built", () => {
    expect(TARGET_MATRIX.map((r) => r.target)).toEqual([...TARGET_NAMES]);
    expect([...BUILT_TARGETS]).toEqual([...TARGET_NAMES]);
  });

  it("cites test files that exist and name the row's tool", () => {
    for (const r of TARGET_MATRIX) {
      for (const [file, word] of r.evidence) {
        expect(existsSync(join(root, file)), `${r.target}: ${file}`).toBe(true);
        expect(readFileSync(join(root, file), "utf8"), `${r.target}: ${file} mentions ${word}`).toContain(word);
      }
    }
  });

  it.each(["README.md", "docs/targets.md"])("%s shows the table as rendered", (doc) => {
    expect(readFileSync(join(root, doc), "utf8")).toContain(renderTargetTable());
  });
});
