/**
 * Runtime support of the parallel interpreter: per-work-item copies of private storage, garbage
 * for fresh local memory, and race detection with shadow arrays (ALGORITHMS.md §5).
 *
 * A `Clock` says who is running (`agent`: a work-item index within the group, or a group index)
 * and in which phase; a `CellTracker` shadows one array and records, per cell, the last writer and
 * up to two distinct readers of the current phase. Two accesses to one cell in one phase by
 * different agents, at least one of them a write that changes the value, are a race. Writes of the
 * same value by several agents (redundant execution, as when every work-item runs an instruction
 * that does not use a local iname) are allowed, and a read of such a cell is no race. Atomic
 * updates (`ard`/`awr`) of one cell by several agents are no race either; an atomic and a plain
 * access by different agents are, as above, when one of them changes the value.
 */
import { ExecutionError } from "../errors.js";
import type { Dtype, TypedArray } from "../ir/index.js";

/** Who runs now: phases end at barriers (work-items) or at the end of a device kernel (groups). */
export class Clock {
  phase = 1;
  agent = 0;
  /** Hardware axes (iname, size), axis 0 fastest-varying, to name an agent in messages. */
  axes: readonly (readonly [string, number])[] = [];

  constructor(readonly kind: "work-item" | "group" | "work-item (global memory)") {}

  /** `work-item {ii: 2}`: the agent's id along each hardware axis. */
  describe(agent: number): string {
    let q = agent;
    const ids = this.axes.map(([name, size]) => {
      const id = q % size;
      q = (q - id) / size;
      return `${name}: ${id}`;
    });
    return `${this.kind === "group" ? "group" : "work-item"} {${ids.join(", ")}}`;
  }
}

const sameValue = (a: number | bigint, b: number | bigint) => a === b || (a !== a && b !== b);

/** Per cell: the phase, agent (or SHARED) and instruction of the last atomic access, and of the last one that changed the value. */
class AtomicShadow {
  readonly phase: Int32Array;
  readonly agent: Int32Array;
  readonly insn: (string | undefined)[];
  readonly cPhase: Int32Array;
  readonly cAgent: Int32Array;
  readonly cInsn: (string | undefined)[];

  constructor(size: number) {
    this.phase = new Int32Array(size);
    this.agent = new Int32Array(size);
    this.insn = new Array<string | undefined>(size);
    this.cPhase = new Int32Array(size);
    this.cAgent = new Int32Array(size);
    this.cInsn = new Array<string | undefined>(size);
  }
}

/** Shadow state of one array; `rd` and `wr` are called by the generated code at each access. */
export class CellTracker {
  private readonly wPhase: Int32Array;
  private readonly writer: Int32Array;
  private readonly wInsn: (string | undefined)[];
  private readonly rPhase: Int32Array;
  private readonly reader: Int32Array;
  /** A reader of this phase other than `reader`, or -1. */
  private readonly reader2: Int32Array;
  private readonly rInsn: (string | undefined)[];
  /** Allocated at the first atomic access: most arrays never see one. */
  private atomic: AtomicShadow | undefined;

  constructor(readonly name: string, readonly what: string, size: number, readonly clock: Clock) {
    this.wPhase = new Int32Array(size);
    this.writer = new Int32Array(size);
    this.wInsn = new Array<string | undefined>(size);
    this.rPhase = new Int32Array(size);
    this.reader = new Int32Array(size);
    this.reader2 = new Int32Array(size);
    this.rInsn = new Array<string | undefined>(size);
  }

  /** Record a read of cell `off` by instruction `insn`; returns `off`. */
  rd(off: number, insn: string): number {
    const c = this.clock;
    const me = c.agent;
    if (this.wPhase[off] === c.phase) {
      const w = this.writer[off]!;
      if (w !== me && w !== SHARED) throw this.race(off, this.wInsn[off]!, w, "wrote", insn, me, "read");
    }
    const a = this.atomic;
    if (a && a.cPhase[off] === c.phase && a.cAgent[off] !== me) throw this.race(off, a.cInsn[off]!, a.cAgent[off]!, "atomically updated", insn, me, "read");
    if (this.rPhase[off] !== c.phase) {
      this.rPhase[off] = c.phase;
      this.reader[off] = me;
      this.reader2[off] = -1;
      this.rInsn[off] = insn;
    } else if (this.reader[off] !== me && this.reader2[off] === -1) {
      this.reader2[off] = me;
    }
    return off;
  }

