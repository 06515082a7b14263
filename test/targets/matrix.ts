/**
 * Every target: how its code is checked, as the tests do it. The README's and docs/targets.md's
 * target table is rendered from this list (`renderTargetTable`), and matrix.test.ts checks that
 * each row's evidence is real: the test files exist and name the tool the row names.
 */
import type { TargetName } from "../../src/ir/index.js";

export interface TargetRow {
  readonly target: TargetName;
  /** What the generated code is (the language or dialect). */
  readonly generates: string;
  /** The compiler or checker that accepts it in the tests. */
  readonly compiledBy: string;
  /** Where the tests run it, against the interpreter. */
  readonly executedBy: string;
  /** The test files that do it, and a word each of them must contain (the tool's name). */
  readonly evidence: readonly (readonly [file: string, mentions: string])[];
}

export const TARGET_MATRIX: readonly TargetRow[] = [
  { target: "c", generates: "C99", compiledBy: "gcc (`-Wall -Werror`)", executedBy: "the `c` backend (native), in the random-pipeline law",
    evidence: [["test/codegen/compile.test.ts", "Werror"], ["test/run/native-property.test.ts", "\"c\""]] },
  { target: "openmp", generates: "C99 + OpenMP", compiledBy: "gcc `-fopenmp` (`-Wall -Werror`)", executedBy: "the `openmp` backend (native), in the random-pipeline law",
    evidence: [["test/codegen/compile.test.ts", "fopenmp"], ["test/run/native-property.test.ts", "openmp"]] },
  { target: "opencl", generates: "OpenCL C 1.2", compiledBy: "PoCL", executedBy: "the `opencl` backend on PoCL, in the random-pipeline law",
    evidence: [["test/native/opencl.test.ts", "PoCL"], ["test/run/native-property.test.ts", "opencl"]] },
  { target: "cuda", generates: "CUDA C++", compiledBy: "nvcc `-ptx`; NVRTC where a GPU is", executedBy: "the `cuda` backend where a GPU is (none in CI; on an NVIDIA H200 with `npm run test:gpu`, its own tests and the parity laws pass)",
    evidence: [["test/codegen/compile.test.ts", "nvcc"], ["test/native/cuda.test.ts", "NVRTC"]] },
  { target: "hip", generates: "HIP C++", compiledBy: "hipcc (`HIP_PLATFORM=amd`, gfx90a)", executedBy: "not executed (no AMD GPU)",
    evidence: [["test/targets/hip.test.ts", "hipcc"]] },
  { target: "sycl", generates: "SYCL 2020 C++", compiledBy: "g++ `-std=c++17 -fsyntax-only` against a declaration header (syntax only)", executedBy: "not executed (no SYCL compiler installable)",
    evidence: [["test/targets/sycl.test.ts", "sycl"], ["test/targets/sycl-metal-alpaka-ispc-cases.ts", "fsyntax-only"]] },
  { target: "metal", generates: "Metal Shading Language + metal-cpp host", compiledBy: "g++ syntax check against declaration headers (syntax only)", executedBy: "not executed (no Metal here)",
    evidence: [["test/targets/metal.test.ts", "metal"], ["test/targets/sycl-metal-alpaka-ispc-cases.ts", "fsyntax-only"]] },
  { target: "ispc", generates: "ISPC (loopy's conventions)", compiledBy: "g++ syntax check through an ISPC shim (syntax only)", executedBy: "the l.1/l.2 loops only, as C++ with a gang of one",
    evidence: [["test/targets/ispc.test.ts", "shim"]] },
  { target: "okl", generates: "OKL (OCCA's kernel language)", compiledBy: "Loom's OKL front end (re-import)", executedBy: "re-imported kernels on the interpreter",
    evidence: [["test/okl/roundtrip.test.ts", "parseOkl"]] },
  { target: "alpaka", generates: "alpaka 1.x C++ functor + host launch", compiledBy: "g++ syntax check against a declaration header (syntax only)", executedBy: "not executed (alpaka's headers are not installable here)",
    evidence: [["test/targets/alpaka.test.ts", "alpaka"], ["test/targets/sycl-metal-alpaka-ispc-cases.ts", "fsyntax-only"]] },
  { target: "cucl", generates: "boda's CUCL", compiledBy: "nvcc `-ptx` (CUDA prelude); PoCL (OpenCL prelude)", executedBy: "PoCL, in the random-pipeline law",
    evidence: [["test/targets/cucl.test.ts", "nvcc"], ["test/targets/cucl-law.test.ts", "PoCL"]] },
  { target: "js", generates: "JavaScript", compiledBy: "Node.js", executedBy: "the `js` backend (in process), in the random-pipeline law",
    evidence: [["test/transforms/random-pipeline.property.test.ts", "js"]] },
  { target: "wgsl", generates: "WGSL compute shaders", compiledBy: "Dawn (npm `webgpu`)", executedBy: "the `webgpu` backend on SwiftShader, in the random-pipeline law",
    evidence: [["test/targets/wgsl.test.ts", "Dawn"], ["test/targets/webgpu.test.ts", "SwiftShader"]] },
];

/** The Markdown table of TARGET_MATRIX, as the README and docs/targets.md show it. */
export function renderTargetTable(rows: readonly TargetRow[] = TARGET_MATRIX): string {
  return [
    "| target | generates | compiled by (in the tests) | executed by (against the interpreter) |",
    "|---|---|---|---|",
    ...rows.map((r) => `| \`${r.target}\` | ${r.generates} | ${r.compiledBy} | ${r.executedBy} |`),
  ].join("\n");
}
