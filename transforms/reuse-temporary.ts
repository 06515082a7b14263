/**
 * Precompute or prefetch into a temporary that already exists (loopy's precompute with the name of
 * an existing temporary variable): allowed when its dtype, number of axes, extents and address space
 * fit what the new store needs; otherwise a TransformError says which does not.
 */
import { TransformError } from "../src/errors.js";
import {
  exprToAff, exprToString, exprType, findTemporary, freeVariables, insnExprs, insnWrites, kernelTypeEnv,
  type AddressSpace, type Dtype, type Expr, type Kernel, type Temporary,
} from "../src/ir/index.js";
import { affIsConstant, affSub } from "../src/poly/index.js";
import { dependencyClosure } from "./common.js";

export interface ReuseRequest {
  /** The temporary's shape the store needs (axes of extent 1 already dropped). */
  readonly shape: readonly Expr[];
  /** The dtype asked for (precompute's dtype option), else undefined. */
  readonly dtype: Dtype | undefined;
  /** A value the store writes (its type is compared with the temporary's when no dtype is asked for). */
  readonly value: Expr;
  readonly space: AddressSpace | "auto";
  /** The instructions that will read the new values. */
  readonly readers: readonly string[];
}

export interface Reused {
  readonly temporary: Temporary;
  readonly addressSpace: AddressSpace | "auto";
  /** Instructions that use the temporary already: the new store runs after them. */
  readonly after: string[];
}

const shapeText = (s: readonly Expr[]) => `(${s.map(exprToString).join(", ")})`;

/** Whether extent `have` is at least `need` for every value of the parameters (both affine, differing by a constant). */
function atLeast(have: Expr, need: Expr): boolean {
  const [h, n] = [exprToAff(have, () => true), exprToAff(need, () => true)];
  if (!h || !n) return false;
  const d = affSub(h, n);
  return affIsConstant(d) && d.constant >= 0;
}

/**
 * Check that the existing temporary `name` can hold the new store and say how to reuse it:
 * `existingTemporary(k, "f_0", { shape: [c(8)], … }, "precompute")`.
 */
export function existingTemporary(k: Kernel, name: string, req: ReuseRequest, who: string): Reused {
  const t = findTemporary(k, name)!;
  const why = `cannot ${who === "addPrefetch" ? "fetch" : "precompute"} into the existing temporary "${name}" of shape ${shapeText(t.shape)}, dtype ${t.dtype ?? "auto"}, ${t.addressSpace} memory`;
  if (t.shape.length !== req.shape.length) {
    throw new TransformError(`${who}: ${why}: the footprint needs ${req.shape.length} axes ${shapeText(req.shape)} (axes of extent 1 are not stored), not ${t.shape.length}; ` +
      `choose another temporaryName${who === "addPrefetch" ? " or change sweepInames" : " or adjust storageAxes"}`);
  }
  req.shape.forEach((need, r) => {
    if (!atLeast(t.shape[r]!, need)) {
      throw new TransformError(`${who}: ${why}: shape mismatch: axis ${r} has extent ${exprToString(t.shape[r]!)} but the footprint needs ${exprToString(need)} ${shapeText(req.shape)}`);
    }
  });
  let want = req.dtype;
  if (want === undefined) {
    try {
      const ty = exprType(req.value, kernelTypeEnv(k));
      if (ty && !ty.weak) want = ty.dtype;
    } catch {
      // An ill-typed value is reported where the kernel is checked, not here.
    }
  }
  if (t.dtype !== undefined && want !== undefined && t.dtype !== want) {
    throw new TransformError(`${who}: ${why}: dtype mismatch: the stored value is ${want}${req.dtype === undefined ? "" : " (the dtype asked for)"}, the temporary ${t.dtype}; ` +
      `give dtype: "${t.dtype}" to convert, or choose another temporaryName`);
  }
  if (req.space !== "auto" && t.addressSpace !== "auto" && req.space !== t.addressSpace) {
    throw new TransformError(`${who}: ${why}: address space mismatch: ${req.space} asked for`);
  }
  // The readers must not see the temporary's old values, and the store must not overwrite them
  // before their own readers have run: it runs after every instruction that uses the temporary.
  const uses = k.instructions.filter((i) => insnWrites(i).includes(name) || insnExprs(i).some((e) => freeVariables(e).has(name)));
  const both = uses.filter((i) => req.readers.includes(i.id));
  if (both.length > 0) {
    throw new TransformError(`${who}: ${why}: instruction(s) ${both.map((i) => `"${i.id}"`).join(", ")} already use it and would read the new values too; choose another temporaryName`);
  }
  const cycle = uses.find((i) => {
    const before = dependencyClosure(k, i.id);
    return req.readers.some((r) => before.has(r));
  });
  if (cycle) {
    throw new TransformError(`${who}: ${why}: instruction "${cycle.id}" uses it after the readers of the new values (it depends on them), so the store cannot wait for it; choose another temporaryName`);
  }
  return {
    temporary: t.dtype === undefined && want !== undefined ? { ...t, dtype: want } : t,
    addressSpace: t.addressSpace === "auto" ? req.space : t.addressSpace,
    after: uses.map((i) => i.id),
  };
}