  /** Store `v` (in the array's representation) at cell `off` for instruction `insn`, checking for races. */
  wr(data: TypedArray, off: number, v: number | bigint, insn: string): void {
    this.checkWrite(data, off, v, insn);
    (data as unknown as (number | bigint)[])[off] = v;
  }

  /** `wr`'s check and record, without the store. */
  checkWrite(data: TypedArray, off: number, v: number | bigint, insn: string): void {
    const c = this.clock;
    const me = c.agent;
    const same = sameValue(data[off]!, v);
    if (this.wPhase[off] === c.phase) {
      const w = this.writer[off]!;
      if (w !== me) {
        if (!same) throw this.race(off, this.wInsn[off]!, w, "wrote", insn, me, "wrote a different value to");
        this.writer[off] = SHARED;
      }
    } else {
      this.wPhase[off] = c.phase;
      this.writer[off] = me;
      this.wInsn[off] = insn;
    }
    const a = this.atomic;
    if (a && a.phase[off] === c.phase && a.agent[off] !== me && (!same || (a.cPhase[off] === c.phase && a.cAgent[off] !== me))) {
      throw this.race(off, a.insn[off]!, a.agent[off]!, "atomically updated", insn, me, "wrote");
    }
    this.checkReaders(off, same, insn, "wrote");
  }

  /** Record the read half of an atomic update of cell `off` by instruction `insn`; returns `off`. */
  ard(off: number, insn: string): number {
    this.atomicAccess(off, insn, false);
    return off;
  }

  /** Atomically store `v` at cell `off` for instruction `insn`: other atomic updates of the cell in this phase are no race. */
  awr(data: TypedArray, off: number, v: number | bigint, insn: string): void {
    this.checkAtomicWrite(data, off, v, insn);
    (data as unknown as (number | bigint)[])[off] = v;
  }

  /** `awr`'s check and record, without the store. */
  checkAtomicWrite(data: TypedArray, off: number, v: number | bigint, insn: string): void {
    const same = sameValue(data[off]!, v);
    this.atomicAccess(off, insn, !same);
    this.checkReaders(off, same, insn, "atomically updated");
  }

  private atomicAccess(off: number, insn: string, changes: boolean): void {
    const c = this.clock;
    const me = c.agent;
    if (this.wPhase[off] === c.phase && this.writer[off] !== me) {
      throw this.race(off, this.wInsn[off]!, this.writer[off]!, "wrote", insn, me, "atomically updated");
    }
    const a = (this.atomic ??= new AtomicShadow(this.wPhase.length));
    if (a.phase[off] !== c.phase) {
      a.phase[off] = c.phase;
      a.agent[off] = me;
      a.insn[off] = insn;
    } else if (a.agent[off] !== me) {
      a.agent[off] = SHARED;
    }
    if (!changes) return;
    if (a.cPhase[off] !== c.phase) {
      a.cPhase[off] = c.phase;
      a.cAgent[off] = me;
      a.cInsn[off] = insn;
    } else if (a.cAgent[off] !== me) {
      a.cAgent[off] = SHARED;
    }
  }

  /** A write that changes cell `off` races with a plain read of it by another agent in this phase. */
  private checkReaders(off: number, same: boolean, insn: string, did: string): void {
    const me = this.clock.agent;
    if (!same && this.rPhase[off] === this.clock.phase) {
      const r = this.reader[off] !== me ? this.reader[off]! : this.reader2[off]!;
      if (r !== -1 && r !== me) throw this.race(off, this.rInsn[off]!, r, "read", insn, me, did);
    }
  }

