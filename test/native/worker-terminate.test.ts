/**
 * A worker thread terminated while the addon works (an OpenCL build) ends the worker, not the
 * process. The addon's C++ exceptions become JS exceptions; while a worker is terminating, napi
 * cannot throw one, and node-addon-api then threw a C++ exception out of the callback instead:
 * std::terminate, the whole process gone ("terminate called after throwing an instance of
 * 'Napi::Error'"), as vitest's thread pool once was under load. binding.gyp defines
 * NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS, so an exception napi cannot throw into a terminating
 * worker is dropped (the worker is ending anyway). Runs in a child process, so a crash fails this
 * test rather than killing vitest.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openclStatus } from "../../native/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const status = openclStatus();
if (!status.available) console.warn(`worker termination test skipped: ${status.reason}`);

describe.skipIf(!status.available)("a worker terminated during an OpenCL build", () => {
  it("ends the worker and leaves the process running", () => {
    const addon = join(here, "../../native/build/Release/loom_native.node");
    const r = spawnSync(process.execPath, [join(here, "worker-terminate-child.mjs"), addon, "30", "120", "300", "30", "120"], { encoding: "utf8", timeout: 240_000 });
    expect({ status: r.status, signal: r.signal, stderr: r.stderr.slice(-400) }).toEqual({ status: 0, signal: null, stderr: "" });
    expect(r.stdout).toContain("survived");
  }, 300_000);
});
