#!/usr/bin/env node
// Executes every notebook in notebooks/ with the tslab kernel and fails on an error cell, printing
// the failing cell and its output. One command from the repository root after `npm install`:
//
//   node scripts/run-notebooks.mjs [--no-build] [--html DIR] [--out DIR] [NOTEBOOK...]
//
// It builds dist/ (`npm run build`; the notebooks import "loom-kernels" through
// notebooks/node_modules, a link to this checkout), installs notebooks/package.json (tslab) if
// needed, registers the tslab kernel for the Python that has Jupyter, and runs
// scripts/run-notebooks.py (nbclient). Needs Debian's jupyter-nbconvert python3-ipykernel
// jupyter-client jupyter-core python3-nbconvert (python3-nbclient comes with them).
//   LOOM_JUPYTER_PYTHON  the Python with Jupyter (default /usr/bin/python3)
// Executed outputs go to --out (not back into notebooks/: the committed notebooks stay without outputs).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const notebooks = join(root, "notebooks");
const python = process.env.LOOM_JUPYTER_PYTHON || "/usr/bin/python3";
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function step(what, cmd, args, cwd = root) {
  console.log(`run-notebooks: ${what}`);
  const r = spawnSync(cmd, args, { cwd, stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`run-notebooks: ${what} failed (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`})`);
    process.exit(1);
  }
}

const args = process.argv.slice(2);
const noBuild = args.includes("--no-build");
const passOn = [];
const chosen = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--no-build") continue;
  if (a === "--html" || a === "--out" || a === "--timeout") passOn.push(a, args[++i]);
  else if (a.startsWith("--")) {
    console.error(`run-notebooks: unknown option ${a}; options are --no-build, --html DIR, --out DIR, --timeout S`);
    process.exit(1);
  } else chosen.push(resolve(a));
}

const probe = spawnSync(python, ["-c", "import nbclient, nbformat, nbconvert"], { encoding: "utf8" });
if (probe.status !== 0) {
  console.error(`run-notebooks: ${python} cannot import nbclient/nbformat/nbconvert: install the Debian packages ` +
    "jupyter-nbconvert python3-ipykernel jupyter-client jupyter-core python3-nbconvert, or set LOOM_JUPYTER_PYTHON");
  process.exit(1);
}
if (!noBuild) step("npm run build (dist/ for the notebooks)", npm, ["run", "build"]);
if (!existsSync(join(notebooks, "node_modules", ".bin", "tslab"))) {
  step("npm install in notebooks/ (tslab, loom-kernels from ..)", npm, ["install", "--no-audit", "--no-fund"], notebooks);
}
// tslab's default kernel spec runs a bare `tslab`, which is not on PATH: name the binary and the Python.
step("tslab install (the kernel spec)", join(notebooks, "node_modules", ".bin", "tslab"),
  ["install", `--python=${python}`, `--binary=${join(notebooks, "node_modules", ".bin", "tslab")}`], notebooks);

const list = chosen.length > 0 ? chosen : readdirSync(notebooks).filter((f) => f.endsWith(".ipynb")).sort().map((f) => join(notebooks, f));
const started = Date.now();
const r = spawnSync(python, [join(root, "scripts", "run-notebooks.py"), ...passOn, ...list], { cwd: root, stdio: "inherit" });
console.log(`run-notebooks: ${list.length} notebooks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(r.status ?? 1);
