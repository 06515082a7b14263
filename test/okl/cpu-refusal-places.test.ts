/**
 * Issue 20 (engineer F): the CPU lowering's refusals (src/schedule/cpu.ts, cpu-params.ts,
 * cpu-hoist.ts) name the loop, the variable and the instruction, and, for a kernel imported from
 * OKL, where each comes from in its source ("line:column", Kernel.oklOptions.places), since the IR
 * itself has no positions.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel } from "../../src/index.js";
import { oklKernelOptions, parseOkl } from "../../src/okl/index.js";

/** The ScheduleError that lowering `src`'s kernel for C gives. */
function cpuRefusal(src: string): string {
  const [k] = parseOkl(src);
  try {
    generateCode(k!, "c");
  } catch (e) {
    expect(e).toBeInstanceOf(ScheduleError);
    return (e as Error).message;
  }
  throw new Error("lowered without an error");
}

describe("the CPU lowering's refusals give the OKL line:column of what they name", () => {
  it("a loop holding a barrier bounded by a value each work-item may hold apart: the loop, the bound, its assignment and the variable it reads", () => {
    // `it` starts from memory the kernel writes, so its trips cannot be computed once per work-group.
    const src = `@kernel void restart(const int N, int *start, double *x) {
  for (int b = 0; b < N; ++b; @outer) {
    @shared double s[16];
    int it = start[b];
    while (it < 8) {
      for (int t = 0; t < 16; ++t; @inner) s[t] = it;
      @barrier();
      for (int t = 0; t < 16; ++t; @inner) x[b*16 + t] += s[(t + 1) % 16];
      ++it;
    }
    for (int t = 0; t < 16; ++t; @inner) if (t == 0) start[b] = it;
  }
}`;
    expect(cpuRefusal(src)).toMatch(/^lowerForCpu: loop "it_trip" \(at 5:5\) of device kernel "restart" holds a barrier and its bounds read private temporary "it_trips" \(at 5:5\), .*its assignment "insn_\d+" \(at 5:5\) reads private temporary "it" \(at 4:9\)/);
  });

  it("a private value across a barrier with a work-group size known at run time: the variable", () => {
    const src = `@kernel void shift(const int N, const int M, const double *x, double *y) {
  for (int b = 0; b < N; ++b; @outer) {
    @shared double s[64];
    @exclusive double v;
    for (int t = 0; t < M; ++t; @inner) { v = x[b*M + t]; s[t] = v; }
    @barrier();
    for (int t = 0; t < M; ++t; @inner) y[b*M + t] = v + s[(t + 1) % M];
  }
}`;
    expect(cpuRefusal(src)).toMatch(/^lowerForCpu: private temporary "v" \(at 4:23\) of device kernel "shift" lives across a barrier, .*\(iname "t" \(at 5:5\)\)/);
  });

  it("names without places where the kernel did not come from OKL, and the places are no OKL option", () => {
    const m = makeKernel("{ [i]: 0 <= i < n }", "out[i] = 2 * a[i]");
    expect(m.oklOptions?.places).toBeUndefined();
    const [k] = parseOkl("@kernel void f(const int n, float *x) { for (int o = 0; o < n; ++o; @outer) for (int i = 0; i < 4; ++i; @inner) x[4*o + i] = 0; }");
    expect(k!.oklOptions?.places?.o).toBe("1:41");
    expect(oklKernelOptions(k!)).toEqual({ restrict: [] });
  });
});
