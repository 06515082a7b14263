/**
 * IEEE 754 half precision, stored as raw bits in a Uint16Array. Conversions round to nearest,
 * ties to even, straight from float64 (going through float32 would round twice).
 */

/** The value of the half-precision bit pattern `h`. `halfToFloat(0x3c00) === 1` */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** `y` rounded to an integer, ties to even. */
function roundHalfEven(y: number): number {
  const f = Math.floor(y);
  const d = y - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The half-precision bit pattern nearest to `x`. `floatToHalf(1) === 0x3c00`, `floatToHalf(1e6) === 0x7c00` (inf) */
export function floatToHalf(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  // 65520 is halfway between the largest half (65504) and 2^16; ties go to the even one, infinity.
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundHalfEven(a * 2 ** 24); // subnormal; 1024 is the smallest normal
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  let mant = roundHalfEven((a / 2 ** e - 1) * 1024);
  if (mant === 1024) {
    mant = 0;
    e++;
  }
  return sign | ((e + 15) << 10) | mant;
}

let table: Float64Array | undefined;

/** `halfToFloat` through a lookup table (the interpreter's hot path). `h2f(0xc000) === -2` */
export function h2f(h: number): number {
  if (!table) {
    table = new Float64Array(65536);
    for (let k = 0; k < 65536; k++) table[k] = halfToFloat(k);
  }
  return table[h & 0xffff]!;
}

/** `x` rounded to the nearest half-precision value. `f16round(1 + 2 ** -12) === 1` */
export function f16round(x: number): number {
  return h2f(floatToHalf(x));
}
