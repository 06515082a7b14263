/**
 * The body of OpenMP's parallel loop as a function of its own. GCC outlines a `#pragma omp
 * parallel for` region into a function that reads the kernel's pointers from a struct, and the
 * `restrict` of the kernel's parameters is lost there: loops are versioned for aliasing, and
 * values that could stay in registers go through memory. Called from the parallel loop with
 * `restrict` parameters, the body keeps that knowledge. The private temporaries (OpenMP's
 * `private(...)` list) become the function's locals, one set per iteration of the parallel loop;
 * temporaries shared across the loop (written only before it) are passed as read-only pointers
 * or values; variables of enclosing scopes and the loop's own variable are passed by value.
 *
 * Works on printed kernels (identifiers already final); where the body is not one it can outline
 * (a variable of an enclosing scope written inside), the kernel is left as it was.
 */
import type { Dtype } from "../../src/ir/index.js";
import type { ExDtype, Stmt } from "../ast.js";
import type { LoweredArg, LoweredKernel } from "./host.js";

/** A parameter of the outlined function: a kernel argument, or a variable in scope at the loop. */
export type OutlinedParam =
  | { readonly k: "arg"; readonly arg: LoweredArg }
  | { readonly k: "value"; readonly name: string; readonly dtype: ExDtype }
  | { readonly k: "array"; readonly name: string; readonly dtype: ExDtype; readonly written: boolean };

export interface Outlined {
  readonly params: readonly OutlinedParam[];
  /** The function's locals (the private temporaries) and body (the loop's body). */
  readonly decls: readonly Stmt[];
  readonly body: Stmt;
  /** The kernel with the loop's body replaced by `call(argument names)` and the private declarations dropped. */
  readonly kernel: (call: (args: readonly string[]) => Stmt) => LoweredKernel;
}

type Decl = Stmt & { k: "decl" };

/** Names written (assigned or declared) and read anywhere in `s`. */
function uses(s: Stmt, written: Set<string>, read: Set<string>): void {
  const ex = (e: unknown): void => {
    if (e === null || typeof e !== "object") return;
    const x = e as { k?: string; name?: string; array?: string };
    if (x.k === "var" && x.name) read.add(x.name);
    if (x.k === "load" && x.array) read.add(x.array);
    for (const v of Object.values(e)) if (v && typeof v === "object") ex(v);
  };
  switch (s.k) {
    case "block": s.body.forEach((b) => uses(b, written, read)); return;
    case "for": written.add(s.v); ex(s.lo); ex(s.hi); uses(s.body, written, read); return;
    case "if": ex(s.cond); uses(s.then, written, read); if (s.else) uses(s.else, written, read); return;
    case "while": case "doWhile": ex(s.cond); uses(s.body, written, read); return;
    case "decl": written.add(s.name); if (s.init) ex(s.init); return;
    case "assign":
      written.add(s.name ?? s.array!);
      if (s.index) ex(s.index);
      ex(s.rhs);
      return;
    default: return;
  }
}

/**
 * The outlining of `lk`'s parallel loop (the `for` that `isParallel` picks), or undefined when it
 * has none or cannot be outlined.
 */
export function outlineParallelLoop(lk: LoweredKernel, isParallel: (s: Stmt & { k: "for" }) => boolean): Outlined | undefined {
  // The path from the body to the loop, with the variables each enclosing scope binds.
  type Found = { loop: Stmt & { k: "for" }; scope: { name: string; dtype: ExDtype; size?: number }[] };
  const find = (stmts: readonly Stmt[], scope: Found["scope"]): Found | undefined => {
    const here = [...scope];
    for (const s of stmts) {
      if (s.k === "for" && isParallel(s)) return { loop: s, scope: here };
      if (s.k === "decl") here.push({ name: s.name, dtype: s.dtype, size: s.size });
      const inner = s.k === "block" ? find(s.body, here)
        : s.k === "for" ? find([s.body], [...here, { name: s.v, dtype: "idx" }])
          : s.k === "if" ? find([s.then, ...(s.else ? [s.else] : [])], here)
            : s.k === "while" || s.k === "doWhile" ? find([s.body], here) : undefined;
      if (inner) return inner;
    }
    return undefined;
  };
  const found = find(lk.body, []);
  if (!found) return undefined;
  const { loop, scope } = found;
  const written = new Set<string>();
  const read = new Set<string>();
  uses(loop.body, written, read);
  const used = (n: string) => written.has(n) || read.has(n);
  const top = lk.decls.filter((d): d is Decl => d.k === "decl");
  // A temporary written in the loop is private to each iteration; one only read there is shared.
  const privates = top.filter((d) => written.has(d.name));
  const params: OutlinedParam[] = lk.args.map((arg) => ({ k: "arg", arg }));
  for (const d of top) {
    if (written.has(d.name) || !read.has(d.name)) continue;
    params.push(d.size === undefined ? { k: "value", name: d.name, dtype: d.dtype } : { k: "array", name: d.name, dtype: d.dtype, written: false });
  }
  for (const v of scope) {
    if (!used(v.name)) continue;
    if (v.size === undefined && written.has(v.name)) return undefined; // a shared scalar written in parallel
    params.push(v.size === undefined ? { k: "value", name: v.name, dtype: v.dtype } : { k: "array", name: v.name, dtype: v.dtype, written: written.has(v.name) });
  }
  params.push({ k: "value", name: loop.v, dtype: "idx" });
  const names = params.map((p) => (p.k === "arg" ? p.arg.name : p.name));
  const privateSet = new Set(privates.map((d) => d.name));
  // A private temporary also used outside the loop keeps its one declaration: not outlined.
  const outW = new Set<string>();
  const outR = new Set<string>();
  const without = (s: Stmt): Stmt => {
    if (s === loop) return { k: "block", body: [] };
    switch (s.k) {
      case "block": return { ...s, body: s.body.map(without) };
      case "for": case "while": case "doWhile": return { ...s, body: without(s.body) };
      case "if": return { ...s, then: without(s.then), ...(s.else ? { else: without(s.else) } : {}) };
      default: return s;
    }
  };
  lk.body.forEach((s) => uses(without(s), outW, outR));
  if ([...privateSet].some((n) => outW.has(n) || outR.has(n))) return undefined;
  return {
    params,
    decls: privates,
    body: loop.body,
    kernel: (call) => {
      const swap = (s: Stmt): Stmt => {
        if (s === loop) return { ...loop, pragmas: (loop.pragmas ?? []).map((p) => p.replace(/ private\([^)]*\)/, "")), body: call(names) };
        switch (s.k) {
          case "block": return { ...s, body: s.body.map(swap) };
          case "for": case "while": case "doWhile": return { ...s, body: swap(s.body) };
          case "if": return { ...s, then: swap(s.then), ...(s.else ? { else: swap(s.else) } : {}) };
          default: return s;
        }
      };
      return { ...lk, decls: lk.decls.filter((d) => !(d.k === "decl" && privateSet.has(d.name))), body: lk.body.map(swap) };
    },
  };
}

/** The dtype of a parameter (for printing its type). */
export function paramDtype(p: OutlinedParam): ExDtype | Dtype {
  return p.k === "arg" ? p.arg.dtype : p.dtype;
}
