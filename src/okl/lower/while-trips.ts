/**
 * `while` and `do … while` loops of an @outer body whose trips hold @inner loops or barriers (an
 * iterative smoother sweeping a block until a residual reduced through @shared memory is small,
 * capped by `maxIter`). Every work-item of a group runs such a loop's trips together, so it becomes
 * a sequential iname of the kernel's domain, which needs a bound on its trips before it runs: the
 * condition's *counter*, a conjunct `it CMP E` (`it < maxIter`, `E > it`) whose `it` is a local
 * integer that the body changes exactly once per trip, by a top-level `++it`, `it++`, `it += d`
 * (`--it`, `it -= d` for `>`/`>=`; d a positive constant) that no `continue` skips, and whose E the
 * body does not change. Then trip j starts with `it = it0 ± j*d`, so the loop runs at most
 *
 *   n = tripCount(it0, E, d, CMP)   (while)        max(1, n)   (do-while: its first trip is free)
 *
 * trips, and at trip j < n the counter's conjunct holds: the rest of the condition decides alone.
 * The loop is then `for (t = 0; t < cap; ++t) { if (!(rest)) break; body }` (do-while: `if (t > 0
 * && !(rest)) break;`, the condition C checks after trip t-1, before anything else changes), with
 * loop-jumps.ts's flag for `break` (kernel-lockstep.ts lowers it; the rest must be uniform).
 * A counter halved each trip instead (`while (s > 0) { …; s >>= 1; }`, `s /= 2`: a tree reduction's
 * stride) bounds the trips by its width (geometric.ts, whileGeometricCount), the whole condition
 * then deciding each trip as `rest` does; one doubled each trip (`s <<= 1`, `s *= 2`: a scan's offset)
 * from a start and to a bound the host knows has its trips counted there (whileGrowingTrip); C's
 * truth test of a halved stride, `while (s)` or `s != 0`, is the counter's conjunct too (whileTruthyTrips).
 *
 *   tripCounter(ast("while (s_res[0] > tol && it < maxIter) { …; ++it; }"), …)
 *   // { name: "it", cmp: "<", end: maxIter, amount: 1, increasing: true, rest: s_res[0] > tol }
 */
import type * as A from "../syntax/ast.js";
import { walkAst } from "./ast-queries.js";
import type { GeometricUpdate } from "./geometric.js";
import type { Cmp } from "./trip.js";

/** The counter of a loop's condition (see the module comment). */
export interface TripCounter {
  readonly name: string;
  readonly cmp: Cmp;
  readonly end: A.Expr;
  /** What one trip adds to (increasing) or takes from the counter: a positive constant. */
  readonly amount: number;
  readonly increasing: boolean;
  /**
   * A shift, product or quotient by a constant (`s >>= 1`, `s /= 2`: a tree reduction's stride) in
   * place of `it ± d`: the trips are bounded by the type's width (geometric.ts), `amount` is k.
   */
  readonly geometric?: GeometricUpdate;
  /** The condition without the counter's conjunct; undefined where it was the whole condition. */
  readonly rest: A.Expr | undefined;
  /** The conjunct is C's truth test of the counter, `s` or `s != 0` (then `cmp` is ">" and `end` 0): a stride halved to 0. */
  readonly truthy?: true;
}

/** Why a loop has no counter, and where. */
export interface NoCounter {
  readonly refuse: string;
  readonly pos: A.Pos;
}

