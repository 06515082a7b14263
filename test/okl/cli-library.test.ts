/**
 * `--library LIB=DIR` on `loom lower`, `loom check` and `loom run`: where `#include "occa://LIB/PATH"`
 * reads (parseOkl's libraryPaths, OCCA's occa::io::addLibraryPath). Without it, the #include is an
 * error naming the library and the flag.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";

const cli = async (...argv: string[]) => {
  let out = "";
  let err = "";
  const status = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { status, out, err };
};

describe("loom --library LIB=DIR", () => {
  const dir = mkdtempSync(join(tmpdir(), "loom-lib-"));
  mkdirSync(join(dir, "fem"));
  writeFileSync(join(dir, "fem", "defines.okl"), "#define SCALE 3\n");
  const file = join(dir, "k.okl");
  writeFileSync(file, `#include "occa://mfem/fem/defines.okl"\n@kernel void scale(const int n, const double *a, double *b) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { b[i] = SCALE * a[i]; }\n}\n`);

  it("lower, check and run read the library's file; without the flag the #include is refused naming it", async () => {
    const lowered = await cli("lower", file, "--target", "c", "--library", `mfem=${dir}`);
    expect(lowered.err).toBe("");
    expect(lowered.out).toMatch(/3 \* a\[|3\.0? \* a\[|a\[[^\]]+\] \* 3/);
    const checked = await cli("check", file, `--library=mfem=${dir}`);
    expect(checked.status).toBe(0);
    const ran = await cli("run", file, "--library", `mfem=${dir}`, "--size", "20", "--check", "--repeats", "1");
    expect(ran.err).toBe("");
    expect(ran.status).toBe(0);
    const missing = await cli("check", file);
    expect(missing.status).not.toBe(0);
    expect(missing.err).toMatch(/k\.okl:1:\d+: error: .*mfem.*libraryPaths/);
  });

  it("a --library without LIB=DIR is a usage error saying what it takes", async () => {
    const bad = await cli("check", file, "--library", "mfem");
    expect(bad.status).not.toBe(0);
    expect(bad.err).toMatch(/--library needs LIB=DIR/);
  });
});
