// Child of worker-terminate.test.ts: a worker thread builds OpenCL programs one after another and
// the main thread terminates it after `delay` ms (argv), several times. A crash of the process
// (SIGABRT: a C++ exception escaping the addon) is what the test looks for; "survived" otherwise.
import { Worker } from "node:worker_threads";

const [addon, ...delays] = process.argv.slice(2);
const body = `
  const { parentPort } = require("node:worker_threads");
  const ctx = require(${JSON.stringify(addon)}).openclContext();
  let src = "";
  for (let i = 0; i < 60; i++) src += "__kernel void k" + i + "(__global float *a) { int g = get_global_id(0); for (int j = 0; j < 50; j++) a[g] = a[g] * 1.0001f + " + i + ".0f; }\\n";
  parentPort.postMessage("building");
  for (let r = 0; ; r++) ctx.build(src + "// " + r + " " + Math.random(), []);
`;
for (const delay of delays.map(Number)) {
  await new Promise((done) => {
    const w = new Worker(body, { eval: true });
    w.on("message", () => setTimeout(() => void w.terminate(), delay));
    w.on("error", () => {});
    w.on("exit", done);
  });
}
console.log("survived");
