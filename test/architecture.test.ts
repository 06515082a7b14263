/**
 * The one direction of imports (shared/design/ARCHITECTURE.md): each folder may import only the
 * folders listed for it. `src/errors.ts` is a leaf every folder may use; `src/index.ts` is the
 * public face and no library module imports it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  "src/poly": ["grammar"],
  "src/ir": ["src/poly"],
  "src/parse": ["grammar", "src/ir", "src/poly"],
  // OKL: syntax (source -> validated AST) never imports lower (AST -> kernels); the folder's own
  // top level (index.ts, parse-okl.ts) joins the two.
  "src/okl/syntax": [],
  "src/okl/lower": ["src/okl/syntax", "src/ir", "src/poly"],
  "src/okl": ["src/okl/syntax", "src/okl/lower", "src/ir", "src/poly"],
  "src/analysis": ["src/ir", "src/poly"],
  transforms: ["src/ir", "src/poly", "src/analysis"],
  "src/schedule": ["src/ir", "src/poly", "src/analysis"],
  codegen: ["src/ir", "src/schedule", "src/poly"],
  "src/run": ["codegen", "src/schedule", "native", "src/ir", "src/poly", "src/analysis"],
  "src/tune": ["src/run", "transforms", "src/ir", "src/schedule", "codegen", "src/analysis", "src/poly"],
  "src/display": ["src/tune", "src/run", "src/ir", "src/schedule", "codegen", "src/analysis", "src/poly"],
};
const LEAVES = ["src/errors.ts"];

/** The .ts files under `dir`, leaving out generated code and sub-folders that are folders of their own in ALLOWED. */
function tsFiles(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  for (const e of entries) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      const own = Object.keys(ALLOWED).includes(relative(root, p).replace(/\\/g, "/"));
      if (e !== "generated" && !own) out = out.concat(tsFiles(p));
    } else if (e.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** The folder (a key of ALLOWED, or a leaf file) a repository path belongs to. */
function folderOf(path: string): string {
  const rel = relative(root, path).replace(/\\/g, "/");
  if (LEAVES.includes(rel.replace(/\.js$/, ".ts"))) return "leaf";
  if (rel === "src/index.ts" || rel === "src/index.js") return "src/index";
  if (rel.startsWith("grammar/")) return "grammar";
  if (rel.startsWith("native/")) return "native";
  const key = Object.keys(ALLOWED).find((k) => rel === k || rel.startsWith(k + "/"));
  return key ?? rel;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/g)].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s));
}

describe("architecture: one direction of imports", () => {
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    it(`${folder} imports only ${allowed.join(", ") || "nothing of ours"}`, () => {
      const bad: string[] = [];
      for (const file of tsFiles(join(root, folder))) {
        for (const target of importsOf(file)) {
          const to = folderOf(target);
          if (to === "leaf" || to === folder || allowed.includes(to)) continue;
          bad.push(`${relative(root, file)} -> ${relative(root, target)}`);
        }
      }
      expect(bad).toEqual([]);
    });
  }

  it("codegen/lower (schedule -> AST) imports of codegen only the AST (and its printer) and expression lowering: targets come after it", () => {
    const within = new Set(["codegen/ast.ts", "codegen/printer.ts", "codegen/expr.ts"]);
    const bad: string[] = [];
    for (const file of tsFiles(join(root, "codegen/lower"))) {
      for (const target of importsOf(file)) {
        const rel = relative(root, target).replace(/\\/g, "/").replace(/\.js$/, ".ts");
        if (folderOf(target) === "codegen" && !rel.startsWith("codegen/lower/") && !within.has(rel)) bad.push(`${relative(root, file)} -> ${rel}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("codegen/targets print what the pipeline lowered: none imports codegen/index.ts or codegen/pipeline.ts (no upward arrow)", () => {
    const bad: string[] = [];
    for (const file of tsFiles(join(root, "codegen/targets"))) {
      for (const target of importsOf(file)) {
        const rel = relative(root, target).replace(/\\/g, "/").replace(/\.js$/, ".ts");
        if (rel === "codegen/index.ts" || rel === "codegen/pipeline.ts") bad.push(`${relative(root, file)} -> ${rel}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("no import cycles: every module can be read after the modules it imports", () => {
    const files = Object.keys(ALLOWED).flatMap((f) => tsFiles(join(root, f)));
    const norm = (f: string) => relative(root, f).replace(/\\/g, "/").replace(/\.js$/, ".ts");
    const graph = new Map(files.map((f) => [norm(f), importsOf(f).map(norm).filter((t) => t.endsWith(".ts"))]));
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === "done") return;
      if (state.get(f) === "open") {
        cycles.push([...path.slice(path.indexOf(f)), f].join(" -> "));
        return;
      }
      state.set(f, "open");
      for (const t of graph.get(f) ?? []) if (graph.has(t)) visit(t, [...path, f]);
      state.set(f, "done");
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it("the command line (src/cli.ts, src/cli/) uses the public API only", () => {
    const bad: string[] = [];
    for (const file of [join(root, "src/cli.ts"), ...tsFiles(join(root, "src/cli"))]) {
      for (const target of importsOf(file)) {
        const rel = relative(root, target).replace(/\\/g, "/").replace(/\.js$/, ".ts");
        if (rel === "src/index.ts" || LEAVES.includes(rel) || rel.startsWith("src/cli/")) continue;
        bad.push(`${relative(root, file)} -> ${rel}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("no library module imports src/index.ts", () => {
    const bad: string[] = [];
    for (const folder of Object.keys(ALLOWED)) {
      for (const file of tsFiles(join(root, folder))) {
        if (importsOf(file).some((t) => folderOf(t) === "src/index")) bad.push(relative(root, file));
      }
    }
    expect(bad).toEqual([]);
  });
});
