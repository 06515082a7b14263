/** What `display` and `show` accept, told apart by shape (kernels and schedules are plain records). */
import { LoomError } from "../errors.js";
import { CountMap, type Count } from "../analysis/index.js";
import type { Kernel } from "../ir/index.js";
import type { Schedule } from "../schedule/index.js";
import type { GeneratedCode } from "../../codegen/index.js";
import type { TuningRecord } from "../tune/index.js";

export type Displayable =
  | { readonly kind: "kernel"; readonly value: Kernel }
  | { readonly kind: "schedule"; readonly value: Schedule }
  | { readonly kind: "code"; readonly value: GeneratedCode }
  | { readonly kind: "codes"; readonly value: readonly GeneratedCode[] }
  | { readonly kind: "counts"; readonly value: CountMap }
  | { readonly kind: "tuning"; readonly value: readonly TuningRecord[] }
  | { readonly kind: "svg"; readonly value: string }
  | { readonly kind: "text"; readonly value: string };

/** Everything `lp.display(x)` / `lp.show(x)` accept. */
export type DisplayInput =
  | Kernel | Schedule | GeneratedCode | readonly GeneratedCode[] | CountMap | readonly TuningRecord[] | { readonly records: readonly TuningRecord[]; readonly best?: TuningRecord }
  | Count | string;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null;

export function isKernel(x: unknown): x is Kernel {
  return isObject(x) && typeof x["name"] === "string" && Array.isArray(x["domains"]) && Array.isArray(x["instructions"])
    && Array.isArray(x["args"]) && isObject(x["inameTags"]);
}

function isSchedule(x: unknown): x is Schedule {
  return isObject(x) && isKernel(x["kernel"]) && Array.isArray(x["deviceKernels"]);
}

function isGeneratedCode(x: unknown): x is GeneratedCode {
  return isObject(x) && typeof x["target"] === "string" && typeof x["deviceCode"] === "string" && Array.isArray(x["kernels"]);
}

function isTuningRecord(x: unknown): x is TuningRecord {
  return isObject(x) && isObject(x["point"]) && typeof x["status"] === "string" && Array.isArray(x["times"]);
}

/** An SVG document (an optional XML prolog or comment before the `<svg` element). */
export function isSvg(s: string): boolean {
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(s);
}

function describeValue(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return `an array of ${x.length} (not tuning records)`;
  if (isObject(x)) return `an object with keys ${Object.keys(x).slice(0, 6).join(", ") || "(none)"}`;
  return `a ${typeof x}`;
}

/** Which of the displayable kinds `x` is; a `LoomError` naming what is accepted otherwise. */
export function classify(x: unknown, fn: string): Displayable {
  if (typeof x === "string") return isSvg(x) ? { kind: "svg", value: x } : { kind: "text", value: x };
  if (x instanceof CountMap) return { kind: "counts", value: x };
  if (isKernel(x)) return { kind: "kernel", value: x };
  if (isSchedule(x)) return { kind: "schedule", value: x };
  if (isGeneratedCode(x)) return { kind: "code", value: x };
  if (Array.isArray(x) && x.length > 0 && x.every(isGeneratedCode)) return { kind: "codes", value: x };
  if (Array.isArray(x) && x.every(isTuningRecord)) return { kind: "tuning", value: x };
  if (isObject(x) && Array.isArray(x["records"]) && x["records"].every(isTuningRecord)) return { kind: "tuning", value: x["records"] };
  // A Count, or anything else that prints itself: its own text.
  if (isObject(x) && !Array.isArray(x) && typeof x["toString"] === "function" && x["toString"] !== Object.prototype.toString) {
    return { kind: "text", value: String(x) };
  }
  throw new LoomError(
    `${fn}: cannot show ${describeValue(x)}; it shows a Kernel, a Schedule (lp.schedule(k)), GeneratedCode ` +
    "(lp.generateCode, or an array of them side by side), a CountMap (lp.getOpMap, lp.getMemAccessMap, lp.getSyncMap), tuning records or an " +
    "autotune result, an SVG document, or a string",
  );
}
