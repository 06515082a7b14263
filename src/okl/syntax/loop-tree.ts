/**
 * The attributed loops of a kernel as a tree of levels (a `@tile(T, @outer, @inner)` gives two),
 * with OCCA's floating of nested tiles applied: the validator checks nesting, axes and extents on
 * it, and the lowering numbers axes by it.
 *
 * Nested tiles. OCCA expands `@tile(T, @outer, @inner)` into a block loop and an in-tile loop, then
 * floats the block loop up (its `tile::floatOuterLoopUp`): walking up from it through statements
 * that have exactly one child and are not `@outer`, it moves below the first `@outer` it meets, so
 *
 *   for (y; @tile(8, @outer, @inner)) for (x; @tile(16, @outer, @inner)) body
 *
 * is `@outer y-block { @outer x-block { @inner y { @inner x { body } } } }` (OKL.md §5). The
 * iterations run are the same set (the block loop's bounds never mention the loops it crosses,
 * `floatingCrossesIterator` refuses the case where they would); only the tree the rules see
 * changes. Where a statement beside the nested tile stands in the way, nothing floats and the
 * @outer-inside-@inner rule applies, as in OCCA.
 */
import type { Expr, For, OklLoopLevel, Stmt } from "./ast.js";
import { stmtChildren, walkExpr } from "./walk.js";

export type LoopKind = "outer" | "inner";

/** One level of the attributed-loop tree (a `@tile(T, @outer, @inner)` gives two). */
export interface LoopNode {
  readonly kind: LoopKind;
  readonly f: For;
  /** The axis written in the attribute (`@inner(1)`), if any. */
  readonly explicitAxis: number | undefined;
  /** Which level of a @tile this is (0: block loop, 1: in-tile loop); 0 for a plain loop. */
  readonly tileLevel: 0 | 1;
  readonly children: LoopNode[];
  /**
   * The statements from the enclosing level's body down to this loop each have one child (OCCA's
   * condition for floating a tile's block loop up past them).
   */
  readonly alone: boolean;
  /** A tile's @outer block loop moved above the enclosing @inner levels it was written in. */
  readonly floated?: readonly For[];
}

/** The attributed loops of `stmts` as a forest (regular statements are transparent). */
export function collectLoops(stmts: readonly Stmt[]): LoopNode[] {
  const out: LoopNode[] = [];
  const walk = (s: Stmt, alone: boolean): void => {
    if (s.kind === "for" && s.okl) {
      const children = collectLoops([s.body]);
      if (s.okl.kind === "tile" && !s.okl.outer && !s.okl.inner) {
        out.push(...children);
        return;
      }
      const okl = s.okl;
      // Each level with its explicit axis and its place in a @tile (0: block loop, 1: in-tile loop).
      const parts: [OklLoopLevel, 0 | 1][] =
        okl.kind === "tile" ? ([[okl.outer, 0], [okl.inner, 1]] as const).filter((p): p is [OklLoopLevel, 0 | 1] => p[0] !== undefined) : [[okl, 0]];
      let node: LoopNode | undefined;
      for (let k = parts.length - 1; k >= 0; k--) {
        const [lv, tileLevel] = parts[k]!;
        const made: LoopNode = { kind: lv.kind, f: s, explicitAxis: lv.axis, tileLevel, children: node ? [node] : children, alone: k > 0 || alone };
        node = floatUp(made);
      }
      out.push(node!);
      return;
    }
    const cs = stmtChildren(s);
    for (const c of cs) walk(c, alone && cs.length === 1 && !(s.kind === "compound" && s.items.some((x) => x.kind === "declaration")));
  };
  for (const s of stmts) walk(s, stmts.length === 1);
  return out;
}

/**
 * `n` with a tile's @outer block loop lifted above it, when `n` is an @inner level whose one
 * child is such a block loop standing alone in its body (OCCA's floatOuterLoopUp, one step; the
 * caller repeats it level by level as the tree is built bottom-up).
 */
function floatUp(n: LoopNode): LoopNode {
  const c = n.children.length === 1 ? n.children[0]! : undefined;
  if (n.kind !== "inner" || !c || c.kind !== "outer" || c.tileLevel !== 0 || c.f.okl?.kind !== "tile" || !c.alone) return n;
  // What floated above `c` before now sits under `n` and may float further (three nested tiles:
  // every block loop ends above every in-tile loop), alone where it was alone under `c`.
  const below = floatUp({ ...n, children: c.children.map((x) => ({ ...x, alone: x.alone && c.alone })) });
  return { ...c, alone: n.alone, floated: [...(c.floated ?? []), n.f], children: [below] };
}

/** The iterator a floated block loop's header mentions among those of the loops it crossed, if any. */
export function floatingCrossesIterator(n: LoopNode): string | undefined {
  if (!n.floated) return undefined;
  const crossed = new Set(n.floated.map(iteratorOf));
  const f = n.f;
  const header: (Expr | undefined)[] = [f.cond, f.update, ...(f.init === undefined ? [] : f.init.kind === "declaration" ? f.init.declarators.map((d) => d.init) : [f.init])];
  let hit: string | undefined;
  for (const e of header) {
    if (!e) continue;
    walkExpr(e, (x) => {
      if (x.kind === "ident" && crossed.has(x.name) && x.name !== iteratorOf(f)) hit ??= x.name;
    });
  }
  return hit;
}

/** Same-kind levels strictly below `n` along its deepest path: OCCA's automatic axis (OKL.md §3.3). */
export function levelsBelow(n: LoopNode, kind: LoopKind): number {
  return Math.max(0, ...n.children.map((c) => (c.kind === kind ? 1 : 0) + levelsBelow(c, kind)));
}

/** The iterator name of a loop, for messages. */
export function iteratorOf(f: For): string {
  return f.init?.kind === "declaration" ? (f.init.declarators[0]?.name ?? "?") : "?";
}
