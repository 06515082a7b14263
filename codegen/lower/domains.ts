/**
 * Instruction domains for code generation, built where the kernel's domain forest allows from
 * pieces that repeat across a sweep (issue 21). A prefetch's instruction runs within its own
 * domain (`a_dim_0`, `a_dim_1`, over the parent inames `i_outer`, `k_outer` as parameters) and
 * the parents' domain; its iteration domain is the projection of both onto its inames. The child
 * names no iname that the projection drops, so the projection is the parent domain's projection
 * (the same for every variant with the same tile sizes of those inames, remembered by content)
 * intersected with the child: the same set as `iterationDomain`, without eliminating inames from
 * a system that is new in every variant.
 */
import { domainChain, iterationDomain, type Kernel } from "../../src/ir/index.js";
import { intersect, type BasicSet } from "../../src/poly/index.js";

/**
 * The iteration domain of `inames` (`iterationDomain(k, inames)`, the same set), through the
 * parent's projection when the chain is a parent domain and one child whose dims and parent
 * inames are all among `inames` and neither has existentials; else `iterationDomain` itself.
 *
 *   // k: {[i_outer, i_inner, k_outer, k_inner]: …} and [i_outer, k_outer] -> {[a_dim_0, a_dim_1]: …}
 *   instructionDomain(k, ["a_dim_0", "a_dim_1", "i_outer", "k_outer"])
 *     // intersect(iterationDomain(k, ["i_outer", "k_outer"]), the child): its parents become dims
 */
export function instructionDomain(k: Kernel, inames: readonly string[]): BasicSet {
  const chain = domainChain(k, inames);
  if (chain.length === 2) {
    const parent = k.domains[chain[0]!]!;
    const child = k.domains[chain[1]!]!;
    const parents = child.params.filter((p) => parent.dims.includes(p));
    if (
      parent.exists.length === 0 && child.exists.length === 0 && parents.length > 0
      && child.dims.every((n) => inames.includes(n)) && parents.every((n) => inames.includes(n))
      && !parent.params.some((p) => child.dims.includes(p))
    ) {
      // The parents are dims of `top`: the intersection takes them as dims of the child too.
      const top = iterationDomain(k, parent.dims.filter((n) => inames.includes(n)));
      return intersect(top, child);
    }
  }
  return iterationDomain(k, inames, chain);
}
