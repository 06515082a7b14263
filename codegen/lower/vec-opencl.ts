/**
 * `vec` loops as OpenCL vector code. The lowering marks each loop over a `vec` iname with
 * `VEC_LOOP_MARK` (the target's `simdLoop`); on the printed body (identifiers final) a marked loop
 * of constant length 2, 3, 4, 8 or 16 whose statements are lane-wise becomes one statement per
 * assignment on all lanes at once (codegen/lower/vec-opencl-expr.ts):
 *
 *   for (int j = 0; j <= 7; ++j) y[8 * gid(0) + j] = 2.0f * x[8 * gid(0) + j] + y[8 * gid(0) + j];
 *   -> vstore8((float8)(2.0f) * vload8(0, x + 8 * gid(0)) + vload8(0, y + 8 * gid(0)), 0, y + 8 * gid(0));
 *
 * checkVecLanes (vec.ts) already proved that each lane touches only its own cells of what the loop
 * writes, so running each statement on all lanes before the next gives the loop's results. A loop
 * whose body is only such vector statements updating rows of private arrays at constant offsets
 * (a reduction's accumulator privatized over the vec iname: a register tile's k loop) keeps each
 * row in a vector variable, loaded before that loop and stored after it.
 *
 * Any other marked loop stays a plain loop, with a comment saying why (another length, a bound
 * that is not a constant, a guard that depends on the lane, a gather, an operation with no vector
 * form, a type with no vector type here).
 */
import type { Dtype } from "../../src/ir/index.js";
import type { Ex, ExDtype, Stmt } from "../ast.js";
import type { Printer } from "../printer.js";
import {
  lanewise, mapVEx, NotLanewise, pointer, printVector, strideOf, atFirstLane,
  VECTOR_DTYPES, VECTOR_WIDTHS, type Lanes, type VEx, type VectorPrinting,
} from "./vec-opencl-expr.js";
import { uses } from "./vec-registers.js";

/** The pragma the lowering puts on a loop over a `vec` iname (harmless if printed: a comment). */
export const VEC_LOOP_MARK = "/* vec */";

/** A statement on the lanes: a store of a vector (to an array row, or to a vector variable), or a lane-invariant guard. */
type VNode =
  | { readonly k: "store"; readonly array: string; readonly at: Ex; readonly dtype: Dtype; readonly value: VEx }
  | { readonly k: "set"; readonly name: string; readonly value: VEx }
  | { readonly k: "if"; readonly cond: Ex; readonly then: readonly VNode[]; readonly else?: readonly VNode[] }
  | { readonly k: "comment"; readonly text: string };

/** A marked loop on its lanes. */
interface VLoop {
  readonly lanes: Lanes;
  readonly body: readonly VNode[];
}

type ForStmt = Stmt & { k: "for" };
const isMarked = (s: Stmt): s is ForStmt => s.k === "for" && (s.pragmas ?? []).includes(VEC_LOOP_MARK);
const items = (s: Stmt): readonly Stmt[] => (s.k === "block" ? s.body.flatMap(items) : [s]);

/** Statements `ss` on the lanes, or why they have no lane-wise form. */
function vectorNodes(ss: readonly Stmt[], lanes: Lanes): VNode[] | NotLanewise {
  const out: VNode[] = [];
  for (const s of ss) {
    switch (s.k) {
      case "block": {
        const inner = vectorNodes(s.body, lanes);
        if (inner instanceof NotLanewise) return inner;
        out.push(...inner);
        break;
      }
      case "comment": out.push(s); break;
      case "if": {
        if (uses(s.cond, lanes.v)) return new NotLanewise("a guard depends on the lane");
        const then = vectorNodes(items(s.then), lanes);
        if (then instanceof NotLanewise) return then;
        const els = s.else ? vectorNodes(items(s.else), lanes) : undefined;
        if (els instanceof NotLanewise) return els;
        out.push({ k: "if", cond: s.cond, then, ...(els ? { else: els } : {}) });
        break;
      }
      case "assign": {
        if (s.atomic) return new NotLanewise("an update is atomic");
        if (s.array === undefined || s.index === undefined) return new NotLanewise(`every lane writes ${s.name}`);
        if (!VECTOR_DTYPES.has(s.dtype)) return new NotLanewise(`${s.dtype} values have no OpenCL vector type here`);
        const stride = strideOf(s.index, lanes.v);
        if (stride !== 1) return new NotLanewise(`the store to ${s.array}[…] is not unit-stride in ${lanes.v} (${stride === undefined ? "its stride is not a constant" : `stride ${stride}`}: a scatter)`);
        const value = lanewise(s.rhs, s.dtype, lanes);
        if (value instanceof NotLanewise) return value;
        out.push({ k: "store", array: s.array, at: atFirstLane(s.index, lanes), dtype: s.dtype, value });
        break;
      }
      default: return new NotLanewise(`the loop holds a ${s.k}`);
    }
  }
  return out;
}

