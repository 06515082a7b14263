/**
 * `vec` inames: the scheduler runs them as innermost loops whose lanes get their own copies of
 * private temporaries (as `ilp`); code generation runs the loop as SIMD (`#pragma omp simd` on C
 * and OpenMP; a plain loop where the target has no such pragma: OpenCL vectorizes across
 * work-items, js and the interpreter run it in order). SIMD lanes run at once, so each lane must
 * touch only its own cells of what the loop writes; a loop whose lanes would depend on each other
 * is refused here with a CodegenError saying which access stands in the way.
 */
import { CodegenError } from "../../src/errors.js";
import { assigneeName, exprToAff, exprToString, freeVariables, insnExprs, walkExpr, type Expr, type Instruction, type Kernel } from "../../src/ir/index.js";
import { affSub } from "../../src/poly/index.js";

/** The `subscript`/`linear`/`var` accesses of `name` in `e`, as their indices (none for a scalar). */
function accessesOf(e: Expr, name: string, out: (readonly Expr[])[]): void {
  walkExpr(e, (n) => {
    if (n.kind === "var" && n.name === name) out.push([]);
    else if (n.kind === "subscript" && n.array === name) out.push(n.indices);
    else if (n.kind === "linear" && n.array === name) out.push([n.index]);
  });
}

const shown = (idx: readonly Expr[]) => idx.map(exprToString).join(", ");

/**
 * Whether indices `x` and `y` name the same cell for every value of the inames: equal affine
 * forms once inames of a single value (`pointOf`) are replaced by it, else equal text.
 */
function sameCell(x: readonly Expr[], y: readonly Expr[], pointOf: (iname: string) => number | undefined): boolean {
  if (x.length !== y.length) return false;
  return x.every((e, a) => {
    const ax = exprToAff(e);
    const ay = exprToAff(y[a]!);
    if (!ax || !ay) return exprToString(e) === exprToString(y[a]!);
    const d = affSub(ax, ay);
    let c = d.constant;
    for (const [n, coeff] of Object.entries(d.terms)) {
      if (coeff === 0) continue;
      const p = pointOf(n);
      if (p === undefined) return false;
      c += coeff * p;
    }
    return c === 0;
  });
}

function indexOf(lhs: Expr): readonly Expr[] {
  return lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
}

/**
 * Throw a CodegenError unless the loop over vec iname `iname` around `insns` can run its lanes at
 * once (a loop of one value has one lane): plain (non-atomic) assignments only, each writing a cell indexed by `iname`, and every
 * access to what the loop writes at the very index of its write (no lane reads another's cell).
 */
export function checkVecLanes(k: Kernel, iname: string, insns: readonly Instruction[], pointOf: (iname: string) => number | undefined): void {
  // One value (a split by 1): one lane, nothing runs at once.
  if (pointOf(iname) !== undefined) return;
  const why = (insn: Instruction, what: string) =>
    new CodegenError(`kernel "${k.name}", instruction "${insn.id}": iname "${iname}" is tagged vec, but ${what}, so its lanes cannot run at once; tag it ilp.seq or for instead`);
  const written = new Map<string, readonly Expr[]>();
  for (const insn of insns) {
    if (insn.kind === "nop") continue;
    if (insn.kind !== "assign") throw why(insn, `the instruction is a ${insn.kind}, which a SIMD loop cannot hold`);
    if (insn.atomicity !== "none") throw why(insn, "its update is atomic");
    const name = assigneeName(insn.lhs);
    const used = new Set<string>();
    for (const e of indexOf(insn.lhs)) freeVariables(e, used);
    if (!used.has(iname)) throw why(insn, `every lane writes the same ${name}${insn.lhs.kind === "var" ? "" : `[${indexOf(insn.lhs).map(exprToString).join(", ")}]`}`);
    const at = indexOf(insn.lhs);
    const before = written.get(name);
    if (before !== undefined && !sameCell(before, at, pointOf)) throw why(insn, `${name} is written at [${shown(before)}] and at [${shown(at)}]`);
    written.set(name, at);
  }
  for (const insn of insns) {
    for (const e of insnExprs(insn)) {
      for (const [name, at] of written) {
        const seen: (readonly Expr[])[] = [];
        accessesOf(e, name, seen);
        const other = seen.find((s) => !sameCell(s, at, pointOf));
        if (other !== undefined) throw why(insn, `it accesses ${name}[${shown(other)}], which another lane writes (at [${shown(at)}])`);
      }
    }
  }
}
