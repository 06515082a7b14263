/**
 * Following a schedule's host program (loopy's host code) at run time: each device-kernel launch
 * in order, host loops run over their bounds evaluated with this run's value arguments. The js
 * and native backends launch through this; the interpreter compiles the same walk (interp.ts).
 */
import { hostProgramOf, type HostNode, type Schedule } from "../schedule/index.js";
import { evalSizeExpr } from "./args.js";

/**
 * Call `launch(kernel, host)` for each launch of `s`'s host program, in order: `kernel` indexes
 * `s.deviceKernels`, `host` gives the enclosing host loops' inames their values.
 * `forEachLaunch(s, new Map([["n", 5]]), (d, host) => …)` calls it 6 times for `for k in 0..2 { d0; d1 }`.
 */
export function forEachLaunch(s: Schedule, params: ReadonlyMap<string, number>, launch: (kernel: number, host: ReadonlyMap<string, number>) => void): void {
  const walk = (nodes: readonly HostNode[], host: Map<string, number>): void => {
    for (const n of nodes) {
      if (n.kind === "launch") {
        launch(n.kernel, host);
        continue;
      }
      const scope = new Map([...params, ...host]);
      const what = (which: string) => `the ${which} bound of host loop "${n.iname}" of kernel "${s.kernel.name}"`;
      const lo = evalSizeExpr(n.lower, scope, what("lower"));
      const hi = evalSizeExpr(n.upper, scope, what("upper"));
      for (let v = lo; v <= hi; v++) walk(n.body, new Map([...host, [n.iname, v]]));
    }
  };
  walk(hostProgramOf(s), new Map());
}
