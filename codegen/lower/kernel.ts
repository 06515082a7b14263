/**
 * The core of lowering one device kernel: hardware inames bound to group and local ids, the
 * schedule tree walked (loops and instructions handed to their lowerings), temporaries declared,
 * arguments and launch sizes collected. The parts share this core through `KernelHost`.
 */
import { CodegenError } from "../../src/errors.js";
import {
  exprToString, findArg, INDEX_DTYPE, addFreeVariables, insnExprs, insnWrites, axisStrides, effectiveDimTags,
  type Instruction, type Kernel,
} from "../../src/ir/index.js";
import { aff, type Aff, type BasicSet } from "../../src/poly/index.js";
import { axisRows, type DeviceKernel, type HwAxis, type ScheduleNode } from "../../src/schedule/index.js";
import { evar, ibin, ilit, type Ex, type Stmt } from "../ast.js";
import { sizeEx } from "../expr.js";
import { LoopContext } from "./context.js";
import { instructionDomain } from "./domains.js";
import { GuardLowering } from "./guards.js";
import { addressSpaceOf, temporaryOf, type KernelHost, type LoweredArg, type LoweredKernel, type LowerOptions, type LoweringNames } from "./host.js";
import { LoopLowering } from "./loops.js";
import { hasBarrierLoop } from "./uniform-loops.js";
import { absorbPredicates } from "./predicates.js";
import type { Row } from "./rows.js";
import { InstructionLowering } from "./statements.js";

/** `a.localeCompare(b)` without building a collator per call (ICU makes that the slow part). */
const collator = new Intl.Collator().compare;

/**
 * `collator(a, b)`, remembered per pair: ICU's comparison costs microseconds, and the names it
 * orders (fetch temporaries, accumulators) repeat in every variant of a sweep. Bounded.
 */
function collate(a: string, b: string): number {
  if (a === b) return 0;
  const key = `${a}\u0000${b}`;
  let c = collated.get(key);
  if (c === undefined) {
    c = collator(a, b);
    if (collated.size < 4096) collated.set(key, c);
  }
  return c;
}

const collated = new Map<string, number>();

/** The lowering of one device kernel: its substitutions, declarations and memo tables. */
export class DeviceKernelLowering implements KernelHost {
  readonly subst = new Map<string, Ex>();
  private readonly decls: Stmt[] = [];
  private readonly domains = new Map<string, BasicSet>();
  private readonly domainsOf = new WeakMap<readonly string[], BasicSet>();
  private readonly insnById: ReadonlyMap<string, Instruction>;
  private readonly insnsMemo = new WeakMap<readonly ScheduleNode[], readonly string[]>();
  /** The variables and arrays the scheduled instructions use, for `usesName`. */
  private usedNames: ReadonlySet<string> | undefined;
  /** The names the assignments of this device kernel write (a part of `usedNames`, made first). */
  private assigned: ReadonlySet<string> | undefined;
  private readonly guards: GuardLowering;
  private readonly loops: LoopLowering;
  private readonly insns: InstructionLowering;

  readonly hasBarrierLoop: boolean;

  constructor(readonly k: Kernel, private readonly dk: DeviceKernel, readonly opts: LowerOptions, readonly names: LoweringNames) {
    this.hasBarrierLoop = hasBarrierLoop(dk.body);
    const byId = new Map<string, Instruction>();
    // The first instruction of an id wins, as a search from the front finds it.
    for (const i of k.instructions) if (!byId.has(i.id)) byId.set(i.id, i);
    this.insnById = byId;
    this.guards = new GuardLowering(this);
    const groupInames = groupLoopInames(dk.body);
    // Asked only where a target prints a parallel pragma (OpenMP), once: made then.
    let beforeGroups: ReadonlySet<string> | undefined;
    const privateNames = () => {
      beforeGroups ??= temporariesBeforeGroups(k, dk.body);
      return this.decls.flatMap((d) => (d.k === "decl" && !beforeGroups!.has(d.name) ? [d.name] : []));
    };
    this.loops = new LoopLowering(this, this.guards, (nodes, known, ctx) => this.nodes(nodes, known, ctx), privateNames, groupInames);
    this.insns = new InstructionLowering(this, this.guards);
  }

