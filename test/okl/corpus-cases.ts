/**
 * The cases of the OKL corpus (test/fixtures/okl-corpus, or $LOOM_OKL_CORPUS), discovered once for
 * the corpus tests and the coverage report (scripts/okl-corpus-report.ts): per corpus folder, the
 * inputs with their defines, include paths and front-end options, which should fail and why, and
 * which are OCCA unit-test fragments rather than whole files.
 *
 *   for (const c of corpusCases()) parseOklAst(readFileSync(c.source, "utf8"), c.options);
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { OklError } from "../../src/errors.js";
import type { ParseOklOptions } from "../../src/okl/parse-okl.js";
import { CORPUS, GENERATED } from "./corpus-path.js";

export { CORPUS, GENERATED };

/** The corpus folders, in report order. */
export const FOLDERS = [
  "occa-transpiler", "occa-transpiler-pr233-metal", "occa-transpiler-pr234-opencl", "occa-examples", "occa-unit-snippets",
] as const;
export type CorpusFolder = (typeof FOLDERS)[number];

export interface CorpusCase {
  readonly folder: CorpusFolder;
  /** Absolute path of the input. */
  readonly source: string;
  /** The path inside the corpus. */
  readonly rel: string;
  readonly backend: string;
  /** OCCA's expected diagnostic (the `.err` file), for should-fail transpiler cases. */
  readonly reference?: string;
  readonly shouldFail: boolean;
  /** A normalizer case (`reference` is the normalized source). */
  readonly normalizer: boolean;
  /** An OCCA unit-test snippet: declarations and statements mixed at the top level (parseOklFragment). */
  readonly fragment: boolean;
  /** Front-end options for parseOklAst / parseOklFragment / parseOkl (defines, include paths, checks). */
  readonly options: ParseOklOptions;
}

export const corpusPresent = existsSync(CORPUS);

export function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

export const reader = (p: string): string | undefined => (existsSync(p) ? readFileSync(p, "utf8") : undefined);

/** Backends on which the new transpiler checks the loop structure (OKL.md §3.4). */
const GPU = new Set(["cuda", "hip", "dpcpp", "launcher", "metal", "opencl"]);

/** The golden cases of one occa-transpiler tree (main or one of the Metal/OpenCL PRs), one per config entry. */
export function transpilerCases(root: Extract<CorpusFolder, `occa-transpiler${string}`>): CorpusCase[] {
  const out: CorpusCase[] = [];
  for (const f of files(join(CORPUS, root, "configs")).filter((f) => f.endsWith(".json") && !f.endsWith("suite.json")).sort()) {
    const cfg = JSON.parse(readFileSync(f, "utf8")) as unknown;
    for (const c of (Array.isArray(cfg) ? cfg : [cfg]) as Record<string, any>[]) {
      const ac = c.action_config ?? {};
      const source = join(CORPUS, root, "data", ac.source);
      const backend: string = ac.backend ?? "";
      const shouldFail = c.compare === "error_message";
      const filename = source.split("/").pop()!;
      out.push({
        folder: root, source, rel: source.slice(CORPUS.length + 1), backend,
        reference: join(CORPUS, root, "data", c.reference), shouldFail, normalizer: c.action === "normalizer", fragment: false,
        options: shouldFail
          ? { filename, readFile: reader }
          : {
            filename, readFile: reader,
            includePaths: (ac.includes ?? []).map((i: string) => join(CORPUS, root, i)),
            defines: Object.fromEntries((ac.defs ?? []).map((d: string) => d.split("="))),
            requireLoops: GPU.has(backend),
          },
      });
    }
  }
  return out;
}

/** OCCA's example kernels, with the defines OCCA prepends (from the legacy outputs' status.json). */
export function exampleCases(): CorpusCase[] {
  const defines = new Map<string, Record<string, string>>();
  for (const s of files(join(GENERATED, "occa-examples")).filter((f) => f.endsWith("status.json"))) {
    const j = JSON.parse(readFileSync(s, "utf8")) as { input: string; defines_prepended?: Record<string, string> };
    defines.set(j.input, j.defines_prepended ?? {});
  }
  return files(join(CORPUS, "occa")).filter((f) => f.endsWith(".okl") && !f.includes("legacy-unit-snippets")).sort().map((source) => {
    const rel = source.slice(CORPUS.length + 1);
    return {
      folder: "occa-examples", source, rel, backend: "", shouldFail: false, normalizer: false, fragment: false,
      options: { filename: source, readFile: reader, defines: defines.get(rel) ?? {} },
    };
  });
}

