/**
 * The tuning log: JSON lines, one record per variant, appended as whole lines. Reading skips a
 * torn last line (a sweep killed mid-write) and says so; appending after one starts a new line.
 * Also the facts each record carries: the machine and Loom's version.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { cpus, platform, arch } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LoomError } from "../errors.js";
import type { MachineInfo, TuningRecord } from "./types.js";

export interface LogContents {
  readonly records: TuningRecord[];
  /** A description of the torn last line that was skipped, if any. */
  readonly torn?: string;
  /** Whether the file ends without a newline (the next record must start on a new line). */
  readonly needsNewline: boolean;
}

/**
 * Read a log; a missing file is an empty log. A line that is not valid JSON is forgiven (skipped
 * and reported) when it is the last line or starts like a record (`{"point":`, a record whose
 * write was cut short before a resumed sweep appended after it); any other is a LoomError.
 */
export function loadLog(path: string): LogContents {
  if (typeof path !== "string" || path === "") throw new LoomError(`tuning log: the path must be a non-empty string; got ${String(path)}`);
  if (!existsSync(path)) return { records: [], needsNewline: false };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new LoomError(`tuning log ${path}: cannot be read: ${(e as Error).message}`);
  }
  const lines = text.split("\n");
  const records: TuningRecord[] = [];
  const tornLines: number[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A record cut short by a killed sweep: the last line, or one a resumed sweep wrote after.
      const last = lines.slice(i + 1).every((l) => l.trim() === "");
      if (last || line.startsWith("{\"point\":")) {
        tornLines.push(i + 1);
        return;
      }
      throw new LoomError(`tuning log ${path}: line ${i + 1} is not valid JSON and is not a torn record; the log is damaged: ${line.slice(0, 80)}`);
    }
    records.push(toRecord(value, `tuning log ${path}: line ${i + 1}`));
  });
  const torn = tornLines.length === 0 ? undefined
    : `line${tornLines.length > 1 ? "s" : ""} ${tornLines.join(", ")} ${tornLines.length > 1 ? "are" : "is"} torn (a record cut short, not valid JSON) and skipped`;
  return { records, torn, needsNewline: text.length > 0 && !text.endsWith("\n") };
}

function toRecord(v: unknown, where: string): TuningRecord {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new LoomError(`${where} is not a record object`);
  const r = v as Record<string, unknown>;
  const statuses = ["ok", "invalid", "wrong", "failed"];
  if (r.point === null || typeof r.point !== "object" || Array.isArray(r.point) || !statuses.includes(r.status as string) || !Array.isArray(r.times)) {
    throw new LoomError(`${where} is not a tuning record: it needs point (an object), status (${statuses.join(", ")}) and times (an array)`);
  }
  return { ...r, medianMs: typeof r.medianMs === "number" ? r.medianMs : NaN, ok: r.status === "ok" } as TuningRecord;
}

/**
 * The records of a tuning log (JSON lines). A torn last line is skipped; its description is in
 * the `torn` property of the returned array.
 *
 *   const records = lp.readTuningLog("matmul.jsonl");
 */
export function readTuningLog(path: string): TuningRecord[] & { torn?: string } {
  const { records, torn } = loadLog(path);
  return torn === undefined ? records : Object.assign(records, { torn });
}

/** Append one record as one whole line (a single write). */
export function appendRecord(path: string, r: TuningRecord, newlineFirst: boolean): void {
  try {
    appendFileSync(path, `${newlineFirst ? "\n" : ""}${JSON.stringify(r)}\n`);
  } catch (e) {
    throw new LoomError(`tuning log ${path}: cannot append: ${(e as Error).message}`);
  }
}

let machineCache: MachineInfo | undefined;

/** This machine: CPU model, core count, platform and architecture, and a hash of them as its id. */
export function machineInfo(): MachineInfo {
  if (machineCache) return machineCache;
  const list = cpus();
  const cpu = list[0]?.model.trim() ?? "unknown";
  const facts = { cpu, cores: list.length, platform: platform(), arch: arch() };
  const id = createHash("sha256").update(JSON.stringify(facts)).digest("hex").slice(0, 16);
  machineCache = Object.freeze({ ...facts, id });
  return machineCache;
}

let versionCache: string | undefined;

/** Loom's version from the nearest package.json above this module. */
export function loomVersion(): string {
  if (versionCache !== undefined) return versionCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
        if (pkg.version) return (versionCache = pkg.version);
      } catch {
        // not a readable package.json: look further up
      }
    }
    dir = dirname(dir);
  }
  return (versionCache = "unknown");
}
