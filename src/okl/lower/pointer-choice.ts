/**
 * Local pointers chosen at run time among a finite set of targets (gslib's findpts: `switch (n) {
 * case 2: z = gllz_02; break; … default: z = data; w = z + n; }`): each way through the switch (or
 * if/else chain, or `?:`) gives every pointer it assigns one target (an array or a file-scope table
 * with an offset); the way taken is snapshot once, where the pointer is assigned, and every read
 * through the pointer selects its target by that snapshot. Only the selected target's element is
 * read (the IR's conditional expression evaluates one branch on every target, as C's `?:` does).
 *
 *   switch (n) { case 2: z = t2; break; default: z = data; }
 *   // which = n == 2 ? 0 : 1;   z[j]  ->  if(which == 0, t2[j], data[j])
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding } from "./bindings.js";
import { sharedArrays, wayKey } from "./chosen-regions.js";
import { switchSegments } from "./switch.js";

/** One way through a switch or an if/else chain: when it is taken, and the pointer assignments it makes, in order. */
export interface PointerArm {
  /** For a switch: the labels of the segment entered (undefined: `default`); for an if/else chain: the condition (undefined: the final `else`). */
  readonly labels: readonly (A.Expr | undefined)[];
  readonly assigns: readonly A.Assign[];
}

/** The ways through `s`, or undefined where `s` assigns none of the pointers `tracked` accepts. */
export interface PointerArms {
  readonly kind: "switch" | "if";
  readonly arms: readonly PointerArm[];
}

type Fail = (detail: string, pos: A.Pos) => never;

/**
 * The pointer assignments of a switch or an if/else chain that assigns local pointers of the block
 * (`tracked`), per way through it; undefined where it assigns none. Fails where it also holds other
 * statements: one of them could run under a condition the pointers' snapshot does not reproduce.
 */
export function pointerArms(s: A.Switch | A.If, tracked: (name: string) => boolean, fail: Fail): PointerArms | undefined {
  if (!assignsTracked(s, tracked)) return undefined;
  const what = s.kind === "switch" ? "a switch" : "an if/else chain";
  const flat = (st: A.Stmt, out: (A.Assign | "break")[]): void => {
    switch (st.kind) {
      case "empty": return;
      case "compound": for (const x of st.items) flat(x, out); return;
      case "break":
        if (s.kind === "switch") return void out.push("break");
        break;
      case "expr":
        if (st.expr.kind === "assign" && st.expr.op === "=" && st.expr.target.kind === "ident" && tracked(st.expr.target.name)) return void out.push(st.expr);
        break;
      default: break;
    }
    const names = [...namesAssigned(s, tracked)].map((n) => `"${n}"`).join(", ");
    fail(`${what} that assigns local pointer ${names} may hold only assignments of those pointers (\`p = a;\`, \`p = a + k;\`)${s.kind === "switch" ? " and `break`" : ""}: `
      + `Loom takes one snapshot of the way taken through it and reads each pointer's target by it; move other statements out of it`, st.pos);
  };
  if (s.kind === "if") {
    const arms: PointerArm[] = [];
    let st: A.Stmt | undefined = s;
    while (st !== undefined) {
      if (st.kind !== "if") {
        const out: (A.Assign | "break")[] = [];
        flat(st, out);
        arms.push({ labels: [undefined], assigns: out as A.Assign[] });
        return { kind: "if", arms };
      }
      const out: (A.Assign | "break")[] = [];
      flat(st.then, out);
      arms.push({ labels: [st.cond], assigns: out as A.Assign[] });
      st = st.else;
    }
    arms.push({ labels: [undefined], assigns: [] }); // no final else: the pointers keep their targets
    return { kind: "if", arms };
  }
  const segments = switchSegments(s, fail).map((g) => {
    const out: (A.Assign | "break")[] = [];
    for (const x of g.stmts) flat(x, out);
    return { labels: g.labels, items: out };
  });
  // Entering segment k runs its assignments and falls through the next ones until a break.
  const arms: PointerArm[] = segments.map((g, k) => {
    const assigns: A.Assign[] = [];
    for (let j = k; j < segments.length; j++) {
      const stop = segments[j]!.items.indexOf("break");
      assigns.push(...(segments[j]!.items.slice(0, stop < 0 ? undefined : stop) as A.Assign[]));
      if (stop >= 0) break;
    }
    return { labels: g.labels, assigns };
  });
  if (!segments.some((g) => g.labels.includes(undefined))) arms.push({ labels: [undefined], assigns: [] }); // no label matched, no default
  return { kind: "switch", arms };
}

