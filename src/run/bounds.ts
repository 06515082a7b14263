/**
 * The native backends' safety net: before generated C, OpenCL or CUDA runs, prove that every
 * array access of the kernel stays inside its array for the parameter values of this run. The
 * proof is exact on integer sets: for each subscript axis, the points of the instruction's domain
 * (cut by its affine predicates) where the index is < 0 or >= the extent must be empty.
 *
 * A subscript that is not affine in the inames and parameters (`a[idx[i]]`) is proved with what
 * this run's index arrays hold (bounds-data.ts: `idx` read-only, its values between its least and
 * largest element); what that cannot prove is refused unless the caller turns the check off.
 */
import { ExecutionError, LoomError } from "../errors.js";
import {
  allInames, exprToString, guardedSubscripts, insnWrites, iterationDomain, walkExpr,
  type Dtype, type Expr, type Instruction, type Kernel, blockExprs, dtypeBits, dtypeKind, isIntegral, isWideInt,
} from "../ir/index.js";
import { instructionInames } from "../analysis/index.js";
import { evalSizeExpr } from "./args.js";
import { conditionDnf, quasiAffinePieces, type QaCondition, type QaContext, type QaPiece } from "../analysis/piecewise.js";
import { aff, affSub, extendSet, isEmpty, isEmptyWith, type Aff, type BasicSet } from "../poly/index.js";
import { DataRanges, type ArrayData } from "./bounds-data.js";
import { constantBounds } from "./bounds-interval.js";

/** One subscripted access found in an instruction. */
interface FoundAccess {
  readonly array: string;
  readonly indices: readonly Expr[] | undefined;
  readonly linear: Expr | undefined;
  readonly write: boolean;
  /** Conditions beyond the instruction's predicates under which it is evaluated. */
  readonly guards: readonly Expr[];
}

function accessesOf(insn: Instruction): FoundAccess[] {
  if (insn.kind !== "assign") return [];
  const out: FoundAccess[] = [];
  // Reads with the selects, && and || that guard them (C evaluates them lazily): checked where they run.
  const visit = (e: Expr) => {
    for (const { node: n, guards } of guardedSubscripts(e)) {
      if (n.kind === "subscript") out.push({ array: n.array, indices: n.indices, linear: undefined, write: false, guards });
      else out.push({ array: n.array, indices: undefined, linear: n.index, write: false, guards });
    }
  };
  const lhs = insn.lhs;
  if (lhs.kind === "subscript") {
    out.push({ array: lhs.array, indices: lhs.indices, linear: undefined, write: true, guards: [] });
    lhs.indices.forEach(visit);
  } else if (lhs.kind === "linear") {
    out.push({ array: lhs.array, indices: undefined, linear: lhs.index, write: true, guards: [] });
    visit(lhs.index);
  }
  visit(insn.rhs);
  for (const p of insn.predicates) visit(p);
  return out;
}

/** Extents (and flat size) of every array the check covers, for this run. */
export interface ArrayExtents {
  readonly extents: readonly number[] | undefined;
  /** Elements the storage holds (bounds a linear subscript). */
  readonly size: number;
  /** An argument's storage for this run: the contents of index arrays bound what the kernel reads from them. */
  readonly data?: ArrayData;
}

const checked = new WeakMap<Kernel, Set<string>>();

/**
 * Throw an ExecutionError unless every access of `k` (the preprocessed kernel that code is
 * generated from) stays inside its array when the parameters have `values`.
 * `checkBounds(k, new Map([["n", 8]]), storage)` passes for `out[i] = a[i]` over 0 <= i < n with
 * arrays of 8 elements, and throws for `out[i] = a[i+1]`.
 */
