/**
 * Integer traps in generated code: an operation the interpreter refuses at run time (an integer
 * division or modulo by 0, a shift count outside 0..width-1, a negative integer exponent) is
 * checked where it may happen and recorded at a numbered site, so that the runtime reports the
 * interpreter's ExecutionError instead of a silent 0 (or a trap of the process). C and OpenMP
 * record into a static flag the runtime reads after each launch; device targets into a trap
 * buffer each kernel that may trap takes as its last parameter (4 × uint32: the site, the value's
 * low and high words, and a claim counter: the first trap of a launch claims the record).
 */
import { assertNever } from "../../src/errors.js";
import type { IntTrapSite } from "../ast.js";
import type { LoopTrapHook, Printer } from "../printer.js";
import { TrapLoops, type AccMode, type AccValue } from "./int-trap-loops.js";
import type { IntTrapTable } from "../types.js";

export type { IntTrapSite, IntTrapTable };
export type { AccMode, AccValue, TrapValue } from "./int-trap-loops.js";

/** The interpreter's message for a trap at `t`, with the value the code recorded (a shift count, an exponent). */
export function intTrapMessage(t: IntTrapSite, value: number | bigint): string {
  switch (t.what) {
    case "division": case "modulo": return `instruction "${t.insn}": integer ${t.what} by zero`;
    case "shift": {
      const w = t.width ?? 32;
      return `instruction "${t.insn}": shift count ${value} is out of range; a ${w}-bit value shifts by 0 to ${w - 1} bits (other counts are undefined in C)`;
    }
    case "power": return `instruction "${t.insn}": integer power with negative exponent ${value}`;
    default: return assertNever(t.what, "trap");
  }
}

/** Words of a trap buffer: site, value low, value high, claims. */
export const TRAP_BUFFER_WORDS = 4;

/** Generated code that may carry a trap table (every `GeneratedCode` may: kept for its importers). */
export interface WithIntTraps {
  readonly intTraps?: IntTrapTable;
}

/**
 * The message of a recorded trap, or undefined where none was: `site` from 1 (0: none), `value`
 * the recorded 64 bits (a uint64 shift count's as unsigned).
 */
export function recordedTrap(table: IntTrapTable, site: number, value: bigint): string | undefined {
  if (site === 0) return undefined;
  const t = table.sites[site - 1];
  if (!t) return `an integer trap at site ${site}, which the generated code does not have (its trap record is corrupt)`;
  return intTrapMessage(t, t.unsigned ? BigInt.asUintN(64, value) : BigInt.asIntN(64, value));
}

/** The message recorded in a trap buffer's words (see `TRAP_BUFFER_WORDS`), or undefined. */
export function bufferTrap(table: IntTrapTable, words: Uint32Array): string | undefined {
  return recordedTrap(table, words[0]!, (BigInt(words[2]!) << 32n) | BigInt(words[1]!));
}

/** Site numbers (from 1) of one generated code, one per distinct site. */
export class TrapSites {
  readonly sites: IntTrapSite[] = [];
  private readonly keys = new Map<string, number>();

  number(t: IntTrapSite): number {
    const key = `${t.what}|${t.width ?? ""}|${t.unsigned ? 1 : 0}|${t.insn}`;
    let n = this.keys.get(key);
    if (n === undefined) this.keys.set(key, (n = this.sites.push(t)));
    return n;
  }
}

/** What printing a trap needs of the dialect: its type names and how it claims a buffer record. */
export interface TrapDialect {
  readonly helperQualifier: string;
  readonly typeName: (t: "uint32" | "int32" | "int64" | "uint64") => string;
  /** Where traps go: the static flag (`static`), or a buffer parameter of this pointer type (`uint32` spelled in). */
  readonly flag: boolean;
  readonly pointer?: (u32: string) => string;
  /** An atomic increment of the cell, as an expression of its old value; undefined: a plain increment. */
  readonly claim?: (cell: string, p: Printer) => string;
  /** The whole recorder, where the dialect writes its own (ISPC's per-lane one). */
  readonly recorder?: (t: string, u32: string, i64: string) => string;
}

