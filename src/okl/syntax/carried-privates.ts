/**
 * A private scalar whose value one iteration of an attributed loop hands to another: declared outside
 * the `@outer`/`@inner` loop, assigned inside it, and read where this iteration has not assigned it yet
 * (in the loop, or after it). OCCA's serial and OpenMP modes run such a loop as a C loop, so the value
 * travels from one iteration to the next (`dfloat r = 0; for (n; @inner) { r += a[n]; out[n] = r; }` is
 * a running sum there); its GPU modes give each work-item its own copy, so the same read sees the value
 * from before the loop. No one meaning: the kernel is refused at the read (an OklError naming the
 * variable, its declaration and the loop), as `return` in a kernel is.
 *
 * The analysis is C's definite assignment over the kernel body, one state per candidate variable:
 * `tainted` once an attributed loop that assigns it is entered (at the start of each iteration) or
 * left, `clean` again after a plain assignment `v = …` (or `*(&v) = …`, what data-file macros give)
 * on every path. Conditional code (`if`, `?:`, `&&`, `||`, `switch`, loops that may run no trip)
 * keeps a variable tainted where one path leaves it tainted. Candidates are scalars (no array, no
 * pointer, no struct) that are neither `@shared` nor `@exclusive`; names resolve through block scopes.
 */
import type { Declaration, Expr, For, FunctionDef, Pos, Stmt, TranslationUnit } from "./ast.js";
import { exprChildren, stmtChildren } from "./walk.js";
import { evalConst } from "./consteval.js";
import { assignedIdent, collectAssigned, resolve, type Scopes, type Slot } from "./carried-assigned.js";

/** One finding: the read, what was read and why it has no single meaning. */
export interface CarriedRead {
  readonly detail: string;
  readonly at: Pos;
}

/** Per candidate: the attributed loop that last tainted it (undefined: clean). */
type State = Map<Slot, { readonly loop: For; readonly after: boolean } | undefined>;

/** The first carried read of each kernel of `unit`, in source order. */
export function carriedPrivateReads(unit: TranslationUnit): CarriedRead[] {
  const out: CarriedRead[] = [];
  const typedefMemory = memoryTypedefs(unit);
  const records = recordTypes(unit);
  for (const item of unit.items) {
    if (item.kind !== "function" || !item.isKernel || !item.body) continue;
    if (!(reach(item.body) & MAY_CARRY)) continue;
    const w = new Walker(typedefMemory, valueParams(item), records);
    w.stmt(item.body, [paramScope(item)], new Map());
    if (w.found) out.push(w.found);
  }
  return out;
}

const HOLDS_LOOP = 1, MAY_CARRY = 2;

/**
 * HOLDS_LOOP when `s` holds an attributed loop; MAY_CARRY when some statement of it declares a
 * possible candidate (a scalar neither `@shared` nor `@exclusive`: more than the walk takes) and
 * holds an attributed loop too. Without that no value can be carried (a kernel whose private
 * scalars are all declared inside its inner-most attributed loops, the common shape), and the
 * walks over every expression are skipped: one walk over the statements instead.
 */
function reach(s: Stmt): number {
  let r = s.kind === "for" && isAttributed(s) ? HOLDS_LOOP : 0;
  let declares = s.kind === "for" && !isAttributed(s) && s.init?.kind === "declaration" && mayBeCandidate(s.init);
  for (const c of stmtChildren(s)) {
    if (c.kind === "declaration") declares ||= mayBeCandidate(c);
    else r |= reach(c);
  }
  return declares && r & HOLDS_LOOP ? r | MAY_CARRY : r;
}

/** Whether `d` may declare a candidate (Walker.declare's test without the typedefs and record types, which only take some away). */
function mayBeCandidate(d: Declaration): boolean {
  if (d.spec.storage.includes("typedef") || d.attributes.some((a) => a.name === "shared" || a.name === "exclusive")) return false;
  return d.declarators.some((x) => !x.okl.shared && !x.okl.exclusive && x.pointers.length === 0 && x.arrayDims.length === 0 && !x.reference);
}

/** Names of file-level typedefs that carry `@shared` or `@exclusive`. */
function memoryTypedefs(unit: TranslationUnit): Set<string> {
  const out = new Set<string>();
  for (const item of unit.items) {
    if (item.kind === "declaration") addMemoryTypedefs(item, out);
  }
  return out;
}

