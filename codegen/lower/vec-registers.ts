/**
 * Register tiles as vector values (C and OpenMP). A loop whose body is only `vec` (SIMD) loops
 * that each add to a row of a private accumulator array,
 *
 *   for (k …) {
 *     #pragma omp simd
 *     for (j = 0; j <= 31; ++j) acc[32 + j] = acc[32 + j] + a[…] * b[… + j];
 *     …
 *   }
 *
 * leaves the accumulators in memory wherever GCC cannot prove they may live in registers (a
 * reduction split into k blocks, a packed micro-tile next to other local arrays: every update
 * is a load and a store of the stack). Here such a loop keeps each row in GCC/Clang vector
 * values (`float __attribute__((vector_size(32)))`, one per 8 floats or 4 doubles), loaded from
 * the array before the loop and stored back after it, so the array stays what the rest of the
 * kernel reads; inside the loop the update is vector arithmetic on those values, lane-invariant
 * operands (`a[…]`) broadcast, unit-stride operands (`b[… + j]`) loaded once per vector and k step.
 * Each lane still adds in the same order, so results equal the SIMD loop's.
 *
 * Works on printed statements (identifiers final). Anything else (a loop that also does other
 * work, an operand that is not a plain float load, variable or literal, a row of other width)
 * is left as it was.
 */
import type { Dtype } from "../../src/ir/index.js";
import { ibin, ilit, type Ex, type Stmt } from "../ast.js";
import { type Printer } from "../printer.js";

/** Bytes of one vector value (AVX2's ymm registers; narrower machines split it). */
const VECTOR_BYTES = 32;
const LANE_BYTES: Partial<Record<Dtype, number>> = { float32: 4, float64: 8 };

interface Row {
  readonly array: string;
  readonly start: number;
  readonly width: number;
  readonly lane: string;
  readonly dtype: Dtype;
  /** What is added to the row, in the lane variable. */
  readonly add: Ex;
}

/** Whether `e` reads variable `v` (in an index too). */
export const uses = (e: Ex, v: string): boolean => {
  switch (e.k) {
    case "var": return e.name === v;
    case "lit": case "hw": return false;
    case "bin": return uses(e.l, v) || uses(e.r, v);
    case "neg": case "bitnot": case "not": case "cast": return uses(e.e, v);
    case "load": return uses(e.index, v);
    case "call": return e.args.some((a) => uses(a, v));
    case "cond": return uses(e.c, v) || uses(e.t, v) || uses(e.f, v);
  }
};

/** Whether index `e` is `x + v` (v once, with coefficient 1, through sums only). */
function unitStride(e: Ex, v: string): boolean {
  if (e.k === "var") return e.name === v;
  if (e.k !== "bin" || (e.dtype !== "idx" && e.dtype !== "int32")) return false;
  if (e.op === "+") return (unitStride(e.l, v) && !uses(e.r, v)) || (unitStride(e.r, v) && !uses(e.l, v));
  if (e.op === "-") return unitStride(e.l, v) && !uses(e.r, v);
  return false;
}

/** `e` with the lane variable replaced by the literal `at`, index sums folded. */
function laneAt(e: Ex, v: string, at: number): Ex {
  if (e.k === "var") return e.name === v ? ilit(at) : e;
  if (e.k === "bin" && (e.op === "+" || e.op === "-" || e.op === "*") && (e.dtype === "idx" || e.dtype === "int32")) {
    return ibin(e.op, laneAt(e.l, v, at), laneAt(e.r, v, at));
  }
  if (e.k === "bin") return { ...e, l: laneAt(e.l, v, at), r: laneAt(e.r, v, at) };
  return e;
}

/** Whether `e` (added to a `dtype` row, lane variable `v`) is float arithmetic on loads, variables and literals of that dtype. */
function vectorizable(e: Ex, v: string, dtype: Dtype, rows: ReadonlySet<string>): boolean {
  switch (e.k) {
    case "lit": return e.dtype === dtype;
    case "var": return e.name !== v;
    case "neg": return e.dtype === dtype && vectorizable(e.e, v, dtype, rows);
    case "bin": return e.dtype === dtype && (e.op === "+" || e.op === "-" || e.op === "*" || e.op === "/") && vectorizable(e.l, v, dtype, rows) && vectorizable(e.r, v, dtype, rows);
    case "load": return e.dtype === dtype && !rows.has(e.array) && (!uses(e.index, v) || unitStride(e.index, v));
    default: return false;
  }
}

/** The row update of a SIMD loop `for (v = 0; v <= W-1) acc[C + v] = acc[C + v] + E;`, or undefined. */
function rowOf(s: Stmt, simd: string, privates: ReadonlyMap<string, number>): Row | undefined {
  if (s.k !== "for" || !(s.pragmas ?? []).includes(simd) || s.lo.k !== "lit" || s.lo.value !== 0 || s.hi.k !== "lit") return undefined;
  const body = s.body.k === "block" && s.body.body.length === 1 ? s.body.body[0]! : s.body;
  if (body.k !== "assign" || body.array === undefined || body.index === undefined || body.atomic) return undefined;
  const size = privates.get(body.array);
  const lanes = LANE_BYTES[body.dtype];
  const width = s.hi.value + 1;
  if (size === undefined || lanes === undefined || width % (VECTOR_BYTES / lanes) !== 0 || !unitStride(body.index, s.v)) return undefined;
  const start = laneAt(body.index, s.v, 0);
  if (start.k !== "lit" || start.value < 0 || start.value + width > size) return undefined;
  const rhs = body.rhs;
  if (rhs.k !== "bin" || rhs.op !== "+" || rhs.dtype !== body.dtype) return undefined;
  const self = (e: Ex) => e.k === "load" && e.array === body.array && laneAt(e.index, s.v, 0).k === "lit" && (laneAt(e.index, s.v, 0) as { value: number }).value === start.value && unitStride(e.index, s.v);
  const add = self(rhs.l) ? rhs.r : self(rhs.r) ? rhs.l : undefined;
  if (add === undefined) return undefined;
  return { array: body.array, start: start.value, width, lane: s.v, dtype: body.dtype, add };
}

