/** `CountMap`: counts by key (an Op, MemAccess or Sync record), loopy's `ToCountMap`. */
import { LoomError } from "../../errors.js";
import type { Dtype } from "../../ir/index.js";
import { Count } from "./count.js";

export type CountGranularity = "workitem" | "subgroup" | "workgroup";

/** An operation kind: loopy's names ("add", "mul", "div", "pow", "bw", "shift", "max", "min", "func:NAME"). */
export interface Op {
  readonly dtype: Dtype;
  readonly name: string;
  readonly countGranularity: CountGranularity;
}

/** A load or store of a global or local array, with its strides (in elements) along hardware axes. */
export interface MemAccess {
  readonly mtype: "global" | "local";
  readonly dtype: Dtype;
  readonly lidStrides: Readonly<Record<number, Count | number>>;
  readonly gidStrides: Readonly<Record<number, Count | number>>;
  readonly direction: "load" | "store";
  readonly variable: string;
  readonly countGranularity: CountGranularity;
}

export interface Sync {
  readonly kind: "barrier_local" | "barrier_global" | "kernel_launch";
}

export type CountKey = Op | MemAccess | Sync;

const FILTER_FIELDS = ["dtype", "name", "mtype", "direction", "variable", "countGranularity", "kind"] as const;
type FilterField = (typeof FILTER_FIELDS)[number];
export type CountFilter = Partial<Record<FilterField, string | readonly string[]>>;

function strideText(s: Readonly<Record<number, Count | number>>): string {
  return `{${Object.entries(s).map(([a, v]) => `${a}: ${v.toString()}`).join(", ")}}`;
}

/** One line's key text, loopy's `Op(float32, add, workitem)`. */
export function keyText(k: CountKey): string {
  if ("mtype" in k) {
    return `MemAccess(${k.mtype}, ${k.dtype}, lid_strides=${strideText(k.lidStrides)}, gid_strides=${strideText(k.gidStrides)}, ${k.direction}, ${k.variable}, ${k.countGranularity})`;
  }
  if ("kind" in k) return `Sync(${k.kind})`;
  return `Op(${k.dtype}, ${k.name}, ${k.countGranularity})`;
}

export class CountMap {
  private readonly map: ReadonlyMap<string, readonly [CountKey, Count]>;

  constructor(entries: Iterable<readonly [CountKey, Count]> = []) {
    const map = new Map<string, readonly [CountKey, Count]>();
    for (const [k, c] of entries) {
      const id = keyText(k);
      const had = map.get(id);
      map.set(id, [k, had ? had[1].add(c) : c]);
    }
    this.map = map;
  }

  /** Entries whose every given field is one of the accepted values (loopy's `filter_by`). */
  filterBy(filter: CountFilter): CountMap {
    for (const f of Object.keys(filter)) {
      if (!(FILTER_FIELDS as readonly string[]).includes(f)) {
        throw new LoomError(`CountMap.filterBy: unknown field "${f}"; the fields are ${FILTER_FIELDS.join(", ")}`);
      }
    }
    return new CountMap([...this.map.values()].filter(([k]) => Object.entries(filter).every(([f, want]) => {
      const have = (k as unknown as Record<string, unknown>)[f];
      const accepted = typeof want === "string" ? [want] : (want as readonly string[]);
      return typeof have === "string" && accepted.includes(have);
    })));
  }

  /** The symbolic total of every entry. */
  sum(): Count {
    let out = Count.constant(0);
    for (const [, c] of this.map.values()) out = out.add(c);
    return out;
  }

  /** The total for these parameter values (loopy's `eval_and_sum`). */
  evalAndSum(params: Readonly<Record<string, number>>): number {
    let out = 0;
    for (const [, c] of this.map.values()) out += c.eval(params);
    return out;
  }

  entries(): [CountKey, Count][] {
    return [...this.map.values()].map(([k, c]) => [k, c]);
  }

  /** The count of the entry whose key text equals `key`'s, or 0. */
  get(key: CountKey): Count {
    return this.map.get(keyText(key))?.[1] ?? Count.constant(0);
  }

  get size(): number {
    return this.map.size;
  }

  /** One line per key, sorted: `Op(float32, add, workitem) : n^3`. */
  toString(): string {
    return [...this.map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, [, c]]) => `${id} : ${c.toString()}`).join("\n");
  }
}