  lower(): LoweredKernel {
    const { k, dk } = this;
    if (!this.opts.hwAxes && (dk.groupAxes.length > 0 || dk.localAxes.length > 0)) {
      throw new CodegenError(`kernel "${k.name}": this target has no group/local hardware axes; inames ${[...dk.groupAxes, ...dk.localAxes].map((a) => a.iname).join(", ")} are tagged g/l`);
    }
    const known: string[] = [];
    const ranges: Row[] = [];
    // Every iname on a hardware axis is bound, not only the one the axis is named after: loopy's
    // prefetch puts `a_dim_1` on l.0 beside `j_inner`. The scheduler checks that the inames of one
    // axis share base and size; each instruction is guarded by its own iname's domain.
    for (const ax of [...dk.groupAxes, ...dk.localAxes]) {
      // The axis's rows once (its sharers have the same base and size): each sharer's are the
      // same rows over its own name.
      const rows = axisRows(ax, ax.iname);
      for (const iname of [ax.iname, ...this.axisSharers(ax)]) {
        // A base may be negative (`m // 3` for `m <= i`): its division floors.
        const base = sizeEx(ax.base, (n) => evar(n), true);
        this.subst.set(iname, ibin("+", base, { k: "hw", tag: ax.tag, axis: ax.axis }));
        known.push(iname);
        if (iname === ax.iname) ranges.push(...rows);
        else if (rows.some((r) => iname in r.aff.terms)) ranges.push(...axisRows(ax, iname));
        else for (const r of rows) ranges.push({ aff: renamed(r.aff, ax.iname, iname), eq: r.eq });
      }
    }
    // Inside a host loop, its iname is a value parameter of the device kernel (loopy's host loops).
    for (const h of dk.hostInames ?? []) {
      this.subst.set(h, evar(h));
      known.push(h);
    }
    // The hardware ranges as a level over the assumptions (issue 21): its set, the assumptions
    // extended in one step (new whenever a tile size is), is made only where an exact question
    // needs it; the cheap proofs read the assumptions' facts with the ranges' rows, and loop
    // contexts factor through the ranges' components (LoopContext.factorOf).
    const ctx = LoopContext.of(k.assumptions).with(known, ranges);
    for (const t of k.temporaries) this.declareTemporary(t.name);
    const body = this.guards.withHoistedGuards(dk.body, known, ctx, (c) => this.nodes(dk.body, known, c));
    const groupSize = [0, 1, 2].slice(0, Math.max(dk.groupAxes.length, 0)).map((_, n) => {
      const ax = dk.groupAxes.find((a) => a.axis === n);
      return ax ? sizeEx(ax.size, (p) => evar(p)) : ilit(1);
    });
    const nLocal = dk.localAxes.length === 0 ? 0 : Math.max(...dk.localAxes.map((a) => a.axis)) + 1;
    const localSize = Array.from({ length: nLocal }, (_, n) => {
      const ax = dk.localAxes.find((a) => a.axis === n);
      if (!ax) return 1;
      // A parametric work-group size (`n`, `max(n, 4)`) is evaluated at launch, as group counts are.
      return ax.size.kind === "const" ? ax.size.value : sizeEx(ax.size, (p) => evar(p));
    });
    const nGroup = dk.groupAxes.length === 0 ? 0 : Math.max(...dk.groupAxes.map((a) => a.axis)) + 1;
    const gsize = Array.from({ length: nGroup }, (_, n) => groupSize[n] ?? (() => {
      const ax = dk.groupAxes.find((a) => a.axis === n);
      return ax ? sizeEx(ax.size, (p) => evar(p)) : ilit(1);
    })());
    const written = new Set<string>();
    for (const i of k.instructions) for (const n of insnWrites(i)) written.add(n);
    const wanted = new Set([...dk.args, ...this.insns.usedParams]);
    const order = [...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name)];
    const args = order.filter((n) => wanted.has(n)).map((name): LoweredArg => {
      const a = findArg(k, name);
      const t = a ? undefined : temporaryOf(k, name);
      const dtype = a?.dtype ?? t?.dtype;
      if (!dtype) throw new CodegenError(`kernel "${k.name}": the dtype of "${name}" is unknown; add dtypes (lp.addDtypes) before generating code`);
      return { name, kind: a?.kind ?? "array", dtype, written: written.has(name) };
    }).concat((dk.hostInames ?? []).map((name): LoweredArg => ({ name, kind: "value", dtype: INDEX_DTYPE, written: false })));
    // Declarations by name, as loopy orders its temporaries.
    const decls = this.decls.length > 1 ? [...this.decls].sort((x, y) => collate(declName(x), declName(y))) : [...this.decls];
    return { name: dk.name, args, decls, body, groupSize: gsize, localSize };
  }

  /** The inames other than `ax.iname` that instructions of this device kernel run within on `ax`'s axis. */
  private axisSharers(ax: HwAxis): string[] {
    const all = (this.sharers ??= this.hwInamesUsed());
    const out: string[] = [];
    for (const i of all.get(`${ax.tag}.${ax.axis}`) ?? []) if (i !== ax.iname) out.push(i);
    return out.sort();
  }

  /** The g/l inames the instructions of this device kernel run within, by tag and axis (`l.0`): one walk for every axis. */
  private sharers: Map<string, Set<string>> | undefined;

  private hwInamesUsed(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    const seen = new Set<readonly string[]>();
    for (const id of this.insnsUnder(this.dk.body)) {
      const within = this.insnOf(id).withinInames;
      // Instructions of one loop nest share their iname list: each list is read once.
      if (seen.has(within)) continue;
      seen.add(within);
      for (const i of within) {
        const t = this.k.inameTags[i];
        if (!t || (t.kind !== "g" && t.kind !== "l")) continue;
        const key = `${t.kind}.${t.axis}`;
        let set = out.get(key);
        if (!set) out.set(key, (set = new Set()));
        set.add(i);
      }
    }
    return out;
  }

  // ---- the schedule tree -------------------------------------------------------------------

  private nodes(nodes: readonly ScheduleNode[], known: readonly string[], ctx: LoopContext): Stmt[] {
    // Between barriers, each run of nodes gets its own hoisted guard (loopy's `if (e < n) for (j …)`
    // after the fetch and its barrier), not only the whole body.
    if (nodes.length > 1 && nodes.some((n) => n.kind === "barrier")) {
      const out: Stmt[] = [];
      let run: ScheduleNode[] = [];
      const flush = () => {
        const r = run;
        if (r.length > 0) out.push(...this.guards.withHoistedGuards(r, known, ctx, (c) => this.nodeList(r, known, c)));
        run = [];
      };
      for (const n of nodes) {
        if (n.kind === "barrier") {
          flush();
          out.push(...this.nodeList([n], known, ctx));
        } else run.push(n);
      }
      flush();
      return out;
    }
    return this.nodeList(nodes, known, ctx);
  }

  private nodeList(nodes: readonly ScheduleNode[], known: readonly string[], ctx: LoopContext): Stmt[] {
    const out: Stmt[] = [];
    for (const n of nodes) {
      switch (n.kind) {
        // A barrier whose memory nothing recorded (a schedule made by hand) orders both.
        case "barrier": out.push({ k: "barrier", comment: n.comment, memory: n.memory ?? "local+global" }); break;
        case "insn": for (const s of this.insns.insn(n.id, known, ctx)) out.push(s); break;
        case "loop": for (const s of this.loops.loop(n.iname, n.body, known, ctx)) out.push(s); break;
      }
    }
    return out;
  }

  insnOf(id: string): Instruction {
    const insn = this.insnById.get(id);
    if (!insn) throw new CodegenError(`kernel "${this.k.name}": the schedule names instruction "${id}", which the kernel does not have`);
    return insn;
  }

  insnsUnder(nodes: readonly ScheduleNode[]): readonly string[] {
    let ids = this.insnsMemo.get(nodes);
    if (!ids) {
      const out: string[] = [];
      for (const n of nodes) {
        if (n.kind === "insn") out.push(n.id);
        else if (n.kind === "loop") for (const id of this.insnsUnder(n.body)) out.push(id);
      }
      this.insnsMemo.set(nodes, (ids = out));
    }
    return ids;
  }

  insnDomain(insn: Instruction): BasicSet {
    return this.predicated(insn).d;
  }

  absorbedPredicates(insn: Instruction): ReadonlySet<number> {
    return this.predicated(insn).absorbed;
  }

  private readonly predicatedMemo = new Map<Instruction, { d: BasicSet; absorbed: ReadonlySet<number> }>();

  /** Loops are where predicates can become bounds: on targets without hardware axes. */
  private predicated(insn: Instruction): { d: BasicSet; absorbed: ReadonlySet<number> } {
    let r = this.predicatedMemo.get(insn);
    if (!r) {
      const d = this.domainOf(insn.withinInames);
      r = !this.opts.hwAxes && insn.predicates.length > 0 ? absorbPredicates(d, insn) : { d, absorbed: new Set<number>() };
      this.predicatedMemo.set(insn, r);
    }
    return r;
  }

  domainOf(inames: readonly string[]): BasicSet {
    // The kernel's iname lists are frozen: remembered by identity, then by content.
    let s = Object.isFrozen(inames) ? this.domainsOf.get(inames) : undefined;
    if (s) return s;
    const key = [...inames].sort().join(",");
    s = this.domains.get(key);
    if (!s) this.domains.set(key, (s = instructionDomain(this.k, inames)));
    if (Object.isFrozen(inames)) this.domainsOf.set(inames, s);
    return s;
  }

  // ---- temporaries -------------------------------------------------------------------------

  private declareTemporary(name: string): void {
    const t = temporaryOf(this.k, name)!;
    const space = addressSpaceOf(this.k, name);
    if (space === "global") return;
    if (!t.dtype) throw new CodegenError(`kernel "${this.k.name}": the dtype of temporary "${name}" is unknown; declare it (<float32> ${name} = …)`);
    const used = this.dk.body.length > 0 && this.usesName(name);
    if (!used) return;
    let size: number | undefined;
    if (t.shape.length > 0) {
      size = 1;
      for (const e of t.shape) {
        if (e.kind !== "const") throw new CodegenError(`temporary "${name}": its shape ${t.shape.map(exprToString).join(", ")} must be constant for code generation`);
        size *= e.value;
      }
      // Strides may skip (explicit stride tags): size from the layout's last element.
      const strides = axisStrides(t.shape, effectiveDimTags(t));
      if (strides.every((s) => s?.kind === "const")) {
        size = 1 + t.shape.reduce((acc, e, a) => acc + ((e as { value: number }).value - 1) * Math.abs((strides[a] as { value: number }).value), 0);
      }
    }
    this.decls.push({ k: "decl", dtype: t.dtype, name, size, space });
  }

  private usesName(name: string): boolean {
    // A name an assignment here writes is one it uses (its left-hand side is among its
    // expressions): most temporaries are known so, without walking every expression.
    if (!this.assigned) {
      const ids = new Set(this.insnsUnder(this.dk.body));
      const assigned = new Set<string>();
      for (const i of this.k.instructions) if (i.kind === "assign" && ids.has(i.id)) for (const n of insnWrites(i)) assigned.add(n);
      this.assigned = assigned;
    }
    if (this.assigned.has(name)) return true;
    if (!this.usedNames) {
      const ids = new Set(this.insnsUnder(this.dk.body));
      const used = new Set<string>();
      for (const i of this.k.instructions) if (ids.has(i.id)) for (const e of insnExprs(i)) addFreeVariables(e, used);
      this.usedNames = used;
    }
    return this.usedNames.has(name);
  }
}

