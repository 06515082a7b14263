/**
 * `simulateTuning`: run a search strategy against recorded measurements instead of measuring, as
 * Kernel Tuner's simulation mode does with its cache files. It compares strategies on a real
 * landscape in milliseconds: which finds the fastest variant in fewest evaluations.
 */
import { LoomError } from "../errors.js";
import { readTuningLog } from "./log.js";
import { allows, checkRestrictions, checkSpace, enumeratePoints, pointKey, shown, type Restriction, type Space } from "./space.js";
import { getStrategy, STRATEGY_NAMES } from "./strategies.js";
import type { TuningPoint, TuningRecord } from "./types.js";

export interface SimulateOptions {
  /** Seed of the strategy; default 0. */
  readonly seed?: number;
  /** Stop after this many distinct points; default every point of the space. */
  readonly budget?: { readonly variants?: number };
  /** The space to search; default the records' own points (each parameter's values sorted, numbers ascending). */
  readonly space?: Readonly<Record<string, readonly (number | string)[]>>;
  readonly restrictions?: readonly Restriction[];
  /**
   * A point of `space` that the log lacks: "error" (default; as in Kernel Tuner, a simulation needs
   * every allowed point measured) or "invalid" (it counts as a variant that was not ok).
   */
  readonly missing?: "error" | "invalid";
}

export interface SimulationResult {
  /** The ok record of smallest median time among those evaluated; undefined when none was ok. */
  readonly best: TuningRecord | undefined;
  /** The records in the order the strategy evaluated their points, each once. */
  readonly evaluated: TuningRecord[];
  /** The best cost (median ms; Infinity before any ok record) after each evaluation. */
  readonly trace: number[];
}

function fail(what: string): never {
  throw new LoomError(`simulateTuning: ${what}`);
}

/** Run `f`, giving its LoomErrors this function's name instead of autotune's. */
function renamed<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof LoomError) throw new LoomError(e.message.replace(/^autotune:/, "simulateTuning:"));
    throw e;
  }
}

function checkRecords(log: unknown): readonly TuningRecord[] {
  const records = typeof log === "string" ? readTuningLog(log) : log;
  if (!Array.isArray(records)) fail(`the log must be a path to a tuning log or an array of tuning records; got ${shown(log)}`);
  if (records.length === 0) fail(`the log ${typeof log === "string" ? `${log} ` : ""}holds no records; nothing to simulate`);
  records.forEach((r: unknown, i) => {
    const rec = r as Partial<TuningRecord> | null;
    if (rec === null || typeof rec !== "object" || rec.point === null || typeof rec.point !== "object" || Array.isArray(rec.point) || typeof rec.ok !== "boolean") {
      fail(`record ${i} is not a tuning record (it needs point, an object, and ok, a boolean); got ${shown(r).slice(0, 120)}`);
    }
    if (rec.ok && !(typeof rec.medianMs === "number" && Number.isFinite(rec.medianMs))) fail(`record ${i} is ok but its medianMs is ${shown(rec.medianMs)}; an ok record needs a finite median time`);
  });
  // Records of several kernels, parameter values, backends or machines are different landscapes.
  const facts: [string, (r: TuningRecord) => unknown][] = [
    ["kernels", (r) => r.kernel && `"${r.kernel.name}" (hash ${r.kernel.hash})`],
    ["parameter values", (r) => r.params && JSON.stringify(Object.entries(r.params).sort())],
    ["backends", (r) => r.backend],
    ["machines", (r) => r.machine && `${r.machine.cpu} (id ${r.machine.id})`],
  ];
  for (const [what, fact] of facts) {
    const seen = [...new Set(records.map(fact).filter((v) => v !== undefined))];
    if (seen.length > 1) {
      fail(`the log mixes records of several ${what}: ${seen.slice(0, 3).join(", ")}${seen.length > 3 ? ", …" : ""}; `
        + "a simulation replays one sweep: filter the records first, e.g. records.filter((r) => r.kernel?.hash === …)");
    }
  }
  const names = Object.keys(records[0]!.point).sort();
  records.forEach((r, i) => {
    const own = Object.keys(r.point).sort();
    if (JSON.stringify(own) !== JSON.stringify(names)) fail(`record ${i} has parameters ${own.join(", ") || "(none)"}, record 0 has ${names.join(", ")}; a log holds one space`);
  });
  return records;
}

/** The space of the records' points: each parameter's values, numbers ascending, then strings in order of appearance. */
function spaceOf(records: readonly TuningRecord[]): Space {
  const names = Object.keys(records[0]!.point);
  return Object.fromEntries(names.map((n) => {
    const values = [...new Set(records.map((r) => r.point[n]!))];
    values.forEach((v) => {
      if (!(typeof v === "number" && Number.isFinite(v)) && typeof v !== "string") fail(`parameter "${n}" has the value ${shown(v)} in the log; values are finite numbers or strings`);
    });
    const numbers = values.filter((v): v is number => typeof v === "number").sort((a, b) => a - b);
    return [n, [...numbers, ...values.filter((v) => typeof v === "string")]];
  }));
}

/**
 * The logged points the restrictions allow, in the order enumeratePoints would give them (the
 * first parameter varies slowest), without enumerating the product of the value lists, which
 * can be far larger than the log.
 */
