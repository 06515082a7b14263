/** Random inputs for imported OKL kernels: array lengths from their shapes at given parameters. */
import { allocArray, type Dtype, type Expr, type Kernel, type TypedArray } from "../../src/ir/index.js";

function evalShape(e: Expr, env: Readonly<Record<string, number>>): number {
  switch (e.kind) {
    case "const": return e.value;
    case "var": {
      const v = env[e.name];
      if (v === undefined) throw new Error(`no value for parameter ${e.name}`);
      return v;
    }
    case "neg": return -evalShape(e.operand, env);
    case "arith": {
      const a = evalShape(e.left, env);
      const b = evalShape(e.right, env);
      switch (e.op) {
        case "+": return a + b;
        case "-": return a - b;
        case "*": return a * b;
        case "//": return Math.floor(a / b);
        case "/": return Math.trunc(a / b);
        case "%": return a - b * Math.floor(a / b);
        default: break;
      }
    }
  }
  throw new Error(`cannot evaluate shape expression ${e.kind}`);
}

/** The flat length of every array argument (at least 1). */
export function argLengths(k: Kernel, params: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of k.args) {
    if (a.kind !== "array") continue;
    out[a.name] = Math.max(1, (a.shape ?? []).reduce((p, e) => p * evalShape(e, params), 1));
  }
  return out;
}

/** A deterministic random array (values in [-1, 1) for floats, [0, 10) for integers). */
export function randomArray(d: Dtype, n: number, seed: number): TypedArray {
  const a = allocArray(d, n);
  let s = seed * 2654435761 % 4294967296 || 1;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const u = s / 2147483648;
    (a as unknown as number[])[i] = d.startsWith("float") ? 2 * u - 1 : Math.floor(10 * u);
  }
  return a;
}
