/**
 * What the loop nest depends on (linearize.ts): the kernel's structure, its names, tags and
 * dependencies, not its domains' constraints. The variants of a tile-size sweep share one. Two
 * ways to ask: `structureKey` prints it (a key for a memo of many structures), and `Structure`
 * holds it as the kernel's own arrays, so that the next kernel of a sweep is compared field by
 * field with the last one (no key string built, flattened and hashed per variant: issue 21).
 */
import { assigneeName, insnWrites, type Instruction, type Kernel } from "../ir/index.js";
import { inamesIn } from "./insn-inames.js";

/** How linearization treats an iname: a hardware axis (no loop), an ilp/vec lane (innermost), or a loop. */
function inameClass(k: Kernel, iname: string): number {
  const t = k.inameTags[iname]?.kind;
  if (t === "g" || t === "l" || t === "l.auto") return 1;
  if (t === "ilp" || t === "ilp.seq" || t === "vec") return 2;
  return 0;
}

const CLASS_CHAR = ["-", "h", "v"];

/** The names `insn` writes: one for an assignment (no array built), else `insnWrites`. */
function writesOf(insn: Instruction): readonly string[] {
  return insn.kind === "assign" ? [assigneeName(insn.lhs)] : insnWrites(insn);
}

/**
 * Everything the loop nest reads of `k`, as a string (each name length-prefixed, so no name can
 * forge a separator): the domains' parameters and dims (not their constraints), loop priorities,
 * whether each iname is a hardware or an ilp one, and per instruction its id, priority, loops,
 * reduction loops, dependencies, the names it writes and its inames. Equal keys, equal nests; the
 * kernel's name appears only in errors, which are not remembered.
 */
export function structureKey(k: Kernel): string {
  let s = "";
  const list = (xs: readonly string[]): void => {
    s += `${xs.length}(`;
    for (const x of xs) s += `${x.length}:${x}`;
  };
  for (const d of k.domains) {
    list(d.params);
    list(d.dims);
  }
  s += `|${k.loopPriority.length}`;
  for (const p of k.loopPriority) list(p);
  s += "|";
  for (const d of k.domains) for (const i of d.dims) s += CLASS_CHAR[inameClass(k, i)];
  for (const insn of k.instructions) {
    s += `|${insn.id.length}:${insn.id}${insn.priority};`;
    list(insn.withinInames);
    list(insn.innerInames ?? []);
    list(insn.dependsOn);
    list(writesOf(insn));
    list(inamesIn(k.instructions, insn));
  }
  return s;
}

const NONE: readonly string[] = [];

/** One instruction's part of a `Structure`. */
interface InsnShape {
  readonly id: string;
  readonly priority: number;
  readonly within: readonly string[];
  readonly inner: readonly string[];
  readonly deps: readonly string[];
  readonly writes: readonly string[];
  readonly inames: readonly string[];
}

/** What `structureKey` prints, held as the kernel's own (frozen) arrays. */
export interface Structure {
  /** Per domain, its parameters then its dims. */
  readonly domains: readonly (readonly string[])[];
  readonly loopPriority: readonly (readonly string[])[];
  /** Per iname in domain order, its `inameClass`. */
  readonly classes: readonly number[];
  readonly insns: readonly InsnShape[];
}

/** The structure of `k` (see `structureKey`). */
export function structureOf(k: Kernel): Structure {
  const domains: (readonly string[])[] = [];
  const classes: number[] = [];
  for (const d of k.domains) {
    domains.push(d.params, d.dims);
    for (const i of d.dims) classes.push(inameClass(k, i));
  }
  const insns: InsnShape[] = [];
  for (const insn of k.instructions) {
    insns.push({
      id: insn.id, priority: insn.priority, within: insn.withinInames, inner: insn.innerInames ?? NONE,
      deps: insn.dependsOn, writes: writesOf(insn), inames: inamesIn(k.instructions, insn),
    });
  }
  return { domains, loopPriority: k.loopPriority, classes, insns };
}

function same(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let x = 0; x < a.length; x++) if (a[x] !== b[x]) return false;
  return true;
}

/** Whether `k` has structure `s`: exactly when `structureKey(k)` is the key of the kernel `s` was taken of. */
export function hasStructure(k: Kernel, s: Structure): boolean {
  const ds = k.domains;
  if (ds.length * 2 !== s.domains.length) return false;
  let c = 0;
  for (let d = 0; d < ds.length; d++) {
    const dom = ds[d]!;
    if (!same(dom.params, s.domains[2 * d]!) || !same(dom.dims, s.domains[2 * d + 1]!)) return false;
    // Indexed loops over the kernel's (frozen) arrays: a for-of over a frozen array takes V8's
    // generic iterator, an object per element (here and in the passes that follow, per variant).
    const dims = dom.dims;
    for (let x = 0; x < dims.length; x++) if (inameClass(k, dims[x]!) !== s.classes[c++]) return false;
  }
  const lp = k.loopPriority;
  if (lp.length !== s.loopPriority.length) return false;
  for (let x = 0; x < lp.length; x++) if (!same(lp[x]!, s.loopPriority[x]!)) return false;
  const insns = k.instructions;
  if (insns.length !== s.insns.length) return false;
  for (let x = 0; x < insns.length; x++) {
    const insn = insns[x]!;
    const t = s.insns[x]!;
    if (insn.id !== t.id || insn.priority !== t.priority || !same(insn.withinInames, t.within) || !same(insn.innerInames ?? NONE, t.inner) ||
      !same(insn.dependsOn, t.deps)) return false;
    if (insn.kind === "assign" ? t.writes.length !== 1 || assigneeName(insn.lhs) !== t.writes[0] : !same(insnWrites(insn), t.writes)) return false;
    if (!same(inamesIn(insns, insn), t.inames)) return false;
  }
  return true;
}
