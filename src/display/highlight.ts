/**
 * Syntax highlighting of generated code with highlight.js (its core and three grammars: C, C++,
 * JavaScript), loaded on first use. Without highlight.js the code is shown plain, escaped.
 */
import { createRequire } from "node:module";
import { escapeHtml } from "./html.js";

interface Highlighter {
  highlight(code: string, opts: { language: string; ignoreIllegals: boolean }): { value: string };
}

/** The highlight.js grammar each target's code is read with (the C++ one for CUDA-like dialects). */
const LANGUAGE: Readonly<Record<string, string>> = {
  c: "c", openmp: "c", opencl: "c", ispc: "c",
  cuda: "cpp", hip: "cpp", sycl: "cpp", metal: "cpp", okl: "cpp", alpaka: "cpp", cucl: "cpp",
  js: "javascript",
};

let loaded: Highlighter | null | undefined;

function highlighter(): Highlighter | null {
  if (loaded !== undefined) return loaded;
  try {
    const require = createRequire(import.meta.url);
    const core = require("highlight.js/lib/core") as { newInstance(): Highlighter & { registerLanguage(n: string, l: unknown): void } };
    // An instance of our own: the languages we register do not change anyone else's highlight.js.
    const hljs = core.newInstance();
    for (const lang of ["c", "cpp", "javascript"]) hljs.registerLanguage(lang, require(`highlight.js/lib/languages/${lang}`));
    loaded = hljs;
  } catch {
    loaded = null;
  }
  return loaded;
}

/** `code` as HTML: highlight.js spans (`hljs-keyword`, …) for a target it knows, else escaped text. */
export function highlightCode(code: string, target: string): string {
  const language = LANGUAGE[target];
  const hljs = language === undefined ? null : highlighter();
  if (hljs === null || language === undefined) return escapeHtml(code);
  // highlight.js escapes the text it wraps (&, <, >, quotes), so names from the kernel stay inert.
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}
