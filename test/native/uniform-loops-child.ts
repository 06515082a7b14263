/**
 * Child process of opencl-uniform-loops.test.ts: runs packing cases on the opencl backend against
 * the interpreter's reference, one JSON line per case (`{ ok, mismatches }`), so that a kernel
 * that kills the OpenCL runtime (PoCL's segfault) fails the test instead of killing vitest.
 *
 *   node --import tsx test/native/uniform-loops-child.ts '[<PackingSpec>, ...]'
 */
import { autoTestVsRef } from "../../src/run/index.js";
import { packingCase, type PackingSpec } from "../transforms/gen-packing.js";

const specs = JSON.parse(process.argv[2] ?? "[]") as PackingSpec[];
for (const s of specs) {
  const c = packingCase(s);
  const r = await autoTestVsRef(c.ref, c.transformed, { params: c.params, backend: "opencl", seed: 3 });
  process.stdout.write(`${JSON.stringify({ ok: r.ok, mismatches: r.mismatches.slice(0, 3) })}\n`);
}