/**
 * Struct and class names of the file (tags and typedefs): a record filled field by field is never
 * assigned as a whole, so C's definite assignment cannot follow it; records are not judged.
 */
function recordTypes(unit: TranslationUnit): Set<string> {
  const out = new Set<string>();
  for (const item of unit.items) {
    if (item.kind !== "declaration" || item.spec.base.kind !== "struct") continue;
    if (item.spec.base.name) out.add(item.spec.base.name);
    if (item.spec.storage.includes("typedef")) for (const d of item.declarators) out.add(d.name);
  }
  return out;
}

function addMemoryTypedefs(item: Declaration, out: Set<string>): void {
  if (!item.spec.storage.includes("typedef")) return;
  const attr = item.attributes.some((a) => a.name === "shared" || a.name === "exclusive");
  for (const d of item.declarators) if (attr || d.okl.shared || d.okl.exclusive) out.add(d.name);
}

function paramScope(f: FunctionDef): Map<string, Slot | null> {
  const m = new Map<string, Slot | null>();
  for (const p of f.params) if (p.declarator.name) m.set(p.declarator.name, null);
  return m;
}

const isAttributed = (f: For): boolean => f.okl !== undefined;

/** The kernel's scalar arguments (what a launch can size a work-group by). */
function valueParams(f: FunctionDef): Set<string> {
  return new Set(f.params.filter((p) => p.declarator.pointers.length === 0 && p.declarator.arrayDims.length === 0).map((p) => p.declarator.name));
}

/** Whether `s` holds a `@barrier` or declares `@shared` memory (the lowering then keeps every @inner loop as work-items). */
function syncs(s: Stmt): boolean {
  if (s.kind === "barrier") return true;
  if (s.kind === "declaration" && (s.attributes.some((a) => a.name === "shared") || s.declarators.some((d) => d.okl.shared))) return true;
  if (s.kind === "for" && s.init?.kind === "declaration" && syncs(s.init)) return true;
  return stmtChildren(s).some(syncs);
}

/** Whether two expressions are written alike (names, literals and operators). */
function sameExpr(a: Expr, b: Expr): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "ident" && b.kind === "ident") return a.name === b.name;
  if (a.kind === "int" && b.kind === "int") return a.value === b.value;
  if (a.kind === "binary" && b.kind === "binary") return a.op === b.op && sameExpr(a.left, b.left) && sameExpr(a.right, b.right);
  return false;
}

class Walker {
  found: CarriedRead | undefined;
  /** > 0 while a loop body runs its first (silent) pass: reads are not reported. */
  private silent = 0;

  /** Whether the enclosing @outer loop's body synchronizes (a barrier or @shared memory). */
  private nestSyncs = false;

  constructor(private readonly memoryTypes: Set<string>, private readonly values: ReadonlySet<string>, private readonly records: ReadonlySet<string>) {}

  /**
   * Whether the lowering runs `f` as parallel work-items (kernel-loops.ts `workItems`): @outer and
   * @tile loops, and an @inner loop whose trip count is a constant or whose bounds read only the
   * kernel's scalar arguments, or any @inner loop of a nest that synchronizes. Another @inner loop
   * (`for (i = r_start; i < r_start + r_size; ++i; @inner)`) runs as a C loop in each work-item, with C's meaning.
   */
  private parallel(f: For): boolean {
    const o = f.okl!;
    if (o.kind !== "inner" || this.nestSyncs) return true;
    const it = f.init?.kind === "declaration" ? f.init.declarators[0] : undefined;
    const start = it?.init ?? (f.init?.kind === "assign" ? f.init.value : undefined);
    const end = f.cond?.kind === "binary" && ["<", "<=", ">", ">="].includes(f.cond.op) ? f.cond.right : undefined;
    if (!start || !end) return true;
    const none = (): undefined => undefined;
    if (evalConst(start, none) !== undefined && evalConst(end, none) !== undefined) return true;
    if (end.kind === "binary" && (end.op === "+" || end.op === "-") && sameExpr(end.left, start) && evalConst(end.right, none) !== undefined) return true;
    const launchable = (e: Expr): boolean => e.kind === "ident" ? this.values.has(e.name)
      : e.kind === "int" ? true
      : e.kind === "binary" && ["+", "-", "*"].includes(e.op) ? launchable(e.left) && launchable(e.right)
      : e.kind === "unary" && e.op === "-" ? launchable(e.operand) : false;
    return launchable(start) && launchable(end);
  }

