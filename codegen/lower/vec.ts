/**
 * `vec` inames: the scheduler runs them as innermost loops whose lanes get their own copies of
 * private temporaries (as `ilp`); code generation runs the loop as SIMD (`#pragma omp simd` on C
 * and OpenMP; a plain loop where the target has no such pragma: OpenCL vectorizes across
 * work-items, js and the interpreter run it in order). SIMD lanes run at once, so each lane must
 * touch only its own cells of what the loop writes; a loop whose lanes would depend on each other
 * is refused here with a CodegenError saying which access stands in the way.
 */
import { CodegenError } from "../../src/errors.js";
import { assigneeName, exprToString, freeVariables, insnExprs, walkExpr, type Expr, type Instruction, type Kernel } from "../../src/ir/index.js";

/** The `subscript`/`linear`/`var` accesses of `name` in `e`, as their index text ("" for a scalar). */
function accessesOf(e: Expr, name: string, out: string[]): void {
  walkExpr(e, (n) => {
    if (n.kind === "var" && n.name === name) out.push("");
    else if (n.kind === "subscript" && n.array === name) out.push(n.indices.map(exprToString).join(", "));
    else if (n.kind === "linear" && n.array === name) out.push(exprToString(n.index));
  });
}

function indexOf(lhs: Expr): readonly Expr[] {
  return lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
}

/**
 * Throw a CodegenError unless the loop over vec iname `iname` around `insns` can run its lanes at
 * once: plain (non-atomic) assignments only, each writing a cell indexed by `iname`, and every
 * access to what the loop writes at the very index of its write (no lane reads another's cell).
 */
export function checkVecLanes(k: Kernel, iname: string, insns: readonly Instruction[]): void {
  const why = (insn: Instruction, what: string) =>
    new CodegenError(`kernel "${k.name}", instruction "${insn.id}": iname "${iname}" is tagged vec, but ${what}, so its lanes cannot run at once; tag it ilp.seq or for instead`);
  const written = new Map<string, string>();
  for (const insn of insns) {
    if (insn.kind === "nop") continue;
    if (insn.kind !== "assign") throw why(insn, `the instruction is a ${insn.kind}, which a SIMD loop cannot hold`);
    if (insn.atomicity !== "none") throw why(insn, "its update is atomic");
    const name = assigneeName(insn.lhs);
    const used = new Set<string>();
    for (const e of indexOf(insn.lhs)) freeVariables(e, used);
    if (!used.has(iname)) throw why(insn, `every lane writes the same ${name}${insn.lhs.kind === "var" ? "" : `[${indexOf(insn.lhs).map(exprToString).join(", ")}]`}`);
    const at = indexOf(insn.lhs).map(exprToString).join(", ");
    const before = written.get(name);
    if (before !== undefined && before !== at) throw why(insn, `${name} is written at [${before}] and at [${at}]`);
    written.set(name, at);
  }
  for (const insn of insns) {
    for (const e of insnExprs(insn)) {
      for (const [name, at] of written) {
        const seen: string[] = [];
        accessesOf(e, name, seen);
        const other = seen.find((s) => s !== at);
        if (other !== undefined) throw why(insn, `it accesses ${name}[${other}], which another lane writes (at [${at}])`);
      }
    }
  }
}
