/**
 * `generateOkl(k, { normalized })`: the okl target with its options (generateCode(k, "okl") is
 * the legacy spelling): the scheduling passes every route runs, then the okl dialect.
 *
 *   generateOkl(k, { normalized: true }).deviceCode   // "[[okl_kernel(\"\")]] void f(…"
 */
import type { Kernel } from "../../src/ir/index.js";
import { schedule } from "../../src/schedule/index.js";
import { lowerSchedule } from "../lower.js";
import type { GeneratedCode } from "../types.js";
import { OKL_LOWER_OPTIONS, renderOkl, type OklOptions } from "./okl.js";

export function generateOkl(k: Kernel, opts: OklOptions = {}): GeneratedCode {
  const ks = lowerSchedule(schedule(k), OKL_LOWER_OPTIONS);
  return renderOkl(ks, ks[0]?.name ?? k.name, opts);
}
