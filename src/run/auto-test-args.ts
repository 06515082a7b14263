/**
 * The arguments `autoTestVsRef` (auto-test.ts) gives both kernels: which differences between their
 * arguments it refuses, and the values of value arguments only one kernel has (from the other's
 * shapes, or the dense layout for stride arguments).
 */
import { LoomError } from "../errors.js";
import {
  axisStrides, effectiveDimTags, findArg, freeVariables, insnReads,
  type ArrayArg, type Kernel, type KernelArg, type Temporary,
} from "../ir/index.js";
import { evalSizeExpr } from "./args.js";

export function argProblems(ref: Kernel, k: Kernel): string[] {
  const problems: string[] = [];
  const show = (a: KernelArg) => `${a.kind} ${a.dtype ?? "?"}`;
  for (const a of ref.args) {
    const b = findArg(k, a.name);
    if (b === undefined) {
      if (a.kind === "array") problems.push(`array argument "${a.name}" of the reference is missing from the kernel`);
    } else if (a.kind !== b.kind || (a.dtype !== undefined && b.dtype !== undefined && a.dtype !== b.dtype)) {
      problems.push(`argument "${a.name}": reference has ${show(a)}, kernel has ${show(b)}`);
    }
  }
  for (const b of k.args) {
    if (b.kind === "array" && findArg(ref, b.name) === undefined) problems.push(`array argument "${b.name}" of the kernel is not an argument of the reference`);
  }
  return problems;
}

/** `f()`, or undefined where it throws a LoomError (a size expression naming a value not known yet). */
function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof LoomError) return undefined;
    throw e;
  }
}

/** Whether `name` occurs in `kk` anywhere but as the whole stride of an array argument's axis (`stride:auto`). */
function usedBeyondStrides(kk: Kernel, name: string): boolean {
  const seen = new Set<string>();
  for (const insn of kk.instructions) insnReads(insn, seen);
  for (const s of kk.substitutions) freeVariables(s.expr, seen);
  for (const d of kk.domains) for (const p of d.params) seen.add(p);
  for (const p of kk.assumptions.params) seen.add(p);
  const data: { readonly isArg: boolean; readonly t: ArrayArg | Temporary }[] = [
    ...kk.args.flatMap((a) => (a.kind === "array" ? [{ isArg: true, t: a }] : [])),
    ...kk.temporaries.map((t) => ({ isArg: false, t })),
  ];
  for (const { isArg, t } of data) {
    for (const e of t.shape ?? []) freeVariables(e, seen);
    for (const tag of t.dimTags ?? []) {
      if (tag.kind !== "stride") continue;
      if (isArg && tag.stride.kind === "var" && tag.stride.name === name) continue;
      freeVariables(tag.stride, seen);
    }
  }
  return seen.has(name);
}

/**
 * The strides that the axes of `a` whose stride is exactly one of `unknown` (`stride:auto`) get: a
 * dense layout, each such axis (the last one innermost) stepping over the block of the other axes
 * and of the later such axes. Undefined where an extent or another stride cannot be evaluated yet.
 */
function denseAutoStrides(a: ArrayArg, unknown: ReadonlySet<string>, params: ReadonlyMap<string, number>): Map<string, number> | undefined {
  const tags = effectiveDimTags(a);
  const auto = (x: number): string | undefined => {
    const t = tags[x];
    return t?.kind === "stride" && t.stride.kind === "var" && unknown.has(t.stride.name) ? t.stride.name : undefined;
  };
  if (!a.shape || !tags.some((_, x) => auto(x) !== undefined)) return undefined;
  const shape = a.shape;
  const extents = attempt(() => shape.map((e) => evalSizeExpr(e, params, `the shape of "${a.name}"`)));
  if (!extents) return undefined;
  // The other axes, as layoutOf lays them out (vec axes innermost, nest axes stepping over them).
  let vecSize = 1;
  tags.forEach((t, x) => {
    if (t.kind === "vec") vecSize *= extents[x]!;
  });
  const strideExprs = axisStrides(shape, tags);
  let block = 1;
  for (let x = 0; x < tags.length; x++) {
    if (auto(x) !== undefined) continue;
    const s = strideExprs[x];
    const v = s === null || s === undefined ? 1 : attempt(() => evalSizeExpr(s, params, `the stride of axis ${x} of "${a.name}"`));
    if (v === undefined) return undefined;
    const stride = tags[x]!.kind === "nest" ? v * vecSize : v;
    block += (Math.max(extents[x]!, 1) - 1) * Math.abs(stride);
  }
  const out = new Map<string, number>();
  for (let x = tags.length - 1; x >= 0; x--) {
    const name = auto(x);
    if (name === undefined) continue;
    if (!out.has(name)) out.set(name, block);
    block *= Math.max(extents[x]!, 1);
  }
  return out;
}

