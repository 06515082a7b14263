/**
 * Data-layout transformations (loopy/transform/data.py, padding.py): axis tags and nesting order
 * of arrays, and the lookup of arrays and temporaries by name that the other layout transforms
 * (split-array-axis.ts) share. Pure Kernel -> Kernel; a bad request throws TransformError.
 */
import { LoomError, TransformError } from "../src/errors.js";
import {
  arith, c, mapExpr, mulExpr, parseDimTags, v, withKernel,
  type ArrayArg, type DimTag, type Expr, type Kernel, type KernelArg, type Temporary,
} from "../src/ir/index.js";
import { takenNames, checkKernel } from "./common.js";
import { kernelParameters } from "./parameters.js";

/** An array argument or a temporary: what layout transforms change. */
export type DataVar = ArrayArg | Temporary;

/** Names from `"a"`, `"a, b"` or `["a", "b"]`; each must be an array argument or a temporary. */
export function dataNames(k: Kernel, arrays: string | readonly string[], who: string): string[] {
  const names = typeof arrays === "string" ? arrays.split(",").map((s) => s.trim()).filter((s) => s !== "") : arrays;
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== "string")) {
    throw new TransformError(`${who}: expected an array name, a comma-separated list or an array of names; got ${JSON.stringify(arrays)}`);
  }
  for (const n of names) findData(k, n, who);
  return names;
}

export function findData(k: Kernel, name: string, who: string): DataVar {
  const arg = k.args.find((a) => a.name === name);
  if (arg?.kind === "array") return arg;
  const temp = k.temporaries.find((t) => t.name === name);
  if (temp) return temp;
  const all = [...k.args.filter((a) => a.kind === "array"), ...k.temporaries].map((a) => a.name).join(", ") || "(none)";
  const why = arg ? `"${name}" is a value argument, not an array` : `no array or temporary "${name}" in kernel "${k.name}"`;
  throw new TransformError(`${who}: ${why}; arrays and temporaries are ${all}`);
}

export function shapeOf(a: DataVar, who: string): readonly Expr[] {
  if (!a.shape) throw new TransformError(`${who}: the shape of "${a.name}" is not known yet; declare it (globalArg("${a.name}", dtype, [...]) or "${a.name}: float32[n]")`);
  return a.shape;
}

/** `k` with the array argument or temporary `name` replaced by `f(it)`. */
export function updateData(k: Kernel, name: string, f: (a: DataVar) => DataVar): Kernel {
  const isTemp = k.temporaries.some((t) => t.name === name);
  return isTemp
    ? withKernel(k, { temporaries: k.temporaries.map((t) => (t.name === name ? f(t) as Temporary : t)) })
    : withKernel(k, { args: k.args.map((a) => (a.name === name && a.kind === "array" ? f(a) as ArrayArg : a)) });
}

/** What loopy's tag syntax adds to Loom's: `stride:auto`, `(pad=K)` and `->K` per tag. */
interface TagExtras {
  readonly auto: boolean;
  readonly pad: number | undefined;
}

/**
 * Read loopy's suffixes off each tag: `?` (kept, for parseDimTags), `->K` (the target axis: only
 * 0 exists for arrays), `(pad=K)` on c/f/N tags, and `stride:auto`. Returns the tags parseDimTags
 * reads, after dropping optional tags as it does, and the extras of the tags that remain.
 */
