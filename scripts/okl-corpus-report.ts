/**
 * Coverage of the OKL corpus, folder by folder (and a row of real-world-style kernels, test/okl/real-world-kernels.ts): inputs, should-fail inputs rejected for OCCA's
 * reason, inputs outside Loom's C subset, inputs that pass the front end, that import (parseOkl)
 * and that lower to each target. Prints a markdown table; `--write` replaces the table in docs/okl.md
 * (between the okl-corpus-table markers); `--failures` lists why the others do not import or lower.
 *
 *   npx tsx scripts/okl-corpus-report.ts [--write] [--failures]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { generateCode } from "../codegen/index.js";
import { parseOklAst, parseOklFragment } from "../src/okl/index.js";
import { parseOkl } from "../src/okl/parse-okl.js";
import { FOLDERS, folderCases, outcome, rejectedAsExpected, type CorpusCase, type CorpusFolder } from "../test/okl/corpus-cases.js";
import { REAL_WORLD } from "../test/okl/real-world-kernels.js";

export const TARGETS = ["c", "openmp", "opencl", "cuda", "js", "okl"] as const;
export const START = "<!-- okl-corpus-table:start -->";
export const END = "<!-- okl-corpus-table:end -->";

interface Row {
  folder: string;
  inputs: number;
  shouldFail: number;
  rejected: number;
  subset: number;
  frontEnd: number;
  noKernel: number;
  imported: number;
  targets: Record<(typeof TARGETS)[number], number>;
}

/** Why an input did not import or lower, with the input. */
export interface Failure { readonly rel: string; readonly stage: string; readonly message: string }

/** One line of an error message, without the caret excerpt. */
const firstLine = (e: unknown): string => String((e as { detail?: string }).detail ?? (e as Error).message ?? e).split("\n")[0]!;

/** The inputs of a folder: cases grouped by source file (a file tested on several backends counts once). */
function inputs(folder: CorpusFolder): CorpusCase[][] {
  const by = new Map<string, CorpusCase[]>();
  // The normalizer cases are syntax rewrites, not kernels OCCA validates (corpus.test.ts checks their output).
  for (const c of folderCases(folder).filter((x) => !x.normalizer)) by.set(c.source, [...(by.get(c.source) ?? []), c]);
  return [...by.values()];
}

function folderRow(folder: CorpusFolder, failures: Failure[]): Row {
  const row: Row = {
    folder, inputs: 0, shouldFail: 0, rejected: 0, subset: 0, frontEnd: 0, noKernel: 0, imported: 0,
    targets: Object.fromEntries(TARGETS.map((t) => [t, 0])) as Row["targets"],
  };
  for (const group of inputs(folder)) {
    row.inputs++;
    const c = group[0]!;
    const src = readFileSync(c.source, "utf8");
    const front = (x: CorpusCase) => (x.fragment ? parseOklFragment(src, x.options) : parseOklAst(src, x.options));
    if (c.shouldFail) {
      row.shouldFail++;
      if (group.every((x) => rejectedAsExpected(x, outcome(() => front(x))).ok)) row.rejected++;
      else failures.push({ rel: c.rel, stage: "should fail", message: "not rejected for the expected reason" });
      continue;
    }
    const results = group.map((x) => outcome(() => front(x)));
    if (results.some((r) => r.kind === "subset")) {
      row.subset++;
      continue;
    }
    const bad = results.find((r) => r.kind === "error");
    if (bad) {
      failures.push({ rel: c.rel, stage: "front end", message: firstLine((bad as { e: unknown }).e) });
      continue;
    }
    row.frontEnd++;
    // OCCA's unit-test fragments without a @kernel function are statement lists, not kernels.
    if (c.fragment && !parseOklFragment(src, c.options).some((it) => it.kind === "function" && it.isKernel)) {
      row.noKernel++;
      continue;
    }
    importAndLower(c.rel, src, c.options, row, failures);
  }
  return row;
}

