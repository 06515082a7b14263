/**
 * Opaque statement blocks: code that integer domains cannot express (while loops, break and
 * continue, early exits from inlined functions, data-dependent trip counts) carried as a small
 * structured statement tree inside its loops. Expressions are ordinary IR `Expr`s, so renames,
 * substitutions and iname rewrites reach them through `mapBlockExprs`; to the rest of Loom the
 * block is one instruction that reads and writes the whole variables it names (`blockAccesses`).
 *
 * Early exit is a `labeled` region left by `exit`: the interpreter runs it directly (JS labels),
 * code generation first rewrites it to flags, breaks and guards (`lowerExits`), which every
 * target can print (C, JS, OpenCL, CUDA, OKL, WGSL alike).
 */
import { assertNever } from "../errors.js";
import type { Dtype } from "./dtype.js";
import { walkExpr, type Expr } from "./expr.js";

/** One statement of a block; loops and branches nest statement lists. */
export type BlockStmt =
  /** A block-local scalar, visible to the statements after it in the same list (and their children). */
  | { readonly kind: "decl"; readonly name: string; readonly dtype: Dtype; readonly init?: Expr }
  /** `lhs = rhs` to a block local, a scalar temporary or an array element (`a[i]`, `a[[i]]`). */
  | { readonly kind: "assign"; readonly lhs: Expr; readonly rhs: Expr }
  | { readonly kind: "if"; readonly cond: Expr; readonly then: readonly BlockStmt[]; readonly else: readonly BlockStmt[] }
  | { readonly kind: "while"; readonly cond: Expr; readonly body: readonly BlockStmt[] }
  | { readonly kind: "doWhile"; readonly body: readonly BlockStmt[]; readonly cond: Expr }
  /** C's `for (init; cond; step)`: `continue` runs `step`. */
  | { readonly kind: "for"; readonly init: readonly BlockStmt[]; readonly cond: Expr; readonly step: readonly BlockStmt[]; readonly body: readonly BlockStmt[] }
  | { readonly kind: "break" }
  | { readonly kind: "continue" }
  /** A region that `exit label` leaves from any depth (an inlined function body; `return`). */
  | { readonly kind: "labeled"; readonly label: string; readonly body: readonly BlockStmt[] }
  | { readonly kind: "exit"; readonly label: string };

/** The statement lists directly inside `s`, in order. */
function stmtChildren(s: BlockStmt): readonly (readonly BlockStmt[])[] {
  switch (s.kind) {
    case "decl": case "assign": case "break": case "continue": case "exit": return [];
    case "if": return [s.then, s.else];
    case "while": case "doWhile": case "labeled": return [s.body];
    case "for": return [s.init, s.body, s.step];
    default: return assertNever(s, "block statement");
  }
}

/** The expressions directly in `s` (not in nested statements). */
function stmtExprs(s: BlockStmt): readonly Expr[] {
  switch (s.kind) {
    case "decl": return s.init ? [s.init] : [];
    case "assign": return [s.lhs, s.rhs];
    case "if": case "while": case "doWhile": case "for": return [s.cond];
    case "break": case "continue": case "exit": case "labeled": return [];
    default: return assertNever(s, "block statement");
  }
}

/** Every statement of `body`, pre-order. */
export function walkStmts(body: readonly BlockStmt[], visit: (s: BlockStmt) => void): void {
  for (const s of body) {
    visit(s);
    for (const list of stmtChildren(s)) walkStmts(list, visit);
  }
}

/** Every expression of `body` (conditions, initializers, both sides of assignments). */
export function blockExprs(body: readonly BlockStmt[]): Expr[] {
  const out: Expr[] = [];
  walkStmts(body, (s) => out.push(...stmtExprs(s)));
  return out;
}

/**
 * `body` with `f` applied to every expression (left-hand sides whole, as for instructions);
 * unchanged statements are returned as the same objects.
 *   mapBlockExprs(body, (e) => renameVars(e, new Map([["i", "i_new"]])))
 */
export function mapBlockExprs(body: readonly BlockStmt[], f: (e: Expr) => Expr, fl: (e: Expr) => Expr = f): readonly BlockStmt[] {
  let changed = false;
  const out = body.map((s) => {
    const m = mapStmt(s, f, fl);
    if (m !== s) changed = true;
    return m;
  });
  return changed ? out : body;
}