function readTagSuffixes(dimTags: string | readonly string[], nAxes: number, name: string, who: string): { tags: string[]; extras: TagExtras[] } {
  const items = (typeof dimTags === "string" ? dimTags.split(",") : [...dimTags]).map((t) => t.trim()).filter((t) => t !== "");
  let parsed = items.map((raw) => {
    let t = raw;
    const optional = t.endsWith("?");
    if (optional) t = t.slice(0, -1).trim();
    const target = /->\s*(\S+)$/.exec(t);
    if (target) {
      if (target[1] !== "0") {
        throw new TransformError(`${who}: tag "${raw}" of "${name}" maps the axis to target axis ${target[1]}; only OpenCL images have more than one target axis (loopy's ImageArg), and Loom has no image arrays, so the only target axis is 0 (->0)`);
      }
      t = t.slice(0, target.index).trim();
    }
    let pad: number | undefined;
    const padded = /^([^(]*)\(\s*pad\s*=\s*([^)]*)\)$/.exec(t);
    if (padded) {
      t = padded[1]!.trim();
      if (!/^(c|C|f|F|N\d)$/.test(t)) throw new TransformError(`${who}: tag "${raw}" of "${name}": (pad=…) goes on c, f or N0…N9, as in c(pad=16)`);
      pad = Number(padded[2]!.trim());
      if (!/^\d+$/.test(padded[2]!.trim()) || pad < 1) throw new TransformError(`${who}: tag "${raw}" of "${name}": the padding must be an integer >= 1 (elements), as in c(pad=16); got "${padded[2]!.trim()}"`);
    }
    const auto = /^stride:\s*auto$/.test(t);
    if (auto) t = "stride:0";
    return { tag: optional ? `${t}?` : t, optional, extras: { auto, pad } };
  });
  // parseDimTags drops optional tags left-first while there are too many: the same ones here.
  while (parsed.length > nAxes) {
    const k = parsed.findIndex((p) => p.optional);
    if (k < 0) break;
    parsed = [...parsed.slice(0, k), ...parsed.slice(k + 1)];
  }
  return { tags: parsed.map((p) => (p.optional ? p.tag.slice(0, -1) : p.tag)), extras: parsed.map((p) => p.extras) };
}

/** `s` rounded up to a multiple of `pad`. */
function roundUp(s: Expr, pad: number): Expr {
  if (pad === 1) return s;
  if (s.kind === "const") return c(Math.ceil(s.value / pad) * pad);
  return arith("*", arith("//", arith("+", s, c(pad - 1)), c(pad)), c(pad));
}

/**
 * The strides of nested axes with padding (loopy's convert_computed_to_fixed_dim_tags): going
 * from the fastest level out, each level's stride is the previous one times its extent, rounded
 * up to a multiple of the pad of the axis below it. Every nested axis becomes a `stride` tag.
 */
function padStrides(tags: readonly DimTag[], shape: readonly Expr[], pads: readonly (number | undefined)[]): DimTag[] {
  const byLevel = new Map<number, number>();
  tags.forEach((t, x) => { if (t.kind === "nest") byLevel.set(t.level, x); });
  const out = [...tags];
  let stride: Expr = c(1);
  for (let l = 0; byLevel.has(l); l++) {
    const x = byLevel.get(l)!;
    out[x] = { kind: "stride", stride };
    stride = mulExpr(stride, shape[x]!);
    if (pads[x] !== undefined) stride = roundUp(stride, pads[x]!);
  }
  return out;
}

/**
 * Set the data-axis tags of arrays and temporaries (loopy's tag_array_axes): `c`/`f` nest an axis
 * outside/inside the following ones, `N0…N9` give nesting levels (N0 fastest), `stride:EXPR`,
 * `sep`, `vec`; `?` marks a tag dropped when there are more tags than axes. As in loopy:
 * `stride:auto` makes the stride a new int32 argument `${array}_stride${axis}` (arrays only: a
 * temporary has no caller to choose it); `c(pad=K)`, `f(pad=K)`, `N1(pad=K)` round the stride of
 * the next axis out up to a multiple of K elements (the nested axes then get explicit strides);
 * `->0` names the target axis, the only one arrays have (more exist only for OpenCL images).
 *
 *   tagArrayAxes(k, "a, b", "f,f")            // column-major: a[i,j] at i + j*n
 *   tagArrayAxes(k, "a", "c,c(pad=16)")       // rows of a[n, 10] 16 elements apart
 *   tagArrayAxes(k, "a", "stride:auto,c")     // a[i,j] at i*a_stride0 + j; a_stride0 is passed
 */