export function checkBounds(
  k: Kernel, values: ReadonlyMap<string, number | bigint>, arrays: ReadonlyMap<string, ArrayExtents>,
): void {
  const key = JSON.stringify([[...values].map(([n, x]) => [n, String(x)]), [...arrays].map(([n, a]) => [n, a.extents, a.size])]);
  let seen = checked.get(k);
  if (seen?.has(key)) return;
  const params: Record<string, number> = {};
  for (const [n, x] of values) params[n] = Number(x);
  Object.assign(params, derivedScalars(k, params));
  const inames = new Set(allInames(k));
  const prefix = freshPrefix(k, inames);
  const contents = new Map<string, ArrayData>();
  for (const [n, a] of arrays) if (a.data) contents.set(n, a.data);
  const data = new DataRanges(k, contents, params);
  for (const insn of k.instructions) {
    if (insn.kind === "block") {
      // Its indices depend on the statements before them (locals, loops): only scalars are safe.
      const touched: string[] = [];
      for (const e of blockExprs(insn.body)) {
        walkExpr(e, (n) => void ((n.kind === "subscript" || n.kind === "linear") && arrays.has(n.array) && touched.push(n.array)));
      }
      if (touched.length > 0) {
        throw new ExecutionError(`block "${insn.id}" of kernel "${k.name}" accesses ${[...new Set(touched)].join(", ")} inside its statements, where Loom cannot prove the accesses stay inside the arrays before running native code; ` +
          "run it on the interp or js backend, or pass { checkBounds: false } to run unchecked");
      }
      continue;
    }
    const accesses = accessesOf(insn).filter((a) => arrays.has(a.array));
    if (accesses.length === 0) continue;
    for (const acc of accesses) {
      try {
        checkAccess(k, insn, acc, arrays.get(acc.array)!, params, inames, data, prefix);
      } catch (e) {
        // The exact arithmetic of the proof past 2^53 (huge strides, divisors and values read from memory together).
        if (!(e instanceof LoomError) || e instanceof ExecutionError || !e.message.startsWith("integer overflow")) throw e;
        throw new ExecutionError(`instruction "${insn.id}" ${acc.write ? "writes" : "reads"} ${acc.array}: Loom cannot prove the access stays inside ${acc.array} before running native code, ` +
          "as its proof needs integers past 2^53; run it on the interp or js backend, or pass { checkBounds: false } to run unchecked");
      }
    }
  }
  // A proof through the arrays' contents holds for these contents only: not remembered.
  if (data.used) return;
  if (!seen) checked.set(k, (seen = new Set()));
  seen.add(key);
}