  stmt(s: Stmt, scopes: Scopes, st: State): void {
    if (this.found) return;
    switch (s.kind) {
      case "declaration":
        return this.declare(s, scopes, st);
      case "compound": {
        scopes.push(new Map());
        for (const x of s.items) this.stmt(x, scopes, st);
        scopes.pop();
        return;
      }
      case "expr":
        return this.expr(s.expr, scopes, st);
      case "if": {
        this.expr(s.cond, scopes, st);
        const other = new Map(st);
        this.stmt(s.then, scopes, st);
        if (s.else) this.stmt(s.else, scopes, other);
        return merge(st, other);
      }
      case "for":
        return isAttributed(s) ? this.attributed(s, scopes, st) : this.loop(s, scopes, st);
      case "while":
      case "doWhile":
        return this.loop(s, scopes, st);
      case "switch": {
        this.expr(s.cond, scopes, st);
        const before = new Map(st);
        this.stmt(s.body, scopes, st);
        return merge(st, before);
      }
      default:
        for (const c of stmtChildren(s)) this.stmt(c, scopes, st);
    }
  }

  private declare(d: Declaration, scopes: Scopes, st: State): void {
    addMemoryTypedefs(d, this.memoryTypes);
    const base = d.spec.base;
    const memoryAll = d.attributes.some((a) => a.name === "shared" || a.name === "exclusive") ||
      (base.kind === "named" && this.memoryTypes.has(base.name));
    const record = base.kind === "struct" || (base.kind === "named" && this.records.has(base.name));
    const top = scopes[scopes.length - 1]!;
    for (const x of d.declarators) {
      for (const dim of x.arrayDims) if (dim) this.expr(dim, scopes, st);
      if (x.init) this.expr(x.init, scopes, st);
      const candidate = !d.spec.storage.includes("typedef") && !memoryAll && !record && !x.okl.shared && !x.okl.exclusive &&
        x.pointers.length === 0 && x.arrayDims.length === 0 && !x.reference;
      const slot: Slot | null = candidate ? { name: x.name, decl: x.pos } : null;
      top.set(x.name, slot);
      if (slot) st.set(slot, undefined);
    }
  }

  /** A C loop inside the kernel: 0 or more trips, each seeing what the previous one left. */
  private loop(s: Extract<Stmt, { kind: "for" | "while" | "doWhile" }>, scopes: Scopes, st: State): void {
    scopes.push(new Map());
    if (s.kind === "for" && s.init) {
      if (s.init.kind === "declaration") this.declare(s.init, scopes, st);
      else this.expr(s.init, scopes, st);
    }
    const before = new Map(st);
    const trip = (state: State): void => {
      if (s.kind !== "doWhile" && s.cond) this.expr(s.cond, scopes, state);
      this.stmt(s.body, scopes, state);
      if (s.kind === "for" && s.update) this.expr(s.update, scopes, state);
      if (s.kind === "doWhile") this.expr(s.cond, scopes, state);
    };
    // First pass silent: what one trip leaves; the second starts from either entry state. Each
    // slot's state after a trip is a constant or its state before (an assignment cleans it, an
    // attributed loop taints it, whatever other slots hold), so a trip from either entry state
    // leaves what one trip from the loop's entry does: a loop walked silently (inside another's
    // first pass) takes one trip, and nested loops cost their depth, not 2^depth walks.
    if (this.silent > 0) {
      trip(st);
    } else {
      const first = new Map(st);
      this.silent++;
      trip(first);
      this.silent--;
      merge(st, first);
      trip(st);
    }
    if (s.kind !== "doWhile") merge(st, before);
    scopes.pop();
  }