/** A marked loop on its lanes, or why it stays a plain loop. */
function vectorLoop(loop: ForStmt): VLoop | NotLanewise {
  if (loop.lo.k !== "lit" || loop.hi.k !== "lit") return new NotLanewise("its bounds are not constants (a remainder? assume the extent a multiple of the length, or fix it)");
  const width = loop.hi.value - loop.lo.value + 1;
  if (!VECTOR_WIDTHS.has(width)) return new NotLanewise(`its length ${width} is no OpenCL vector width (2, 3, 4, 8, 16)`);
  const lanes = { v: loop.v, lo: loop.lo.value, width };
  const body = vectorNodes(items(loop.body), lanes);
  return body instanceof NotLanewise ? body : { lanes, body };
}

/** What printing needs: the kernel's printer and type names. */
interface Printing {
  readonly p: Printer;
  readonly typeName: (t: ExDtype) => string;
}

function printNodes(nodes: readonly VNode[], width: number, pr: Printing): Stmt[] {
  const vp: VectorPrinting = { p: pr.p, typeName: pr.typeName, width };
  return nodes.map((n): Stmt => {
    switch (n.k) {
      case "store": return { k: "raw", text: `vstore${width}(${printVector(n.value, vp)}, 0, ${pointer(n.array, n.at, vp)});` };
      case "set": return { k: "raw", text: `${n.name} = ${printVector(n.value, vp)};` };
      case "comment": return n;
      case "if": {
        const els = n.else ? { else: { k: "block", body: printNodes(n.else, width, pr) } as Stmt } : {};
        return { k: "if", cond: n.cond, then: { k: "block", body: printNodes(n.then, width, pr) }, ...els };
      }
    }
  });
}

/** `loop` left a plain loop, its mark replaced by the reason. */
function plainLoop(loop: ForStmt, why: string, walk: (s: Stmt) => Stmt): Stmt {
  const note = `/* vec ${loop.v}: a plain loop: ${why.replace(/\*\//g, "* /")} */`;
  return { ...loop, body: walk(loop.body), pragmas: (loop.pragmas ?? []).map((x) => (x === VEC_LOOP_MARK ? note : x)) };
}

/** A row of a private array: `width` elements from `at`, of `dtype`. */
interface Row {
  readonly array: string;
  readonly at: number;
  readonly width: number;
  readonly dtype: Dtype;
}

/** Every array `x` reads in a scalar (lane-invariant) part or an index, into `out`. */
function scalarReads(x: VEx, out: Set<string>): void {
  const ex = (e: Ex): void => {
    switch (e.k) {
      case "load": out.add(e.array); ex(e.index); return;
      case "bin": ex(e.l); ex(e.r); return;
      case "neg": case "bitnot": case "not": case "cast": ex(e.e); return;
      case "call": e.args.forEach(ex); return;
      case "cond": ex(e.c); ex(e.t); ex(e.f); return;
      default: return;
    }
  };
  mapVEx(x, (y) => {
    if (y.k === "scalar") ex(y.ex);
    else if (y.k === "load") ex(y.at);
    else if (y.k === "select") ex(y.c);
    return undefined;
  });
}

/**
 * `loop` (not marked) whose body is only marked loops, all lane-wise stores without guards: the
 * rows of private arrays they read and write at constant offsets kept in vector variables
 * across it, or undefined where there are none.
 */