/**
 * The values of each kernel's value arguments: from `given`, then, for an argument only one kernel
 * has, derived as `run` would see it: an extent (`a: float32[m]` in one kernel, `a: float32[64]` in
 * the other gives m = 64) or a `stride:auto` stride (dense). Each argument left without a value is
 * a problem.
 */
export function argValues(ref: Kernel, k: Kernel, given: Readonly<Record<string, number | bigint>>) {
  const kernels = [
    { kk: ref, other: k, who: "the reference", values: new Map<string, number | bigint>() },
    { kk: k, other: ref, who: "the kernel", values: new Map<string, number | bigint>() },
  ];
  const numbers = (m: ReadonlyMap<string, number | bigint>) => {
    // Names that are no value argument of the kernel still count in its shapes, as before.
    const out = new Map(Object.entries(given).map(([n, x]) => [n, Number(x)]));
    for (const [n, x] of m) out.set(n, Number(x));
    return out;
  };
  const missing = kernels.map(() => new Set<string>());
  kernels.forEach(({ kk, values }, s) => {
    for (const a of kk.args) {
      if (a.kind !== "value") continue;
      const x = given[a.name];
      if (x !== undefined) values.set(a.name, x);
      else missing[s]!.add(a.name);
    }
  });
  const oneSided = (s: number, name: string) => findArg(kernels[1 - s]!.kk, name) === undefined;
  // Extents: an axis `name` in one kernel whose extent the other kernel's shape gives.
  for (let progress = true; progress;) {
    progress = false;
    kernels.forEach(({ kk, other, values }, s) => {
      for (const a of kk.args) {
        const b = findArg(other, a.name);
        if (a.kind !== "array" || b?.kind !== "array" || !a.shape || !b.shape || a.shape.length !== b.shape.length) continue;
        const otherParams = numbers(kernels[1 - s]!.values);
        a.shape.forEach((e, x) => {
          if (e.kind !== "var" || !missing[s]!.has(e.name) || !oneSided(s, e.name)) return;
          const v = attempt(() => evalSizeExpr(b.shape![x]!, otherParams, "shape"));
          if (v === undefined) return;
          values.set(e.name, v);
          missing[s]!.delete(e.name);
          progress = true;
        });
      }
    });
  }
  // stride:auto: a dense layout.
  kernels.forEach(({ kk, values }, s) => {
    const auto = new Set([...missing[s]!].filter((n) => oneSided(s, n) && !usedBeyondStrides(kk, n)));
    if (auto.size === 0) return;
    for (const a of kk.args) {
      if (a.kind !== "array") continue;
      const strides = denseAutoStrides(a, auto, numbers(values));
      for (const [n, v] of strides ?? []) {
        if (!auto.has(n)) continue;
        values.set(n, v);
        auto.delete(n);
        missing[s]!.delete(n);
      }
    }
  });
  const problems: string[] = [];
  for (const name of missing[0]!) if (missing[1]!.has(name)) problems.push(`value argument "${name}" of both kernels has no value: give it in params`);
  kernels.forEach(({ who }, s) => {
    for (const name of missing[s]!) if (!missing[1 - s]!.has(name)) problems.push(`value argument "${name}" of ${who} has no value: give it in params`);
  });
  return { ref: kernels[0]!.values, k: kernels[1]!.values, paramsRef: numbers(kernels[0]!.values), paramsK: numbers(kernels[1]!.values), problems };
}

/**
 * Why the extents of an array differ between the kernels, where an axis that differs depends on a
 * value argument only one kernel has (params give `n` 32 where fixParameters fixed 64 in the
 * kernel): the two kernels would not be run on the same problem. Other extent differences (a
 * round trip that declares a flat array longer) are left to the comparison by the reference's
 * extents, as before.
 */
export function oneSidedExtentDifference(ref: Kernel, a: ArrayArg, k: Kernel, b: ArrayArg, extRef: readonly number[], extK: readonly number[]): string | undefined {
  if (extRef.length !== extK.length) return undefined;
  for (let x = 0; x < extRef.length; x++) {
    if (extRef[x] === extK[x]) continue;
    for (const [kk, arr, other, who] of [[ref, a, k, "the reference"], [k, b, ref, "the kernel"]] as const) {
      for (const name of freeVariables(arr.shape![x]!)) {
        if (findArg(kk, name)?.kind === "value" && findArg(other, name) === undefined) {
          return `"${name}", an argument of ${who} only, has a value the other kernel was not made for`;
        }
      }
    }
  }
  return undefined;
}
