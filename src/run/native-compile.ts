/**
 * Compiling generated C into shared objects, once: a content-addressed cache directory keyed by
 * the hash of the source, the compiler (its path and version) and the flags. Safe under
 * concurrent processes: each compiles into a file of its own and renames it into place, and a
 * rename is atomic. The compiler is spawned with an argument array, never through a shell.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { BackendUnavailableError, CodegenError } from "../errors.js";

/**
 * Flags after the caller's: every function is hidden unless marked exported (the entry points),
 * so a call inside the library to a kernel named `main` or `malloc` binds to the library's own
 * definition at link time, never to the host process's symbol of that name.
 */
const ISOLATION_FLAGS = ["-fvisibility=hidden"];

/** How generated C is compiled: `cc` and `flags` come before `-fvisibility=hidden -shared -fPIC -o OUT SRC`. */
export interface CompilerOptions {
  /** The compiler (default: `$LOOM_CC`, else `cc`). */
  readonly cc?: string;
  /** Flags (default: `$LOOM_CFLAGS` split at spaces, else `-O3 -march=native -fopenmp`). */
  readonly flags?: readonly string[];
  /** Libraries and linker flags placed after the source (`["-lopenblas"]`). */
  readonly libs?: readonly string[];
}

/** The compiler and flags a run uses when it is given none. `defaultCompiler().cc === "cc"` unless LOOM_CC is set. */
export function defaultCompiler(): { cc: string; flags: string[] } {
  const envFlags = process.env.LOOM_CFLAGS?.trim();
  return {
    cc: process.env.LOOM_CC?.trim() || "cc",
    flags: envFlags ? envFlags.split(/\s+/) : ["-O3", "-march=native", "-fopenmp"],
  };
}

/** The cache directory: `$LOOM_CACHE_DIR`, else `$XDG_CACHE_HOME/loom/kernels`, else `~/.cache/loom/kernels`. */
export function cacheDir(): string {
  if (process.env.LOOM_CACHE_DIR) return process.env.LOOM_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "loom", "kernels");
}

const identities = new Map<string, string>();

/** The compiler's identity for the cache key: its `--version` text. A missing compiler is a BackendUnavailableError. */
function compilerIdentity(cc: string): string {
  let id = identities.get(cc);
  if (id !== undefined) return id;
  const r = spawnSync(cc, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (r.error || r.status !== 0) {
    throw new BackendUnavailableError(`no C compiler "${cc}" can be run (${r.error?.message ?? r.stderr.trim()}); ` +
      "install one (Debian: apt-get install gcc) or name it with the LOOM_CC environment variable");
  }
  id = r.stdout.split("\n")[0]!.trim();
  identities.set(cc, id);
  return id;
}

const inFlight = new Map<string, Promise<string>>();

/**
 * The path of the shared object built from `source`, compiling it only when the cache lacks it.
 * A compiler error is a CodegenError quoting the compiler and the generated lines it points at.
 *
 *   const so = await compileShared("void f(void **a) {}", { flags: ["-O2"] });
 */
export function compileShared(source: string, opts: CompilerOptions = {}, what = "generated code"): Promise<string> {
  const def = defaultCompiler();
  const cc = opts.cc ?? def.cc;
  const flags = [...(opts.flags ?? def.flags), ...ISOLATION_FLAGS];
  const libs = [...(opts.libs ?? [])];
  const id = compilerIdentity(cc);
  const key = createHash("sha256").update(JSON.stringify([source, cc, id, flags, libs])).digest("hex").slice(0, 40);
  const dir = cacheDir();
  const so = join(dir, `${key}.so`);
  if (existsSync(so)) return Promise.resolve(so);
  let p = inFlight.get(key);
  if (!p) {
    p = build(source, cc, flags, libs, dir, key, so, what).finally(() => inFlight.delete(key));
    inFlight.set(key, p);
  }
  return p;
}

async function build(source: string, cc: string, flags: readonly string[], libs: readonly string[], dir: string, key: string, so: string, what: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const src = join(dir, `${key}.c`);
  const tmpSrc = join(dir, `${key}.${tag}.c`);
  const tmpSo = join(dir, `${key}.${tag}.so`);
  writeFileSync(tmpSrc, source);
  renameSync(tmpSrc, src);
  const argv = [...flags, "-shared", "-fPIC", "-o", tmpSo, src, ...libs];
  const { code, stderr } = await spawnCollect(cc, argv);
  if (code !== 0) {
    rmSync(tmpSo, { force: true });
    throw compilerError(cc, flags, stderr, source, src, what);
  }
  renameSync(tmpSo, so);
  return so;
}

function spawnCollect(cmd: string, argv: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      if (stderr.length < 200_000) stderr += d;
    });
    child.on("error", (e) => resolve({ code: -1, stderr: e.message }));
    child.on("close", (code, signal) => resolve({ code: code ?? -1, stderr: signal ? `${stderr}\n(killed by ${signal})` : stderr }));
  });
}

/** A CodegenError for a failed compile: the compiler's first errors, each with the generated line it names. */
function compilerError(cc: string, flags: readonly string[], stderr: string, source: string, srcPath: string, what: string): CodegenError {
  const lines = source.split("\n");
  const errors = stderr.split("\n").filter((l) => /\berror\b/.test(l)).slice(0, 5);
  const quoted = errors.map((l) => {
    const m = /:(\d+):(\d+):/.exec(l.startsWith(srcPath) ? l.slice(srcPath.length - 1) : l);
    const n = m ? Number(m[1]) : NaN;
    const at = Number.isInteger(n) && lines[n - 1] !== undefined ? `\n    line ${n}: ${lines[n - 1]!.trim()}` : "";
    return `  ${l.replace(srcPath, "<generated>.c")}${at}`;
  });
  const shown = quoted.length > 0 ? quoted.join("\n") : stderr.trim().split("\n").slice(0, 10).map((l) => `  ${l}`).join("\n");
  return new CodegenError(`the C compiler rejected the ${what} (${cc} ${flags.join(" ")}):\n${shown}\n(full source: ${srcPath})`);
}
