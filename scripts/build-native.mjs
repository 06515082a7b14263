#!/usr/bin/env node
// Builds the native addon (native/binding.gyp -> native/build/Release/loom_native.node) with
// node-gyp. A failed build warns and exits 0 so that `npm install` still succeeds; the reason
// goes to native/build/build-error.log, which nativeStatus() quotes.
//   LOOM_NATIVE_REQUIRED=1  a failed build exits 1 (CI that needs the addon)
//   LOOM_SKIP_NATIVE=1      skip the build
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const nativeDir = join(root, "native");
const buildDir = join(nativeDir, "build");
const addon = join(buildDir, "Release", "loom_native.node");
const errorLog = join(buildDir, "build-error.log");
const required = process.env.LOOM_NATIVE_REQUIRED === "1";

function onPath(names) {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  return names.find((n) => dirs.some((d) => existsSync(join(d, n))));
}

/** How to run node-gyp: npm's own (npm sets npm_config_node_gyp for scripts), a local install, npm's bundled copy, or PATH. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  try {
    candidates.push(createRequire(join(root, "package.json")).resolve("node-gyp/bin/node-gyp.js"));
  } catch {
    // not a dependency of ours; fall through to npm's bundled copy
  }
  const npmCli = process.env.npm_execpath;
  if (npmCli) candidates.push(join(dirname(dirname(npmCli)), "node_modules", "node-gyp", "bin", "node-gyp.js"));
  const prefix = dirname(dirname(process.execPath));
  for (const lib of ["lib", ""]) candidates.push(join(prefix, lib, "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"));
  const script = candidates.find((c) => c && c.endsWith(".js") && existsSync(c));
  if (script) return [process.execPath, script];
  return onPath(["node-gyp"]) ? ["node-gyp"] : undefined;
}

/** Headers of the running node: npm's nodedir if set, else the ones installed beside node (offline). */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [`--nodedir=${process.env.npm_config_nodedir}`];
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, "include", "node", "common.gypi")) ? [`--nodedir=${prefix}`] : [];
}

function fail(reason, details = "") {
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(errorLog, `${reason}\n${details}`);
  const tail = details.trim().split("\n").slice(-25).join("\n");
  console.warn(`\nloom: WARNING: the native addon was not built: ${reason}`);
  if (tail) console.warn(tail);
  console.warn("loom: the C/OpenMP, OpenCL and CUDA backends are unavailable until `npm run build:native` succeeds; see native/build/build-error.log\n");
  process.exit(required ? 1 : 0);
}

function run(cmd, args) {
  const r = spawnSync(cmd[0], [...cmd.slice(1), ...args], { cwd: nativeDir, encoding: "utf8", env: process.env });
  return { ok: r.status === 0, output: `${r.error ? String(r.error) + "\n" : ""}${r.stdout ?? ""}${r.stderr ?? ""}` };
}

if (process.env.LOOM_SKIP_NATIVE === "1") {
  console.log("loom: LOOM_SKIP_NATIVE=1, native addon not built");
  process.exit(0);
}

const cxx = process.env.CXX || onPath(["c++", "g++", "clang++"]);
if (!cxx) fail("no C++ compiler found (c++, g++ or clang++ on PATH, or CXX): install the Debian package build-essential");
if (!onPath(["make"])) fail("make not found: install the Debian package make (or build-essential)");
if (!onPath(["python3", "python"])) fail("python3 not found (node-gyp needs it): install the Debian package python3");
const gyp = nodeGyp();
if (!gyp) fail("node-gyp not found (npm ships one; or `npm install -g node-gyp`)");

const started = Date.now();
// Configure once, and again when binding.gyp changes; `build` alone is incremental.
const config = join(buildDir, "config.gypi");
const stale = !existsSync(config) || statSync(join(nativeDir, "binding.gyp")).mtimeMs > statSync(config).mtimeMs;
if (stale) {
  const c = run(gyp, ["configure", ...nodedirArgs()]);
  if (!c.ok) fail("node-gyp configure failed", c.output);
}
const b = run(gyp, ["build", "--jobs", "max"]);
if (!b.ok || !existsSync(addon)) fail("node-gyp build failed", b.output);
rmSync(errorLog, { force: true });
console.log(`loom: built ${addon.slice(root.length + 1)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
