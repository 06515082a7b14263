/**
 * Compiling generated C into shared objects, once: a content-addressed cache directory keyed by
 * the hash of the source, the compiler (its path and version) and the flags. Safe under
 * concurrent processes: each compiles into a file of its own and renames it into place, and a
 * rename is atomic. The compiler is spawned with an argument array, never through a shell.
 * Loading checks what the cache gave: a library that does not load or lacks its entry points is
 * compiled again.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { loadLibrary, type NativeLibrary } from "../../native/index.js";
import { BackendUnavailableError, CodegenError, ExecutionError } from "../errors.js";

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

/** Kernel file systems: no directory can be made there, and Node's recursive mkdir loops forever under /proc. */
const VIRTUAL_ROOTS = ["/proc", "/sys"];

/**
 * Why `dir` cannot hold the cache, or undefined once it exists as a writable directory. Missing
 * parents are made one at a time (never `mkdirSync(…, {recursive})`, which hangs under /proc),
 * and a probe file is written, so a read-only directory or file system is found here, not later.
 */
function unusable(dir: string): string | undefined {
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch (e) {
    return (e as Error).message;
  }
  const root = VIRTUAL_ROOTS.find((r) => real === r || real.startsWith(`${r}/`));
  if (root) return `it is under ${root}, a kernel file system`;
  const missing: string[] = [];
  for (let d = dir; d !== existing; d = dirname(d)) missing.unshift(d);
  try {
    for (const d of missing) mkdirSync(d);
    if (!statSync(dir).isDirectory()) return "it is not a directory";
    const probe = join(dir, `.probe-${process.pid}-${randomBytes(4).toString("hex")}`);
    writeFileSync(probe, "");
    rmSync(probe, { force: true });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

const checkedDirs = new Map<string, string>();
let privateDir: string | undefined;

/**
 * The directory compiled kernels go to: `cacheDir()` when it can be used, else (with one warning
 * per directory, naming it and why) a private temporary directory for this process.
 */
export function usableCacheDir(): string {
  const wanted = resolve(cacheDir());
  let dir = checkedDirs.get(wanted);
  if (dir !== undefined) return dir;
  const why = unusable(wanted);
  if (why === undefined) {
    dir = wanted;
  } else {
    try {
      privateDir ??= mkdtempSync(join(tmpdir(), "loom-kernels-"));
    } catch (e) {
      throw new BackendUnavailableError(`the kernel cache directory ${wanted} cannot be used (${why}), nor a temporary one under ${tmpdir()} ` +
        `(${(e as Error).message}); set LOOM_CACHE_DIR to a writable directory`);
    }
    dir = privateDir;
    process.emitWarning(`Loom: the kernel cache directory ${wanted} cannot be used (${why}); kernels are compiled into ${dir} for this process. ` +
      "Set LOOM_CACHE_DIR (or XDG_CACHE_HOME) to a writable directory to keep them", { code: "LOOM_CACHE_DIR" });
  }
  checkedDirs.set(wanted, dir);
  return dir;
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
 * `flags` with `-fopenmp-simd` added where `source` has a `#pragma omp simd` (the c target's SIMD
 * loops) and the flags enable no OpenMP (`-fopenmp`, `-fopenmp-simd`, `-fopenmp=…`) nor refuse it
 * (`-fno-openmp-simd`): without it gcc ignores the pragma, and -Wall warns of it.
 *
 *   withOpenmpSimd(["-O2"], "#pragma omp simd\n…")   // ["-O2", "-fopenmp-simd"]
 */
export function withOpenmpSimd(flags: readonly string[], source: string): readonly string[] {
  if (!/^\s*#\s*pragma\s+omp\s+simd\b/m.test(source)) return flags;
  if (flags.some((f) => f === "-fopenmp" || f === "-fopenmp-simd" || f.startsWith("-fopenmp=") || f === "-fno-openmp-simd")) return flags;
  return [...flags, "-fopenmp-simd"];
}

/**
 * The path of the shared object built from `source`, compiling it only when the cache lacks it
 * (or, with `rebuild`, replacing the cached file: one that would not load, or another kernel's).
 * A compiler error is a CodegenError quoting the compiler and the generated lines it points at.
 *
 *   const so = await compileShared("void f(void **a) {}", { flags: ["-O2"] });
 */
export function compileShared(source: string, opts: CompilerOptions = {}, what = "generated code", rebuild = false): Promise<string> {
  const def = defaultCompiler();
  const cc = opts.cc ?? def.cc;
  const flags = [...withOpenmpSimd(opts.flags ?? def.flags, source), ...ISOLATION_FLAGS];
  const libs = [...(opts.libs ?? [])];
  const id = compilerIdentity(cc);
  const key = createHash("sha256").update(JSON.stringify([source, cc, id, flags, libs])).digest("hex").slice(0, 40);
  const dir = usableCacheDir();
  const so = join(dir, `${key}.so`);
  if (rebuild) rmSync(so, { force: true });
  else if (existsSync(so)) return Promise.resolve(so);
  let p = inFlight.get(key);
  if (!p) {
    p = build(source, cc, flags, libs, dir, key, so, what).finally(() => inFlight.delete(key));
    inFlight.set(key, p);
  }
  return p;
}

async function build(source: string, cc: string, flags: readonly string[], libs: readonly string[], dir: string, key: string, so: string, what: string): Promise<string> {
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const src = join(dir, `${key}.c`);
  const tmpSrc = join(dir, `${key}.${tag}.c`);
  const tmpSo = join(dir, `${key}.${tag}.so`);
  inCache(dir, () => {
    writeFileSync(tmpSrc, source);
    renameSync(tmpSrc, src);
  });
  const argv = [...flags, "-shared", "-fPIC", "-o", tmpSo, src, ...libs];
  const { code, stderr } = await spawnCollect(cc, argv, compileTimeoutMs());
  if (code !== 0) {
    rmSync(tmpSo, { force: true });
    throw compilerError(cc, flags, stderr, source, src, what);
  }
  inCache(dir, () => renameSync(tmpSo, so));
  return so;
}

/** `f`, with a file system error (the directory removed or made read-only meanwhile) a LoomError naming the directory. */
function inCache(dir: string, f: () => void): void {
  try {
    f();
  } catch (e) {
    throw new BackendUnavailableError(`the kernel cache directory ${dir} stopped being writable: ${(e as Error).message}; set LOOM_CACHE_DIR to a writable directory`);
  }
}

/** How long one compile may run: `$LOOM_CC_TIMEOUT` seconds, default 600. */
function compileTimeoutMs(): number {
  const s = Number(process.env.LOOM_CC_TIMEOUT);
  return (Number.isFinite(s) && s > 0 ? s : 600) * 1000;
}

function spawnCollect(cmd: string, argv: readonly string[], timeoutMs: number): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    // A compiler that never ends (a hung NFS mount, a pathological input) is killed: no run hangs.
    const child = spawn(cmd, argv, { stdio: ["ignore", "ignore", "pipe"], timeout: timeoutMs, killSignal: "SIGKILL" });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      if (stderr.length < 200_000) stderr += d;
    });
    child.on("error", (e) => resolve({ code: -1, stderr: e.message }));
    child.on("close", (code, signal) => resolve({
      code: code ?? -1,
      stderr: signal ? `${stderr}\n(killed by ${signal}${signal === "SIGKILL" ? `, perhaps after the ${timeoutMs / 1000} s of LOOM_CC_TIMEOUT` : ""})` : stderr,
    }));
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

/** Loaded libraries that hold their entries, by the path they were compiled to. */
const libraries = new Map<string, NativeLibrary>();

/** The library at `so` if it loads and defines every entry, else why not. */
function tryLoad(so: string, entries: readonly string[]): NativeLibrary | string {
  const known = libraries.get(so);
  if (known) return known;
  let lib: NativeLibrary;
  try {
    lib = loadLibrary(so);
  } catch (e) {
    return `it does not load: ${(e as Error).message}`;
  }
  const missing = entries.filter((e) => !lib.has(e));
  if (missing.length > 0) return `it lacks the entry point${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (another kernel's library under this key)`;
  libraries.set(so, lib);
  return lib;
}

/**
 * The library compiled from `source`, loaded, with every entry. A cached file that does not load
 * (truncated, corrupt) or lacks the entries is compiled again, and the new file loaded through a
 * private copy: the loader answers a second dlopen of a path with the library it already holds.
 *
 *   const lib = await loadKernels(source, { flags: ["-O2"] }, "c code of kernel \"k\"", ["loom_…_0"]);
 */
export async function loadKernels(source: string, opts: CompilerOptions, what: string, entries: readonly string[]): Promise<NativeLibrary> {
  const so = await compileShared(source, opts, what);
  const first = tryLoad(so, entries);
  if (typeof first !== "string") return first;
  const fresh = await compileShared(source, opts, what, true);
  const copy = `${fresh}.${process.pid}-${randomBytes(4).toString("hex")}.so`;
  let again: NativeLibrary | string;
  try {
    copyFileSync(fresh, copy);
    again = tryLoad(copy, entries);
  } catch (e) {
    again = (e as Error).message;
  } finally {
    rmSync(copy, { force: true });
  }
  if (typeof again === "string") throw new ExecutionError(`the compiled ${what} (${fresh}) cannot be used, even compiled again: ${again}`);
  libraries.set(so, again);
  return again;
}
