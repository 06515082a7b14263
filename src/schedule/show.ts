/** loopy's LINEARIZATION listing of a schedule. */
import { exprToString, type Instruction } from "../ir/index.js";
import type { HostNode, Schedule, ScheduleNode } from "./types.js";

function insnLine(insn: Instruction): string {
  switch (insn.kind) {
    case "assign": return `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}  {id=${insn.id}}`;
    case "barrier": return `... ${insn.scope === "local" ? "lbarrier" : "gbarrier"}  {id=${insn.id}}`;
    case "block": return `... block  {id=${insn.id}}`;
    default: return `... nop  {id=${insn.id}}`;
  }
}

/**
 * The numbered listing loopy prints as LINEARIZATION:
 *
 *      0: CALL KERNEL k
 *      1:     for i
 *      2:         out[i] = 2*a[i]  {id=insn}
 *      3:     end i
 *      4: RETURN FROM KERNEL k
 */
export function showSchedule(s: Schedule): string {
  const byId = new Map(s.kernel.instructions.map((x) => [x.id, x]));
  const lines: string[] = [];
  const emit = (depth: number, text: string) => lines.push(`${String(lines.length).padStart(4)}: ${"    ".repeat(depth)}${text}`);
  const walk = (nodes: readonly ScheduleNode[], depth: number): void => {
    for (const n of nodes) {
      if (n.kind === "loop") {
        emit(depth, `for ${n.iname}`);
        walk(n.body, depth + 1);
        emit(depth, `end ${n.iname}`);
      } else if (n.kind === "barrier") emit(depth, `... lbarrier  /* ${n.comment} */`);
      else emit(depth, insnLine(byId.get(n.id)!));
    }
  };
  // The host program: host loops (around global barriers) and launches, a gbarrier between launches.
  let launched = false;
  const host = (nodes: readonly HostNode[], depth: number): void => {
    for (const n of nodes) {
      if (n.kind === "loop") {
        emit(depth, `for ${n.iname}`);
        host(n.body, depth + 1);
        emit(depth, `end ${n.iname}`);
        continue;
      }
      const dk = s.deviceKernels[n.kernel]!;
      if (launched) emit(depth, "... gbarrier");
      launched = true;
      emit(depth, `CALL KERNEL ${dk.name}`);
      walk(dk.body, depth + 1);
      emit(depth, `RETURN FROM KERNEL ${dk.name}`);
    }
  };
  host(s.hostProgram ?? s.deviceKernels.map((_, kernel) => ({ kind: "launch", kernel })), 0);
  return lines.join("\n");
}
