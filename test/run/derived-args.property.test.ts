/**
 * The law of derived arguments (src/run/derived-args.ts: the sizes OKL's host computes before a
 * launch, `Kernel.oklOptions.derivedArgs`) near the int32 limits: for value arguments drawn among
 * 0, 1, -1, ±2, the limits ±2^31 and their neighbours, 46341 (its square passes 2^31) and any
 * int32, the derived size is C's meaning of the OKL source, computed here with BigInt in C's int:
 * the @outer bound `(entries + size - 1) / size` (C's truncating division), the trips of
 * `for (e = 0; e < nx*ny; e += stride)` and of `for (e = top; e >= floor; e -= stride)`, of `for (w = first; w < limit; w <<= 1)` and of
 * `for (u = first; u <= limit; u = u * 3)`; a division by 0 is an ExecutionError naming it.
 * Where C's own evaluation is undefined (a signed overflow, a left shift of a negative value, a
 * loop that never ends), the derived size is an ExecutionError, or a value outside int32 that the
 * run refuses as such: never a size of a loop C does not have.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { ExecutionError } from "../../src/errors.js";
import { evalDerived } from "../../src/run/derived-args.js";
import { run } from "../../src/run/index.js";
import type { Kernel } from "../../src/ir/index.js";

const RUNS = Number(process.env.LOOM_DERIVED_RUNS ?? 300);
const MIN = -(2n ** 31n);
const MAX = 2n ** 31n - 1n;

/** C's meaning: a value, a division by zero, or undefined (overflow, a loop that never ends). */
type CMeaning = { readonly value: bigint } | { readonly zero: true } | { readonly undefined: string };

/** An int32 result of C, or undefined behaviour. */
function int(x: bigint, what: string): bigint {
  if (x < MIN || x > MAX) throw new UndefinedInC(`${what} = ${x} overflows int`);
  return x;
}

class UndefinedInC extends Error {}

function meaning(f: () => bigint | "zero"): CMeaning {
  try {
    const v = f();
    return v === "zero" ? { zero: true } : { value: v };
  } catch (e) {
    if (e instanceof UndefinedInC) return { undefined: e.message };
    throw e;
  }
}

const OUTER = `
@kernel void swapHalves(const int entries, const int size, double *list) {
  for (int eo = 0; eo < (entries + size - 1) / size; ++eo; @outer) {
    @shared double s[64];
    for (int t = 0; t < 64; ++t; @inner) s[t] = list[eo*64 + t];
    for (int t = 0; t < 64; ++t; @inner) list[eo*64 + t] = s[63 - t];
  }
}
@kernel void elementSums(const int nx, const int ny, const int stride, const double *q, double *sums) {
  for (int e = 0; e < nx*ny; e += stride; @outer) {
    @shared double s_q[32];
    for (int n = 0; n < 32; ++n; @inner) s_q[n] = q[e*32 + n];
    for (int n = 0; n < 32; ++n; @inner) if (n == 0) sums[e] = s_q[0];
  }
}
@kernel void downSums(const int top, const int floor, const int stride, const double *q, double *sums) {
  for (int e = top; e >= floor; e -= stride; @outer) {
    @shared double s_q[32];
    for (int n = 0; n < 32; ++n; @inner) s_q[n] = q[n];
    for (int n = 0; n < 32; ++n; @inner) if (n == 0) sums[0] = s_q[0];
  }
}
@kernel void schedules(const int blocks, const int first, const int limit, int *out) {
  for (int b = 0; b < blocks; ++b; @outer) {
    @shared int s_c[4];
    for (int t = 0; t < 4; ++t; @inner) s_c[t] = 0;
    for (int w = first; w < limit; w <<= 1) {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 0) s_c[0] = (3*s_c[0] + w) % 1000003;
    }
    for (int u = first; u <= limit; u = u * 3) {
      @barrier("local");
      for (int t = 0; t < 4; ++t; @inner) if (t == 2) s_c[2] = (7*s_c[2] + u) % 1000003;
    }
    @barrier("local");
    for (int t = 0; t < 4; ++t; @inner) if (t == 0) out[b] = s_c[0] + s_c[2];
  }
}`;
const [swapHalves, elementSums, downSums, schedules] = parseOkl(OUTER) as unknown as [Kernel, Kernel, Kernel, Kernel];

/** C: `(entries + size - 1) / size` in int. */
const bound = (entries: bigint, size: bigint): CMeaning => meaning(() => {
  const top = int(int(entries + size, "entries + size") - 1n, "entries + size - 1");
  return size === 0n ? "zero" : int(top / size, "the quotient");
});

/** C: the trips of `for (int e = 0; e < nx*ny; e += stride)`. */
const steps = (nx: bigint, ny: bigint, stride: bigint): CMeaning => meaning(() => {
  const end = int(nx * ny, "nx*ny");
  if (end <= 0n) return 0n;
  if (stride <= 0n) throw new UndefinedInC(`e += ${stride} never reaches ${end}`);
  const trips = (end + stride - 1n) / stride;
  int(trips * stride, "the last e + stride");
  return trips;
});

/** C: the trips of `for (int e = top; e >= floor; e -= stride)`. */
const downSteps = (top: bigint, floor: bigint, stride: bigint): CMeaning => meaning(() => {
  if (top < floor) return 0n;
  if (stride <= 0n) throw new UndefinedInC(`e -= ${stride} never passes ${floor}`);
  const trips = (top - floor) / stride + 1n;
  int(top - trips * stride, "the last e - stride");
  return trips;
});

