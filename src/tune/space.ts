/**
 * The search space of a sweep: validation, the points it holds (after restrictions), a stable key
 * per point, a seeded random generator, and the small parameters a variant is checked on.
 */
import { LoomError } from "../errors.js";
import { fixValues, isEmpty, type BasicSet } from "../poly/index.js";
import type { TuningPoint } from "./types.js";

export type Space = Readonly<Record<string, readonly (number | string)[]>>;
export type Restriction = (point: TuningPoint) => boolean;

/** Check a space: a non-empty object of non-empty arrays of numbers or strings. */
export function checkSpace(space: unknown): Space {
  if (space === null || typeof space !== "object" || Array.isArray(space)) {
    throw new LoomError(`autotune: space must be an object of value lists such as { ti: [1, 2, 4] }; got ${shown(space)}`);
  }
  const names = Object.keys(space);
  if (names.length === 0) throw new LoomError("autotune: the space is empty; give at least one parameter with its values, such as { ti: [1, 2, 4] }");
  for (const name of names) {
    const values = (space as Record<string, unknown>)[name];
    if (!Array.isArray(values)) {
      throw new LoomError(`autotune: space parameter "${name}" must be an array of values such as [1, 2, 4]; got ${shown(values)}`);
    }
    if (values.length === 0) throw new LoomError(`autotune: space parameter "${name}" has no values; give at least one`);
    values.forEach((v, i) => {
      if (!(typeof v === "number" && Number.isFinite(v)) && typeof v !== "string") {
        throw new LoomError(`autotune: space parameter "${name}" value ${i} is ${shown(v)}; values are finite numbers or strings`);
      }
    });
  }
  return space as Space;
}

/** Check restrictions: an array of predicates over a point. */
export function checkRestrictions(r: unknown): readonly Restriction[] {
  if (r === undefined) return [];
  if (!Array.isArray(r) || r.some((f) => typeof f !== "function")) {
    throw new LoomError(`autotune: restrictions must be an array of functions (point) => boolean; got ${shown(r)}`);
  }
  return r as Restriction[];
}

/**
 * The most points a space may hold before restrictions: every strategy works on the list of valid
 * points, which takes about a microsecond and a few hundred bytes per point to build.
 */
export const MAX_SPACE_POINTS = 1_000_000;

/**
 * The points of `space` in lexicographic order (the first parameter varies slowest), restrictions
 * applied. A space of more than MAX_SPACE_POINTS points is a LoomError saying how many it has
 * (before, `{ a1: [1..10], …, a12: [1..10] }` enumerated 10^12 points, for ever).
 */
export function enumeratePoints(space: Space, restrictions: readonly Restriction[]): TuningPoint[] {
  const names = Object.keys(space);
  const size = names.reduce((n, name) => n * space[name]!.length, 1);
  if (size > MAX_SPACE_POINTS) {
    throw new LoomError(`autotune: the space has ${size.toLocaleString("en-US")} points (${names.map((n) => `${n}: ${space[n]!.length}`).join(" × ")}), ` +
      `more than the ${MAX_SPACE_POINTS.toLocaleString("en-US")} a sweep lists before restrictions; give fewer values, or sweep one part of the space at a time`);
  }
  const out: TuningPoint[] = [];
  const rec = (i: number, acc: Record<string, number | string>): void => {
    if (i === names.length) {
      const p = Object.freeze({ ...acc });
      if (allows(restrictions, p)) out.push(p);
      return;
    }
    for (const v of space[names[i]!]!) rec(i + 1, { ...acc, [names[i]!]: v });
  };
  rec(0, {});
  return out;
}

/** Whether every restriction accepts `p`; a restriction that throws is a LoomError naming it. */
export function allows(restrictions: readonly Restriction[], p: TuningPoint): boolean {
  return restrictions.every((f, i) => {
    try {
      return Boolean(f(p));
    } catch (e) {
      throw new LoomError(`autotune: restriction ${i} threw on point ${pointKey(p)}: ${(e as Error)?.message ?? String(e)}`);
    }
  });
}

/** A stable key of a point: its JSON with the names sorted. */
export function pointKey(p: TuningPoint): string {
  return JSON.stringify(Object.keys(p).sort().map((n) => [n, p[n]]));
}

export { seededRandom } from "../run/seeded-random.js";

/**
 * The largest value a parameter takes in the correctness check (see `testParams`). 13 is small
 * enough for the interpreter and, being prime, leaves a remainder for every split factor > 1 so
 * the guarded tails of tiled loops are exercised too.
 */
export const SMALL_PARAM = 13;

/**
 * The parameters a variant is checked against the reference with: each parameter min(value,
 * SMALL_PARAM), raised to the smallest value the kernel's assumptions allow (`n mod 16 = 0 and
 * n >= 16` checks at n = 16, not at 13, where such a kernel means nothing), unless the caller gave
 * `testParams`. Parameters are settled in order, each with the earlier ones fixed.
 */
export function testParams(params: Readonly<Record<string, number>>, given?: Readonly<Record<string, number>>, assumptions?: BasicSet): Record<string, number> {
  if (given !== undefined) return { ...given };
  const out: Record<string, number> = {};
  const fixed: Record<string, number> = {};
  for (const [name, value] of Object.entries(params)) {
    let c = Math.min(value, SMALL_PARAM);
    if (assumptions && assumptions.params.includes(name)) {
      const allowed = (x: number) => !isEmpty(fixValues(assumptions, { ...fixed, [name]: x }));
      let tries = 0;
      while (c < value && tries++ < 100_000 && !allowed(c)) c++;
      if (allowed(c)) fixed[name] = c;
      else c = value; // the timing value is all the caller has given for it: check there
    }
    out[name] = c;
  }
  return out;
}

export function shown(x: unknown): string {
  if (typeof x === "function") return "a function";
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}
