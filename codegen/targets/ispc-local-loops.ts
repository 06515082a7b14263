/**
 * ISPC has one program index: loopy's `l.0` is `programIndex`, and the other local axes (`l.1`,
 * `l.2`) become loops inside the task. A barrier ends those loops (every work-item of the group
 * has run the code before it) and the code after it runs in loops of its own, as a loop fission:
 * statements split at barriers, each barrier-free run wrapped in the `l.1`/`l.2` loops, a loop or
 * branch with a barrier inside split in its body (its bounds and condition must not depend on
 * `l.1`/`l.2`). A variable declared at a level and used on both sides of a barrier gets one copy
 * per `(l.1, l.2)` work-item: an array indexed by `loopy_lid1 + L1 * loopy_lid2`.
 */
import { assertNever, CodegenError } from "../../src/errors.js";
import type { Dtype } from "../../src/ir/index.js";
import { ibin, ilit, type Ex, type Stmt } from "../ast.js";

/** The loop variables of `l.1` and `l.2` (reserved in the ispc dialect). */
export const LOCAL_LOOP_VARS = ["loopy_lid1", "loopy_lid2"] as const;

type Decl = Stmt & { k: "decl" };

/** Whether `e` reads `l.1`/`l.2` (`ax`) or the name `name`. */
function exUses(e: Ex, test: (e: Ex) => boolean): boolean {
  if (test(e)) return true;
  switch (e.k) {
    case "var": case "lit": case "hw": return false;
    case "bin": return exUses(e.l, test) || exUses(e.r, test);
    case "neg": case "bitnot": case "not": case "cast": return exUses(e.e, test);
    case "call": return e.args.some((a) => exUses(a, test));
    case "load": return exUses(e.index, test);
    case "cond": return exUses(e.c, test) || exUses(e.t, test) || exUses(e.f, test);
    default: return assertNever(e, "AST expression");
  }
}

/** The expressions and statements directly under `s` (one level). */
function parts(s: Stmt): { exs: Ex[]; stmts: Stmt[] } {
  switch (s.k) {
    case "block": return { exs: [], stmts: [...s.body] };
    case "for": return { exs: [s.lo, s.hi], stmts: [s.body] };
    case "if": return { exs: [s.cond], stmts: s.else ? [s.then, s.else] : [s.then] };
    case "while": case "doWhile": return { exs: [s.cond], stmts: [s.body] };
    case "decl": return { exs: s.init ? [s.init] : [], stmts: [] };
    case "assign": return { exs: [s.rhs, ...(s.index ? [s.index] : [])], stmts: [] };
    case "break": case "continue": case "barrier": case "comment": case "raw": return { exs: [], stmts: [] };
    default: return assertNever(s, "AST statement");
  }
}

function stmtUses(s: Stmt, name: string): boolean {
  const named = (e: Ex) => (e.k === "var" && e.name === name) || (e.k === "load" && e.array === name);
  if (s.k === "assign" && (s.name === name || s.array === name)) return true;
  const { exs, stmts } = parts(s);
  return exs.some((e) => exUses(e, named)) || stmts.some((x) => stmtUses(x, name));
}

/** Whether a `break`/`continue` in `s` leaves `s` (is not inside a loop of its own). */
const escapes = (s: Stmt): boolean =>
  s.k === "break" || s.k === "continue" || (s.k !== "for" && s.k !== "while" && s.k !== "doWhile" && parts(s).stmts.some(escapes));
const hasBarrier = (s: Stmt): boolean => s.k === "barrier" || parts(s).stmts.some(hasBarrier);
const isLocalLoopAxis = (e: Ex) => e.k === "hw" && e.tag === "l" && e.axis > 0;

/** `s` with each use of the privatized `names` as element `lin` of its per-work-item copies. */
function privatize(s: Stmt, names: ReadonlyMap<string, Dtype>, lin: Ex, P: number): Stmt {
  const at = (index: Ex | undefined): Ex => (index ? ibin("+", { k: "bin", op: "*", l: index, r: ilit(P), dtype: "idx" }, lin) : lin);
  const ex = (e: Ex): Ex => {
    switch (e.k) {
      case "var": { const d = names.get(e.name); return d ? { k: "load", array: e.name, index: at(undefined), dtype: d } : e; }
      case "lit": case "hw": return e;
      case "bin": return { ...e, l: ex(e.l), r: ex(e.r) };
      case "neg": case "bitnot": case "not": case "cast": return { ...e, e: ex(e.e) } as Ex;
      case "call": return { ...e, args: e.args.map(ex) };
      case "load": return { ...e, index: names.has(e.array) ? at(ex(e.index)) : ex(e.index) };
      case "cond": return { ...e, c: ex(e.c), t: ex(e.t), f: ex(e.f) };
      default: return assertNever(e, "AST expression");
    }
  };
  const st = (x: Stmt): Stmt => {
    switch (x.k) {
      case "block": return { ...x, body: x.body.map(st) };
      case "for": return { ...x, lo: ex(x.lo), hi: ex(x.hi), body: st(x.body) };
      case "if": return { ...x, cond: ex(x.cond), then: st(x.then), ...(x.else ? { else: st(x.else) } : {}) };
      case "while": case "doWhile": return { ...x, cond: ex(x.cond), body: st(x.body) };
      case "decl": return { ...x, ...(x.init ? { init: ex(x.init) } : {}) };
      case "assign": {
        const index = x.index ? ex(x.index) : undefined;
        if (x.name !== undefined && names.has(x.name)) return { ...x, name: undefined, array: x.name, index: at(undefined), rhs: ex(x.rhs) };
        if (x.array !== undefined && names.has(x.array)) return { ...x, index: at(index), rhs: ex(x.rhs) };
        return { ...x, ...(index ? { index } : {}), rhs: ex(x.rhs) };
      }
      default: return x;
    }
  };
  return st(s);
}