function promotedRows(loop: ForStmt, privates: ReadonlyMap<string, number>, pr: Printing, names: { fresh(base: string): string }): Stmt[] | undefined {
  const inner = items(loop.body).filter((s) => s.k !== "comment");
  if (inner.length === 0 || !inner.every(isMarked)) return undefined;
  const loops: VLoop[] = [];
  for (const s of inner) {
    const v = vectorLoop(s as ForStmt);
    if (v instanceof NotLanewise || v.body.some((n) => n.k === "if")) return undefined;
    loops.push(v);
  }
  // Candidate rows: every vector access of a private array at a constant offset; an array also
  // touched otherwise (a scalar part, an index, another offset overlapping) keeps its memory.
  const rows = new Map<string, Row>();
  const spoiled = new Set<string>();
  const see = (array: string, at: Ex, width: number, dtype: Dtype) => {
    if (!privates.has(array)) return;
    if (at.k !== "lit") return void spoiled.add(array);
    const key = `${array}@${at.value}`;
    const same = rows.get(key);
    if (same && (same.width !== width || same.dtype !== dtype)) spoiled.add(array);
    for (const [k2, o] of rows) if (k2 !== key && o.array === array && o.at < at.value + width && at.value < o.at + o.width) spoiled.add(array);
    rows.set(key, { array, at: at.value, width, dtype });
  };
  for (const l of loops) {
    for (const n of l.body) {
      if (n.k !== "store") continue;
      see(n.array, n.at, l.lanes.width, n.dtype);
      scalarReads({ k: "scalar", ex: n.at, dtype: "int32" }, spoiled);
      scalarReads(n.value, spoiled);
      mapVEx(n.value, (y) => (y.k === "load" ? void see(y.array, y.at, l.lanes.width, y.dtype) : undefined));
    }
  }
  const mentioned = new Set<string>();
  scalarReads({ k: "scalar", ex: loop.lo, dtype: "int32" }, mentioned);
  scalarReads({ k: "scalar", ex: loop.hi, dtype: "int32" }, mentioned);
  const kept = [...rows.entries()].filter(([, r]) => !spoiled.has(r.array) && !mentioned.has(r.array));
  if (kept.length === 0) return undefined;
  const reg = new Map(kept.map(([key, r]) => [key, names.fresh(`${r.array}_v${r.at}`)]));
  const regOf = (array: string, at: Ex) => (at.k === "lit" ? reg.get(`${array}@${at.value}`) : undefined);
  const body: Stmt[] = loops.flatMap((l) => {
    const nodes = l.body.map((n): VNode => {
      if (n.k !== "store") return n;
      const value = mapVEx(n.value, (y) => {
        const r = y.k === "load" ? regOf(y.array, y.at) : undefined;
        return r !== undefined ? { k: "reg", name: r, dtype: y.dtype } : undefined;
      });
      const r = regOf(n.array, n.at);
      return r !== undefined ? { k: "set", name: r, value } : { ...n, value };
    });
    return printNodes(nodes, l.lanes.width, pr);
  });
  const before: Stmt[] = [];
  const after: Stmt[] = [];
  for (const [key, r] of kept) {
    const v = reg.get(key)!;
    const at = r.at === 0 ? r.array : `${r.array} + ${r.at}`;
    before.push({ k: "raw", text: `${pr.typeName(r.dtype)}${r.width} ${v} = vload${r.width}(0, ${at});` });
    after.push({ k: "raw", text: `vstore${r.width}(${v}, 0, ${at});` });
  }
  return [...before, { ...loop, body: { k: "block", body } }, ...after];
}

/**
 * `stmts` (a kernel's printed body, `decls` the declarations before it) with every marked loop
 * as vector code where it is lane-wise, else a plain loop saying why (see the module comment).
 */
export function openclVecLoops(decls: readonly Stmt[], stmts: readonly Stmt[], p: Printer, names: { fresh(base: string): string }, typeName: (t: ExDtype) => string): Stmt[] {
  // Most kernels have no marked loop: one scan, no memo entry per statement, no copy.
  if (!stmts.some(anyMarked)) return [...stmts];
  const pr: Printing = { p, typeName };
  const privates = new Map<string, number>();
  for (const d of decls) if (d.k === "decl" && d.size !== undefined && d.space !== "local") privates.set(d.name, d.size);
  // A statement without a marked loop is kept as it is (most kernels have none: no copy of their AST).
  const walk = (s: Stmt): Stmt => {
    if (!hasMarked(s)) return s;
    switch (s.k) {
      case "block": return { ...s, body: s.body.map(walk) };
      case "for": {
        if (!isMarked(s)) {
          const rows = promotedRows(s, privates, pr, names);
          return rows ? { k: "block", body: rows } : { ...s, body: walk(s.body) };
        }
        const v = vectorLoop(s);
        if (v instanceof NotLanewise) return plainLoop(s, v.why, walk);
        const body = printNodes(v.body, v.lanes.width, pr);
        return body.length === 1 ? body[0]! : { k: "block", body };
      }
      case "if": return { ...s, then: walk(s.then), ...(s.else ? { else: walk(s.else) } : {}) };
      case "while": case "doWhile": return { ...s, body: walk(s.body) };
      default: return s;
    }
  };
  return stmts.map(walk);
}

/** Whether a marked loop is in `s` (`hasMarked` without remembering: asked once per top statement). */
function anyMarked(s: Stmt): boolean {
  switch (s.k) {
    case "block": return s.body.some(anyMarked);
    case "for": return isMarked(s) || anyMarked(s.body);
    case "if": return anyMarked(s.then) || (s.else !== undefined && anyMarked(s.else));
    case "while": case "doWhile": return anyMarked(s.body);
    default: return false;
  }
}

/** Whether a marked loop is in `s` (remembered per statement: the AST is immutable, and `walk` asks again at each level). */
function hasMarked(s: Stmt): boolean {
  let m = markedMemo.get(s);
  if (m === undefined) {
    switch (s.k) {
      case "block": m = s.body.some(hasMarked); break;
      case "for": m = isMarked(s) || hasMarked(s.body); break;
      case "if": m = hasMarked(s.then) || (s.else !== undefined && hasMarked(s.else)); break;
      case "while": case "doWhile": m = hasMarked(s.body); break;
      default: return false;
    }
    markedMemo.set(s, m);
  }
  return m;
}

const markedMemo = new WeakMap<Stmt, boolean>();