/** The spelling of traps in one dialect: helper parameters, call arguments, the recorder. */
export class TrapSpelling {
  /** Set when a call that may trap was printed (reset per kernel by the target). */
  used = false;

  constructor(private readonly d: TrapDialect, readonly sites: TrapSites, readonly param: string) {
    this.loops = new TrapLoops(d);
  }

  /** The accumulating checks of c and openmp loops (int-trap-loops.ts). */
  readonly loops: TrapLoops;

  /** The printer's hook around `for` loops: only c and openmp (the static record) accumulate. */
  get loopHook(): LoopTrapHook | undefined {
    return this.d.flag ? this.loops.hook : undefined;
  }

  /**
   * A check at `site` inside a loop whose traps accumulate: its mode and its call's extra
   * arguments (the recorder added to the code); undefined elsewhere (the check records itself).
   */
  accumulate(site: IntTrapSite, p: Printer, value: AccValue): { mode: AccMode; args: string } | undefined {
    if (!this.d.flag || !this.loops.active) return undefined;
    const r = this.loops.accumulate(this.sites.number(site), value)!;
    this.used = true;
    p.helpers.add(`loopy_0trap|${this.recorder(p)}`);
    const [key, code] = this.loops.ordHelper(r.mode);
    p.helpers.add(`${key}|${code}`);
    return r;
  }

  /** The extra parameters of a helper that may trap: `, int32_t site` or `, __global uint *t, uint site`. */
  get params(): string {
    const u32 = this.d.typeName("uint32");
    return this.d.flag ? `, ${u32} site` : `, ${this.named("t")}, ${u32} site`;
  }

  /** A trap buffer parameter named `name` (`__global uint *t`). */
  private named(name: string): string {
    const u32 = this.d.typeName("uint32");
    const ptr = this.d.pointer ? this.d.pointer(u32) : `${u32} *`;
    return `${ptr}${ptr.endsWith("*") ? "" : " "}${name}`;
  }

  /** The extra arguments of a call at `site` (the recorder is added to the code). */
  args(site: IntTrapSite, p: Printer): string {
    this.used = true;
    p.helpers.add(`loopy_0trap|${this.recorder(p)}`);
    const n = this.sites.number(site);
    return this.d.flag ? `, ${n}u` : `, ${this.param}, ${n}u`;
  }

  /** Inside a helper: record `value` at the helper's `site`. */
  record(value: string): string {
    return `loopy_trap(${this.d.flag ? "" : "t, "}site, ${value === "0" ? value : `(${this.d.typeName("int64")}) ${value}`})`;
  }

  private recorder(p: Printer): string {
    const [u32, i64, u64] = [this.d.typeName("uint32"), this.d.typeName("int64"), this.d.typeName("uint64")];
    const q = this.d.helperQualifier;
    if (this.d.flag) {
      // The first trap of a launch claims the record (OpenMP threads may trap at once).
      return `static struct { ${u32} site; ${u32} claims; ${i64} value; } loopy_int_trap;\n` +
        `${q} void loopy_trap(${u32} site, ${i64} value) { if (__atomic_load_n(&loopy_int_trap.claims, __ATOMIC_RELAXED) == 0u && ` +
        `__atomic_fetch_add(&loopy_int_trap.claims, 1u, __ATOMIC_RELAXED) == 0u) { loopy_int_trap.site = site; loopy_int_trap.value = value; } }`;
    }
    if (this.d.recorder) return this.d.recorder(this.named("t"), u32, i64);
    const claim = this.d.claim ? this.d.claim("t[3]", p) : "t[3]++";
    return `${q} void loopy_trap(${this.named("t")}, ${u32} site, ${i64} value) { if (t[3] == 0u && ${claim} == 0u) ` +
      `{ t[0] = site; t[1] = (${u32}) value; t[2] = (${u32}) ((${u64}) value >> 32); } }`;
  }
}