export interface Snippet { readonly path: string; readonly expect: string; readonly file: string }

/** The snippets mined from OCCA's unit tests (manifest.json). */
export function snippetManifest(): Snippet[] {
  return JSON.parse(readFileSync(join(CORPUS, "occa/legacy-unit-snippets/manifest.json"), "utf8")) as Snippet[];
}

export function snippetCases(): CorpusCase[] {
  return snippetManifest().map((s) => {
    const source = join(CORPUS, s.path);
    return {
      folder: "occa-unit-snippets", source, rel: s.path, backend: "", shouldFail: s.expect === "fail", normalizer: false, fragment: true,
      // OCCA's okl.cpp tests run the structural validation; its parser and mode tests do not (okl/validate
      // is off or the snippet is a bare statement list), and its parser tests register a @dummy attribute.
      options: { structure: s.path.includes("/okl-validation/"), extraAttributes: ["dummy"] },
    };
  });
}

/** Every case of `folder`. */
export function folderCases(folder: CorpusFolder): CorpusCase[] {
  switch (folder) {
    case "occa-examples": return exampleCases();
    case "occa-unit-snippets": return snippetCases();
    default: return transpilerCases(folder);
  }
}

/** Every case of the corpus, folder by folder. */
export function corpusCases(): CorpusCase[] {
  return FOLDERS.flatMap(folderCases);
}

/**
 * Where Loom's wording differs from OCCA's expected message, the pattern of OCCA's message and the
 * pattern of ours that states the same reason. Otherwise our message must start with OCCA's.
 */
const SAME_REASON: readonly [RegExp, RegExp][] = [
  [/^'(\w+)' attribute only applies to (variable or type|type or variable) declarations?$/, /^'\w+' attribute only applies to (variable or type|type or variable) declarations?/],
  [/^'okl_kernel': only applies to functions with \[void\] return types$/, /^\[@kernel\] functions must have a \[void\] return type/],
  [/^'okl_restrict': only applies to pointer type$/, /^\[@restrict\] only applies to pointer types/],
  // OCCA's typo "Mistmatch".
  [/^Mistmatch of \[@(\w+)\] loops: expected loop inside$/, /^Mismatch of \[@\w+\] loops: expected loop inside/],
  // A @tile(@outer, @inner) nested in another: the transpiler names the inner half, we the outer one.
  [/^Cannot have \[@inner\] loop outside of an \[@outer\] loop$/, /^Cannot have \[@outer\] loop inside an \[@inner\] loop/],
];

/** The reason of an expected OCCA diagnostic: the text after "error:"/"Error:" on its first line. */
export function expectedReason(err: string): string {
  const first = err.split("\n")[0]!;
  return first.replace(/^.*?\berror: /, "").replace(/^Error: /, "").trim();
}

export function sameReason(expected: string, got: string): boolean {
  if (got.startsWith(expected)) return true;
  return SAME_REASON.some(([e, g]) => e.test(expected) && g.test(got));
}

export type Outcome = { kind: "ok" } | { kind: "subset"; e: OklError } | { kind: "error"; e: unknown };

/** Run `f`; "ok", "subset" (an OklError naming a construct outside Loom's C subset) or the error. */
export function outcome(f: () => unknown): Outcome {
  try {
    f();
    return { kind: "ok" };
  } catch (e) {
    if (e instanceof OklError && e.rule === "OKL subset") return { kind: "subset", e };
    return { kind: "error", e };
  }
}

/**
 * Whether a should-fail case was rejected for OCCA's reason: the expected message for transpiler
 * cases (with a `.err`), any OklError that is not "outside the subset" for unit-test snippets.
 */
export function rejectedAsExpected(c: CorpusCase, r: Outcome): { ok: boolean; why: string } {
  if (r.kind === "ok") return { ok: false, why: `accepted ${c.rel}` };
  if (c.fragment) {
    return r.kind === "subset" || !(r.e instanceof OklError) ? { ok: false, why: `${c.rel}: ${String(r.e)}` } : { ok: true, why: "" };
  }
  const expected = expectedReason(readFileSync(c.reference!, "utf8"));
  if (!(r.e instanceof OklError)) return { ok: false, why: `${c.rel}: not an OklError: ${String(r.e)}` };
  if (!sameReason(expected, r.e.detail)) return { ok: false, why: `${c.rel}:\n  expected: ${expected}\n  got:      ${r.e.detail}` };
  return { ok: true, why: "" };
}
