/**
 * `getMemAccessMap`: loads and stores of global and local arrays per variable, dtype and direction,
 * over all work-items (loopy's `get_mem_access_map`); per sub-group or work-group with
 * `countGranularity`, or per key as loopy picks with "auto" (walk.ts). Each key
 * carries the access's strides along the hardware axes: `lidStrides[a]` is the coefficient of the
 * `l.a` iname in the flattened index (Σ over the array's axes of the index's coefficient times
 * the axis stride), in elements, and likewise `gidStrides` for `g.a`; an axis the access does not
 * vary along is absent. Private temporaries and scalar arguments are not memory accesses here.
 * Accesses are those of the assignments' left- and right-hand sides (loads inside subscripts
 * included, and the bare name of a 0-d array: one element); predicates are not counted, as in loopy.
 */
import { LoomError } from "../../errors.js";
import {
  axisStrides, effectiveDimTags, exprToAff, exprToString, findArg, findTemporary, walkExpr,
  type ArrayArg, type Expr, type Kernel, type LinearSubscript, type Subscript, type Temporary,
} from "../../ir/index.js";
import { addressSpaceOf } from "../address-spaces.js";
import { CountMap, type MemAccess } from "./count-map.js";
import { Count } from "./count.js";
import { polyAdd, polyConst, polyEval, polyMul, polyScale, polyVar, polyVars, type Poly } from "./poly.js";
import { ratToNumber } from "./rational.js";
import { elementAccess, granularityCounter, granularityOption, statisticsTypeEnv, walkKernel, type CountOptions } from "./walk.js";

/** A stride expression (integers, names, `+ - *`) as a polynomial, or undefined. */
function exprToPoly(e: Expr): Poly | undefined {
  switch (e.kind) {
    case "var": return polyVar(e.name);
    case "const": return Number.isInteger(e.value) ? polyConst(e.value) : undefined;
    case "neg": {
      const p = exprToPoly(e.operand);
      return p && polyScale(p, -1);
    }
    case "arith": {
      const l = exprToPoly(e.left);
      const r = exprToPoly(e.right);
      if (!l || !r) return undefined;
      if (e.op === "+") return polyAdd(l, r);
      if (e.op === "-") return polyAdd(l, polyScale(r, -1));
      if (e.op === "*") return polyMul(l, r);
      return undefined;
    }
    default: return undefined;
  }
}

function strideValue(p: Poly): Count | number {
  return polyVars(p).size === 0 ? ratToNumber(polyEval(p, {})) : Count.fromPoly(p);
}

/** Whether `e` reads the variable `name`. */
function mentions(e: Expr, name: string): boolean {
  let found = false;
  walkExpr(e, (n) => {
    if (n.kind === "var" && n.name === name) found = true;
  });
  return found;
}

type Strides = { lid: Record<number, Count | number>; gid: Record<number, Count | number> };

/** The strides of one access along the kernel's hardware axes. */
function accessStrides(k: Kernel, arr: ArrayArg | Temporary, node: Subscript | LinearSubscript, insn: string): Strides {
  const where = (): string => `${exprToString(node)} in instruction "${insn}"`;
  const indices = node.kind === "linear" ? [node.index] : node.indices;
  const axisStride = (a: number): Poly => {
    if (node.kind === "linear") return polyConst(1);
    const shape = arr.shape;
    if (!shape) throw new LoomError(`getMemAccessMap: the shape of "${arr.name}" is not known, so the strides of ${where()} along the hardware axes are not either; give its shape`);
    const s = axisStrides(shape, effectiveDimTags(arr))[a];
    const p = s ? exprToPoly(s) : undefined;
    if (!p) throw new LoomError(`getMemAccessMap: axis ${a} of "${arr.name}" has no stride expression Loom can multiply (${s ? exprToString(s) : "a sep or vec axis"}), needed for ${where()}`);
    return p;
  };
  const out: Strides = { lid: {}, gid: {} };
  const affs = indices.map((ix) => exprToAff(ix));
  const strides = new Map<number, Poly>();
  for (const [iname, tag] of Object.entries(k.inameTags)) {
    if (tag.kind !== "g" && tag.kind !== "l" && tag.kind !== "l.auto") continue;
    let total: Poly = new Map();
    affs.forEach((f, a) => {
      if (!f) {
        if (mentions(indices[a]!, iname)) throw new LoomError(`getMemAccessMap: index ${exprToString(indices[a]!)} of ${where()} is not affine in the hardware iname "${iname}", so it has no stride along that axis`);
        return;
      }
      const c = f.terms[iname] ?? 0;
      if (c === 0) return;
      let s = strides.get(a);
      if (!s) strides.set(a, (s = axisStride(a)));
      total = polyAdd(total, polyScale(s, c));
    });
    if (total.size === 0) continue;
    if (tag.kind === "l.auto") throw new LoomError(`getMemAccessMap: ${where()} varies along "${iname}", tagged l.auto, whose axis the scheduler picks; tag it l.N to count its strides`);
    (tag.kind === "l" ? out.lid : out.gid)[tag.axis] = strideValue(total);
  }
  return out;
}

export function getMemAccessMap(k: Kernel, opts: CountOptions = {}): CountMap {
  const option = granularityOption(opts, "getMemAccessMap");
  const env = statisticsTypeEnv(k);
  const points = granularityCounter(k, opts, "getMemAccessMap");
  const entries: [MemAccess, Count][] = [];
  walkKernel(k, env, ({ node: visited, insn, inames, isStore }) => {
    const node = elementAccess(k, visited, insn);
    if (!node) return;
    const arg = findArg(k, node.array);
    const tmp = findTemporary(k, node.array);
    const arr = arg?.kind === "array" ? arg : tmp;
    if (!arr) return;
    const mtype = arg?.kind === "array" ? "global" : addressSpaceOf(k, tmp!);
    if (mtype === "private") return;
    const dtype = env.varType(node.array);
    if (!dtype) throw new LoomError(`getMemAccessMap: the dtype of "${node.array}" (instruction "${insn.id}") is not known; give it (addDtypes) before counting`);
    const strides = accessStrides(k, arr, node, insn.id);
    // loopy's choice: a global access that varies along l.0 is one per work-item; one uniform
    // across l.0 (a broadcast) is one per sub-group, and so is every local access.
    const granularity = option !== "auto" ? option : mtype === "global" && strides.lid[0] !== undefined ? "workitem" : "subgroup";
    const key: MemAccess = {
      mtype, dtype, lidStrides: strides.lid, gidStrides: strides.gid, direction: isStore ? "store" : "load",
      variable: node.array, countGranularity: granularity,
    };
    entries.push([key, points(inames, granularity)]);
  });
  return new CountMap(entries);
}

