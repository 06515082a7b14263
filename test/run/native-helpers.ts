/**
 * Which native backends run here. A backend that cannot run is skipped with a warning that says
 * why (the reason names what to install), never silently.
 */
import { backendAvailability } from "../../src/run/index.js";

export type NativeBackend = "c" | "openmp" | "opencl" | "cuda";

const seen = new Map<NativeBackend, boolean>();

/** Whether `b` can run here; the first time it cannot, a console warning gives the reason. */
export function nativeAvailable(b: NativeBackend): boolean {
  let ok = seen.get(b);
  if (ok === undefined) {
    const st = backendAvailability(b);
    ok = st.available;
    if (!ok) console.warn(`[skip] the ${b} backend is not available here, its tests are skipped: ${st.reason}`);
    seen.set(b, ok);
  }
  return ok;
}

/** The native backends available here, among `wanted`. */
export function availableNative(wanted: readonly NativeBackend[] = ["c", "openmp", "opencl", "cuda"]): NativeBackend[] {
  return wanted.filter(nativeAvailable);
}
