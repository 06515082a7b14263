/**
 * Legacy OCCA's serial output (corpus/okl/occa-legacy-generated/…/serial.cpp) as a reference:
 * compiled with the system C++ compiler next to an `extern "C" void loom_ref_<f>(void **args)`
 * wrapper per kernel, loaded through the native addon and called on the same inputs as Loom.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLibrary, nativeStatus, type NativeLibrary, type ScalarKind } from "../../native/index.js";
import { OCCA_VECTOR_PRELUDE, usesOccaVectors } from "./occa-vector-prelude.js";

export interface RefParam {
  readonly name: string;
  readonly pointer: boolean;
  /** The C type without `const`, `&`, `*` and `__restrict__` (`float`, `int`). */
  readonly type: string;
}
export interface RefKernel {
  readonly name: string;
  readonly params: readonly RefParam[];
}

/** Kernels declared `extern "C" void name(...)` in a legacy serial.cpp. */
export function refKernels(cpp: string): RefKernel[] {
  const out: RefKernel[] = [];
  const re = /extern\s+"C"\s+void\s+([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{/g;
  for (let m = re.exec(cpp); m; m = re.exec(cpp)) {
    const params = m[2]!.split(",").map((p) => p.trim()).filter((p) => p !== "" && p !== "void").map((p): RefParam => {
      const name = /([A-Za-z_]\w*)\s*$/.exec(p)![1]!;
      const rest = p.slice(0, p.length - name.length);
      const pointer = rest.includes("*");
      const type = rest.replace(/\bconst\b|__restrict__|\brestrict\b|[*&]/g, " ").replace(/\s+/g, " ").trim();
      return { name, pointer, type };
    });
    out.push({ name: m[1]!, params });
  }
  return out;
}

export const hasCxx = spawnSync("g++", ["--version"]).status === 0 && nativeStatus().loaded;

const dir = mkdtempSync(join(tmpdir(), "loom-okl-ref-"));
let serial = 0;

/** Compile `cpp` with wrappers for `kernels`; throws with the compiler's message on failure. */
export function compileReference(cpp: string, kernels: readonly RefKernel[]): NativeLibrary {
  const wrappers = kernels.map((k) => {
    const args = k.params.map((p, i) => (p.pointer ? `(${p.type} *) a[${i}]` : `*(${p.type} *) a[${i}]`));
    return `extern "C" void loom_ref_${k.name}(void **a) { ${k.name}(${args.join(", ")}); }`;
  });
  const base = join(dir, `ref${serial++}`);
  // OCCA's serial vector types come from its headers; a stand-in is added where the output uses them.
  const prelude = usesOccaVectors(cpp) ? [OCCA_VECTOR_PRELUDE] : [];
  writeFileSync(`${base}.cpp`, ["#include <cmath>", "#include <cstdlib>", "using namespace std;", ...prelude, cpp, ...wrappers, ""].join("\n"));
  // -Bsymbolic: the wrappers call this file's kernels, not same-named ones of a library loaded before.
  const r = spawnSync("g++", ["-O1", "-shared", "-fPIC", "-w", "-Wl,-Bsymbolic", "-o", `${base}.so`, `${base}.cpp`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`g++ failed on the legacy serial output:\n${r.stderr}`);
  return loadLibrary(`${base}.so`);
}

/** The native scalar kind of a C type name. */
export function scalarKind(type: string): ScalarKind {
  const kinds: Record<string, ScalarKind> = {
    int: "int32", "unsigned int": "uint32", float: "float32", double: "float64", long: "int64", "long long": "int64",
    "unsigned long": "uint64", short: "int16", char: "int8", "unsigned char": "uint8", bool: "uint8", size_t: "uint64",
  };
  const k = kinds[type];
  if (!k) throw new Error(`no scalar kind for C type "${type}"`);
  return k;
}
