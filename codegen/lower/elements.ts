/**
 * The element level of a target (alpaka, issue 22): `ilp` inames are not unrolled into copies
 * but are each thread's elements along one element axis — a plain loop per thread whose extent is
 * the target's count of elements (alpaka's `getWorkDiv<Thread, Elems>`), which the host's work
 * division sets to the iname's constant extent. The lanes' private temporaries are already one
 * copy per lane (the scheduler's `realizeIlp`, as for `ilp.seq`), indexed by the loop's iname.
 */
import { CodegenError } from "../../src/errors.js";
import { allInames, iterationDomain, type Kernel } from "../../src/ir/index.js";
import { aff, affIsConstant, dimBounds } from "../../src/poly/index.js";
import { block, evar, ibin, ilit, type Stmt } from "../ast.js";
import type { KernelHost, LoweringNames } from "./host.js";
import type { Row } from "./rows.js";
import type { LoopContext } from "./context.js";

/** At most this many element axes (alpaka's accelerators lowered to are 3-dimensional). */
export const MAX_ELEMENT_AXES = 3;

/** One `ilp` iname as an element axis: axis 0 the fastest (loopy's order), its constant range `lo … lo + extent - 1`. */
export interface ElementAxis {
  readonly iname: string;
  readonly axis: number;
  readonly lo: number;
  readonly extent: number;
}

const memo = new WeakMap<Kernel, readonly ElementAxis[]>();
/** The name of each axis' element count, per device kernel (its names). */
const counts = new WeakMap<LoweringNames, Map<number, string>>();

/**
 * The element axes of `k`: its `ilp` inames in the kernel's iname order, the first axis 0, each
 * with its constant range. More than `MAX_ELEMENT_AXES` of them, or one without a constant range,
 * is a CodegenError naming what `target` accepts.
 */
export function elementAxes(k: Kernel, target: string): readonly ElementAxis[] {
  let axes = memo.get(k);
  if (axes) return axes;
  const ilp = allInames(k).filter((n) => k.inameTags[n]?.kind === "ilp");
  if (ilp.length > MAX_ELEMENT_AXES) {
    throw new CodegenError(`kernel "${k.name}": inames ${ilp.map((n) => `"${n}"`).join(", ")} are tagged ilp, but the ${target} target ` +
      `makes each ilp iname one of its ${MAX_ELEMENT_AXES} element axes; tag at most ${MAX_ELEMENT_AXES} inames ilp (the others ilp.seq or unr)`);
  }
  axes = ilp.map((iname, axis) => {
    const b = dimBounds(iterationDomain(k, [iname]), iname, []);
    const lo = b.lower.filter((x) => affIsConstant(x.aff)).map((x) => Math.ceil(x.aff.constant / x.denom));
    const hi = b.upper.filter((x) => affIsConstant(x.aff)).map((x) => Math.floor(x.aff.constant / x.denom));
    if (lo.length === 0 || hi.length === 0) {
      throw new CodegenError(`kernel "${k.name}": iname "${iname}" is tagged ilp, but its range is not constant; the ${target} target ` +
        `makes it an element axis, whose extent is a constant of the launch; split it and tag the inner part ilp`);
    }
    const l = Math.max(...lo);
    return { iname, axis, lo: l, extent: Math.max(0, Math.min(...hi) - l + 1) };
  });
  memo.set(k, axes);
  return axes;
}

/**
 * The loop over `iname`'s elements, from `lo` to `hi` (constants): where that is the iname's whole
 * range, `{ int const count = …; for (iname = lo; iname <= lo + count - 1; …) }` with `count`
 * the target's element count along the iname's axis (`LowerOptions.ilpElements`; one fresh name
 * per axis in a device kernel, declared in each loop's block), else a plain loop over `lo … hi`. The body knows `lo <= iname <= hi` (`withRows`); `make` builds it.
 */
export function elementLoop(
  h: KernelHost, iname: string, lo: number, hi: number, withRows: (rows: readonly Row[]) => LoopContext, make: (c: LoopContext) => Stmt[],
): Stmt[] {
  const el = h.opts.ilpElements!;
  const e = elementAxes(h.k, el.target).find((x) => x.iname === iname)!;
  const body = block(make(withRows([{ aff: aff({ [iname]: 1 }, -lo), eq: false }, { aff: aff({ [iname]: -1 }, hi), eq: false }])));
  if (e.lo !== lo || e.extent !== hi - lo + 1) return [{ k: "for", v: iname, lo: ilit(lo), hi: ilit(hi), body }];
  let perAxis = counts.get(h.names);
  if (!perAxis) counts.set(h.names, (perAxis = new Map()));
  let count = perAxis.get(e.axis);
  if (count === undefined) perAxis.set(e.axis, (count = h.names.fresh(`${iname}_elems`)));
  return [block([
    { k: "raw", text: `int const ${count} = ${el.count(e.axis)};` },
    { k: "for", v: iname, lo: ilit(lo), hi: ibin("-", ibin("+", ilit(lo), evar(count)), ilit(1)), body },
  ])];
}
