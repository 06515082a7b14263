/**
 * Include files of the OKL preprocessor: the default reader (the file system, loaded lazily),
 * folder and path joining, and C string literals of `#include "…"`/`@directive("…")`.
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

