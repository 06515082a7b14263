/**
 * Whether this process is a tslab kernel executing a cell, and tslab's display API if so. tslab
 * is never imported: its kernel has loaded `tslab/dist/jupyter.js` (the module that holds the
 * current cell's output channel), and `public.js` beside it is the `display` a cell gets from
 * `require("tslab")`: found through the CommonJS module cache, so it is the kernel's own instance.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface TslabDisplay {
  html(s: string): void;
  text(s: string): void;
}

interface TslabPublic {
  display?: Partial<TslabDisplay>;
  newDisplay?: () => TslabDisplay;
}

const JUPYTER_MODULE = /[\\/]tslab[\\/]dist[\\/]jupyter\.js$/;

/** tslab's public module as a cell sees it, or undefined outside a tslab cell (plain Node, vitest, a script). */
function tslabPublic(): TslabPublic | undefined {
  if (process.env["LOOM_DISPLAY"] === "text") return undefined;
  try {
    const require = createRequire(import.meta.url);
    for (const [path, mod] of Object.entries(require.cache)) {
      if (!JUPYTER_MODULE.test(path)) continue;
      // Set while tslab executes a cell; null before the first one.
      if ((mod?.exports as { lastWriteDisplayData?: unknown } | undefined)?.lastWriteDisplayData == null) continue;
      return require(join(dirname(path), "public.js")) as TslabPublic;
    }
  } catch {
    // no CommonJS cache or an unexpected tslab layout: not inside tslab as far as we can tell
  }
  return undefined;
}

/** tslab's `display`, or undefined outside a tslab cell. */
export function tslabDisplay(): TslabDisplay | undefined {
  const d = tslabPublic()?.display;
  return typeof d?.html === "function" && typeof d.text === "function" ? (d as TslabDisplay) : undefined;
}

/** A new tslab display entry that each call overwrites (a progress bar), or undefined outside tslab. */
export function tslabNewDisplay(): TslabDisplay | undefined {
  const make = tslabPublic()?.newDisplay;
  return typeof make === "function" ? make() : undefined;
}
