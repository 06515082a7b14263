/**
 * The notebooks as committed (issue 19): valid nbformat 4 for the tslab kernel, no outputs (CI
 * executes them: scripts/run-notebooks.mjs), importing the package by its name, and free of the
 * shorthand `{ a }` of an earlier cell's variable, which tslab's compiler rejects.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dir = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "notebooks");
const files = readdirSync(dir).filter((f) => f.endsWith(".ipynb")).sort();

interface Cell { cell_type: string; source: string | string[]; outputs?: unknown[]; execution_count?: number | null }
interface Notebook { nbformat: number; metadata: { kernelspec?: { name?: string } }; cells: Cell[] }

const read = (f: string) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Notebook;
const source = (c: Cell) => (Array.isArray(c.source) ? c.source.join("") : c.source);

/** Names declared (const/let/var/function) in cells before `index`. */
function earlierNames(nb: Notebook, index: number): Set<string> {
  const names = new Set<string>();
  nb.cells.slice(0, index).filter((c) => c.cell_type === "code").forEach((c) => {
    for (const m of source(c).matchAll(/\b(?:const|let|var|function)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1]!);
  });
  return names;
}

describe("notebooks/", () => {
  it("holds the four notebooks of the issue", () => {
    expect(files).toEqual(["01-tutorial.ipynb", "02-okl.ipynb", "03-tuning.ipynb", "04-backends.ipynb"]);
  });

  for (const f of files) {
    describe(f, () => {
      const nb = read(f);
      const code = nb.cells.filter((c) => c.cell_type === "code");

      it("is nbformat 4 for the tslab kernel and imports loom-kernels", () => {
        expect(nb.nbformat).toBe(4);
        expect(nb.metadata.kernelspec?.name).toBe("tslab");
        expect(source(code[0]!)).toContain('import * as lp from "loom-kernels"');
      });

      it("is committed without outputs (strip with scripts/run-notebooks.py --strip)", () => {
        expect(code.filter((c) => (c.outputs ?? []).length > 0 || (c.execution_count ?? null) !== null).map(source)).toEqual([]);
      });

      it("uses no shorthand property of an earlier cell's variable ({ a } fails in tslab; write { a: a })", () => {
        const bad: string[] = [];
        nb.cells.forEach((c, i) => {
          if (c.cell_type !== "code") return;
          const earlier = earlierNames(nb, i);
          // An innermost `{ … }` with a bare name among its comma-separated items: a property without a colon.
          for (const m of source(c).matchAll(/\{([^{}]*)\}/g)) {
            for (const item of m[1]!.split(",").map((x) => x.trim())) {
              if (/^[A-Za-z_$][\w$]*$/.test(item) && earlier.has(item)) bad.push(`cell ${i}: { ${item} }`);
            }
          }
        });
        expect(bad).toEqual([]);
      });
    });
  }
});
