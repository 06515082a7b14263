/**
 * Writes through a local pointer chosen at run time (pointer-choice.ts: `double *z = c ? a : b;` or a
 * switch / if-else chain): `z[i] = v` is one store per target, each under the conditions that choose
 * it (exactly one holds), so every store the kernel can make is explicit in the IR (its dependencies
 * and footprints too). Accepted where every target is a writable array argument, local array or
 * scalar address of the pointer's element type, and the targets are distinct memory: two targets in
 * one array at different offsets (`c ? q : q + n`, ping-pong buffers) are accepted where the
 * kernel's loop bounds prove that no write through one offset reaches a cell addressed through
 * another (chosen-regions.ts, checked once the kernel is assembled), and refused otherwise.
 *
 *   double *z = c ? a : b;  z[i] = x;   ->   a[i] = x  if way == 0;   b[i] = x  if !(way == 0)
 */
import { walkExpr, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx } from "./bindings.js";
import { regionAccess, sharedArrays, type RegionAccess } from "./chosen-regions.js";
import { choiceOf, choiceWays, conditionalWays } from "./pointer-choice.js";

/** One store of a write: its place and the conditions (a conjunction) under which it is made. */
export interface WritePlace {
  readonly preds: readonly Expr[];
  readonly place: Expr;
}

/** What the lowering of a write through a chosen pointer needs of the expression lowering. */
export interface ChoiceWriteHost {
  expr(e: A.Expr, ctx: Ctx): Expr;
  /** Element `indices` of target `b` (as a read would address it). */
  element(b: Binding, indices: readonly Expr[], label: string, pos: A.Pos, ctx: Ctx): Expr;
  elementDtype(b: Binding): Dtype | undefined;
  /** Records an access through one of two targets in one array at different offsets, proven apart when the kernel is assembled (chosen-regions.ts). */
  region(r: RegionAccess): void;
  /** How many instructions precede the one being lowered. */
  emitted(): number;
  fail(detail: string, pos: A.Pos): never;
}

/**
 * The stores of an assignment to `e` when `e` is `z[i]`, `z[i][j]` or `*z` with `z` a chosen
 * pointer; undefined for every other target (an ordinary place, one store).
 */
export function choiceWrites(host: ChoiceWriteHost, e: A.Expr, ctx: Ctx): readonly WritePlace[] | undefined {
  let base = e;
  const idx: A.Expr[] = [];
  if (e.kind === "unary" && e.op === "*") base = e.operand;
  else while (base.kind === "index") {
    idx.unshift(base.index);
    base = base.target;
  }
  if (base === e || base.kind !== "ident") return undefined;
  const b = ctx.scope.get(base.name);
  if (b?.kind !== "choice") return undefined;
  const label = base.name;
  const ways = choiceWays(b);
  let dtype: Dtype | undefined;
  for (const w of ways) {
    const t = w.target;
    const why = unwritable(t);
    if (why) host.fail(`cannot write through pointer "${label}": one of the targets it is chosen among is ${why}; a pointer chosen at run time can be written where every target is a writable array argument, local array or scalar`, e.pos);
    const d = host.elementDtype(t);
    if (d !== undefined && dtype !== undefined && d !== dtype) host.fail(`cannot write through pointer "${label}": its targets hold different element types (${dtype} and ${d})`, e.pos);
    dtype ??= d;
  }
  const targets = ways.map((w) => w.target as { name?: string; offset?: Expr });
  const shared = sharedArrays(targets);
  const indices = idx.map((x) => host.expr(x, ctx));
  return ways.map((w, k) => {
    const place = host.element(w.target, indices, label, e.pos, ctx);
    const name = targets[k]!.name;
    // Ping-pong buffers in one array: accepted where the regions are proven apart (chosen-regions.ts).
    if (name !== undefined && shared.has(name)) host.region(regionAccess(place, name, targets[k]!, ctx.within, true, label, e.pos, host.emitted()));
    return { preds: w.preds, place };
  });
}

/** Why a write through `t` is refused, or undefined where it is a writable place. */
function unwritable(t: Binding): string | undefined {
  switch (t.kind) {
    case "array":
      if (t.extents) return `"${t.name}", an array field of a struct passed by value (a copy in C)`;
      return t.struct ? `"${t.name}", an array of structs` : undefined;
    case "temp": return t.struct ? `"${t.name}", an array of structs` : undefined;
    case "ref": return t.writable ? undefined : `"${t.name}", a const or an argument that C would not let the kernel write through a pointer`;
    case "table": return `"${t.name}", a file-scope constant table`;
    default: return `a ${t.kind} binding`;
  }
}

/**
 * `c ? a : b` passed where a pointer is expected (a device function's pointer parameter): a choice
 * among the bindings of its leaves by the way taken, which is evaluated again at each access
 * through the pointer. C evaluates it once, at the call; the two agree where the conditions read
 * only constants, value arguments and loop indices, which nothing in the call can change. Other
 * conditions (an array element, a local variable) are refused, naming the way that is supported:
 * a local pointer assigned the `?:` (kernel-pointers.ts takes its choice once).
 *
 *   f(n < 2 ? a : b)   // p[i] in f: if(n < 2, a[i], b[i])
 */
export function conditionalPointer(
  e: A.Expr, ctx: Ctx, what: string, lower: (x: A.Expr) => Expr, bind: (x: A.Expr) => Binding, fail: (detail: string, pos: A.Pos) => never,
): Binding {
  const ways = conditionalWays(e, lower);
  let bad: string | undefined;
  walkExpr(ways.which, (n) => {
    if (bad !== undefined) return;
    if (n.kind === "subscript" || n.kind === "linear") bad = `the array "${n.array}"`;
    else if (n.kind === "var" && !ctx.within.includes(n.name) && ctx.scope.get(n.name)?.kind !== "value") bad = `the variable "${n.name}"`;
  });
  if (bad !== undefined) {
    fail(`pointer "${what}" is passed as \`?:\` whose condition reads ${bad}, which the call could change before the pointer is used (C chooses once, at the call); assign the \`?:\` to a local pointer first (\`double *p = c ? a : b;\`, chosen once where it is assigned) and pass that`, e.pos);
  }
  return choiceOf(what, ways.which, ways.leaves.map(bind));
}
