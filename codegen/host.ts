/**
 * The host program as code (loopy's `host_code()`): the launch sequence of the device kernels,
 * with the host loops around global barriers and each launch's sizes, in C for the C-like targets
 * and JavaScript for js. A readable listing for people: the runtimes (src/run) walk the schedule's
 * host program themselves.
 *
 *   for (int k = 0; k <= 2; ++k)
 *   {
 *     knl<<<dim3((n + 127) / 128), dim3(128)>>>(a, c, n, k);
 *     knl_0<<<dim3((n + 127) / 128), dim3(128)>>>(c, out, n, k);
 *   }
 */
import { CodegenError } from "../src/errors.js";
import { exprToString, type Expr, type TargetName } from "../src/ir/index.js";
import { hostProgramOf, type HostNode, type Schedule } from "../src/schedule/index.js";
import type { NameAllocator } from "./names.js";
import type { GeneratedCode, GeneratedKernelInfo } from "./types.js";

type Lang = "c" | "js";

/** How one launch is written on each target. */
function launchLine(target: TargetName, info: GeneratedKernelInfo): string {
  const args = info.args.join(", ");
  const sizes = `${info.globalSize.join(" × ") || "1"} groups of ${info.localSize.join(" × ") || "1"} work-items`;
  switch (target) {
    case "js": return `${info.name}(H${info.args.map((a) => `, ${a}`).join("")});`;
    // HIP keeps CUDA's triple-chevron launch (hipcc accepts it as hipLaunchKernelGGL).
    case "cuda": case "hip": return `${info.name}<<<dim3(${info.globalSize.join(", ") || "1"}), dim3(${info.localSize.join(", ") || "1"})>>>(${args});`;
    case "opencl": return `${info.name}(${args});  /* enqueued: ${sizes} */`;
    case "c": case "openmp": return `${info.name}(${args});`;
    default: return `${info.name}(${args});  /* ${sizes} */`;
  }
}

/** A host loop bound (integers, value arguments, enclosing host inames, `+ - *`, `//`, min, max) in `lang`. */
function boundCode(e: Expr, lang: Lang, helpers: Set<string>, print: (name: string) => string): string {
  // The outermost `+ - *` of a bound or an argument needs no parentheses.
  const top = (n: Expr): string => {
    const text = go(n);
    return n.kind === "arith" && n.op !== "//" ? text.slice(1, -1) : text;
  };
  const go = (n: Expr): string => {
    switch (n.kind) {
      case "const": return String(n.value);
      case "var": return print(n.name);
      case "neg": return `-(${go(n.operand)})`;
      case "arith":
        if (n.op === "+" || n.op === "-" || n.op === "*") return `(${go(n.left)} ${n.op} ${go(n.right)})`;
        if (n.op === "//") {
          if (lang === "js") return `Math.floor(${go(n.left)} / ${go(n.right)})`;
          helpers.add("#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))");
          return `floord(${top(n.left)}, ${top(n.right)})`;
        }
        break;
      case "call":
        if ((n.fn === "min" || n.fn === "max") && n.args.length > 0) {
          if (lang === "js") return `Math.${n.fn}(${n.args.map(top).join(", ")})`;
          helpers.add(`#define ${n.fn}(a, b) ((a) ${n.fn === "min" ? "<" : ">"} (b) ? (a) : (b))`);
          return n.args.map(top).reduce((acc, a) => `${n.fn}(${acc}, ${a})`);
        }
        break;
      default: break;
    }
    throw new CodegenError(`host code: cannot print the host loop bound ${exprToString(e)}; bounds are affine in the value arguments`);
  };
  return top(e);
}

/**
 * The host code of `code`, generated from the schedule `s` on `target`: each launch in order,
 * inside its host loops.
 */
export function hostCodeOf(s: Schedule, code: GeneratedCode, target: TargetName, print: (name: string) => string = (n) => n): string {
  const lang: Lang = target === "js" ? "js" : "c";
  const words = (text: string) => text.replace(/\b[A-Za-z_]\w*\b/g, print);
  const helpers = new Set<string>();
  const lines: string[] = [];
  const walk = (nodes: readonly HostNode[], ind: string): void => {
    for (const n of nodes) {
      if (n.kind === "launch") {
        const info = code.kernels[n.kernel];
        if (!info) throw new CodegenError(`host code: the host program launches device kernel ${n.kernel}, but ${code.kernels.length} were generated`);
        const printed = { ...info, args: info.args.map(print), globalSize: info.globalSize.map(words), localSize: info.localSize.map(words) };
        lines.push(`${ind}${launchLine(target, withTrapBuffer(code, printed, n.kernel))}`);
        continue;
      }
      const lo = boundCode(n.lower, lang, helpers, print);
      const hi = boundCode(n.upper, lang, helpers, print);
      const v = print(n.iname);
      lines.push(lang === "js" ? `${ind}for (let ${v} = ${lo}; ${v} <= ${hi}; ${v}++) {` : `${ind}for (int ${v} = ${lo}; ${v} <= ${hi}; ++${v})`);
      if (lang === "c") lines.push(`${ind}{`);
      walk(n.body, ind + "  ");
      lines.push(`${ind}}`);
    }
  };
  walk(hostProgramOf(s), "");
  const comment = lang === "js" ? "// host program: the device kernels, launched in order" : "/* host program: the device kernels, launched in order */";
  return [comment, ...[...helpers].sort(), ...lines, ""].join("\n");
}

/**
 * The launch information of kernel `n` of `code` with the trap buffer last in its arguments, where
 * it takes one (codegen/targets/int-traps.ts: a device kernel whose integer arithmetic may trap).
 */
export function withTrapBuffer(code: GeneratedCode, info: GeneratedKernelInfo, n: number): GeneratedKernelInfo {
  const traps = code.intTraps;
  return traps?.mode === "buffer" && traps.kernels[n] && traps.param ? { ...info, args: [...info.args, traps.param] } : info;
}

/**
 * `code` with its `hostCode`; with the allocator the kernels were printed with, the user's names
 * (arguments, host inames) print as the device code prints them (`main` → `main_0` on C).
 */
export function withHostCode(code: GeneratedCode, s: Schedule, target: TargetName, names?: NameAllocator): GeneratedCode {
  if (names === undefined) return { ...code, hostCode: hostCodeOf(s, code, target) };
  const user = new Set([...s.kernel.args.map((a) => a.name), ...s.deviceKernels.flatMap((dk) => dk.hostInames ?? [])]);
  return { ...code, hostCode: hostCodeOf(s, code, target, (w) => (user.has(w) ? names.user(w) : w)) };
}
