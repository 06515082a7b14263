/**
 * Lowered kernels with every identifier replaced by its printed name from the target's
 * `NameAllocator`: the one place where user names (and the lowering's own names) meet the
 * dialect's reserved words. Comments are made harmless (`*∕` and newlines cannot end them).
 *
 *   printedKernels([lk], names)   // `var` → `var_0` on js, `main` → `main_0` on c
 */
import { assertNever } from "../../src/errors.js";
import type { Dtype } from "../../src/ir/index.js";
import { ilit, type Ex, type Stmt } from "../ast.js";
import type { LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";

/** Every identifier of `lks` other than kernel names (arguments, declarations, loops, variables, arrays). */
function identifiersOf(lks: readonly LoweredKernel[]): Set<string> {
  const out = new Set<string>();
  const ex = (e: Ex): void => {
    switch (e.k) {
      case "var": out.add(e.name); return;
      case "lit": case "hw": return;
      case "bin": ex(e.l); ex(e.r); return;
      case "neg": case "bitnot": case "not": case "cast": ex(e.e); return;
      case "call": e.args.forEach(ex); return;
      case "load": out.add(e.array); ex(e.index); return;
      case "cond": ex(e.c); ex(e.t); ex(e.f); return;
      default: assertNever(e, "AST expression");
    }
  };
  const st = (s: Stmt): void => {
    switch (s.k) {
      case "block": s.body.forEach(st); return;
      case "for": out.add(s.v); ex(s.lo); ex(s.hi); st(s.body); return;
      case "if": ex(s.cond); st(s.then); if (s.else) st(s.else); return;
      case "while": case "doWhile": ex(s.cond); st(s.body); return;
      case "decl": out.add(s.name); if (s.init) ex(s.init); return;
      case "assign":
        if (s.name !== undefined) out.add(s.name);
        if (s.array !== undefined) out.add(s.array);
        if (s.index) ex(s.index);
        ex(s.rhs);
        return;
      case "break": case "continue": case "barrier": case "comment": case "raw": return;
      default: assertNever(s, "AST statement");
    }
  };
  for (const lk of lks) {
    for (const a of lk.args) out.add(a.name);
    lk.decls.forEach(st);
    lk.body.forEach(st);
    for (const e of lk.groupSize) ex(e);
    for (const x of lk.localSize) if (typeof x !== "number") ex(x);
  }
  return out;
}

/** Comment text that cannot close its comment or start a preprocessor line. */
export function commentText(s: string): string {
  return s.replace(/\*\//g, "* /").replace(/[\r\n\u2028\u2029]+/g, " ");
}

/**
 * How identifiers print: `f(n)` the printed name; `cells` the 0-d arrays (arguments and global
 * temporaries), which the kernel receives as pointers to one element: `out` is `out[0]`.
 */
interface Naming {
  readonly f: (n: string) => string;
  readonly cells: ReadonlyMap<string, Dtype>;
}

/** `e` with each identifier renamed and each 0-d array read from its one cell. */
function renameEx(e: Ex, nm: Naming): Ex {
  const r = (x: Ex) => renameEx(x, nm);
  const f = nm.f;
  switch (e.k) {
    case "var": {
      const cell = nm.cells.get(e.name);
      return cell ? { k: "load", array: f(e.name), index: ilit(0), dtype: cell } : { ...e, name: f(e.name) };
    }
    case "lit": case "hw": return e;
    case "bin": return { ...e, l: r(e.l), r: r(e.r) };
    case "neg": case "bitnot": case "not": return { ...e, e: r(e.e) } as Ex;
    case "cast": return { ...e, e: r(e.e) };
    case "call": return { ...e, args: e.args.map(r) };
    case "load": return { ...e, array: f(e.array), index: r(e.index) };
    case "cond": return { ...e, c: r(e.c), t: r(e.t), f: r(e.f) };
    default: return assertNever(e, "AST expression");
  }
}

/** `s` with its identifiers renamed (OpenMP's `private(a, b)` lists too) and 0-d arrays stored to their one cell. */
function renameStmt(s: Stmt, nm: Naming): Stmt {
  const x = (e: Ex) => renameEx(e, nm);
  const y = (t: Stmt) => renameStmt(t, nm);
  const f = nm.f;
  switch (s.k) {
    case "block": return { ...s, body: s.body.map(y) };
    case "for": {
      const pragmas = s.pragmas?.map((p) => p.replace(/private\(([^)]*)\)/, (_, list: string) => `private(${list.split(",").map((n) => f(n.trim())).join(", ")})`));
      return { ...s, v: f(s.v), lo: x(s.lo), hi: x(s.hi), body: y(s.body), ...(pragmas ? { pragmas } : {}) };
    }
    case "if": return { ...s, cond: x(s.cond), then: y(s.then), ...(s.else ? { else: y(s.else) } : {}) };
    case "while": case "doWhile": return { ...s, cond: x(s.cond), body: y(s.body) };
    case "decl": return { ...s, name: f(s.name), ...(s.init ? { init: x(s.init) } : {}) };
    case "assign": {
      if (s.name !== undefined && nm.cells.has(s.name)) {
        const { name, ...rest } = s;
        return { ...rest, array: f(name), index: ilit(0), rhs: x(s.rhs) };
      }
      return {
      ...s, rhs: x(s.rhs),
      ...(s.name !== undefined ? { name: f(s.name) } : {}),
      ...(s.array !== undefined ? { array: f(s.array) } : {}),
      ...(s.index ? { index: x(s.index) } : {}),
      };
    }
    case "barrier": return { ...s, comment: commentText(s.comment) };
    case "comment": return { ...s, text: commentText(s.text) };
    case "break": case "continue": case "raw": return s;
    default: return assertNever(s, "AST statement");
  }
}

/**
 * `lks` as printed on `names`' dialect: kernel names checked (a CodegenError for a non-identifier)
 * and renamed where reserved, every other identifier renamed where reserved or not an identifier.
 * Identifiers already printable stay as they are, so printing printed kernels changes nothing.
 */
export function printedKernels(lks: readonly LoweredKernel[], names: NameAllocator): LoweredKernel[] {
  names.take([...identifiersOf(lks), ...lks.map((lk) => lk.name)]);
  const f = (n: string) => names.user(n);
  return lks.map((lk) => {
    // Arrays used as plain variables are 0-d: value arguments are the only scalars passed by value.
    const cells = new Map(lk.args.filter((a) => a.kind === "array").map((a) => [a.name, a.dtype]));
    const nm: Naming = { f, cells };
    const sizes: Naming = { f, cells: new Map() };
    return {
      name: names.kernel(lk.name),
      args: lk.args.map((a) => ({ ...a, name: f(a.name) })),
      decls: lk.decls.map((s) => renameStmt(s, nm)),
      body: lk.body.map((s) => renameStmt(s, nm)),
      groupSize: lk.groupSize.map((e) => renameEx(e, sizes)),
      localSize: lk.localSize.map((e) => (typeof e === "number" ? e : renameEx(e, sizes))),
    };
  });
}