/** `body` with `f` applied to every expression read: as `mapBlockExprs`, but of a target only its indices. */
export function mapBlockReads(body: readonly BlockStmt[], f: (e: Expr) => Expr): readonly BlockStmt[] {
  return mapBlockExprs(body, f, (lhs) => lhs.kind === "subscript" ? { ...lhs, indices: lhs.indices.map(f) }
    : lhs.kind === "linear" ? { ...lhs, index: f(lhs.index) } : lhs);
}

function mapStmt(s: BlockStmt, f: (e: Expr) => Expr, fl: (e: Expr) => Expr): BlockStmt {
  const list = (b: readonly BlockStmt[]) => mapBlockExprs(b, f, fl);
  switch (s.kind) {
    case "decl": {
      if (!s.init) return s;
      const init = f(s.init);
      return init === s.init ? s : { ...s, init };
    }
    case "assign": {
      const lhs = fl(s.lhs), rhs = f(s.rhs);
      return lhs === s.lhs && rhs === s.rhs ? s : { ...s, lhs, rhs };
    }
    case "if": {
      const cond = f(s.cond), then = list(s.then), els = list(s.else);
      return cond === s.cond && then === s.then && els === s.else ? s : { ...s, cond, then, else: els };
    }
    case "while": case "doWhile": {
      const cond = f(s.cond), body = list(s.body);
      return cond === s.cond && body === s.body ? s : { ...s, cond, body };
    }
    case "for": {
      const init = list(s.init), cond = f(s.cond), step = list(s.step), body = list(s.body);
      return init === s.init && cond === s.cond && step === s.step && body === s.body ? s : { ...s, init, cond, step, body };
    }
    case "labeled": {
      const body = list(s.body);
      return body === s.body ? s : { ...s, body };
    }
    case "break": case "continue": case "exit": return s;
    default: return assertNever(s, "block statement");
  }
}

/** The block-local scalars of `body` by name, with their dtypes. */
export function blockLocals(body: readonly BlockStmt[]): Map<string, Dtype> {
  const out = new Map<string, Dtype>();
  walkStmts(body, (s) => {
    if (s.kind === "decl") out.set(s.name, s.dtype);
  });
  return out;
}

/** What a block touches outside itself: names read (variables and arrays) and names written. */
export interface BlockAccesses {
  /** Every non-local name read: arrays, scalars, inames and parameters. */
  readonly reads: ReadonlySet<string>;
  /** Arrays and scalar variables assigned (block locals excluded). */
  readonly writes: ReadonlySet<string>;
}

/** The names `body` reads and writes beyond its own locals: `a[i] = b[j] + x` reads b, j, x, i and writes a. */
export function blockAccesses(body: readonly BlockStmt[]): BlockAccesses {
  const locals = blockLocals(body);
  const reads = new Set<string>();
  const writes = new Set<string>();
  const read = (e: Expr) => walkExpr(e, (n) => {
    if (n.kind === "var" && !locals.has(n.name)) reads.add(n.name);
    else if (n.kind === "subscript" || n.kind === "linear") reads.add(n.array);
  });
  walkStmts(body, (s) => {
    if (s.kind !== "assign") {
      stmtExprs(s).forEach(read);
      return;
    }
    read(s.rhs);
    const lhs = s.lhs;
    if (lhs.kind === "var") {
      if (!locals.has(lhs.name)) writes.add(lhs.name);
    } else if (lhs.kind === "subscript") {
      writes.add(lhs.array);
      lhs.indices.forEach(read);
    } else if (lhs.kind === "linear") {
      writes.add(lhs.array);
      read(lhs.index);
    }
  });
  return { reads, writes };
}

/** The left-hand sides of `body` that are not block locals: `a[i]` in `a[i] = x`. */
export function blockStores(body: readonly BlockStmt[]): Expr[] {
  const locals = blockLocals(body);
  const out: Expr[] = [];
  walkStmts(body, (s) => {
    if (s.kind === "assign" && !(s.lhs.kind === "var" && locals.has(s.lhs.name))) out.push(s.lhs);
  });
  return out;
}