function checkAccess(
  k: Kernel, insn: Instruction, acc: FoundAccess, arr: ArrayExtents,
  params: Readonly<Record<string, number>>, inames: ReadonlySet<string>, data: DataRanges, prefix: string,
): void {
  const what = `instruction "${insn.id}" ${acc.write ? "writes" : "reads"} ${acc.array}`;
  data.begin();
  const idx = acc.indices ?? [acc.linear!];
  // Storage of no elements (an argument passed as null) holds no index, whatever its shape says.
  const extents = acc.indices ? (arr.size === 0 ? arr.extents?.map(() => 0) : arr.extents) : [arr.size];
  if (!extents || extents.length !== idx.length) {
    if (!extents && idx.length === 1) return checkAccess(k, insn, { ...acc, indices: undefined, linear: idx[0]! }, arr, params, inames, data, prefix);
    throw new ExecutionError(`${what} with ${idx.length} subscript(s), but the array's shape ${extents ? `has ${extents.length} axes` : "is unknown"}; declare its shape so that native code can be checked`);
  }
  const ctx: QaContext = { isIndexVar: (n) => inames.has(n), values: params, fresh: [], prefix, range: (e) => data.rangeAt(e, insn), define: (e) => data.definition(e, insn) };
  const notAffine = (e: Expr, why: string) => new ExecutionError(`${what} at ${exprToString(e)}, which ${why}, so Loom cannot prove it stays inside ${acc.array} before running native code; ` +
    "run it on the interp or js backend, or pass { checkBounds: false } to run unchecked");
  const maybe = idx.map((e) => {
    const ps = quasiAffinePieces(e, ctx);
    if (ps) return ps;
    // An instruction that never runs for these values reads nothing.
    if (!neverRuns(k, insn, data)) throw notAffine(e, "is not affine in the inames and parameters (nor in values read from index arrays this run passes)");
    return undefined;
  });
  if (maybe.some((ps) => ps === undefined)) return;
  const axes = maybe as QaPiece[][];
  // The instruction runs where all its predicates hold; one that cannot be expressed is left out
  // (the proof then covers more points than run, which is safe).
  const unusedPredicates: Expr[] = [];
  const guards = [...insn.predicates, ...acc.guards];
  const guardDnf = guards.map((p) => conditionDnf(p, ctx));
  const used = new Set(instructionInames(insn));
  for (const n of insn.innerInames ?? []) used.add(n);
  const noteNames = (a: Aff) => {
    for (const n of Object.keys(a.terms)) if (inames.has(n)) used.add(n);
  };
  for (const ps of axes) for (const p of ps) [p.value, ...p.conds.map((c) => c.aff)].forEach(noteNames);
  for (const d of guardDnf) for (const g of d ?? []) for (const c of g) noteNames(c.aff);
  const { dom, free } = data.runDomain(iterationDomain(k, [...used]), insn);
  if (isEmpty(dom)) return;
  if (data.touched) int32Safe(insn, idx, guards, guardDnf, dom, data, notAffine);
  let guard: QaCondition[][] = [[]];
  for (const [at, p] of guards.entries()) {
    const d = guardDnf[at];
    if (!d) {
      unusedPredicates.push(p);
      continue;
    }
    const next: QaCondition[][] = [];
    for (const x of guard) for (const y of d) next.push([...x, ...y]);
    if (next.length > 256) unusedPredicates.push(p);
    else guard = next;
  }
  const dims = [...dom.dims, ...ctx.fresh];
  axes.forEach((ps, axis) => {
    const n = extents[axis]!;
    for (const p of ps) {
      for (const g of guard) {
        const s = extendSet(dom, dom.params, dims, [...p.conds, ...g]);
        const below = isEmptyWith(s, affSub(aff({}, -1), p.value)); // value <= -1
        const above = isEmptyWith(s, affSub(p.value, aff({}, n))); // value >= n
        if ((!below || !above) && free.length > 0) {
          throw new ExecutionError(`${what}: its domain is bounded by ${free.map((f) => `"${f}"`).join(", ")}, which the kernel computes (not a value argument), ` +
            `so Loom cannot prove the access stays inside ${acc.array} before running native code; run it on the interp or js backend, or pass { checkBounds: false } to run unchecked`);
        }
        if (!below || !above) {
          const at = acc.indices ? `axis ${axis} (${exprToString(idx[axis]!)})` : `linear index ${exprToString(idx[axis]!)}`;
          // Through index arrays the proof knows the range of the elements an index can reach, not which are read.
          const held = data.describe();
          const where = Object.entries(params).map(([q, v]) => `${q}=${v}`).join(", ") || "these arguments";
          if (data.ranged && n > 0) {
            throw new ExecutionError(`${what} may be outside its bounds for ${where}: ${at} can be ${below ? `>= ${n}` : "< 0"}${held}, so Loom cannot prove it inside 0…${n - 1}; ` +
              "native code was not run (the proof knows the range of the index arrays' elements, not which lead to this access): run it on the interp backend to check every access, or pass { checkBounds: false } to run unchecked");
          }
          throw new ExecutionError(`${what} outside its bounds for ${where}: ` +
            (n === 0 ? `${acc.array} has no elements (an array passed as null has none), and the access is not guarded by a test that it was passed; native code was not run`
              : `${at} can be ${below ? `>= ${n}` : "< 0"}, but it must lie in 0…${n - 1}; native code was not run`) +
            (unusedPredicates.length > 0
              ? ` (the predicate ${unusedPredicates.map(exprToString).join(", ")} is not affine enough to be used in the proof, so the access may be safe: pass { checkBounds: false } if you know it is)`
              : ""));
        }
      }
    }
  });
}

/**
 * Scalar temporaries that one instruction sets, unconditionally, to an expression of the value
 * arguments (the loop bound `j_l0_size = max(n, 4)` the CPU lowering gives sibling loops of
 * different sizes on one local axis): their values, which domains may use as parameters.
 */
