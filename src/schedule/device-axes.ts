/**
 * The hardware axes of one device kernel that several inames share (device.ts): sibling OKL
 * @inner loops, loopy's independent loops split onto one axis. Their common base and the
 * covering size; and an axis as rows over its iname (`axisRows`), which code generation and the
 * CPU lowering read as bounds.
 */
import { ScheduleError } from "../errors.js";
import { exprToAff, exprToString, type Expr, type Kernel } from "../ir/index.js";
import { addConstraints, aff, affAdd, affScale, affSub, intersect, isSubset, universe, type Aff, type BasicSet } from "../poly/index.js";
import type { HwAxis } from "./types.js";

/** Whether `a` and `b` are one literal (then they print alike). */
function sameConst(a: Expr, b: Expr): boolean {
  return a.kind === "const" && b.kind === "const" && Object.is(a.value, b.value) && a.dtype === b.dtype && a.isFloat === b.isFloat;
}

function extremum(fn: "max" | "min", es: Expr[]): Expr {
  return es.length === 1 ? es[0]! : { kind: "call", fn, args: es };
}

/**
 * The one hardware axis of the inames `list` (sorted by name) of one device kernel put on axis
 * `key`. They must share the base and may differ in size (sibling OKL @inner loops, OKL.md §11.9;
 * loopy's independent loops split onto one g axis, `test_independent_multi_domain`): the axis
 * spans the covering range — the iname whose range contains the others, else `max` of the sizes,
 * evaluated at launch — and each instruction is guarded by its own iname's domain.
 */
export function shareAxis(k: Kernel, dkName: string, key: string, list: readonly HwAxis[]): HwAxis {
  const first = list[0]!;
  if (list.length === 1) return first;
  // Constant ranges (a tiled kernel's local axes): compared as numbers, nothing printed.
  let same = true;
  for (let x = 1; x < list.length && same; x++) same = sameConst(list[x]!.base, first.base) && sameConst(list[x]!.size, first.size);
  if (same) return first;
  // Each expression printed once (the comparisons below ask again and again).
  const printed = new Map<Expr, string>();
  const text = (e: Expr): string => {
    let t = printed.get(e);
    if (t === undefined) printed.set(e, (t = exprToString(e)));
    return t;
  };
  const differs = list.find((ax) => text(ax.base) !== text(first.base) || text(ax.size) !== text(first.size));
  if (!differs) return first;
  const sameBase = list.every((ax) => text(ax.base) === text(first.base));
  if (!sameBase) {
    throw new ScheduleError(
      `device kernel "${dkName}": inames "${first.iname}" and "${differs.iname}" are both tagged ${key} but have different ranges ` +
      `(base ${text(first.base)}, size ${text(first.size)} vs base ${text(differs.base)}, size ${text(differs.size)}); ` +
      `inames sharing a hardware axis may differ in size, not in their lower bound`,
    );
  }
  if (list.every((ax) => ax.size.kind === "const")) {
    const widest = list.reduce((a, b) => ((b.size as { value: number }).value > (a.size as { value: number }).value ? b : a));
    return widest;
  }
  const boxes = list.map((ax) => axisBox(ax, k.assumptions));
  const covering = list.find((_, x) => boxes[x] !== undefined && boxes.every((b) => b !== undefined && isSubset(b, boxes[x]!)));
  if (covering) return covering;
  // The sizes no other range covers, once each: `max(n, 4)`, not `max(n, 4, (n + 3)//4)`.
  const sizes: Expr[] = [];
  list.forEach((ax, x) => {
    const covered = boxes[x] !== undefined && list.some((o, y) => y !== x && boxes[y] !== undefined && text(o.size) !== text(ax.size) && isSubset(boxes[x]!, boxes[y]!));
    if (!covered && !sizes.some((e) => text(e) === text(ax.size))) sizes.push(ax.size);
  });
  return { ...first, size: extremum("max", sizes) };
}

/**
 * `base <= x < base + size` of a hardware axis as rows over `x` and the parameters, those that
 * are affine (a size may be `e // d`: `d·(x - base + 1) <= e`); none when the base is not.
 */
export function axisRows(ax: HwAxis, x: string): { aff: Aff; eq: boolean }[] {
  const base = exprToAff(ax.base);
  if (!base) return [];
  const rel = affSub(aff({ [x]: 1 }), base);
  const rows = [{ aff: rel, eq: false }];
  const size = ax.size;
  const fl = size.kind === "arith" && (size.op === "//" || size.op === "/") && size.right.kind === "const" && size.right.value > 0 ? size : undefined;
  const num = exprToAff(fl ? fl.left : size);
  const d = fl ? (fl.right as { value: number }).value : 1;
  if (num) rows.push({ aff: affSub(num, affScale(affAdd(rel, aff({}, 1)), d)), eq: false });
  return rows;
}

/** `{[x]: base <= x < base + size}` over the parameters, within the assumptions; undefined where not affine. */
function axisBox(ax: HwAxis, assumptions: BasicSet): BasicSet | undefined {
  const x = "@x";
  const rows = axisRows(ax, x);
  if (rows.length < 2) return undefined;
  const params = [...new Set([...rows.flatMap((r) => Object.keys(r.aff.terms)).filter((n) => n !== x), ...assumptions.params])];
  const box = addConstraints(universe(params, [x]), rows);
  return assumptions.constraints.length > 0 ? intersect(box, assumptions) : box;
}

