/**
 * The outcome of a transformation under one of two routes that must agree (a shortcut and the
 * exact route it stands in for, switched by a test hook): the kernel as JSON (field order too), or
 * the refusal's class and message. Memos are emptied first, so neither route finds the other's answer.
 */
import { LoomError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { clearPolyMemos } from "../../src/poly/index.js";

export function routeOutcome(use: (on: boolean) => void, on: boolean, run: () => Kernel): string {
  clearPolyMemos();
  use(on);
  try {
    return outcomeOf(run);
  } finally {
    use(true);
  }
}

/** The kernel `run()` makes as JSON, or its refusal's class and message (memos as they are). */
export function outcomeOf(run: () => Kernel): string {
  try {
    return JSON.stringify(run());
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return `${e.constructor.name}: ${e.message}`;
  }
}
