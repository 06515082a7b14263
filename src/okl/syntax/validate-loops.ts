/**
 * The validator's rules on a kernel's attributed-loop tree (OKL.md §3.4): @outer above @inner,
 * at most three levels of each, every branch as deep as the others, distinct axes along a path,
 * a nested tile's floated block loop independent of what it crosses, and @max_inner_dims against
 * constant @inner extents. The tree comes from loop-tree.ts; validate.ts passes its host down.
 */
import type { For, FunctionDef, Pos } from "./ast.js";
import { evalConst } from "./consteval.js";
import { collectLoops, floatingCrossesIterator, iteratorOf, levelsBelow, type LoopNode } from "./loop-tree.js";
import type { OklError } from "../../errors.js";

export /** What a loop header says about its iteration count, when its parts are compile-time constants. */
interface LoopExtent {
  /** Trip count of the loop as written. */
  readonly count: number | undefined;
  /** The step (1 for ++/--). */
  readonly step: number | undefined;
}

/** What the loop rules need of the validator. */
export interface LoopRulesHost {
  err(detail: string, at: Pos, rule: string): OklError;
  /** File-scope integer constants, for extents. */
  readonly lookup: (name: string) => number | undefined;
  /** Constant trip counts and steps of the attributed loops seen so far. */
  readonly extents: ReadonlyMap<For, LoopExtent>;
  /** A kernel needs at least one @outer and one @inner loop. */
  readonly requireLoops: boolean;
}

const AXIS_NAMES = ["x", "y", "z"];

export class LoopTreeChecker {
  constructor(private readonly host: LoopRulesHost) {}

  // ─── the loop tree (OKL.md §3.4) ─────────────────────────────────────────────────────────────────

  /** Checks the kernel's loop tree; returns its roots (outer-most attributed loops). */
  loopTree(f: FunctionDef): LoopNode[] {
    const roots = collectLoops(f.body!.items);
    const all: LoopNode[] = [];
    const visit = (n: LoopNode) => {
      all.push(n);
      n.children.forEach(visit);
    };
    roots.forEach(visit);
    const kernelAttr = f.attributes.find((a) => a.name === "kernel")!;
    if (this.host.requireLoops) {
      if (!all.some((n) => n.kind === "outer")) throw this.host.err("[@kernel] requires at least one [@outer] for-loop", kernelAttr.pos, "@kernel loops");
      if (!all.some((n) => n.kind === "inner")) throw this.host.err("[@kernel] requires at least one [@inner] for-loop", kernelAttr.pos, "@kernel loops");
    }
    for (const n of all) {
      const crossed = floatingCrossesIterator(n);
      if (crossed !== undefined) {
        throw this.host.err(`[@tile] block loop "${iteratorOf(n.f)}" floats above the [@inner] loop "${crossed}" (OCCA moves nested tiles' [@outer] loops first), so its bounds cannot use "${crossed}"`, n.f.pos, "loop structure");
      }
    }
    for (const r of roots) this.checkRoot(r);
    for (const r of roots) this.checkAxes(r, new Map());
    return roots;
  }

  /**
   * Nested loops of one kind need different axes (OKL.md §3.3): an `@inner(0)` loop inside another
   * one would be `threadIdx.x` too, so the pair runs only its diagonal. Axes are the explicit ones,
   * else OCCA's numbering from the innermost; a clash always involves an explicit axis. Neither
   * OCCA tool diagnoses this (both emit the diagonal), and OCCA's own @tile goldens write
   * `@tile(4, @inner(1), @inner(1))`, so the two levels of one @tile are not compared.
   */
  private checkAxes(n: LoopNode, seen: ReadonlyMap<string, LoopNode>): void {
    const axis = n.explicitAxis ?? levelsBelow(n, n.kind);
    const key = `${n.kind}:${axis}`;
    const prev = seen.get(key);
    if (prev && prev.f !== n.f) {
      const how = (x: LoopNode) => (x.explicitAxis !== undefined ? `[@${x.kind}(${axis})]` : `[@${x.kind}] (numbered ${axis} automatically)`);
      throw this.host.err(
        `Duplicate [@${n.kind}] axis ${axis} (${AXIS_NAMES[axis] ?? axis}): this ${how(n)} loop "${iteratorOf(n.f)}" is nested in ` +
          `the ${how(prev)} loop "${iteratorOf(prev.f)}" at line ${prev.f.pos.line}; nested [@${n.kind}] loops must use different axes, ` +
          `or both would get the same ${n.kind === "inner" ? "work-item" : "work-group"} index and run only the diagonal of the pair`,
        n.f.pos, "loop axes",
      );
    }
    const next = new Map(seen).set(key, n);
    for (const c of n.children) this.checkAxes(c, next);
  }

