// Compiles every grammar/*.ne with nearleyc into grammar/generated/*.ts (ignored by git).
// Run by `npm install` (prepare) and before the tests; generated files are never hand-edited.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, existsSync } from "node:fs";
import { join, basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const grammarDir = join(root, "grammar");
const outDir = join(grammarDir, "generated");
mkdirSync(outDir, { recursive: true });
const nearleyc = createRequire(import.meta.url).resolve("nearley/bin/nearleyc.js");

for (const file of readdirSync(grammarDir).filter((f) => f.endsWith(".ne"))) {
  const src = join(grammarDir, file);
  const out = join(outDir, basename(file, ".ne") + ".ts");
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) continue;
  execFileSync(process.execPath, [nearleyc, src, "-o", out], { stdio: "inherit" });
  console.log(`nearleyc ${file} -> grammar/generated/${basename(out)}`);
}