/** C: the trips of `for (int v = first; holds(v); v = next(v))`, every value in int (a loop that never ends: undefined). */
const geometric = (first: bigint, holds: (v: bigint) => boolean, next: (v: bigint) => bigint): CMeaning => meaning(() => {
  let v = first;
  let n = 0n;
  while (holds(v)) {
    n++;
    const w = next(v);
    if (w === v) throw new UndefinedInC(`the loop never ends at ${v}`);
    v = w;
  }
  return n;
});
const shl = (first: bigint, limit: bigint) => geometric(first, (v) => v < limit, (v) => {
  if (v < 0n) throw new UndefinedInC(`${v} << 1 shifts a negative value`);
  return int(v << 1n, `${v} << 1`);
});
const mul3 = (first: bigint, limit: bigint) => geometric(first, (v) => v <= limit, (v) => int(v * 3n, `${v} * 3`));

const int32 = fc.oneof(
  fc.constantFrom(0n, 1n, -1n, 2n, -2n, 3n, 64n, MIN, MIN + 1n, MAX, MAX - 1n, 46341n, -46341n, 2n ** 30n, -(2n ** 30n)),
  fc.bigInt({ min: MIN, max: MAX }),
  fc.bigInt({ min: -300n, max: 300n }),
);

/** What the derived argument `name` of `k` is for `args` (evalDerived, as withDerivedArgs computes it): its value, or its ExecutionError's message. */
function derived(k: Kernel, args: Record<string, bigint>, name: string): { value: bigint } | { error: string } {
  const d = k.oklOptions!.derivedArgs!.find((x) => x.name === name)!;
  try {
    const types = new Map(k.args.flatMap((a) => (a.kind === "value" && a.dtype ? [[a.name, a.dtype] as const] : [])));
    return { value: BigInt(evalDerived(d.expr, Object.fromEntries(Object.entries(args).map(([n, v]) => [n, Number(v)])), `argument "${name}"`, types)) };
  } catch (e) {
    if (!(e instanceof ExecutionError)) throw e;
    return { error: e.message };
  }
}

/** The law at one draw; counts each kind of C meaning met in `seen`. */
function law(k: Kernel, args: Record<string, bigint>, name: string, c: CMeaning, seen: Map<string, number>): void {
  const got = derived(k, args, name);
  const kind = "value" in c ? "value" : "zero" in c ? "zero" : "undefined";
  seen.set(kind, (seen.get(kind) ?? 0) + 1);
  const at = `${name} at ${JSON.stringify(args, (_, v) => (typeof v === "bigint" ? String(v) : v))} (C: ${"value" in c ? c.value : "zero" in c ? "divides by 0" : c.undefined})`;
  if ("value" in c) expect(got, at).toEqual({ value: c.value });
  else if ("zero" in c) expect("error" in got && got.error, at).toMatch(new RegExp(`argument "${name}".*divides by zero`));
  else if ("value" in got) expect(got.value < MIN || got.value > MAX, `${at}: got ${got.value}, a size C's loop does not have`).toBe(true);
  else expect(got.error, at).toContain(`"${name}"`);
}

const cases: readonly {
  readonly title: string; readonly k: Kernel; readonly name: string; readonly arb: fc.Arbitrary<Record<string, bigint>>;
  readonly c: (a: Record<string, bigint>) => CMeaning;
  /** A draw where C is undefined that an earlier version got wrong (eo_end 1073741825 for entries = -2^31, size = -2; e_trip -23 for stride -1, where C's loop never ends): always tried. */
  readonly example?: Record<string, bigint>;
}[] = [
  {
    title: "(entries + size - 1) / size", k: swapHalves, name: "eo_end", arb: fc.record({ entries: int32, size: int32 }), c: (a) => bound(a.entries!, a.size!),
    example: { entries: MIN, size: -2n },
  },
  {
    title: "the trips of e < nx*ny; e += stride", k: elementSums, name: "e_trip", arb: fc.record({ nx: int32, ny: int32, stride: int32 }), c: (a) => steps(a.nx!, a.ny!, a.stride!),
    example: { nx: 5n, ny: 5n, stride: -1n },
  },
  {
    title: "the trips of e >= floor; e -= stride", k: downSums, name: "e_trip", arb: fc.record({ top: int32, floor: int32, stride: int32 }), c: (a) => downSteps(a.top!, a.floor!, a.stride!),
    example: { top: MIN + 5n, floor: MIN, stride: 4n },
  },
  { title: "the trips of w < limit; w <<= 1", k: schedules, name: "w_trip", arb: fc.record({ first: int32, limit: int32 }), c: (a) => shl(a.first!, a.limit!) },
  { title: "the trips of u <= limit; u = u * 3", k: schedules, name: "u_trip", arb: fc.record({ first: int32, limit: int32 }), c: (a) => mul3(a.first!, a.limit!) },
];

describe("derived arguments near the int32 limits are C's meaning, computed exactly", () => {
  for (const { title, k, name, arb, c, example } of cases) {
    it(`${title}: C's value, or an ExecutionError (division by zero, C undefined)`, () => {
      const seen = new Map<string, number>();
      fc.assert(fc.property(arb, (a) => law(k, a, name, c(a), seen)), { numRuns: RUNS, ...(example ? { examples: [[example]] } : {}) });
      // Not vacuous: values C defines, what C leaves undefined, and (with a division by an argument) by 0.
      expect(seen.get("value") ?? 0).toBeGreaterThan(0);
      expect(seen.get("undefined") ?? 0).toBeGreaterThan(0);
      if (name === "eo_end") expect(seen.get("zero") ?? 0).toBeGreaterThan(0);
    });
  }

  it("a derived size outside int32 is refused by the run, naming it", async () => {
    await expect(run(swapHalves, { entries: -(2 ** 31), size: -1, list: new Float64Array(64) } as never)).rejects.toThrow(/argument "eo_end".*entries \+ size = -2147483649 overflows int32/);
  });
});
