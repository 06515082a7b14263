/**
 * What lowering a schedule produces (`LoweredKernel`), what a target asks of it (`LowerOptions`),
 * and the narrow interface the parts of one device kernel's lowering (guards, loops,
 * instructions) are handed by its core.
 */
import { CodegenError } from "../../src/errors.js";
import { findTemporary, type AddressSpace, type Dtype, type Instruction, type Kernel, type Temporary } from "../../src/ir/index.js";
import type { BasicSet } from "../../src/poly/index.js";
import type { LoopContext } from "./context.js";
import type { ScheduleNode } from "../../src/schedule/index.js";
import type { Ex, Stmt } from "../ast.js";

/** What a target asks of the lowering beyond the AST itself. */
export interface LowerOptions {
  /** Hardware axes allowed (GPU targets); CPU targets get schedules without them. */
  readonly hwAxes: boolean;
  /** Pragmas for an `unr_hint` loop (`#pragma unroll`), if the target has them. */
  readonly unrollHint?: (max: number | undefined) => string;
  /** The pragma of a loop over a `vec` iname (`#pragma omp simd`); without one it is a plain loop. */
  readonly simdLoop?: string;
  /** Pragmas for the outermost loop over a group iname (OpenMP), given the private variables. */
  readonly parallelLoop?: (privates: readonly string[]) => string;
  /**
   * `ilp` inames as the target's element level (alpaka) instead of unrolled copies: a loop per
   * thread over its elements, one element axis per ilp iname (codegen/lower/elements.ts);
   * `count(axis)` is the target's element count along axis `axis` (0 the fastest), an int
   * expression, held in a constant declared before each element loop.
   */
  readonly ilpElements?: { readonly target: string; readonly count: (axis: number) => string };
  /** How `atomic` updates are written: natively, as `#pragma omp atomic`, or plainly (sequential). */
  readonly atomics: "native" | "omp" | "plain";
  /**
   * A run-time check of each axis index of a subscript against its extent (the js target's checked
   * mode): returns the index expression to use; `array` is the user's name, `insn` the instruction.
   */
  readonly checkAxis?: (index: Ex, extent: Ex, array: string, axis: number, insn: string) => Ex;
  /** In a device kernel with a barrier inside a loop, a loop whose bounds depend on the local ids runs over uniform bounds with the varying ones as a guard (OpenCL: PoCL, codegen/lower/uniform-loops.ts). */
  readonly uniformLocalLoops?: boolean;
}

export interface LoweredArg {
  readonly name: string;
  readonly kind: "array" | "value";
  readonly dtype: Dtype;
  readonly written: boolean;
}

/** One device kernel as AST: declarations, body and launch information. */
export interface LoweredKernel {
  readonly name: string;
  readonly args: readonly LoweredArg[];
  readonly decls: readonly Stmt[];
  readonly body: readonly Stmt[];
  /** Work-groups per axis and work-items per axis, as exact index expressions of the parameters. */
  readonly groupSize: readonly Ex[];
  /** Work-items per axis: constants, or index expressions of the parameters (sized at launch). */
  readonly localSize: readonly (number | Ex)[];
}

/**
 * Where the lowering gets the names it introduces: the kernel's `NameAllocator` (codegen/names.ts),
 * which the printer then uses too, so a name the lowering makes is one no user name or printer's
 * name collides with.
 */
export interface LoweringNames {
  /** Mark `names` as used (a block's own locals). */
  take(names: Iterable<string>): void;
  /** A new name from `base`, used by nothing else. */
  fresh(base: string): string;
}

/** What the guard, loop and instruction lowerings of one device kernel share. */
export interface KernelHost {
  readonly k: Kernel;
  readonly opts: LowerOptions;
  readonly names: LoweringNames;
  /** Inames written as code (`base + gid(0)`, an unrolled copy's value); loops add and remove theirs. */
  readonly subst: Map<string, Ex>;
  /** The instruction with id `id` (the first of that id). */
  insnOf(id: string): Instruction;
  /** The ids of the instructions scheduled under `nodes`, in schedule order. */
  insnsUnder(nodes: readonly ScheduleNode[]): readonly string[];
  /** The iteration domain over `inames` (remembered). */
  domainOf(inames: readonly string[]): BasicSet;
  /** The domain of `insn`: over its inames, with its affine predicates on CPU targets (predicates.ts). */
  insnDomain(insn: Instruction): BasicSet;
  /** The positions of `insn`'s predicates that `insnDomain` holds (not printed again). */
  absorbedPredicates(insn: Instruction): ReadonlySet<number>;
  /** Whether the device kernel has a barrier inside a loop (for `LowerOptions.uniformLocalLoops`). */
  readonly hasBarrierLoop?: boolean;
}

/** Lowers a list of schedule nodes within the loops `known` and the context `ctx`. */
export type NodesLowering = (nodes: readonly ScheduleNode[], known: readonly string[], ctx: LoopContext) => Stmt[];

/**
 * Where variable `name` lives in the generated code: arguments are global, temporaries where
 * preprocessing (`resolveAddressSpaces`) put them. Code generation never decides an address space.
 */
export function addressSpaceOf(k: Kernel, name: string): AddressSpace {
  const t = temporaryOf(k, name);
  if (!t) return "global";
  if (t.addressSpace === "auto") {
    throw new CodegenError(`kernel "${k.name}": temporary "${name}" reached code generation with address space "auto"; ` +
      `code is generated from preprocessed kernels (schedule() resolves address spaces), or give it one (setTemporaryAddressSpace)`);
  }
  return t.addressSpace;
}

/** Temporaries by name, per frozen `temporaries` list (the first of a name wins, as `findTemporary`'s search). */
const temporaryIndex = new WeakMap<readonly Temporary[], ReadonlyMap<string, Temporary>>();

/** `findTemporary(k, name)` in constant time: lowering asks it per expression, of kernels with thousands of temporaries. */
export function temporaryOf(k: Kernel, name: string): Temporary | undefined {
  const list = k.temporaries;
  if (!Object.isFrozen(list)) return findTemporary(k, name);
  let m = temporaryIndex.get(list);
  if (!m) {
    const built = new Map<string, Temporary>();
    for (const t of list) if (!built.has(t.name)) built.set(t.name, t);
    temporaryIndex.set(list, (m = built));
  }
  return m.get(name);
}