/** Whether `s` assigns (with `=`) a name `tracked` accepts, at any depth. */
function assignsTracked(s: A.Stmt, tracked: (name: string) => boolean): boolean {
  return namesAssigned(s, tracked).size > 0;
}

function namesAssigned(s: A.Stmt, tracked: (name: string) => boolean): Set<string> {
  const out = new Set<string>();
  const visit = (st: A.Stmt | undefined): void => {
    if (st === undefined) return;
    switch (st.kind) {
      case "compound": for (const x of st.items) visit(x); return;
      case "if": visit(st.then); visit(st.else); return;
      case "switch": visit(st.body); return;
      case "case": visit(st.body); return;
      case "expr":
        if (st.expr.kind === "assign" && st.expr.target.kind === "ident" && tracked(st.expr.target.name)) out.add(st.expr.target.name);
        return;
      default: return;
    }
  };
  visit(s);
  return out;
}

/**
 * The index of the way taken (0, 1, …; the last way where no other is): `cond(k)` is the lowered
 * condition of way k (undefined for the last one, which catches the rest).
 */
export function wayTaken(conds: readonly (Expr | undefined)[]): Expr {
  let out: Expr = c(conds.length - 1);
  for (let k = conds.length - 2; k >= 0; k--) out = { kind: "if", cond: conds[k]!, then: c(k), else: out };
  return out;
}

/** The pointer `name` after a choice among `targets` (per way) by `which`: one binding where every way gives the same. */
export function choiceOf(name: string, which: Expr, targets: readonly Binding[]): Binding {
  const last = targets[targets.length - 1]!;
  if (targets.every((t) => t === last)) return last;
  const folded = foldInt(which);
  if (folded !== undefined) return targets[Math.min(Math.max(folded, 0), targets.length - 1)]!;
  const b: Extract<Binding, { kind: "choice" }> = {
    kind: "choice", name,
    options: targets.slice(0, -1).map((target, k) => ({ when: { kind: "compare", op: "==", left: which, right: c(k) }, target })),
    otherwise: last,
  };
  // Regions of one array (`c ? q : q + n`): each target keeps its region through later offsets (`p = z + k`).
  return sharedArrays(choiceWays(b).map((w) => w.target as { name?: string; offset?: Expr })).size > 0 ? mapChoice(b, withRegion) : b;
}

/** `t` (and each target of a chosen `t`) tagged with the region it starts at. */
function withRegion(t: Binding): Binding {
  if (t.kind === "choice") return mapChoice(t, withRegion);
  return (t.kind === "array" || t.kind === "temp") && t.region === undefined ? { ...t, region: wayKey(t) } : t;
}

/**
 * The leaves of a chain of conditional pointer expressions (`c1 ? a : c2 ? b : d`, nested either
 * way) in order, and the way taken as one IR expression of their conditions (`lower`), evaluated
 * lazily as C's `?:` is.
 */
export function conditionalWays(e: A.Expr, lower: (x: A.Expr) => Expr): { readonly leaves: readonly A.Expr[]; readonly which: Expr } {
  const leaves: A.Expr[] = [];
  const walk = (x: A.Expr): Expr => {
    if (x.kind !== "conditional") {
      leaves.push(x);
      return c(leaves.length - 1);
    }
    const cond = lower(x.cond);
    const then = walk(x.then);
    return { kind: "if", cond, then, else: walk(x.else) };
  };
  const which = walk(e);
  return { leaves, which };
}

/** A read through a chosen pointer: `read(target)` of the first option that holds, as a chain of conditional expressions. */
export function choiceRead(b: Extract<Binding, { kind: "choice" }>, read: (target: Binding) => Expr): Expr {
  let out = read(b.otherwise);
  for (let k = b.options.length - 1; k >= 0; k--) out = { kind: "if", cond: b.options[k]!.when, then: read(b.options[k]!.target), else: out };
  return out;
}

