/**
 * Differential cases that random inputs do not serve: smaller defines (written into the legacy
 * output too, whose translator substituted them), chosen inputs, and a comparison that says
 * exactly what agreement is expected.
 */

/** What a special case changes in the differential test. */
export interface SpecialCase {
  /** Defines replacing the corpus's (status.json). */
  readonly defines: Readonly<Record<string, string | number>>;
  /** The legacy serial output with the same defines (OCCA substituted the corpus's values into it). */
  rewrite(cpp: string): string;
  /** Inputs by Loom argument name (vectors passed by value by component: `eye_x`, …). */
  readonly inputs: Readonly<Record<string, number>>;
  /** Problems found comparing Loom's output `got` with the reference's `want` (empty: agreement). */
  compare(name: string, got: ArrayLike<number>, want: ArrayLike<number>, backend: string): string[];
  /** A line for the test log: what was compared and how well it agreed. */
  readonly report: string[];
  /**
   * Run native backends without the static bounds proof (it refuses blocks that touch privatized
   * temporaries); the interpreter, run first, checks every access at run time.
   */
  readonly unchecked?: boolean;
}

const SIDE = 24;
const PIXEL = 0.05;

/** A unit vector's components as float32 values. */
function unit(x: number, y: number, z: number): [number, number, number] {
  const n = Math.hypot(x, y, z);
  return [Math.fround(x / n), Math.fround(y / n), Math.fround(z / n)];
}

function vector(name: string, v: readonly number[]): Record<string, number> {
  return { [`${name}_x`]: v[0]!, [`${name}_y`]: v[1]!, [`${name}_z`]: v[2]! };
}

const eye = [0.3, 0.2, -4];
const view = unit(-0.3, -0.2, 4); // towards the origin, where the bulb is
const near = eye.map((e, k) => Math.fround(e + 2.2 * view[k]!)); // EYE_DISTANCE_FROM_NEAR_FIELD
const viewX = unit(view[2]!, 0, -view[0]!);
const viewY = unit(view[1]! * viewX[2]! - view[2]! * viewX[1]!, view[2]! * viewX[0]! - view[0]! * viewX[2]!, view[0]! * viewX[1]! - view[1]! * viewX[0]!);

/**
 * OCCA's mandelbulb ray marcher (examples/cpp/16_mandelbulb) on a 24×24 image that spans the
 * corpus's 1000×1000 field of view (PIXEL 0.05 instead of 0.001, HALF_PIXEL 0.025), camera 4 units
 * from the bulb, so rays hit, miss and fall in shadow. Compared: R, G and B of every pixel (the
 * alpha byte is never written). The iteration is chaotic and a last-bit difference in
 * sin/cos/acos/atan2/pow/log (JavaScript's Math rounded to float32 on the interpreter, glibc's
 * float functions in the reference and on openmp) can turn a hit into a miss near the silhouette,
 * so up to 1% of the pixels (5 of 576) may differ by any amount; every other pixel must be
 * exactly equal. Measured: 576/576 equal on interp and on openmp.
 */
const mandelbulb: SpecialCase & { report: string[] } = {
  defines: {
    WIDTH: SIDE, HEIGHT: SIDE, BATCH_SIZE: 16, SHAPE_FUNCTION: "mandelbulb", PIXEL: String(PIXEL),
    HALF_PIXEL: String(PIXEL / 2), tFloat: "float", tFloat3: "float3",
  },
  rewrite: (cpp) =>
    cpp.replace(/\b1000\b/g, String(SIDE)).replace(/\b0\.0005\b/g, String(PIXEL / 2)).replace(/\b0\.001\b(?![\df])/g, String(PIXEL)),
  inputs: {
    ...vector("lightDirection", unit(-1, 1, -1)), ...vector("viewDirectionY", viewY), ...vector("viewDirectionX", viewX),
    ...vector("nearFieldLocation", near), ...vector("eyeLocation", eye),
  },
  report: [],
  unchecked: true,
  compare(name, got, want, backend) {
    const pixels = SIDE * SIDE;
    let equal = 0;
    let close = 0;
    let maxDiff = 0;
    const channel = (v: number) => ((v % 256) + 256) % 256; // char stores wrap the same way in C and Loom
    for (let p = 0; p < pixels; p++) {
      let worst = 0;
      for (let ch = 0; ch < 3; ch++) worst = Math.max(worst, Math.abs(channel(got[4 * p + ch]!) - channel(want[4 * p + ch]!)));
      if (worst === 0) equal++;
      if (worst <= 2) close++;
      maxDiff = Math.max(maxDiff, worst);
    }
    const line = `rayMarcher ${SIDE}x${SIDE} on ${backend}: ${equal}/${pixels} pixels equal, ${close}/${pixels} within 2, largest channel difference ${maxDiff}`;
    this.report.push(line);
    return equal >= 0.99 * pixels ? [] : [`${name}: ${line}`];
  },
};

/** Special cases by corpus directory (relative to the legacy-generated root). */
export const SPECIAL: Readonly<Record<string, SpecialCase>> = {
  "occa-examples/examples/cpp/16_mandelbulb/rayMarcher": mandelbulb,
};
