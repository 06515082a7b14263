/**
 * Include files of the OKL preprocessor: where an `#include` finds its file, the default reader
 * (the file system, loaded lazily), folder and path joining, and C string literals of
 * `#include "…"`/`@directive("…")`.
 */
/** Reads an include file; `undefined` when it does not exist. */
export type FileReader = (path: string) => string | undefined;

export function defaultReader(): FileReader {
  return (path) => {
    try {
      // Lazily required so that bundlers and tests with an injected reader never touch the fs.
      const fs = process.getBuiltinModule?.("node:fs") as typeof import("node:fs") | undefined;
      return fs?.readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  };
}

export function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i + 1);
}

export function joinPath(dir: string, name: string): string {
  if (name.startsWith("/") || dir === "") return name;
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

/**
 * Where OCCA's library include `#include "occa://NAME/PATH"` reads: DIR/PATH for the folder the
 * host registered as NAME (`occa::io::addLibraryPath(NAME, DIR)`, here `libs[NAME]`), or why it
 * cannot; undefined for a name that is no library include.
 */
export function occaLibraryInclude(name: string, libs: Readonly<Record<string, string>> = {}): { readonly path: string } | { readonly error: string } | undefined {
  const m = /^occa:\/\/([^/]+)\/(.+)$/.exec(name);
  if (!m) return undefined;
  const lib = m[1]!;
  const dir = Object.hasOwn(libs, lib) ? libs[lib] : undefined;
  if (dir !== undefined) return { path: joinPath(dir, m[2]!) };
  const known = Object.keys(libs);
  return { error: `#include "${name}": no folder for OCCA library "${lib}" (the host's occa::io::addLibraryPath); pass libraryPaths: { "${lib}": "DIR" }${known.length ? ` (libraries given: ${known.join(", ")})` : ""}` };
}

/**
 * Where a host's file opener include `#include "PREFIX…PATH"` reads (OCCA's `occa::io::fileOpener`:
 * mfem registers "mfem-occa://" with MFEM_OCCA_OKL_PATH, its source folder and its install folder):
 * DIR/PATH for each folder given for the longest matching prefix, in order; undefined when no
 * prefix given matches.
 */
export function fileOpenerInclude(name: string, openers: Readonly<Record<string, string | readonly string[]>> = {}): { readonly prefix: string; readonly dirs: readonly string[]; readonly paths: readonly string[] } | undefined {
  const prefix = Object.keys(openers).filter((p) => p !== "" && name.startsWith(p)).sort((a, b) => b.length - a.length)[0];
  if (prefix === undefined) return undefined;
  const given = openers[prefix]!;
  const dirs = typeof given === "string" ? [given] : [...given];
  const rest = name.slice(prefix.length);
  return { prefix, dirs, paths: dirs.map((d) => joinPath(d, rest)) };
}

/** The `scheme://` of an include name that reads through a host's file opener (none for "occa://"). */
export function openerScheme(name: string): string | undefined {
  const m = /^([A-Za-z][\w+.-]*:\/\/)/.exec(name);
  return m && m[1] !== "occa://" ? m[1] : undefined;
}

export function unquote(s: string): string {
  return s.slice(1, -1).replace(/\\(["\\'])/g, "$1").replace(/\\n/g, "\n").replace(/\\t/g, "\t");
}


/** Headers that OCCA's tools ship (their declarations are not needed to parse OKL). */
const BUILTIN_HEADERS: Readonly<Record<string, string>> = { "okl_intrinsic.h": "" };

/** Where `#include` looks: the preprocessor's options that name folders and files (PreprocessOptions). */
export interface IncludeOptions {
  /** Folders searched by `#include "..."` after the including file's folder. */
  readonly includePaths?: readonly string[];
  /**
   * OCCA's library folders (the host's `occa::io::addLibraryPath(NAME, DIR)`): `#include
   * "occa://NAME/PATH"` reads DIR/PATH (Laghos: `{ mfem: "…/mfem/okl", laghos: "…/kernels" }`).
   */
  readonly libraryPaths?: Readonly<Record<string, string>>;
  /**
   * Host file openers (OCCA's `occa::io::fileOpener`): `#include "PREFIX/PATH"` for a prefix given
   * here reads DIR/PATH from the first of its folders that has it (mfem's kernels:
   * `{ "mfem-occa://": ["…/mfem/backends/occa"] }`).
   */
  readonly fileOpeners?: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * Reads the header `name` of an `#include` in file `from` with `read` (which preprocesses it and
 * says whether it exists): an OCCA library path (`occa://lib/…`), a host's file opener, then the
 * including file's folder (not for `<…>`) and the include paths. undefined when it was read (or is
 * a header OCCA ships, or a missing system header: OCCA only warns); else why not, for the error.
 */
export function findInclude(name: string, system: boolean, from: string, opts: IncludeOptions, read: (path: string) => boolean): string | undefined {
  const lib = system ? undefined : occaLibraryInclude(name, opts.libraryPaths);
  if (lib) {
    if ("error" in lib) return lib.error;
    return read(lib.path) ? undefined : `File does not exist: "${name}" (read as ${lib.path})`;
  }
  const opened = system ? undefined : fileOpenerInclude(name, opts.fileOpeners);
  if (opened) {
    for (const p of opened.paths) if (read(p)) return undefined;
    return `File does not exist: "${name}" (file opener "${opened.prefix}" searched ${opened.dirs.join(", ") || "no folder"})`;
  }
  const dirs = [...(system ? [] : [dirOf(from)]), ...(opts.includePaths ?? [])];
  for (const d of dirs) if (read(joinPath(d, name))) return undefined;
  if (BUILTIN_HEADERS[name] !== undefined) return undefined;
  const scheme = system ? undefined : openerScheme(name);
  if (scheme) return `File does not exist: "${name}": "${scheme}" is a host's file opener (occa::io::fileOpener); pass fileOpeners: { "${scheme}": ["DIR", ...] }${opts.fileOpeners ? ` (prefixes given: ${Object.keys(opts.fileOpeners).join(", ")})` : ""}`;
  // System headers are optional (OCCA warns); a missing "..." header is an error (okl/strict_headers).
  return system ? undefined : `File does not exist: "${name}" (searched ${dirs.map((d) => d || ".").join(", ")})`;
}