function derivedScalars(k: Kernel, params: Readonly<Record<string, number>>): Record<string, number> {
  const writers = new Map<string, Instruction[]>();
  for (const insn of k.instructions) for (const n of insnWrites(insn)) writers.set(n, [...(writers.get(n) ?? []), insn]);
  const known = new Map(Object.entries(params));
  const out: Record<string, number> = {};
  for (const t of k.temporaries) {
    const w = writers.get(t.name);
    const insn = w?.length === 1 ? w[0]! : undefined;
    if (t.shape.length > 0 || known.has(t.name) || insn?.kind !== "assign" || insn.lhs.kind !== "var" || insn.predicates.length > 0) continue;
    // The value the kernel stores is the dtype's: a float scalar keeps n / 2's fraction (which
    // evalSizeExpr truncates), an int8 one wraps 200; only an integer the dtype holds is known.
    if (t.dtype === undefined || !isIntegral(t.dtype) || isWideInt(t.dtype)) continue;
    try {
      const v = evalSizeExpr(insn.rhs, known, `temporary "${t.name}"`);
      if (Number.isInteger(v) && fitsDtype(v, t.dtype)) out[t.name] = v;
    } catch {
      // Not a function of the value arguments: domains that use it stay unproven.
    }
  }
  return out;
}

/** Whether the integer `v` is a value of the integer dtype `d` (bool: 0 or 1). */
function fitsDtype(v: number, d: Dtype): boolean {
  const bits = dtypeBits(d);
  switch (dtypeKind(d)) {
    case "bool": return v === 0 || v === 1;
    case "uint": return v >= 0 && v < 2 ** bits;
    default: return v >= -(2 ** (bits - 1)) && v < 2 ** (bits - 1);
  }
}

/** Whether `insn`'s domain is empty for this run's values (loop bounds read from index arrays bounded by what they hold). */
/** A prefix of the proof's fresh variables that begins no name of `k` (an iname may be called `loom_bq_0`). */
function freshPrefix(k: Kernel, inames: ReadonlySet<string>): string {
  const names = [...inames, ...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name), ...k.domains.flatMap((d) => d.params)];
  let prefix = "loom_bq_";
  for (let n = 1; names.some((x) => x.startsWith(prefix)); n++) prefix = `loom_bq${n}_`;
  return prefix;
}

function neverRuns(k: Kernel, insn: Instruction, data: DataRanges): boolean {
  return isEmpty(data.runDomain(iterationDomain(k, instructionInames(insn)), insn).dom);
}

/**
 * Values read from index arrays enter the proof as exact integers; C computes with them in int32
 * (or wider), so an index or a compared value built from them must stay inside int32 for the
 * proof to speak of C's values: an index that may leave it is refused, a condition that may is
 * left out of the proof (which then covers more points than run).
 */
function int32Safe(
  insn: Instruction, idx: readonly Expr[], guards: readonly Expr[], guardDnf: (QaCondition[][] | undefined)[],
  dom: BasicSet, data: DataRanges, notAffine: (e: Expr, why: string) => Error,
): void {
  const box = new Map<string, { min: number; max: number } | undefined>();
  const bounds = (name: string) => {
    if (!dom.dims.includes(name)) return undefined;
    if (!box.has(name)) box.set(name, constantBounds(dom, name));
    return box.get(name);
  };
  const fits = (e: Expr) => !data.reads(e, insn) || data.intervalOf(e, insn, bounds) !== undefined;
  const comparisonsFit = (e: Expr) => {
    let ok = true;
    walkExpr(e, (n) => void (n.kind === "compare" && (ok &&= fits(n.left) && fits(n.right))));
    return ok;
  };
  for (const e of idx) if (!fits(e) || !comparisonsFit(e)) throw notAffine(e, "computes with values read from index arrays that could leave int32 here");
  guards.forEach((g, at) => {
    if (guardDnf[at] && !comparisonsFit(g)) guardDnf[at] = undefined;
  });
}
