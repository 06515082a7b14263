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

/**
 * Every identifier of `lks` other than kernel names (arguments, declarations, loops, variables,
 * arrays), and those read as variables or assigned by name (where a 0-d array's cell is meant).
 */
function identifiersOf(lks: readonly LoweredKernel[]): { all: Set<string>; scalars: Set<string>; plain: boolean } {
  const out = new Set<string>();
  const scalars = new Set<string>();
  // No comment to make harmless and no pragma naming identifiers: renaming nothing changes nothing.
  let plain = true;
  const ex = (e: Ex): void => {
    switch (e.k) {
      case "var": out.add(e.name); scalars.add(e.name); return;
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
      case "for":
        out.add(s.v);
        if (plain && s.pragmas?.some((p) => p.includes("private("))) plain = false;
        ex(s.lo); ex(s.hi); st(s.body);
        return;
      case "if": ex(s.cond); st(s.then); if (s.else) st(s.else); return;
      case "while": case "doWhile": ex(s.cond); st(s.body); return;
      case "decl": out.add(s.name); if (s.init) ex(s.init); return;
      case "assign":
        if (s.name !== undefined) {
          out.add(s.name);
          scalars.add(s.name);
        }
        if (s.array !== undefined) out.add(s.array);
        if (s.index) ex(s.index);
        ex(s.rhs);
        return;
      case "barrier": if (plain && commentText(s.comment) !== s.comment) plain = false; return;
      case "comment": if (plain && commentText(s.text) !== s.text) plain = false; return;
      case "break": case "continue": case "raw": return;
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
  return { all: out, scalars, plain };
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
  /** Every identifier prints as it is and no cell is read or assigned as a variable: expressions stay as they are. */
  readonly same?: boolean;
}

/**
 * `e` with each identifier renamed and each 0-d array read from its one cell. Nodes with nothing
 * renamed are kept (the AST is immutable): most names print as they are, so a kernel of thousands
 * of statements is mostly shared, not copied.
 */
function renameEx(e: Ex, nm: Naming): Ex {
  if (nm.same === true) return e;
  switch (e.k) {
    case "var": {
      const cell = nm.cells.get(e.name);
      if (cell) return { k: "load", array: nm.f(e.name), index: ilit(0), dtype: cell };
      const name = nm.f(e.name);
      return name === e.name ? e : { ...e, name };
    }
    case "lit": case "hw": return e;
    case "bin": {
      const l = renameEx(e.l, nm);
      const r = renameEx(e.r, nm);
      return l === e.l && r === e.r ? e : { ...e, l, r };
    }
    case "neg": case "bitnot": case "not": case "cast": {
      const x = renameEx(e.e, nm);
      return x === e.e ? e : { ...e, e: x } as Ex;
    }
    case "call": {
      const args = renameAll(e.args, nm, renameEx);
      return args === e.args ? e : { ...e, args };
    }
    case "load": {
      const array = nm.f(e.array);
      const index = renameEx(e.index, nm);
      return array === e.array && index === e.index ? e : { ...e, array, index };
    }
    case "cond": {
      const c = renameEx(e.c, nm);
      const t = renameEx(e.t, nm);
      const f = renameEx(e.f, nm);
      return c === e.c && t === e.t && f === e.f ? e : { ...e, c, t, f };
    }
    default: return assertNever(e, "AST expression");
  }
}

/** `xs` renamed by `f`, the same array when no element changed. */
function renameAll<T>(xs: readonly T[], nm: Naming, f: (x: T, nm: Naming) => T): readonly T[] {
  let out: T[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const y = f(xs[i]!, nm);
    if (out === undefined && y !== xs[i]) out = xs.slice(0, i);
    if (out !== undefined) out.push(y);
  }
  return out ?? xs;
}

/** `s` with its identifiers renamed (OpenMP's `private(a, b)` lists too) and 0-d arrays stored to their one cell; kept where nothing changes. */
function renameStmt(s: Stmt, nm: Naming): Stmt {
  const f = nm.f;
  switch (s.k) {
    case "block": {
      const body = renameAll(s.body, nm, renameStmt);
      return body === s.body ? s : { ...s, body: body as Stmt[] };
    }
    case "for": {
      const pragmas = s.pragmas?.some((p) => p.includes("private("))
        ? s.pragmas.map((p) => p.replace(/private\(([^)]*)\)/, (_, list: string) => `private(${list.split(",").map((n) => f(n.trim())).join(", ")})`))
        : s.pragmas;
      const v = f(s.v);
      const lo = renameEx(s.lo, nm);
      const hi = renameEx(s.hi, nm);
      const body = renameStmt(s.body, nm);
      if (v === s.v && lo === s.lo && hi === s.hi && body === s.body && pragmas === s.pragmas) return s;
      return { ...s, v, lo, hi, body, ...(pragmas ? { pragmas } : {}) };
    }
    case "if": {
      const cond = renameEx(s.cond, nm);
      const then = renameStmt(s.then, nm);
      const els = s.else ? renameStmt(s.else, nm) : undefined;
      if (cond === s.cond && then === s.then && els === s.else) return s;
      return { ...s, cond, then, ...(els ? { else: els } : {}) };
    }
    case "while": case "doWhile": {
      const cond = renameEx(s.cond, nm);
      const body = renameStmt(s.body, nm);
      return cond === s.cond && body === s.body ? s : { ...s, cond, body };
    }
    case "decl": {
      const name = f(s.name);
      const init = s.init ? renameEx(s.init, nm) : undefined;
      return name === s.name && init === s.init ? s : { ...s, name, ...(init ? { init } : {}) };
    }
    case "assign": {
      const rhs = renameEx(s.rhs, nm);
      if (s.name !== undefined && nm.cells.has(s.name)) {
        const { name, ...rest } = s;
        return { ...rest, array: f(name), index: ilit(0), rhs };
      }
      const name = s.name !== undefined ? f(s.name) : undefined;
      const array = s.array !== undefined ? f(s.array) : undefined;
      const index = s.index ? renameEx(s.index, nm) : undefined;
      if (rhs === s.rhs && name === s.name && array === s.array && index === s.index) return s;
      return {
        ...s, rhs,
        ...(name !== undefined ? { name } : {}),
        ...(array !== undefined ? { array } : {}),
        ...(index ? { index } : {}),
      };
    }
    case "barrier": {
      const comment = commentText(s.comment);
      return comment === s.comment ? s : { ...s, comment };
    }
    case "comment": {
      const text = commentText(s.text);
      return text === s.text ? s : { ...s, text };
    }
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
  const ids = identifiersOf(lks);
  names.take([...ids.all, ...lks.map((lk) => lk.name)]);
  const f = (n: string) => names.user(n);
  // Names print as they are unless reserved or not identifiers (user names mostly are not): then
  // the expressions, most of a big kernel, need no walk.
  let printable = true;
  for (const n of ids.all) if (!names.printable(n)) printable = false;
  return lks.map((lk) => {
    // Arrays used as plain variables are 0-d: value arguments are the only scalars passed by value.
    const cells = new Map(lk.args.filter((a) => a.kind === "array").map((a) => [a.name, a.dtype]));
    const nm: Naming = { f, cells, same: printable && ![...cells.keys()].some((n) => ids.scalars.has(n)) };
    const sizes: Naming = { f, cells: new Map() };
    // Every identifier printed as it is, no cell read as a variable, no comment or pragma to
    // rewrite: every statement would come back as it is, so none is walked.
    const kept = nm.same === true && ids.plain;
    return {
      name: names.kernel(lk.name),
      args: lk.args.map((a) => ({ ...a, name: f(a.name) })),
      decls: kept ? lk.decls : lk.decls.map((s) => renameStmt(s, nm)),
      body: kept ? lk.body : lk.body.map((s) => renameStmt(s, nm)),
      groupSize: lk.groupSize.map((e) => renameEx(e, sizes)),
      localSize: lk.localSize.map((e) => (typeof e === "number" ? e : renameEx(e, sizes))),
    };
  });
}
