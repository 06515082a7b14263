/** The text forms of what `display` shows: what `lp.show(x)` returns and a terminal prints. */
import { assertNever } from "../errors.js";
import type { CountMap } from "../analysis/index.js";
import { show as showKernel } from "../ir/index.js";
import { showSchedule } from "../schedule/index.js";
import type { GeneratedCode } from "../../codegen/index.js";
import type { TuningRecord } from "../tune/index.js";
import { textTable } from "./html.js";
import type { Displayable } from "./kinds.js";
import { countRows } from "./counts.js";
import { bestIndex, tuningTable } from "./tuning.js";

/** Generated code with a header per device kernel: its grid, work-group size and arguments. */
export function codeText(c: GeneratedCode): string {
  const out = [`// target: ${c.target}`];
  for (const k of c.kernels) {
    out.push(`// kernel ${k.name}: groups (${k.globalSize.join(", ") || "1"}), work-items (${k.localSize.join(", ") || "1"}), args ${k.args.join(", ")}`);
  }
  out.push(c.deviceCode.trimEnd());
  if (c.hostCode !== undefined && c.hostCode.trim() !== "") out.push("", "// host code", c.hostCode.trimEnd());
  return out.join("\n");
}

function countsText(m: CountMap): string {
  const groups = countRows(m);
  if (groups.length === 0) return "(no counts)";
  return groups.map((g) => textTable(g.header, g.rows)).join("\n\n");
}

function tuningText(records: readonly TuningRecord[]): string {
  if (records.length === 0) return "(no tuning records)";
  const { header, rows } = tuningTable(records);
  const best = bestIndex(records);
  return textTable(["", ...header], rows.map((r, i) => [i === best ? "*" : "", ...r]))
    + (best >= 0 ? "\n(* the best: the ok record with the smallest median)" : "\nno record is ok");
}

/** The text form of a classified value. */
export function textOf(d: Displayable): string {
  switch (d.kind) {
    case "kernel": return showKernel(d.value);
    case "schedule": return showSchedule(d.value);
    case "code": return codeText(d.value);
    case "codes": return d.value.map(codeText).join("\n\n");
    case "counts": return countsText(d.value);
    case "tuning": return tuningText(d.value);
    case "svg": return d.value;
    case "text": return d.value;
    default: return assertNever(d, "displayable");
  }
}