/**
 * Problems with a block's shape, or undefined: assignments to something other than a variable or
 * an element, reductions inside it, `break`/`continue` outside a loop, `exit` outside its
 * region, locals declared twice. `checkBlock([{ kind: "break" }])` names the stray `break`.
 */
export function checkBlock(body: readonly BlockStmt[]): string | undefined {
  const seen = new Set<string>();
  const visit = (list: readonly BlockStmt[], loops: number, labels: readonly string[]): string | undefined => {
    for (const s of list) {
      for (const e of stmtExprs(s)) {
        let bad: string | undefined;
        walkExpr(e, (n) => {
          if (n.kind === "reduce") bad = "a reduction inside a block (reduce before the block into a temporary)";
        });
        if (bad) return bad;
      }
      switch (s.kind) {
        case "decl":
          if (seen.has(s.name)) return `block local "${s.name}" is declared twice`;
          seen.add(s.name);
          break;
        case "assign":
          if (!["var", "subscript", "linear"].includes(s.lhs.kind)) return "an assignment whose target is neither a variable nor an array element";
          break;
        case "break": case "continue":
          if (loops === 0) return `"${s.kind}" outside a loop`;
          break;
        case "exit":
          if (!labels.includes(s.label)) return `"exit ${s.label}" outside the region labeled ${s.label}`;
          break;
        default: break;
      }
      const inLoop = s.kind === "while" || s.kind === "doWhile" || s.kind === "for" ? loops + 1 : loops;
      const inner = s.kind === "labeled" ? [...labels, s.label] : labels;
      if (s.kind === "for") {
        const err = visit(s.init, loops, inner) ?? visit(s.step, 0, []) ?? visit(s.body, inLoop, inner);
        if (err) return err;
        continue;
      }
      for (const l of stmtChildren(s)) {
        const err = visit(l, inLoop, inner);
        if (err) return err;
      }
    }
    return undefined;
  };
  return visit(body, 0, []);
}

// ---- early exits as flags ----------------------------------------------------------------------

const mayExit = (s: BlockStmt, label: string): boolean => {
  let found = false;
  walkStmts([s], (x) => {
    if (x.kind === "exit" && x.label === label) found = true;
  });
  return found;
};

const isLoop = (s: BlockStmt) => s.kind === "while" || s.kind === "doWhile" || s.kind === "for";

/**
 * `body` without `labeled`/`exit`: each region gets an int32 flag (`<label>_exit`, a name not in
 * `taken`), an `exit` sets it and breaks out of the loops inside the region, and what follows a
 * statement that may exit runs only while the flag is clear. The result uses only if, loops,
 * break and continue, which every target prints.
 *   `L: { while (c) { if (d) exit L; s } t }` becomes
 *   `int L_exit = 0; while (c) { if (d) { L_exit = 1; break; } s } if (!L_exit) { t }`
 */
export function lowerExits(body: readonly BlockStmt[], taken: Set<string>): BlockStmt[] {
  return body.flatMap((s) => lowerExitsIn(s, taken));
}

function lowerExitsIn(s: BlockStmt, taken: Set<string>): BlockStmt[] {
  const list = (b: readonly BlockStmt[]) => lowerExits(b, taken);
  switch (s.kind) {
    case "decl": case "assign": case "break": case "continue": case "exit": return [s];
    case "if": return [{ ...s, then: list(s.then), else: list(s.else) }];
    case "while": case "doWhile": return [{ ...s, body: list(s.body) }];
    case "for": return [{ ...s, init: list(s.init), body: list(s.body), step: list(s.step) }];
    case "labeled": {
      let flag = `${s.label}_exit`;
      for (let n = 1; taken.has(flag); n++) flag = `${s.label}_exit${n}`;
      taken.add(flag);
      const inner = list(s.body);
      return [{ kind: "decl", name: flag, dtype: "int32", init: { kind: "const", value: 0, isFloat: false, dtype: "int32" } }, ...exitsToFlag(inner, s.label, flag, false)];
    }
    default: return assertNever(s, "block statement");
  }
}