export function tagArrayAxes(k: Kernel, arrays: string | readonly string[], dimTags: string | readonly string[]): Kernel {
  const who = "tagArrayAxes";
  checkKernel(k, who);
  if (typeof dimTags !== "string" && !(Array.isArray(dimTags) && dimTags.every((t) => typeof t === "string"))) {
    throw new TransformError(`${who}: expected tags such as "f,c" or ["N1", "N0"]; got ${JSON.stringify(dimTags)}`);
  }
  const params = kernelParameters(k);
  let out = k;
  for (const name of dataNames(k, arrays, who)) {
    const a = findData(k, name, who);
    const shape = shapeOf(a, who);
    const { tags: clean, extras } = readTagSuffixes(dimTags, shape.length, name, who);
    let tags: DimTag[];
    try {
      tags = parseDimTags(clean, shape.length);
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      throw new TransformError(`${who}: "${name}" (${shape.length} axes): ${e.message}`);
    }
    if (tags.filter((t) => t.kind === "vec").length > 1) throw new TransformError(`${who}: "${name}" may have at most one vec axis; got ${JSON.stringify(dimTags)}`);
    tags.forEach((t, x) => {
      if ((t.kind === "vec" || t.kind === "sep") && shape[x]!.kind !== "const") {
        throw new TransformError(`${who}: axis ${x} of "${name}" is tagged ${t.kind}, which needs a constant extent; the extent is not a number`);
      }
      if (t.kind === "stride" && !extras[x]!.auto) {
        const vars = [...collectVars(t.stride)].filter((n) => !params.includes(n));
        if (vars.length > 0) throw new TransformError(`${who}: the stride of axis ${x} of "${name}" uses ${vars.join(", ")}, which ${vars.length > 1 ? "are not parameters" : "is not a parameter"}; strides are integers and parameters (${params.join(", ") || "none"}), or stride:auto for a stride passed as an argument`);
      }
    });
    // stride:auto: a new argument per axis (loopy adds one for each auto stride).
    const newArgs: KernelArg[] = [];
    const isArg = k.args.some((x) => x.name === name);
    extras.forEach((ex, x) => {
      if (!ex.auto) return;
      if (!isArg) throw new TransformError(`${who}: axis ${x} of temporary "${name}" is tagged stride:auto, which makes the stride an argument; a temporary's layout is the kernel's own, so give its stride (stride:EXPR) or a nesting (c, f, N)`);
      const argName = `${name}_stride${x}`;
      const existing = out.args.find((y) => y.name === argName);
      if (existing === undefined) {
        if (takenNames(out).has(argName)) throw new TransformError(`${who}: stride:auto on axis ${x} of "${name}" needs the argument name "${argName}", which is already a name in kernel "${k.name}"`);
        newArgs.push({ kind: "value", name: argName, dtype: "int32" });
      } else if (existing.kind !== "value") {
        throw new TransformError(`${who}: stride:auto on axis ${x} of "${name}" needs the value argument "${argName}", but "${argName}" is an array`);
      }
      tags[x] = { kind: "stride", stride: v(argName) };
    });
    const pads = extras.map((ex) => ex.pad);
    if (pads.some((p) => p !== undefined)) {
      if (tags.some((t) => t.kind === "vec")) throw new TransformError(`${who}: "${name}" has a vec axis; padding a vector array is not supported (its strides count vectors, not elements)`);
      tags = padStrides(tags, shape, pads);
    }
    if (newArgs.length > 0) out = withKernel(out, { args: [...out.args, ...newArgs] });
    out = updateData(out, name, (d) => ({ ...d, dimTags: tags }));
  }
  return out;
}

function collectVars(e: Expr): Set<string> {
  const out = new Set<string>();
  mapExpr(e, (n) => {
    if (n.kind === "var") out.add(n.name);
    return undefined;
  });
  return out;
}

/**
 * Nest the axes of arrays as OKL's `@dimOrder`: `order` lists the axes from fastest-varying to
 * slowest, so for 2-D `[1, 0]` is row-major (C) and `[0, 1]` column-major (F). Axis `order[l]`
 * gets nest level `l` (`N{l}`).
 *
 *   dimOrder(k, "a", [0, 1])            // a[i,j] at i + j*n, as tagArrayAxes(k, "a", "N0,N1")
 */
export function dimOrder(k: Kernel, arrays: string | readonly string[], order: readonly number[]): Kernel {
  const who = "dimOrder";
  checkKernel(k, who);
  let out = k;
  for (const name of dataNames(k, arrays, who)) {
    const n = shapeOf(findData(k, name, who), who).length;
    const ok = Array.isArray(order) && order.length === n && order.every((x) => Number.isInteger(x) && x >= 0 && x < n) && new Set(order).size === n;
    if (!ok) {
      throw new TransformError(`${who}: order must list each axis of "${name}" once, fastest-varying first (a permutation of 0…${n - 1}, e.g. [${[...Array(n).keys()].reverse().join(", ")}] for row-major); got ${JSON.stringify(order)}`);
    }
    const tags: DimTag[] = Array.from({ length: n }, (_, x) => ({ kind: "nest", level: order.indexOf(x) }));
    out = updateData(out, name, (d) => ({ ...d, dimTags: tags }));
  }
  return out;
}