  /**
   * `@max_inner_dims(X, Y, Z)` on an outer-most @outer loop against its @inner loops when their
   * extents are compile-time constants: as OCCA (serial.cpp, PR #625), the product of the extents on
   * the first deepest @inner path (the one OCCA sizes launches and @exclusive arrays by) must not
   * exceed X*Y*Z. OCCA checks only when the block has @exclusive data; Loom always does, since
   * the same product is the launch-bounds limit on GPUs.
   */
  maxInnerDims(root: LoopNode): void {
    const attr = root.f.attributes.find((a) => a.name === "max_inner_dims");
    const max = root.f.loopHints["max_inner_dims"];
    if (!attr || !max || root.kind !== "outer") return;
    let path: LoopNode[] = [];
    let best = -1;
    const visit = (n: LoopNode, acc: LoopNode[]) => {
      const here = [...acc, n];
      const inners = here.filter((x) => x.kind === "inner").length;
      if (inners > best) {
        best = inners;
        path = here;
      }
      for (const c of n.children) visit(c, here);
    };
    visit(root, []);
    const dims: { n: LoopNode; extent: number }[] = [];
    for (const n of path.filter((x) => x.kind === "inner")) {
      const extent = this.levelExtent(n);
      if (extent === undefined) return;
      dims.push({ n, extent });
    }
    const product = dims.reduce((p, d) => p * d.extent, 1);
    const allowed = max.reduce((p, v) => p * v, 1);
    if (product > allowed) {
      const list = dims.map((d) => `"${iteratorOf(d.n.f)}" ${d.extent}`).join(" x ");
      throw this.host.err(
        `[@inner] loop dimensions larger than allowed by [@max_inner_dims]: the [@inner] loops ${list} run ${product} work-items, ` +
          `@max_inner_dims(${max.join(", ")}) allows ${allowed}`,
        attr.pos, "@max_inner_dims extents",
      );
    }
  }

  /** The constant number of iterations of one level of an attributed loop, or undefined. */
  private levelExtent(n: LoopNode): number | undefined {
    const e = this.host.extents.get(n.f);
    const okl = n.f.okl;
    if (!e || !okl) return undefined;
    if (okl.kind !== "tile") return e.count;
    const size = evalConst(okl.size, this.host.lookup);
    if (size === undefined || size <= 0) return undefined;
    // In-tile loop: ceil(T / step) iterations (OKL.md §5); block loop: one per tile, ceil(count / T).
    if (n.tileLevel === 1) return e.step === undefined ? undefined : Math.ceil(size / e.step);
    return e.count === undefined ? undefined : Math.ceil(e.count / size);
  }

  private checkRoot(root: LoopNode): void {
    const rule = "loop structure";
    if (root.kind === "inner") throw this.host.err("Cannot have [@inner] loop outside of an [@outer] loop", root.f.pos, rule);
    // Nesting order and depth limits along every path.
    const path = (n: LoopNode, outers: number, inners: number) => {
      if (n.kind === "outer" && inners > 0) throw this.host.err("Cannot have [@outer] loop inside an [@inner] loop", n.f.pos, rule);
      const o = outers + (n.kind === "outer" ? 1 : 0);
      const i = inners + (n.kind === "inner" ? 1 : 0);
      if (o > 3) throw this.host.err("More than 3 nested [@outer] loops", n.f.pos, rule);
      if (i > 3) throw this.host.err("More than 3 nested [@inner] loops", n.f.pos, rule);
      if (n.children.length === 0 && i === 0) throw this.host.err("Missing an [@inner] loop (every [@outer] loop needs an [@inner] loop inside)", n.f.pos, rule);
      for (const c of n.children) path(c, o, i);
    };
    path(root, 0, 0);
    // Every level has one loop kind and every leaf is at the same depth.
    let level: LoopNode[] = [root];
    let depth = 1;
    let leafDepth: number | undefined;
    const firstLeaf = (n: LoopNode, d: number): number => (n.children.length ? firstLeaf(n.children[0]!, d + 1) : d);
    leafDepth = firstLeaf(root, 1);
    while (level.length) {
      const expected = level[0]!.kind;
      for (const n of level) {
        if (n.kind !== expected) throw this.host.err(`Loop type mismatch: Expected [@${expected}], received [@${n.kind}]`, n.f.pos, rule);
        if (depth > leafDepth) throw this.host.err(`Mismatch of [@${n.kind}] loops: didn't expect this loop (other branches have ${leafDepth} levels of attributed loops)`, n.f.pos, rule);
        if (n.children.length === 0 && depth < leafDepth) {
          throw this.host.err(`Mismatch of [@${n.kind}] loops: expected loop inside (other branches have ${leafDepth} levels of attributed loops)`, n.f.pos, rule);
        }
      }
      level = level.flatMap((n) => n.children);
      depth++;
    }
  }
}