/** `list` (inside region `label`, inside a loop of the region when `inLoop`) with exits as flag sets. */
function exitsToFlag(list: readonly BlockStmt[], label: string, flag: string, inLoop: boolean): BlockStmt[] {
  const set: BlockStmt = { kind: "assign", lhs: { kind: "var", name: flag }, rhs: { kind: "const", value: 1, isFloat: false, dtype: "int32" } };
  const flagSet: Expr = { kind: "compare", op: "!=", left: { kind: "var", name: flag }, right: { kind: "const", value: 0, isFloat: false, dtype: "int32" } };
  const out: BlockStmt[] = [];
  for (let n = 0; n < list.length; n++) {
    const s = list[n]!;
    if (s.kind === "exit" && s.label === label) {
      out.push(set);
      if (inLoop) out.push({ kind: "break" });
      return out; // what follows an exit never runs
    }
    if (!mayExit(s, label)) {
      out.push(s);
      continue;
    }
    out.push(rewriteExits(s, label, flag, inLoop));
    const rest = list.slice(n + 1);
    if (inLoop) {
      // A loop of the region broke out of itself only: leave the enclosing one too.
      if (isLoop(s)) out.push({ kind: "if", cond: flagSet, then: [{ kind: "break" }], else: [] });
      continue;
    }
    if (rest.length > 0) {
      const guarded = exitsToFlag(rest, label, flag, false);
      out.push({ kind: "if", cond: { kind: "not", operand: flagSet }, then: guarded, else: [] });
    }
    return out;
  }
  return out;
}

function rewriteExits(s: BlockStmt, label: string, flag: string, inLoop: boolean): BlockStmt {
  switch (s.kind) {
    case "if": return { ...s, then: exitsToFlag(s.then, label, flag, inLoop), else: exitsToFlag(s.else, label, flag, inLoop) };
    case "while": case "doWhile": return { ...s, body: exitsToFlag(s.body, label, flag, true) };
    case "for": return { ...s, body: exitsToFlag(s.body, label, flag, true) };
    case "labeled": return { ...s, body: exitsToFlag(s.body, label, flag, inLoop) };
    default: return s;
  }
}

/**
 * `for (init; cond; step) body` as `init; while (cond) { body; step }` with each `continue` of
 * this loop (not of loops inside it) running `step` first: targets need only `while`.
 */
export function forAsWhile(s: BlockStmt & { kind: "for" }): BlockStmt[] {
  const cont = (list: readonly BlockStmt[]): BlockStmt[] => list.flatMap((x): BlockStmt[] => {
    switch (x.kind) {
      case "continue": return [...s.step, x];
      case "if": return [{ ...x, then: cont(x.then), else: cont(x.else) }];
      case "labeled": return [{ ...x, body: cont(x.body) }];
      default: return [x];
    }
  });
  return [...s.init, { kind: "while", cond: s.cond, body: [...cont(s.body), ...s.step] }];
}

/** `body` as indented text, C-like, for `show` and error messages. */
export function blockToString(body: readonly BlockStmt[], exprText: (e: Expr) => string, ind = "  "): string[] {
  const nested = (b: readonly BlockStmt[]) => blockToString(b, exprText, ind + "  ");
  const one = (b: readonly BlockStmt[]) => blockToString(b, exprText, "").map((l) => l.trim()).join(" ");
  return body.flatMap((s): string[] => {
    switch (s.kind) {
      case "decl": return [`${ind}<${s.dtype}> ${s.name}${s.init ? ` = ${exprText(s.init)}` : ""};`];
      case "assign": return [`${ind}${exprText(s.lhs)} = ${exprText(s.rhs)};`];
      case "if": return [`${ind}if (${exprText(s.cond)}) {`, ...nested(s.then), ...(s.else.length > 0 ? [`${ind}} else {`, ...nested(s.else)] : []), `${ind}}`];
      case "while": return [`${ind}while (${exprText(s.cond)}) {`, ...nested(s.body), `${ind}}`];
      case "doWhile": return [`${ind}do {`, ...nested(s.body), `${ind}} while (${exprText(s.cond)});`];
      case "for": return [`${ind}for (${one(s.init)} ${exprText(s.cond)}; ${one(s.step)}) {`, ...nested(s.body), `${ind}}`];
      case "break": case "continue": return [`${ind}${s.kind};`];
      case "labeled": return [`${ind}${s.label}: {`, ...nested(s.body), `${ind}}`];
      case "exit": return [`${ind}exit ${s.label};`];
      default: return assertNever(s, "block statement");
    }
  });
}