  /** An `@outer`/`@inner` (or `@tile`) loop: each iteration starts from what any other one may leave. */
  private attributed(f: For, scopes: Scopes, st: State): void {
    const outer = f.okl!.kind === "outer" || (f.okl!.kind === "tile" && f.okl!.outer?.kind === "outer");
    const saved = this.nestSyncs;
    if (outer) this.nestSyncs = syncs(f.body);
    if (!this.parallel(f)) {
      this.loop(f, scopes, st);
      this.nestSyncs = saved;
      return;
    }
    scopes.push(new Map());
    // The loop's own iterator is each iteration's: no candidate, whatever the body does with it.
    if (f.init?.kind === "declaration") {
      this.declare(f.init, scopes, st);
      for (const d of f.init.declarators) scopes[scopes.length - 1]!.set(d.name, null);
    } else if (f.init) this.expr(f.init, scopes, st);
    const iterator = f.init?.kind === "assign" ? assignedIdent(f.init.target) : undefined;
    if (iterator) scopes[scopes.length - 1]!.set(iterator, null);
    const assigned = new Set<Slot>(), varying = new Set<Slot>();
    const iterators = new Set<string>(f.init?.kind === "declaration" ? f.init.declarators.map((d) => d.name) : iterator ? [iterator] : []);
    collectAssigned(f.body, scopes, iterators, assigned, varying);
    for (const slot of assigned) st.set(slot, { loop: f, after: false });
    this.stmt(f.body, scopes, st);
    // After the loop: what the iterations may have left differently (one value for all is no taint).
    for (const slot of varying) st.set(slot, { loop: f, after: true });
    scopes.pop();
    this.nestSyncs = saved;
  }

  expr(e: Expr, scopes: Scopes, st: State): void {
    if (this.found) return;
    switch (e.kind) {
      case "ident":
        return this.read(e.name, e.pos, scopes, st);
      case "sizeof":
        return;
      case "assign": {
        const target = assignedIdent(e.target);
        this.expr(e.value, scopes, st);
        if (target && e.op === "=") {
          const slot = resolve(target, scopes);
          if (slot) st.set(slot, undefined);
          return;
        }
        // A compound assignment reads the variable first; element and member writes read the rest.
        this.expr(e.target, scopes, st);
        if (target) {
          const slot = resolve(target, scopes);
          if (slot) st.set(slot, undefined);
        }
        return;
      }
      case "conditional": {
        this.expr(e.cond, scopes, st);
        const other = new Map(st);
        this.expr(e.then, scopes, st);
        this.expr(e.else, scopes, other);
        return merge(st, other);
      }
      case "binary":
        if (e.op === "&&" || e.op === "||") {
          this.expr(e.left, scopes, st);
          const before = new Map(st);
          this.expr(e.right, scopes, st);
          return merge(st, before);
        }
        this.expr(e.left, scopes, st);
        return this.expr(e.right, scopes, st);
      // The common nodes without an array of children (exprChildren's order).
      case "index":
        this.expr(e.target, scopes, st);
        return this.expr(e.index, scopes, st);
      case "unary": case "postfix": case "cast":
        return this.expr(e.operand, scopes, st);
      case "int": case "float": case "char": case "string": case "bool":
        return;
      default:
        for (const c of exprChildren(e)) this.expr(c, scopes, st);
    }
  }

  private read(name: string, at: Pos, scopes: Scopes, st: State): void {
    const slot = resolve(name, scopes);
    if (!slot || this.silent > 0) return;
    const t = st.get(slot);
    if (!t) return;
    const loop = t.loop.pos;
    const where = `${slot.decl.line}:${slot.decl.column}`;
    const loopAt = `${loop.line}:${loop.column}`;
    const kind = `@${t.loop.okl!.kind}`;
    this.found = {
      at,
      detail: t.after
        ? `"${name}" (declared at ${where}, outside the ${kind} loop at ${loopAt}) is read here after that loop assigns it: ` +
          `OCCA's serial and OpenMP modes read the value of its last iteration, its GPU modes each work-item's own copy, ` +
          `so the kernel has no single meaning; give each work-item its value in an @exclusive variable, or assign it again before this read`
        : `"${name}" (declared at ${where}, outside the ${kind} loop at ${loopAt}) is read here before this iteration assigns it, ` +
          `and the loop assigns it: OCCA's serial and OpenMP modes carry its value from one iteration to the next, its GPU modes ` +
          `give each work-item its own copy of the value before the loop, so the kernel has no single meaning; declare it inside ` +
          `the loop and assign it before reading it, or combine the iterations' values through @shared memory and a barrier`,
    };
  }
}

/** `into` becomes the join of itself and `other`: tainted where either is (the first taint kept). */
function merge(into: State, other: State): void {
  for (const [slot, t] of other) if (t && !into.get(slot)) into.set(slot, t);
}
