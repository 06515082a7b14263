/**
 * The one rule for where an "auto" temporary lives (loopy's `find_temporary_address_space`),
 * used by the scheduler's preprocessing and by transformations that must know it beforehand:
 * global when its shape depends on parameters (loopy: a temporary of parametric size cannot be a
 * private or local array) or a writer indexes it with a `g`-tagged iname; else local when a writer
 * indexes it with an `l`-tagged iname (work-items share it); else private.
 */
import {
  assigneeName, freeVariables, insnStores, withKernel,
  type AddressSpace, type Expr, type Kernel, type Temporary,
} from "../ir/index.js";

/** The stores of each name in `k`, in instruction order: one walk per kernel (kernels are frozen). */
const storesByName = new WeakMap<Kernel, ReadonlyMap<string, readonly Expr[]>>();

function storesOf(k: Kernel, name: string): readonly Expr[] {
  let byName = storesByName.get(k);
  if (!byName) {
    const m = new Map<string, Expr[]>();
    for (const insn of k.instructions) {
      for (const lhs of insnStores(insn)) {
        const n = assigneeName(lhs);
        let list = m.get(n);
        if (!list) m.set(n, (list = []));
        list.push(lhs);
      }
    }
    storesByName.set(k, (byName = m));
  }
  return byName.get(name) ?? [];
}

/** The address space `t` has in `k` once decided: its own unless "auto", else by the rule above. */
export function addressSpaceOf(k: Kernel, t: Temporary): AddressSpace {
  if (t.addressSpace !== "auto") return t.addressSpace;
  if (t.shape.some((e) => freeVariables(e).size > 0)) return "global";
  let space: AddressSpace = "private";
  for (const lhs of storesOf(k, t.name)) {
    const index = lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
    const used = new Set<string>();
    for (const e of index) freeVariables(e, used);
    for (const i of used) {
      const tag = k.inameTags[i]?.kind;
      if (tag === "l" || tag === "l.auto") space = "local";
      else if (tag === "g" && space === "private") space = "global";
    }
  }
  return space;
}

/** `k` with every "auto" temporary's address space decided (`addressSpaceOf`). */
export function resolveAddressSpaces(k: Kernel): Kernel {
  if (!k.temporaries.some((t) => t.addressSpace === "auto")) return k;
  return withKernel(k, { temporaries: k.temporaries.map((t): Temporary => (t.addressSpace === "auto" ? { ...t, addressSpace: addressSpaceOf(k, t) } : t)) });
}
