/**
 * The kernel record of a lowered `@kernel`: argument shapes from their footprints (with a struct's
 * scalars as an innermost axis), flat linear subscripts for arguments without one, and C's check
 * of the operand types of bitwise operators.
 *
 *   assembleKernel({ name: "addVectors", domains, insns, args, … }, fail)   // frozen Kernel
 */
import {
  c, checkOperandTypes, insnExprs, kernelRecord, mapExpr, WRITE_RACE_OK,
  type Expr, type InameTag, type Instruction, type Kernel, type KernelArg, type SubstitutionRule, type Temporary, mapInsnExprs,
} from "../../ir/index.js";
import type { BasicSet } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import type { Fail } from "./bindings.js";
import { needsTypeCheck, someNode } from "./expr-scan.js";
import { footprintShape, type FlatAccess } from "./shapes.js";

/** What lowering a `@kernel` collected. */
export interface KernelParts {
  readonly name: string;
  readonly pos: A.Pos;
  readonly domains: BasicSet[];
  readonly insns: Instruction[];
  /** The arguments, array shapes not yet known. */
  readonly args: readonly KernelArg[];
  readonly temps: Temporary[];
  readonly rules: readonly SubstitutionRule[];
  readonly tags: Readonly<Record<string, InameTag>>;
  readonly accesses: ReadonlyMap<string, FlatAccess[]>;
  readonly read: ReadonlySet<string>;
  readonly written: ReadonlySet<string>;
  /** Pointer arguments to structs: their number of scalars per struct. */
  readonly structArgs: ReadonlyMap<string, number>;
  /**
   * The ids of the instructions with a bitwise operator or a call (`needsTypeCheck`), when the
   * instruction log has seen them (InstructionLog.typeChecked); undefined: every instruction is walked.
   */
  readonly typeChecked?: ReadonlySet<string>;
}

/** The kernel of `p`; fails (at the function) where C rejects a bitwise operator's operand type. */
export function assembleKernel(p: KernelParts, fail: Fail): Kernel {
  const tempNames = new Set(p.temps.map((t) => t.name));
  const notParams = new Set([...p.domains.flatMap((d) => [...d.dims]), ...tempNames]);
  const shell = kernelRecord({ name: p.name, domains: p.domains, instructions: [], args: [] });
  const unsized = new Set<string>();
  const args = p.args.map((a): KernelArg => {
    if (a.kind !== "array") return a;
    const footprint = footprintShape(shell, p.accesses.get(a.name) ?? [], notParams);
    if (footprint === undefined) unsized.add(a.name);
    const fields = p.structArgs.get(a.name);
    const shape = footprint && fields !== undefined ? [...footprint, c(fields)] : footprint;
    return { ...a, shape, isInput: p.read.has(a.name) || !p.written.has(a.name), isOutput: p.written.has(a.name) };
  });
  // An argument without a shape is a flat buffer of unknown length: its elements are linear subscripts a[[i]].
  // A struct's scalar k of element i is element i * size + k (C's layout).
  const linear = (n: Extract<Expr, { kind: "subscript" }>): Expr => {
    const size = p.structArgs.get(n.array);
    return size === undefined ? flat(n.indices[0]!) : { kind: "arith", op: "+", left: { kind: "arith", op: "*", left: flat(n.indices[0]!), right: c(size) }, right: flat(n.indices[1]!) };
  };
  const flat = (e: Expr): Expr => mapExpr(e, (n) => (n.kind === "subscript" && unsized.has(n.array) ? { kind: "linear", array: n.array, index: linear(n) } : undefined));
  // OCCA checks no write races: the imported instructions keep the author's meaning, racy or not
  // (instructions that transformations add later are checked).
  const tagged = p.insns.map((i): Instruction => (i.tags.includes(WRITE_RACE_OK) ? i : { ...i, tags: [...i.tags, WRITE_RACE_OK] }));
  const insns = unsized.size === 0 ? tagged : tagged.map((i): Instruction => mapInsnExprs(i, flat));
  const k = kernelRecord({
    name: p.name, domains: p.domains, instructions: insns, args, temporaries: p.temps,
    substitutions: p.rules.slice(), inameTags: { ...p.tags }, deviceKernelNames: "occa",
  });
  // C rejects bitwise operators on floating-point operands: checked on the instructions that have
  // one, or a call (a rule's body is typed where it is called), in kernel order.
  const typeChecked = p.typeChecked;
  const typed = k.instructions.filter((i) => (typeChecked ? typeChecked.has(i.id) : insnExprs(i).some((e) => someNode(e, needsTypeCheck))));
  const bad = typed.length === 0 ? undefined : checkOperandTypes(typed.length === insns.length ? k : { ...k, instructions: typed });
  if (bad) fail(`${bad.message.replace(/cast\(int32, …\)/, "(int)")}`, p.pos);
  return k;
}

