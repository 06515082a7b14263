/**
 * The pipeline law's kernel families for what issues 15 and 16 touched, and the scheduler's
 * verdict on a kernel the pipeline builder made: global barriers inside sequential loops (host
 * loops), scalar (0-d) outputs, temporaries of parametric shape, and a private value saved across
 * a global barrier (loopy's tutorial rotate, out of place) by `saveAndReloadTemporaries`, also
 * one read after the barrier as a loop's bound (a domain parameter).
 *
 * The scheduler may legitimately refuse what a move makes of these kernels (a host loop tagged
 * g whose iterations read each other's cells, a global scalar slot written by every work-item, a
 * barrier a work-group cannot agree on): such a move is dropped and counted, never a failure.
 */
import fc from "fast-check";
import { ScheduleError, TransformError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { schedule } from "../../src/schedule/index.js";
import { saveAndReloadTemporaries } from "../../transforms/index.js";

/** How a kernel was made, so a counterexample can be rebuilt by hand. */
export interface KernelSource {
  readonly family: string;
  readonly domains: readonly string[];
  readonly instructions: readonly string[];
  readonly args: readonly string[];
  /** Parameter names and their ranges (inclusive). */
  readonly params: Readonly<Record<string, readonly [number, number]>>;
  /**
   * The family keeps private values across global barriers: the reference is
   * `saveAndReloadTemporaries(kernel)` (a host loop with a global slot), and the builder appends
   * that step to a pipeline whose kernel needs it, as a user would.
   */
  readonly saves?: boolean;
  /**
   * Iname tags the kernel is made with (`tagInames` after makeKernel), where the family's meaning
   * is per work-item (OKL's `@exclusive` values): the interpreter runs the tagged kernel as the reference.
   */
  readonly tags?: Readonly<Record<string, string>>;
}

const N: readonly [number, number] = [0, 19];
const src = (family: string, domains: string[], instructions: string[], args: string[], params: Record<string, readonly [number, number]> = { n: N }, saves?: boolean): KernelSource =>
  ({ family, domains, instructions, args, params, ...(saves ? { saves } : {}) });

/** The families of issues 15 and 16, checked by the scheduler after every move. */
export const SCHEDULED_FAMILIES: Readonly<Record<string, fc.Arbitrary<KernelSource>>> = {
  // loopy's test_kernel_splitting_with_loop: the gbarrier inside `for k, i` makes k (and i, when
  // it stays sequential) a host loop launching the device kernels. Each work-item reads cells its
  // own iteration wrote, or (second variant) cells of an earlier k.
  hostLoop: fc.boolean().map((earlier) => src("hostLoop", ["{[i,k]: 0<=i<n and 0<=k<m}"], [
    `for k, i
      t[k,i] = 2*a[k,i] + k {id=w}
      ... gbarrier {id=gb, dep=w}
      ${earlier ? "out[k,i] = t[k,i] - t[0,i]*a[k,i] {id=r, dep=gb}" : "out[k,i] = t[k,i]*t[k,i] - a[k,i] {id=r, dep=gb}"}
    end`], ["a, t, out: float64[m,n]", "n, m: int32"], { n: [0, 12], m: [0, 4] })),
  // Scalar outputs (issue 15.3): a 0-d argument, a 1-element array, a reduction into a private
  // scalar written out.
  scalarOut: fc.constantFrom("sum", "max").chain((r) => fc.constantFrom(
    src("scalarOut", ["{[i]: 0<=i<n}"], [`out = ${r}(i, 2*a[i] - i)`], ["a: float64[n]", "out: float64[]", "n: int32"], { n: [1, 19] }),
    src("scalarOut", ["{[i]: 0<=i<n}"], [`out[0] = ${r}(i, a[i]*a[i])`], ["a: float64[n]", "out: float64[1]", "n: int32"], { n: [1, 19] }),
    src("scalarOut", ["{[i,j]: 0<=i<n and 0<=j<m}"], [`<float64> s = ${r}(i, ${r}(j, a[i,j])) {id=r}`, "out[0] = 2*s + 1 {dep=r}"],
      ["a: float64[n,m]", "out: float64[1]", "n, m: int32"], { n: [1, 9], m: [1, 6] }),
  )),
  // A temporary of parametric shape (issue 15.11): a global temporary, as loopy makes it.
  paramTemp: fc.boolean().map((red) => red
    ? src("paramTemp", ["{[i,j]: 0<=i<n and 0<=j<m}"], ["<> z[j] = 2*x[j] - 1 {id=w}", "out[i] = sum(j, z[j]*a[i,j]) {id=r, dep=w}"],
      ["a: float64[n,m]", "x: float64[m]", "out: float64[n]", "n, m: int32"], { n: [0, 9], m: [1, 7] })
    : src("paramTemp", ["{[i]: 0<=i<n}"], ["<> z[i] = 2*a[i] {id=w}", "out[i] = z[i] + 1 {id=r, dep=w}"], ["a, out: float64[n]", "n: int32"])),
  // loopy's rotate, out of place: tmp lives across the global barrier; the moves split i onto
  // g/l (or not), and saveAndReloadTemporaries keeps tmp in a global slot per work-item.
  saveRotate: fc.constantFrom("a[i]", "2*a[i] + i").map((f) => src("saveRotate", ["{[i]: 0<=i<n}"], [
    `for i
      <float64> tmp = ${f} {id=maketmp}
      ... gbarrier {id=gb, dep=maketmp}
      out[(i+1) % n] = tmp {id=rotate, dep=gb}
    end`], ["a, out: float64[n]", "n: int32"], { n: [1, 19] }, true)),
  // Last session's silent wrong result (test/schedule/domain-param-global-barrier.test.ts): a
  // private scalar that bounds a loop (`[t] -> {[r]: lo<=r<t}`, empty where t <= lo), written
  // before a global barrier and read as that bound after it, per work-item (i on g.0 or l.0). The
  // scheduler refuses it (the law checks the ScheduleError) until saveAndReloadTemporaries saves it
  // in a global slot. Also with i sequential (a host loop): the reload then runs in each trip
  // (test/run/param-barrier-host-loop.test.ts).
  paramBarrier: fc.record({
    t: fc.constantFrom("i % 4", "(3*i + 1) % 5 - 1", "n - i"), lo: fc.constantFrom("0", "1"), body: fc.constantFrom("1", "a[i] + r", "a[i]*r"),
    tag: fc.constantFrom("g.0", "l.0", "sequential"),
  }).map(({ t, lo, body, tag }) => ({
    ...src("paramBarrier", ["{[i]: 0<=i<n}", `[t] -> {[r]: ${lo}<=r<t}`], [`for i
      <int32> t = ${t} {id=wt}
      ... gbarrier {id=gb, dep=wt}
      out[i] = sum(r, ${body}) {id=use, dep=gb}
    end`], ["a, out: float64[n]", "n: int32"], { n: [0, 12] }, true),
    tags: (tag === "sequential" ? {} : { i: tag }) as Readonly<Record<string, string>>,
  })),
  // Issue 20: an inner loop bounded by per-work-item private values and a second l.0 iname.
  privateBounds: fc.constantFrom("8*(i % 2)", "8*(i % 3)").map(privateBoundsSource),
};

/**
 * Issue 20's kernel: an inner loop whose domain takes private values (`@exclusive int s, e`, one per
 * work-item) and a second l.0 iname as parameters, as OKL imports `for (r = s + j; r < e; r += 8)`;
 * a barrier (w read across work-items) makes s and e live across it. Tagged as imported. `start`:
 * work-item i's s, a multiple of 8 (the work-items' rows stay disjoint).
 */
export function privateBoundsSource(start: string): KernelSource {
  return {
    ...src("privateBounds", ["{[b]: 0<=b<n}", "{[i]: 0<=i<8}", "{[j]: 0<=j<8}", "[s, e, j] -> {[r]: 0 <= r and s + j + 8*r < e}"], [
      `<int32> s = ${start} {id=ls, inames=b:i}`,
      "<int32> e = m - (i % 3) {id=le, inames=b:i}",
      "<float64> w[i] = a[b, i] {id=lw, inames=b:i}",
      "out[b, s + j + 8*r] = out[b, s + j + 8*r] + w[7 - j] {id=u, dep=ls:le:lw, inames=b:j:r, tags=write_race_ok}",
    ], ["a: float64[n, 8]", "out: float64[n, m]", "n, m: int32"], { n: [0, 4], m: [0, 30] }),
    tags: { b: "g.0", i: "l.0", j: "l.0" },
  };
}

/**
 * The families in bounds by construction whose subscripts the native bounds proof cannot prove
 * (privateBounds writes out[b, s + j + 8*r] through a per-work-item value, not affine; paramBarrier
 * reads a[i] in a loop whose domain's parameter is a temporary, which the proof cannot bound): the
 * native and webgpu laws run them with `checkBounds: false` and compare what they compute.
 */
export const UNPROVABLE_IN_BOUNDS: ReadonlySet<string> = new Set(["privateBounds", "paramBarrier"]);

/** The message of the ScheduleError `k` is refused with, or undefined when it schedules. */
function scheduleRefusal(k: Kernel): string | undefined {
  try {
    schedule(k);
    return undefined;
  } catch (e) {
    if (e instanceof ScheduleError) return e.message;
    throw e;
  }
}

const NEEDS_SAVE = /private memory does not survive a global barrier/;

/**
 * What the scheduler makes of `k`: ok (possibly once `saveAndReloadTemporaries` is applied, when
 * the family `saves`), or refused with the reason.
 */
export function scheduleVerdict(k: Kernel, saves: boolean): { ok: true; needsSave: boolean } | { ok: false; why: string } {
  const why = scheduleRefusal(k);
  if (why === undefined) return { ok: true, needsSave: false };
  if (!saves || !NEEDS_SAVE.test(why)) return { ok: false, why };
  let saved: Kernel;
  try {
    saved = saveAndReloadTemporaries(k);
  } catch (e) {
    if (e instanceof TransformError) return { ok: false, why: e.message };
    throw e;
  }
  const again = scheduleRefusal(saved);
  return again === undefined ? { ok: true, needsSave: true } : { ok: false, why: again };
}

/** A refusal's message with names and numbers elided, to count refusals by kind. */
export const refusalKind = (why: string): string => why.replace(/"[^"]*"/g, "…").replace(/\d+/g, "#").slice(0, 220);