function loggedPoints(space: Space, records: readonly TuningRecord[], restrictions: readonly Restriction[]): TuningPoint[] {
  const names = Object.keys(space);
  const index = names.map((n) => new Map(space[n]!.map((v, i) => [v, i])));
  const at = (p: TuningPoint) => names.map((n, i) => index[i]!.get(p[n]!)!);
  const points = records.map((r) => Object.freeze(Object.fromEntries(names.map((n) => [n, r.point[n]!]))) as TuningPoint)
    .filter((p) => renamed(() => allows(restrictions, p)));
  const keys = new Map(points.map((p) => [p, at(p)]));
  return points.sort((a, b) => {
    const [x, y] = [keys.get(a)!, keys.get(b)!];
    const i = x.findIndex((v, j) => v !== y[j]);
    return i < 0 ? 0 : x[i]! - y[i]!;
  });
}

/** A record standing for a point the log lacks (with missing: "invalid"). */
function missingRecord(p: TuningPoint): TuningRecord {
  return { point: p, ok: false, status: "invalid", times: [], medianMs: NaN, error: "simulateTuning: this point is not in the log" };
}

/**
 * Replay `strategy` on the measurements of a tuning log (a path or its records): each point the
 * strategy asks for costs its record's median time (Infinity when not ok), and nothing is
 * measured. A point of the space missing from the log is an error (or, with missing: "invalid",
 * a variant that was not ok); a log of several kernels, parameters, backends or machines is refused.
 *
 *   const { best, trace } = await lp.simulateTuning("matmul.jsonl", "bayes", { budget: { variants: 30 }, seed: 1 });
 */
export async function simulateTuning(log: string | readonly TuningRecord[], strategy: string, opts: SimulateOptions = {}): Promise<SimulationResult> {
  if (opts === null || typeof opts !== "object") fail(`options must be an object { seed?, budget?, space?, restrictions?, missing? }; got ${shown(opts)}`);
  if (typeof strategy !== "string" || !(STRATEGY_NAMES as readonly string[]).includes(strategy)) fail(`unknown strategy ${shown(strategy)}; strategies are ${STRATEGY_NAMES.join(", ")}`);
  const seed = opts.seed ?? 0;
  if (typeof seed !== "number" || !Number.isFinite(seed)) fail(`seed must be a number; got ${shown(opts.seed)}`);
  const budget = opts.budget ?? {};
  if (budget === null || typeof budget !== "object") fail(`budget must be an object { variants? }; got ${shown(opts.budget)}`);
  if (budget.variants !== undefined && (!Number.isInteger(budget.variants) || budget.variants < 1)) fail(`budget.variants must be a positive integer; got ${shown(budget.variants)}`);
  const missing = opts.missing ?? "error";
  if (missing !== "error" && missing !== "invalid") fail(`missing must be "error" or "invalid"; got ${shown(opts.missing)}`);
  const restrictions = renamed(() => checkRestrictions(opts.restrictions));
  const records = checkRecords(log);

  const byKey = new Map<string, TuningRecord>();
  for (const r of records) byKey.set(pointKey(r.point), r); // a point recorded twice: the later record wins
  const space = opts.space !== undefined ? renamed(() => checkSpace(opts.space)) : spaceOf(records);
  const points = opts.space !== undefined ? renamed(() => enumeratePoints(space, restrictions)) : loggedPoints(space, [...byKey.values()], restrictions);
  if (points.length === 0) fail("the restrictions exclude every point of the space; nothing to simulate");
  const absent = points.filter((p) => !byKey.has(pointKey(p)));
  if (absent.length > 0 && missing === "error") {
    fail(`${absent.length} of the ${points.length} points of the space ${absent.length === 1 ? "is" : "are"} not in the log, such as ${absent.slice(0, 3).map((p) => JSON.stringify(p)).join(", ")}; `
      + "a simulation needs every allowed point measured: measure them, restrict the space, or pass missing: \"invalid\" to count them as not ok");
  }

  const valid = new Set(points.map(pointKey));
  const limit = budget.variants ?? Infinity;
  const done = new Map<string, TuningRecord>();
  const evaluated: TuningRecord[] = [];
  const trace: number[] = [];
  let best: TuningRecord | undefined;
  const cost = (r: TuningRecord) => (r.ok ? r.medianMs : Infinity);
  await getStrategy(strategy)({
    space, points, seed, ...(budget.variants !== undefined ? { budget: budget.variants } : {}),
    evaluate: async (p) => {
      const key = pointKey(p);
      const seen = done.get(key);
      if (seen) return cost(seen);
      if (!valid.has(key)) fail(`strategy "${strategy}" asked for ${JSON.stringify(p)}, which is not a point of the space (a bug in the strategy)`);
      if (evaluated.length >= limit) return undefined;
      const r = byKey.get(key) ?? missingRecord(p);
      done.set(key, r);
      evaluated.push(r);
      if (r.ok && (!best || r.medianMs < best.medianMs)) best = r;
      trace.push(best ? best.medianMs : Infinity);
      return cost(r);
    },
  });
  return { best, evaluated, trace };
}