/** The inames of the loops the CPU lowering made of group axes (`hw: "group"`; OpenMP runs them in parallel). */
function groupLoopInames(nodes: readonly ScheduleNode[], out = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if (n.kind !== "loop") continue;
    if (n.hw === "group") out.add(n.iname);
    groupLoopInames(n.body, out);
  }
  return out;
}

/**
 * The temporaries written only outside the group loops (the CPU lowering's size of a shared group
 * axis): read-only inside them, so shared, not private (OpenMP's private copy is uninitialized).
 * "Outside" is where the schedule puts the writer, not its inames: a packing store that ignores
 * the group axis (b_fetch within j_outer, k_outer) still runs inside the group loop.
 */
function temporariesBeforeGroups(k: Kernel, body: readonly ScheduleNode[]): ReadonlySet<string> {
  // Writers by name, one walk of the instructions (not one per temporary).
  const writersOf = new Map<string, Instruction[]>();
  for (const i of k.instructions) {
    // (An assignment writes one name: a set only where a block may name one twice.)
    const names = insnWrites(i);
    for (const name of names.length > 1 ? new Set(names) : names) {
      const list = writersOf.get(name);
      if (list) list.push(i);
      else writersOf.set(name, [i]);
    }
  }
  const underGroups = insnsUnderGroupLoops(body);
  return new Set(k.temporaries.map((t) => t.name).filter((name) => {
    const writers = writersOf.get(name) ?? [];
    return writers.length > 0 && writers.every((i) => !underGroups.has(i.id));
  }));
}

/** Ids of the instructions inside a loop the CPU lowering made of a group axis. */
function insnsUnderGroupLoops(nodes: readonly ScheduleNode[], under = false, out = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if (n.kind === "insn") {
      if (under) out.add(n.id);
    } else if (n.kind === "loop") insnsUnderGroupLoops(n.body, under || n.hw === "group", out);
  }
  return out;
}

/** `a` over `to` instead of `from` (`to` not among its names), its terms in the same order. */
function renamed(a: Aff, from: string, to: string): Aff {
  const t: Record<string, number> = {};
  for (const n in a.terms) t[n === from ? to : n] = a.terms[n]!;
  return aff(t, a.constant);
}

function declName(s: Stmt): string {
  return s.k === "decl" ? s.name : "";
}