/** What the fission needs of the kernel: its `l.1`/`l.2` sizes as code, and as numbers where constant. */
export interface LocalLoops {
  readonly kernel: string;
  readonly sizes: readonly [string, string];
  readonly constant: number | undefined;
}

/** `stmts` (a kernel's declarations and body) with `l.1`/`l.2` as loops split at barriers. */
export function withLocalLoops(stmts: readonly Stmt[], L: LocalLoops): Stmt[] {
  // Loops over the axes of extent other than 1, l.2 outside l.1; a copy per (l.1, l.2) at lid1 + L1 * lid2.
  const axes = ([1, 2] as const).filter((ax) => L.sizes[ax - 1] !== "1");
  const hw = (axis: 1 | 2): Ex => ({ k: "hw", tag: "l", axis });
  const lin: Ex = axes.length === 2 ? ibin("+", hw(1), ibin("*", ilit(Number(L.sizes[0])), hw(2))) : hw(axes[0] ?? 1);
  const loops = (body: readonly Stmt[]): Stmt => ({
    k: "block", body: [
      ...[...axes].reverse().map((ax): Stmt => {
        const v = LOCAL_LOOP_VARS[ax - 1];
        return { k: "raw", text: `for (uniform int ${v} = 0; ${v} < ${L.sizes[ax - 1]}; ++${v})` };
      }),
      { k: "block", body },
    ],
  });
  const level = (list: readonly Stmt[]): Stmt[] => {
    // Segments between barriers; a statement with a barrier inside is a segment of its own, split inside.
    const segs: Stmt[][] = [[]];
    const decls: Decl[] = [];
    for (const s of list) {
      if (s.k === "decl" && s.space === "local") segs[0]!.unshift(s);
      else if (s.k === "decl") decls.push(s);
      else if (s.k === "barrier" || hasBarrier(s)) segs.push([s], []);
      else segs.at(-1)!.push(s);
    }
    const shared = new Map<string, Dtype>();
    const out: Stmt[] = [];
    for (const d of decls) {
      const users = segs.filter((seg) => seg.some((s) => stmtUses(s, d.name)));
      if (users.length === 0) continue;
      // A constant the same for every (l.1, l.2) work-item (a single-iteration loop's `int const s = 0`) stays outside the loops.
      if (d.isConst && (!d.init || !exUses(d.init, isLocalLoopAxis))) {
        out.push(d);
        continue;
      }
      // Used in one run between barriers: declared in its loops. Used across a barrier, here or
      // inside a loop or branch that holds one: a copy per work-item.
      if (users.length === 1 && !users[0]!.some(hasBarrier)) {
        users[0]!.unshift(d);
        continue;
      }
      if (L.constant === undefined) {
        throw new CodegenError(`kernel "${L.kernel}" on the ispc target: variable "${d.name}" lives across a barrier while l.1/l.2 are loops of parametric extent ${L.sizes.join(" × ")}; ` +
          `ispc accepts that with constant l.1/l.2 extents, or with l.0 as the only local axis`);
      }
      const dtype: Dtype = d.dtype === "idx" ? "int32" : d.dtype;
      shared.set(d.name, dtype);
      out.push({ k: "decl", dtype: d.dtype, name: d.name, size: (d.size ?? 1) * L.constant });
      // The initial value, in loops of its own before the first use (which may hold a barrier).
      if (d.init) segs.splice(segs.indexOf(users[0]!), 0, [{ k: "assign", name: d.name, dtype, rhs: d.init }]);
    }
    for (const seg of segs) {
      const s0 = seg[0];
      if (seg.length === 0 || !s0) continue;
      const mapped = shared.size > 0 ? seg.map((s) => privatize(s, shared, lin, L.constant!)) : seg;
      if (s0.k === "barrier") out.push({ k: "comment", text: `barrier (${s0.comment}): the l.1/l.2 loops end here; the gang (l.0) runs in step` });
      else if (seg.length === 1 && hasBarrier(s0)) out.push(split(mapped[0]!));
      else {
        if (mapped.some(escapes)) {
          throw new CodegenError(`kernel "${L.kernel}" on the ispc target: a break or continue leaves a loop that holds a barrier, from code ispc runs inside l.1/l.2 loops; ` +
            `ispc accepts it where l.0 is the only local axis, or in loops without barriers`);
        }
        const locals = mapped.filter((s) => s.k === "decl" && s.space === "local");
        const rest = mapped.filter((s) => !(s.k === "decl" && s.space === "local"));
        out.push(...locals, ...(rest.length > 0 ? [loops(rest)] : []));
      }
    }
    return out;
  };
  const split = (s: Stmt): Stmt => {
    const { exs } = parts(s);
    if (exs.some((e) => exUses(e, isLocalLoopAxis))) {
      throw new CodegenError(`kernel "${L.kernel}" on the ispc target: a barrier is inside a ${s.k} that depends on l.1 or l.2, which ispc runs as loops; ` +
        `ispc accepts barriers in code uniform over l.1/l.2 (or tag that axis l.0)`);
    }
    const inner = (b: Stmt): Stmt => ({ k: "block", body: level(b.k === "block" ? b.body : [b]) });
    switch (s.k) {
      case "block": return inner(s);
      case "for": return { ...s, body: inner(s.body) };
      case "if": return { ...s, then: inner(s.then), ...(s.else ? { else: inner(s.else) } : {}) };
      case "while": case "doWhile": return { ...s, body: inner(s.body) };
      default: return s;
    }
  };
  return level(stmts);
}
