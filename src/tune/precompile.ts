/**
 * Compiling ahead: while a sweep times one variant, the next ones are built, their code generated
 * and compiled in parallel. On the c and openmp backends the check against the reference runs
 * the variant's own compiled code (the same kernel object, backend and compiler options as the
 * timed runs, so one shared object serves both), so preparing a variant ahead is exactly
 * `prepareVariant`: build, check; its compiler runs as a child process while the sweep goes on.
 *
 * Timing stays quiet: before a variant's timed runs the sweep waits until no compiler runs, and
 * none starts until they end. Work is done in batches: when no prepared variant is left, up to
 * `jobs` of the announced points start at once; the sweep then checks and times them one after
 * the other without waiting. At most `jobs` variants (kernels, generated code) are held at once.
 */
import { pointKey } from "./space.js";
import type { Prepared } from "./measure.js";
import type { TuningPoint } from "./types.js";

export interface AheadOptions {
  /** Prepare one point (never rejects: a refused variant is a `verdict`). */
  readonly prepare: (p: TuningPoint) => Promise<Prepared>;
  /** Variants prepared at once (compilers running in parallel); at least 1. */
  readonly jobs: number;
  /** Whether a point needs no preparing (measured already, taken from the log). */
  readonly skip: (key: string) => boolean;
  /** How many more points the sweep may still evaluate besides those in flight (its budget); nothing beyond is prepared or held. */
  readonly remaining: () => number;
  /** Whether the sweep stopped (its signal): nothing more starts. */
  readonly stopped?: () => boolean;
}

/**
 * The sweep's preparer of announced variants.
 *
 *   const ahead = new Ahead({ prepare: (p) => prepareVariant(ctx, p), jobs: 8, skip, remaining });
 *   ahead.upcoming(points); const v = await ahead.take(points[0]); await ahead.quiet(); … ahead.resume();
 */
export class Ahead {
  /** The announced points with their keys, in order; those before `next` were looked at. */
  private queue: { readonly key: string; readonly p: TuningPoint }[] = [];
  private next = 0;
  /** Points the sweep took (measured or in flight): never prepared again. */
  private readonly taken = new Set<string>();
  /** Prepared or preparing variants not taken yet, by point key. */
  private readonly held = new Map<string, Promise<Prepared>>();
  /** Every preparation not finished yet (held, taken or dropped). */
  private readonly running = new Set<Promise<Prepared>>();
  private paused = 0;
  private closed = false;
  /** Variants prepared ahead, and of those, taken by the sweep (for reports and tests). */
  readonly stats = { started: 0, taken: 0 };

  constructor(private readonly o: AheadOptions) {}

  /** How many variants are held (prepared or preparing, not taken): at most `jobs`. */
  get holding(): number {
    return this.held.size;
  }

  /** The strategy's hint: these points come next, in order. Held variants not among them are let go. */
  upcoming(points: readonly TuningPoint[]): void {
    if (this.closed) return;
    this.queue = points.map((p) => ({ key: pointKey(p), p }));
    this.next = 0;
    const wanted = new Set(this.queue.map((q) => q.key));
    for (const key of [...this.held.keys()]) if (!wanted.has(key)) this.held.delete(key);
    this.pump();
  }

  /** The prepared variant of `p`: the one held, or one started now (with the rest of a batch). */
  take(p: TuningPoint): Promise<Prepared> {
    const key = pointKey(p);
    this.taken.add(key);
    let v = this.held.get(key);
    if (v) {
      this.held.delete(key);
      this.stats.taken++;
    } else {
      v = this.track(this.o.prepare(p));
    }
    // The strategy went elsewhere: hold no more than the budget can still measure.
    for (const k of [...this.held.keys()].slice(Math.max(0, this.o.remaining()))) this.held.delete(k);
    this.pump();
    return v;
  }

  /** Wait until no preparation runs, and start none until `resume` (around timed runs). */
  async quiet(): Promise<void> {
    this.paused++;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  resume(): void {
    this.paused = Math.max(0, this.paused - 1);
    this.pump();
  }

  /** Start nothing more and wait for every preparation still running (no compiler outlives the sweep). */
  async close(): Promise<void> {
    this.closed = true;
    this.queue = [];
    this.next = 0;
    this.held.clear();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private track(v: Promise<Prepared>): Promise<Prepared> {
    this.running.add(v);
    void v.finally(() => this.running.delete(v)).catch(() => undefined);
    return v;
  }

  /** Start a batch when nothing prepared is left: up to `jobs` queued points, within the budget. */
  private pump(): void {
    if (this.closed || this.paused > 0 || this.held.size > 0 || this.o.stopped?.()) return;
    const room = Math.min(this.o.jobs - this.running.size, this.o.remaining() - this.running.size);
    let started = 0;
    while (started < room && this.next < this.queue.length) {
      const { key, p } = this.queue[this.next++]!;
      if (this.o.skip(key) || this.held.has(key) || this.taken.has(key)) continue;
      this.held.set(key, this.track(this.o.prepare(p)));
      this.stats.started++;
      started++;
    }
  }
}
