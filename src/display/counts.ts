/** A CountMap as tables: one for operations, one for memory accesses, one for synchronization. */
import type { Count, CountKey, CountMap, MemAccess, Op, Sync } from "../analysis/index.js";

export interface CountTable {
  readonly title: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

const strides = (s: Readonly<Record<number, Count | number>>): string =>
  Object.entries(s).map(([axis, v]) => `${axis}: ${v.toString()}`).join(", ") || "–";

const isMem = (k: CountKey): k is MemAccess => "mtype" in k;
const isSync = (k: CountKey): k is Sync => "kind" in k;

/** The rows of each kind of key present, in the map's order. */
export function countRows(m: CountMap): CountTable[] {
  const ops: string[][] = [];
  const mems: string[][] = [];
  const syncs: string[][] = [];
  for (const [key, count] of m.entries()) {
    const c = count.toString();
    if (isMem(key)) mems.push([key.variable, key.mtype, key.direction, key.dtype, strides(key.lidStrides), strides(key.gidStrides), key.countGranularity, c]);
    else if (isSync(key)) syncs.push([key.kind, c]);
    else {
      const op = key as Op;
      ops.push([op.name, op.dtype, op.countGranularity, c]);
    }
  }
  const tables: CountTable[] = [];
  if (ops.length > 0) tables.push({ title: "operations", header: ["op", "dtype", "granularity", "count"], rows: ops });
  if (mems.length > 0) {
    tables.push({ title: "memory accesses", header: ["variable", "mtype", "direction", "dtype", "lid strides", "gid strides", "granularity", "count"], rows: mems });
  }
  if (syncs.length > 0) tables.push({ title: "synchronization", header: ["kind", "count"], rows: syncs });
  return tables;
}
