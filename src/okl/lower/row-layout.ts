/**
 * Subscripts that run past a row of a multi-dimensional local array (`@shared double s_vgeo[2][12];
 * … s_vgeo[0][t]` with `t` up to 23, as libParanumal's geometric-factor prefetch writes it). C lays
 * the array out row-major and compilers (and OCCA, on every backend) take `s_vgeo[0][12]` as
 * `s_vgeo[1][0]`; C's standard calls it undefined. Loom keeps C's layout: where some access's
 * subscript after the first is not shown to stay within its extent, the array becomes one flat
 * row-major array (every access `a[i][j]` is `a[i*12 + j]`, the same element as in C), so the
 * interpreter and every target agree with what C compilers do. Each such access is a warning (an
 * OCCA leniency, an OklError under `warnings: "error"`).
 *
 * "Shown" means: a constant, or affine in inames and parameters with constant bounds over the
 * access's loops and affine `if`s (shapes.ts indexRange), or an interval of inames and private
 * scalars assigned from them (`k = ke % p_Nq`, index-ranges.ts). A subscript that reads memory or
 * a variable of an opaque block (a `while` loop's counter) cannot be shown, so its array is flat.
 *
 *   rowLayout(shell, insns, temps, ex.rows, warn)   // s_vgeo: shape [24], s_vgeo[0][t] -> s_vgeo[0*12 + t]
 */
import { c, mapExpr, type Expr, type Instruction, type Kernel, type Temporary, mapInsnExprs } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { affineGuards } from "./loop-rows.js";
import { IndexRanges } from "./index-ranges.js";
import { indexRange } from "./shapes.js";
import { add, mul } from "./structs.js";

/** A subscript of a multi-dimensional local array, where it is lowered (expressions.ts). */
export interface RowAccess {
  readonly array: string;
  /** The user's name of the array (for messages). */
  readonly label: string;
  readonly indices: readonly Expr[];
  readonly within: readonly string[];
  readonly preds: readonly Expr[];
  readonly pos: A.Pos;
}

/** Reports one access past a row (a warning, or the OklError of strict mode). */
export type RowWarn = (detail: string, pos: A.Pos) => void;

/**
 * `insns` and `temps` with every multi-dimensional temporary that some access may run past a row of
 * flattened to C's row-major layout (each such access reported through `warn`); the same lists
 * when there is none. `shell`: the kernel's domains (for the bounds of affine subscripts). `views`:
 * multi-dimensional temporaries also passed as flat pointers, flattened the same way without a warning.
 */
export function rowLayout(shell: Kernel, insns: Instruction[], temps: Temporary[], rows: readonly RowAccess[], warn: RowWarn, views: ReadonlySet<string> = new Set()): { insns: Instruction[]; temps: Temporary[] } {
  if (rows.length === 0 && views.size === 0) return { insns, temps };
  const extents = new Map<string, number[]>();
  for (const t of temps) {
    if (t.shape.length < 2) continue;
    const dims = t.shape.map((x) => (x.kind === "const" && Number.isInteger(x.value) ? x.value : undefined));
    if (dims.every((x) => x !== undefined)) extents.set(t.name, dims as number[]);
  }
  const flat = new Map<string, number[]>();
  const seen = new Set<string>();
  const memo = new Map<string, string>();
  const ranges = new IndexRanges(shell, insns);
  for (const a of rows) {
    const dims = extents.get(a.array);
    if (!dims) continue;
    for (let j = 1; j < dims.length; j++) {
      const reason = pastRow(shell, ranges, a, j, dims[j]!, memo);
      if (reason === undefined) continue;
      flat.set(a.array, dims);
      const at = `${a.pos.file ?? ""}:${a.pos.line}:${a.pos.column}`;
      if (seen.has(at)) break;
      seen.add(at);
      const n = dims.reduce((p, x) => p * x, 1);
      warn(
        `subscript ${j + 1} of array "${a.label}" (${dims.join(" × ")}) ${reason}; C lays the array out row-major and OCCA's backends read past a row into the next `
          + `(${a.label}[0][${dims[j]}] is ${a.label}[1][0]), so Loom reads "${a.label}" as one row-major array of ${n}, as C compilers do `
          + `(write the subscripts within their extents, or index a flat array, to keep to C's rules)`,
        a.pos,
      );
      break;
    }
  }
  // Arrays also read through a flat pointer (`f((double *) ve)`, flat-views.ts): row-major, no warning (C defines it).
  for (const v of views) {
    const dims = extents.get(v);
    if (dims) flat.set(v, dims);
  }
  if (flat.size === 0) return { insns, temps };
  const linear = (e: Expr): Expr => mapExpr(e, (n) => {
    if (n.kind !== "subscript") return undefined;
    const dims = flat.get(n.array);
    if (!dims || n.indices.length !== dims.length) return undefined;
    const indices = n.indices.map(linear);
    const index = indices.slice(1).reduce<Expr>((lin, x, k) => add(mul(lin, dims[k + 1]!), x), indices[0]!);
    return { ...n, indices: [index] };
  });
  return {
    insns: insns.map((i) => mapInsnExprs(i, linear)),
    temps: temps.map((t) => (flat.has(t.name) ? { ...t, shape: [c(flat.get(t.name)!.reduce((p, x) => p * x, 1))], dimTags: undefined } : t)),
  };
}

/** Why subscript `j` of access `a` may leave its row of `extent` (undefined: it stays within). */
function pastRow(shell: Kernel, ranges: IndexRanges, a: RowAccess, j: number, extent: number, memo: Map<string, string>): string | undefined {
  const index = a.indices[j]!;
  if (index.kind === "const") return Number.isInteger(index.value) && index.value >= 0 && index.value < extent ? undefined : `is ${index.value}, past its row of ${extent}`;
  const key = JSON.stringify([index, a.within, a.preds, extent]);
  let why = memo.get(key); // "": within the row
  if (why === undefined) {
    const r = indexRange(shell, a.within, index, affineGuards(a.preds)) ?? ranges.of(index);
    why = r === undefined ? `is not shown to stay within its row of ${extent} (0…${extent - 1})` : r.min >= 0 && r.max < extent ? "" : `runs from ${r.min} to ${r.max}, past its row of ${extent}`;
    memo.set(key, why);
  }
  return why === "" ? undefined : why;
}