/** Import `source` and lower its kernels to every target, counting each stage passed in `row`. */
function importAndLower(rel: string, source: string, options: Parameters<typeof parseOkl>[1], row: Row, failures: Failure[]): void {
  let kernels;
  try {
    kernels = parseOkl(source, options);
  } catch (e) {
    failures.push({ rel, stage: "import", message: firstLine(e) });
    return;
  }
  row.imported++;
  for (const t of TARGETS) {
    try {
      for (const k of kernels) generateCode(k, t);
      row.targets[t]++;
    } catch (e) {
      failures.push({ rel, stage: t, message: firstLine(e) });
    }
  }
}

/**
 * The row of the kernels written in the style of real HPC code bases (test/okl/real-world-kernels.ts),
 * each with the kernel properties its host passes.
 */
function realWorldRow(failures: Failure[]): Row {
  const row: Row = {
    folder: "real-world style", inputs: 0, shouldFail: 0, rejected: 0, subset: 0, frontEnd: 0, noKernel: 0, imported: 0,
    targets: Object.fromEntries(TARGETS.map((t) => [t, 0])) as Row["targets"],
  };
  for (const rw of REAL_WORLD) {
    row.inputs++;
    const rel = `real-world/${rw.name}`;
    try {
      parseOklAst(rw.source, rw.options);
    } catch (e) {
      failures.push({ rel, stage: "front end", message: firstLine(e) });
      continue;
    }
    row.frontEnd++;
    importAndLower(rel, rw.source, rw.options, row, failures);
  }
  return row;
}

/** The coverage table (markdown) and the failures behind it. */
export function corpusReport(): { table: string; failures: Failure[] } {
  const failures: Failure[] = [];
  const rows = [...FOLDERS.map((f) => folderRow(f, failures)), realWorldRow(failures)];
  const total: Row = {
    folder: "**total**", inputs: 0, shouldFail: 0, rejected: 0, subset: 0, frontEnd: 0, noKernel: 0, imported: 0,
    targets: Object.fromEntries(TARGETS.map((t) => [t, 0])) as Row["targets"],
  };
  for (const r of rows) {
    for (const k of ["inputs", "shouldFail", "rejected", "subset", "frontEnd", "noKernel", "imported"] as const) total[k] += r[k];
    for (const t of TARGETS) total.targets[t] += r.targets[t];
  }
  const head = ["corpus folder", "inputs", "should fail: rejected for the expected reason", "outside the C subset", "pass the front end",
    "no `@kernel` (fragments)", "import", ...TARGETS];
  const line = (r: Row) => [r.folder === "**total**" || r.folder === "real-world style" ? r.folder : `\`${r.folder}\``, r.inputs, `${r.rejected} / ${r.shouldFail}`, r.subset,
    r.frontEnd, r.noKernel, r.imported, ...TARGETS.map((t) => r.targets[t])];
  const table = [head, head.map(() => "---"), ...[...rows, total].map(line)].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
  return { table: `${table}\n`, failures };
}

/** `readme` with the table block replaced (markers added in an "OKL corpus" section if absent). */
export function withTable(readme: string, table: string): string {
  const block = `${START}\n${table}${END}`;
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a >= 0 && b > a) return readme.slice(0, a) + block + readme.slice(b + END.length);
  return `${readme.replace(/\n*$/, "\n")}\n## OKL corpus\n\n${block}\n`;
}

/** The table block currently in `readme`, or undefined. */
export function tableIn(readme: string): string | undefined {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  return a >= 0 && b > a ? readme.slice(a + START.length + 1, b) : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { table, failures } = corpusReport();
  process.stdout.write(table);
  if (process.argv.includes("--failures")) {
    for (const f of failures) process.stdout.write(`${f.stage.padEnd(11)} ${f.rel}: ${f.message}\n`);
  }
  if (process.argv.includes("--write")) {
    const path = join(import.meta.dirname, "..", "docs", "okl.md");
    writeFileSync(path, withTable(readFileSync(path, "utf8"), table));
  }
}