  private race(off: number, insnA: string, a: number, didA: string, insnB: string, b: number, didB: string): ExecutionError {
    const who = (x: number) => (x === SHARED ? "several work-items" : this.clock.describe(x));
    const sync = this.clock.kind === "group"
      ? "in the same device kernel (groups are independent: split the kernel with a global barrier)"
      : this.clock.kind === "work-item"
        ? "with no barrier between (add a barrier or a dependency the scheduler can turn into one)"
        : "in one work-group with no barrier fencing global memory between (add a barrier or a dependency the scheduler can turn into one)";
    return new ExecutionError(
      `race on ${this.what} "${this.name}" at cell ${off}: instruction "${insnA}" in ${who(a)} ${didA} it and instruction "${insnB}" in ${who(b)} ${didB} it, ${sync}`,
    );
  }
}

const SHARED = -2;

/**
 * A global array in a device kernel with work-items: shadowed twice, across groups (one phase per
 * device kernel, `GC`) and across the work-items of one group (phases end at barriers that fence
 * global memory, `IC`). Both check an access before the one store.
 */
export class GlobalCellTracker {
  private readonly groups: CellTracker;
  private readonly items: CellTracker;

  constructor(name: string, what: string, size: number, groupClock: Clock, itemClock: Clock) {
    this.groups = new CellTracker(name, what, size, groupClock);
    this.items = new CellTracker(name, what, size, itemClock);
  }

  rd(off: number, insn: string): number {
    this.groups.rd(off, insn);
    return this.items.rd(off, insn);
  }

  wr(data: TypedArray, off: number, v: number | bigint, insn: string): void {
    this.groups.checkWrite(data, off, v, insn);
    this.items.checkWrite(data, off, v, insn);
    (data as unknown as (number | bigint)[])[off] = v;
  }

  ard(off: number, insn: string): number {
    this.groups.ard(off, insn);
    return this.items.ard(off, insn);
  }

  awr(data: TypedArray, off: number, v: number | bigint, insn: string): void {
    this.groups.checkAtomicWrite(data, off, v, insn);
    this.items.checkAtomicWrite(data, off, v, insn);
    (data as unknown as (number | bigint)[])[off] = v;
  }
}

/** `n` private copies of `a` (same dtype and length): one per work-item. */
export function copies(a: TypedArray, n: number): TypedArray[] {
  const out: TypedArray[] = [a];
  for (let w = 1; w < n; w++) out.push(a.slice());
  return out;
}

/**
 * Fill fresh local memory with garbage so that reading it before writing shows: NaN for floats
 * (0x7e00 for float16 bits), 0x5a bytes for integers (int32 1515870810), true for bool.
 */
export function fillGarbage(a: TypedArray, dtype: Dtype): void {
  if (dtype === "float16") (a as Uint16Array).fill(0x7e00);
  else if (dtype === "float32" || dtype === "float64") (a as Float64Array).fill(NaN);
  else if (dtype === "int64" || dtype === "uint64") (a as BigInt64Array).fill(0x5a5a5a5a5a5a5a5an);
  else if (dtype === "bool") (a as Uint8Array).fill(1);
  else (a as Int32Array).fill(0x5a5a5a5a);
}

/**
 * Fresh private memory: NaN for floats (0x7e00 for float16 bits), so that a value read before it is
 * written shows in the output, as C leaves it undefined; 0 for integers and bools, because the
 * interpreter also evaluates, for work-items outside a loop's instructions, loop bounds that an
 * integer private holds (OKL's `for (n = starts[r]; n < starts[r + 1]; ++n)` keeps its trip count in
 * one): garbage there would run billions of empty trips.
 */
export function freshPrivate(a: TypedArray, dtype: Dtype): void {
  if (dtype === "float16") (a as Uint16Array).fill(0x7e00);
  else if (dtype === "float32" || dtype === "float64") (a as Float64Array).fill(NaN);
  else if (dtype === "int64" || dtype === "uint64") (a as BigInt64Array).fill(0n);
  else (a as Int32Array).fill(0);
}

/** Everything the generated code reaches through `RT`. */
export const RT = { Clock, CellTracker, GlobalCellTracker, copies, fillGarbage, freshPrivate };
