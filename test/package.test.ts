/**
 * The package a user installs (issue 19): `npm pack` gives a tarball with the built library, its
 * types, the `loom` command and what builds the native addon; `npm install <tarball>` into a new
 * project makes `import * as lp from "loom-kernels"` work there (make, generate, run on js), and
 * the native backends either work (the addon built on install) or say how to build them.
 *
 * One pack and one install, shared by every case. The pack is made from a copy of the committed
 * tree, HEAD (so building dist/ never touches this checkout). Skipped, and says so, when the npm
 * registry cannot be reached (the install downloads the dependencies).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const ping = spawnSync(npm, ["ping"], { encoding: "utf8", timeout: 30_000 });
const reachable = ping.status === 0;
if (!reachable) {
  console.warn(`package.test.ts: SKIPPED: the npm registry is not reachable (npm ping: ${(ping.stderr || String(ping.error ?? "")).trim().split("\n")[0]})`);
}

let work = "";
let tarball = "";
let project = "";
let files: string[] = [];

/** Run a command; its stdout, or an error with the end of its output. */
function sh(cmd: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 600_000, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${(r.stdout + r.stderr).slice(-3000)}`);
  return r.stdout;
}

/** Run node (this one, or the binary `node`) on `code` (an ES module) inside the temporary project; its stdout. */
function nodeInProject(code: string, name = "main.mjs", node = process.execPath): string {
  writeFileSync(join(project, name), code);
  return execFileSync(node, [name], { cwd: project, encoding: "utf8", timeout: 120_000 });
}

/** The lowest Node version package.json's engines field accepts (">=20.19" -> "20.19.0"). */
function lowestNode(): string {
  const engines = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim());
  if (!m) throw new Error(`engines.node is "${engines}"; this test reads only ">=MAJOR.MINOR[.PATCH]"`);
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
}

/** The same example as the first case, printing one JSON line. */
const FIRST_EXAMPLE = `
      import * as lp from "loom-kernels";
      const k = lp.makeKernel("{ [i]: 0 <= i < n }", "out[i] = 2*a[i] + 1", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "twice" });
      const t = lp.tagInames(lp.splitIname(k, "i", 4), { i_inner: "l.0", i_outer: "g.0" });
      const a = new Float32Array([1, 2, 3, 4, 5, 6, 7]);
      const js = await lp.run(t, { a, n: 7 }, { backend: "js" });
      const ref = await lp.run(k, { a, n: 7 });
      const check = await lp.autoTestVsRef(k, t, { params: { n: 37 }, backend: "js" });
      console.log(JSON.stringify({ js: Array.from(js.out), ref: Array.from(ref.out), ok: check.ok,
        cuda: lp.generateCode(t, "cuda").deviceCode.includes("__global__"), text: String(t).includes("INAME TAGS:") }));
    `;

describe.skipIf(!reachable)("the npm package loom-kernels (npm pack, then npm install <tarball> in a new project)", () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "loom-package-"));
    // The committed tree (HEAD), so that others' unsaved work in this checkout cannot break the build.
    const src = join(work, "src");
    mkdirSync(src);
    sh("sh", ["-c", `git -C "${root}" archive --format=tar HEAD | tar -x -C "${src}"`], root);
    symlinkSync(join(root, "node_modules"), join(src, "node_modules"), "dir");
    // `npm pack` runs prepare (npm run build: grammars, dist/); the addon is built on install, not shipped.
    const out = sh(npm, ["pack", "--json", "--pack-destination", work], src, { LOOM_SKIP_NATIVE: "1" });
    const info = JSON.parse(out.slice(out.indexOf("["))) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, info[0]!.filename);
    files = info[0]!.files.map((f) => f.path);
    project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "uses-loom", private: true, type: "module" }));
    sh(npm, ["install", tarball, "--no-audit", "--no-fund"], project);
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it("the tarball holds the built library, its types, the command and the addon's sources; no tests, no TypeScript sources, no build output of the addon", () => {
    expect(tarball).toMatch(/loom-kernels-\d+\.\d+\.\d+\.tgz$/);
    for (const f of ["dist/src/index.js", "dist/src/index.d.ts", "bin/loom", "scripts/build-native.mjs", "native/binding.gyp", "native/src/addon.cc", "package.json"]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.startsWith("test/") || f.startsWith("native/build/") || f.startsWith("notebooks/"))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("import * as lp from \"loom-kernels\": make, transform, generate, run on js, agree with the interpreter", () => {
    const out = nodeInProject(FIRST_EXAMPLE);
    const r = JSON.parse(out.trim().split("\n").pop()!) as { js: number[]; ref: number[]; ok: boolean; cuda: boolean; text: boolean };
    expect(r.js).toEqual([3, 5, 7, 9, 11, 13, 15]);
    expect(r.ref).toEqual(r.js);
    expect(r).toMatchObject({ ok: true, cuda: true, text: true });
  });

  it("runs on the lowest Node that package.json's engines field accepts (Node's own binary from the npm registry)", () => {
    const version = lowestNode();
    const pkg = `node-${process.platform}-${process.arch}@${version}`;
    const dir = join(work, "lowest-node");
    mkdirSync(dir);
    const packed = spawnSync(npm, ["pack", pkg, "--pack-destination", dir], { cwd: dir, encoding: "utf8", timeout: 600_000 });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg} failed: ${(packed.stdout + packed.stderr).slice(-1500)}`);
    sh("sh", ["-c", "tar -xzf *.tgz"], dir);
    const node = join(dir, "package", "bin", "node");
    expect(execFileSync(node, ["--version"], { encoding: "utf8" }).trim()).toBe(`v${version}`);
    const r = JSON.parse(nodeInProject(FIRST_EXAMPLE, "lowest.mjs", node).trim().split("\n").pop()!) as { js: number[]; ok: boolean };
    expect(r.js).toEqual([3, 5, 7, 9, 11, 13, 15]);
    expect(r.ok).toBe(true);
  }, 900_000);

  it("the native backends work (the addon was built on install) or say how to build it", () => {
    const out = nodeInProject(`
      import * as lp from "loom-kernels";
      const k = lp.makeKernel("{ [i]: 0 <= i < n }", "out[i] = a[i] + 1", ["a: float64[n]", "out: float64[n]", "n: int32"]);
      try {
        const r = await lp.run(k, { a: new Float64Array([1, 2]), n: 2 }, { backend: "c" });
        console.log(JSON.stringify({ ran: Array.from(r.out) }));
      } catch (e) {
        console.log(JSON.stringify({ error: e.constructor.name, message: e.message }));
      }
    `, "native.mjs");
    const r = JSON.parse(out.trim().split("\n").pop()!) as { ran?: number[]; error?: string; message?: string };
    if (r.ran) expect(r.ran).toEqual([2, 3]);
    else {
      expect(r.error).toBe("BackendUnavailableError");
      expect(r.message).toMatch(/build:native|install/);
    }
  });

  it("the types resolve for a TypeScript user (tsc against the installed .d.ts)", () => {
    writeFileSync(join(project, "use.ts"), `import * as lp from "loom-kernels";\nconst k: lp.Kernel = lp.makeKernel("{ [i]: 0 <= i < n }", "out[i] = a[i]");\nconst c: lp.GeneratedCode = lp.generateCode(k, "c");\nexport const text: string = lp.show(k) + c.deviceCode;\n`);
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: ["node"], typeRoots: [join(root, "node_modules/@types")] }, files: ["use.ts"] }));
    const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], { encoding: "utf8", timeout: 120_000 });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("the loom command is installed and answers --help", () => {
    const bin = readdirSync(join(project, "node_modules", ".bin"));
    expect(bin).toContain("loom");
    const r = spawnSync(join(project, "node_modules", ".bin", "loom"), ["--help"], { encoding: "utf8", timeout: 60_000 });
    expect(r.stdout + r.stderr).toMatch(/usage:/);
  });
});