/** The `&&` conjuncts of `e`, left to right. */
export function conjuncts(e: A.Expr): A.Expr[] {
  return e.kind === "binary" && e.op === "&&" ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

/** `xs` joined by `&&` (left to right, as C evaluates them); undefined for none. */
export function conjoin(xs: readonly A.Expr[]): A.Expr | undefined {
  return xs.reduce<A.Expr | undefined>((l, r) => (l === undefined ? r : { kind: "binary", op: "&&", left: l, right: r, pos: l.pos }), undefined);
}

/** The names `s` assigns, increments, declares or takes the address of, each with its first place. */
export function changedNames(s: A.Stmt | A.Expr): Map<string, A.Pos> {
  const out = new Map<string, A.Pos>();
  const root = (e: A.Expr): A.Expr => (e.kind === "index" || e.kind === "member" ? root(e.target) : e);
  const note = (e: A.Expr) => {
    const r = root(e);
    if (r.kind === "ident" && !out.has(r.name)) out.set(r.name, r.pos);
  };
  walkAst(s, (n) => {
    if (n.kind === "assign") note(n.target);
    else if ((n.kind === "unary" && (n.op === "++" || n.op === "--" || n.op === "&")) || (n.kind === "postfix")) note(n.operand);
    else if (n.kind === "declaration") for (const d of n.declarators) if (!out.has(d.name)) out.set(d.name, d.pos);
  });
  return out;
}

/** Whether `s` holds a `continue` of the loop it is in (not of loops inside it). */
export function ownContinue(s: A.Stmt): boolean {
  switch (s.kind) {
    case "continue": return true;
    case "compound": return s.items.some(ownContinue);
    case "if": return ownContinue(s.then) || (s.else !== undefined && ownContinue(s.else));
    case "switch": case "case": return ownContinue(s.body);
    default: return false;
  }
}

const FLIP: Readonly<Record<string, Cmp>> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

const GEOMETRIC: Readonly<Record<string, GeometricUpdate["op"]>> = { "<<=": "<<", ">>=": ">>", "*=": "*", "/=": "/" };

/**
 * `s`'s update of `name` by a constant per trip (`++it`, `it--`, `it += 2`, `it = it - 1`; or a
 * shift, product or quotient, `s >>= 1`, `s = s / 2`), as `[increasing, amount, geometric]`;
 * undefined where `s` is no such statement.
 */
function counterUpdate(s: A.Stmt, name: string, constOf: (e: A.Expr) => number | undefined): [boolean, number, GeometricUpdate?] | undefined {
  if (s.kind !== "expr") return undefined;
  const e = s.expr;
  const isIt = (x: A.Expr) => x.kind === "ident" && x.name === name;
  if ((e.kind === "unary" || e.kind === "postfix") && (e.op === "++" || e.op === "--") && isIt(e.operand)) return [e.op === "++", 1];
  if (e.kind !== "assign" || !isIt(e.target)) return undefined;
  let op: string | undefined;
  let amount: A.Expr | undefined;
  if (e.op === "+=" || e.op === "-=" || GEOMETRIC[e.op]) [op, amount] = [e.op.slice(0, -1), e.value];
  else if (e.op === "=" && e.value.kind === "binary" && (e.value.op === "+" || e.value.op === "-" || GEOMETRIC[`${e.value.op}=`]) && isIt(e.value.left)) [op, amount] = [e.value.op, e.value.right];
  const k = amount === undefined ? undefined : constOf(amount);
  if (op === undefined || k === undefined) return undefined;
  const g = GEOMETRIC[`${op}=`];
  if (g) return [g === "<<" || g === "*", k, { op: g, k }];
  return Number.isInteger(k) && k > 0 ? [op === "+", k] : undefined;
}

/**
 * The counter of loop `s` (see the module comment), or why it has none. `isCounter`: whether a
 * name is a local integer variable declared outside the loop; `constOf`: a compile-time value.
 */
export function tripCounter(s: A.While | A.DoWhile, isCounter: (name: string) => boolean, constOf: (e: A.Expr) => number | undefined): TripCounter | NoCounter {
  const parts = conjuncts(s.cond);
  const items = s.body.kind === "compound" ? s.body.items : [s.body];
  const changed = changedNames(s.body);
  const inCond = changedNames(s.cond);
  let why: NoCounter | undefined;
  const reject = (refuse: string, pos: A.Pos) => void (why ??= { refuse, pos });
  for (const [k, part] of parts.entries()) {
    const test = counterTest(part, isCounter, constOf);
    if (!test) continue;
    const { name, cmp, end, truthy } = test;
    const writes = items.flatMap((x, at) => (changedNames(x).has(name) ? [at] : []));
    const update = writes.length === 1 ? counterUpdate(items[writes[0]!]!, name, constOf) : undefined;
    if (truthy && update && !(update[2]?.op === ">>" || update[2]?.op === "/")) {
      reject(`its condition tests "${name}" against 0 (C's \`while (${name})\`), which bounds the trips only where the counter is halved each trip to 0 (\`${name} >>= k;\`, \`${name} /= k;\`); write the comparison, \`${name} < E\` or \`${name} > E\``, part.pos);
      continue;
    }
    if (!update) {
      const at = changed.get(name);
      reject(`the counter "${name}" of its condition must change exactly once per trip, by one statement \`++${name};\`, \`${name}++;\`, \`${name} += d;\` (or \`--\`, \`-=\`; d a positive constant), or \`${name} >>= k;\`, \`${name} /= k;\`, \`${name} <<= k;\`, \`${name} *= k;\` (k a constant) directly in the loop's body, not inside an if, a block or a loop${writes.length > 1 ? ` (it changes in ${writes.length} statements)` : at === undefined ? " (the body never changes it)" : ""}`, at ?? part.pos);
      continue;
    }
    const [increasing, amount, geometric] = update;
    if (increasing !== (cmp === "<" || cmp === "<=")) {
      reject(`its counter "${name}" ${increasing ? "increases" : "decreases"} but the condition is "${name} ${cmp} …", which that never ends (use ${increasing ? "< or <=" : "> or >="})`, part.pos);
      continue;
    }
    const skip = items.slice(0, writes[0]!).find(ownContinue);
    if (skip) {
      reject(`a "continue" before the update of its counter "${name}" skips it, so the counter bounds no trip count (update the counter first)`, skip.pos);
      continue;
    }
    const moved = [...changedNames(end).keys(), ...identsOf(end)].find((n) => changed.has(n) || inCond.has(n));
    if (moved !== undefined) {
      reject(`the bound of its counter "${name}" reads "${moved}", which the loop changes (the bound must stay the same for the whole loop)`, changed.get(moved) ?? inCond.get(moved) ?? end.pos);
      continue;
    }
    if (inCond.size > 0) {
      reject(`its condition changes "${[...inCond.keys()][0]}" (a condition with side effects is not supported: change it in the body)`, s.cond.pos);
      continue;
    }
    return { name, cmp, end, amount, increasing, ...(geometric ? { geometric } : {}), ...(truthy ? { truthy } : {}), rest: conjoin(parts.filter((_, j) => j !== k)) };
  }
  return why ?? {
    refuse: "its condition has no counter: Loom bounds the trips of such a loop before it runs, from a conjunct `it < E` (or <=, >, >=) of its condition whose `it` is a local integer the body changes once per trip (`++it;` in the loop's body) and whose E the loop does not change, as in `while (res > tol && it < maxIter)`, or a stride halved (doubled) each trip, `while (s > 0) { …; s >>= 1; }` (`while (s < n) { …; s <<= 1; }`)",
    pos: s.cond.pos,
  };
}

/**
 * The counter test conjunct `part` is: `it CMP E` or `E CMP it`, or C's truth test `it` / `it != 0` /
 * `0 != it` (`truthy`, as `it > 0` to the direction check: a counter halved to 0); undefined for others.
 */
function counterTest(part: A.Expr, isCounter: (name: string) => boolean, constOf: (e: A.Expr) => number | undefined): { name: string; cmp: Cmp; end: A.Expr; truthy?: true } | undefined {
  const counter = (e: A.Expr) => e.kind === "ident" && isCounter(e.name);
  const zero: A.Expr = { kind: "int", value: 0, text: "0", suffix: "", pos: part.pos };
  if (counter(part)) return { name: (part as A.Ident).name, cmp: ">", end: zero, truthy: true };
  if (part.kind !== "binary") return undefined;
  if (part.op === "!=") {
    const [it, other] = counter(part.left) ? [part.left, part.right] : [part.right, part.left];
    return counter(it) && constOf(other) === 0 ? { name: (it as A.Ident).name, cmp: ">", end: zero, truthy: true } : undefined;
  }
  if (!(part.op in FLIP)) return undefined;
  const left = counter(part.left);
  if (!left && !counter(part.right)) return undefined;
  return { name: ((left ? part.left : part.right) as A.Ident).name, cmp: left ? (part.op as Cmp) : FLIP[part.op]!, end: left ? part.right : part.left };
}

/** The identifiers `e` reads. */
function identsOf(e: A.Expr): string[] {
  const out: string[] = [];
  walkAst(e, (n) => {
    if (n.kind === "ident") out.push(n.name);
  });
  return out;
}