export interface VectorNames {
  fresh(base: string): string;
}

/**
 * `stmts` with every loop of row updates (see above) keeping its rows in vector values.
 * `privates`: the private arrays in scope (name and size); `simd`: the SIMD loop's pragma.
 */
export function vectorRegisterTiles(stmts: readonly Stmt[], privates: ReadonlyMap<string, number>, simd: string, p: Printer, names: VectorNames, typeName: (d: Dtype) => string): Stmt[] {
  const walk = (s: Stmt): Stmt => {
    switch (s.k) {
      case "block": return { ...s, body: s.body.map(walk) };
      case "for": return tile(s) ?? { ...s, body: walk(s.body) };
      case "if": return { ...s, then: walk(s.then), ...(s.else ? { else: walk(s.else) } : {}) };
      case "while": case "doWhile": return { ...s, body: walk(s.body) };
      default: return s;
    }
  };
  const tile = (loop: Stmt & { k: "for" }): Stmt | undefined => {
    if ((loop.pragmas ?? []).length > 0) return undefined;
    const inner = loop.body.k === "block" ? loop.body.body : [loop.body];
    const rows = inner.map((s) => rowOf(s, simd, privates));
    if (rows.length === 0 || rows.some((r) => r === undefined)) return undefined;
    const all = rows as Row[];
    const arrays = new Set(all.map((r) => r.array));
    if (all.some((r) => !vectorizable(r.add, r.lane, r.dtype, arrays) || uses(loop.hi, r.array))) return undefined;
    // One set of vector values per distinct row; rows of one array must be equal or disjoint.
    const keyOf = (r: Row) => `${r.array}@${r.start}`;
    const distinct = new Map<string, Row>();
    for (const r of all) {
      const same = distinct.get(keyOf(r));
      if (same && same.width !== r.width) return undefined;
      for (const o of distinct.values()) {
        if (o !== same && o.array === r.array && o.start < r.start + r.width && r.start < o.start + o.width) return undefined;
      }
      distinct.set(keyOf(r), r);
    }
    const vtype = (d: Dtype) => `${typeName(d)} __attribute__((vector_size(${VECTOR_BYTES})))`;
    const per = (r: Row) => VECTOR_BYTES / LANE_BYTES[r.dtype]!;
    const vars = new Map<string, string[]>();
    for (const [key, r] of distinct) {
      vars.set(key, Array.from({ length: r.width / per(r) }, (_, n) => names.fresh(`${r.array}_v${r.start + n * per(r)}`)));
    }
    const raw = (text: string): Stmt => ({ k: "raw", text });
    const elem = (array: string, index: Ex) => `&${array}[${p.expr(index)}]`;
    const before: Stmt[] = [];
    const after: Stmt[] = [];
    for (const [key, r] of distinct) {
      vars.get(key)!.forEach((v, n) => {
        const at = ilit(r.start + n * per(r));
        before.push(raw(`${vtype(r.dtype)} ${v};`), raw(`__builtin_memcpy(&${v}, ${elem(r.array, at)}, sizeof ${v});`));
        after.push(raw(`__builtin_memcpy(${elem(r.array, at)}, &${v}, sizeof ${v});`));
      });
    }
    // The k step: each unit-stride operand loaded once into a vector value, then the updates.
    const loads = new Map<string, string>();
    const step: Stmt[] = [];
    const updates: Stmt[] = [];
    const vec = (e: Ex, r: Row, at: number): Ex => {
      switch (e.k) {
        case "neg": return { ...e, e: vec(e.e, r, at) };
        case "bin": return { ...e, l: vec(e.l, r, at), r: vec(e.r, r, at) };
        case "load": {
          if (!uses(e.index, r.lane)) return e;
          const index = laneAt(e.index, r.lane, at);
          const text = elem(e.array, index);
          let v = loads.get(text);
          if (v === undefined) {
            v = names.fresh(`${e.array}_v`);
            loads.set(text, v);
            step.push(raw(`${vtype(r.dtype)} ${v};`), raw(`__builtin_memcpy(&${v}, ${text}, sizeof ${v});`));
          }
          return { k: "var", name: v };
        }
        default: return e;
      }
    };
    for (const r of all) {
      vars.get(keyOf(r))!.forEach((v, n) => {
        const rhs: Ex = { k: "bin", op: "+", l: { k: "var", name: v }, r: vec(r.add, r, n * per(r)), dtype: r.dtype };
        updates.push({ k: "assign", name: v, dtype: r.dtype, rhs });
      });
    }
    return { k: "block", body: [...before, { ...loop, body: { k: "block", body: [...step, ...updates] } }, ...after] };
  };
  return stmts.map(walk);
}