/**
 * A read through a chosen pointer as choiceRead, with each read of a target that shares its array
 * with another target at a different offset (ping-pong regions, chosen-regions.ts) passed to `note`;
 * nested choices count the ways of the outermost.
 */
export function chosenRead(
  b: Extract<Binding, { kind: "choice" }>, read: (target: Binding) => Expr, note: (place: Expr, array: string, target: Binding) => void,
  shared = sharedArrays(choiceWays(b).map((w) => w.target as { name?: string; offset?: Expr })),
): Expr {
  return choiceRead(b, (t) => {
    if (t.kind === "choice") return chosenRead(t, read, note, shared);
    const x = read(t);
    const name = (t as { name?: string }).name;
    if (name !== undefined && shared.has(name)) note(x, name, t);
    return x;
  });
}

/**
 * The ways of a chosen pointer as one flat list: each target with the conditions under which it is
 * the one chosen (the first option whose `when` holds; nested choices flattened), for writes
 * through it, one conditional store per target. Exactly one way's conditions hold.
 *
 *   choiceWays(z)   // [{ preds: [way == 0], target: a }, { preds: [!(way == 0)], target: b }]
 */
export function choiceWays(b: Extract<Binding, { kind: "choice" }>): { readonly preds: readonly Expr[]; readonly target: Binding }[] {
  const out: { preds: readonly Expr[]; target: Binding }[] = [];
  const add = (preds: readonly Expr[], t: Binding): void => {
    if (t.kind === "choice") for (const w of choiceWays(t)) out.push({ preds: [...preds, ...w.preds], target: w.target });
    else out.push({ preds, target: t });
  };
  const not: Expr[] = [];
  for (const o of b.options) {
    add([...not, o.when], o.target);
    not.push({ kind: "not", operand: o.when });
  }
  add(not, b.otherwise);
  return out;
}

/** Each target of a chosen pointer moved by `f` (an offset `p + k` of the pointer). */
export function mapChoice(b: Extract<Binding, { kind: "choice" }>, f: (target: Binding) => Binding): Binding {
  return { ...b, options: b.options.map((o) => ({ when: o.when, target: f(o.target) })), otherwise: f(b.otherwise) };
}

/**
 * The value of an integer IR expression of constants (casts to integer types, comparisons,
 * conditionals, logical operators included), or undefined.
 */
export function foldInt(e: Expr): number | undefined {
  switch (e.kind) {
    case "const": return e.isFloat || !Number.isInteger(e.value) ? undefined : e.value;
    case "cast": {
      // Only values every integer type holds as they are (no wrap-around to reason about).
      const v = e.dtype.startsWith("int") || e.dtype.startsWith("uint") ? foldInt(e.value) : undefined;
      return v !== undefined && v >= 0 && v < 128 ? v : undefined;
    }
    case "neg": { const v = foldInt(e.operand); return v === undefined ? undefined : -v; }
    case "not": { const v = foldInt(e.operand); return v === undefined ? undefined : v ? 0 : 1; }
    case "if": {
      const v = foldInt(e.cond);
      return v === undefined ? undefined : foldInt(v ? e.then : e.else);
    }
    case "logical": {
      const a = foldInt(e.left);
      if (a === undefined) return undefined;
      if (e.op === "and" && !a) return 0;
      if (e.op === "or" && a) return 1;
      const b = foldInt(e.right);
      return b === undefined ? undefined : b ? 1 : 0;
    }
    case "compare": case "arith": {
      const a = foldInt(e.left);
      const b = foldInt(e.right);
      if (a === undefined || b === undefined) return undefined;
      switch (e.op) {
        case "==": return +(a === b);
        case "!=": return +(a !== b);
        case "<": return +(a < b);
        case "<=": return +(a <= b);
        case ">": return +(a > b);
        case ">=": return +(a >= b);
        case "+": return a + b;
        case "-": return a - b;
        case "*": return a * b;
        default: return undefined;
      }
    }
    default: return undefined;
  }
}
