/**
 * C initializer lists of arrays of scalars, flattened in row-major order: nested braces per
 * subarray, C's brace elision (`int a[2][2] = {1, 2, 3}`), missing elements zero, and a `[]` first
 * extent deduced from the list (C11 6.7.9).
 *
 *   flattenInit(ast("{{1, 2}, {3}}"), [undefined, 2], "A", fail)   // { shape: [2, 2], items: [1, 2, 3, undefined] }
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { constValue, type Fail, type Scope } from "./bindings.js";
import { walkAst } from "./ast-queries.js";

export interface FlatInit {
  /** The array's extents, the first one deduced where it was `[]`. */
  readonly shape: readonly number[];
  /** One initializer per element in row-major order; undefined where C zero-initializes. */
  readonly items: readonly (A.Expr | undefined)[];
}

/**
 * The extents of array declarator `d`, compile-time integers under `scope`; a `[]` first extent is
 * undefined where `listSized` (C counts the initializer list), any other `[]` fails with `unsized`.
 */
export function arrayExtents(d: A.Declarator, scope: Scope, fail: Fail, listSized = d.init?.kind === "initList", unsized?: string): (number | undefined)[] {
  const size = `the size of array "${d.name}" must be a positive compile-time integer`;
  return d.arrayDims.map((e, k) => {
    if (e === undefined) return k === 0 && listSized ? undefined : fail(unsized ?? size, d.pos);
    const v = constValue(e, scope);
    if (v === undefined) {
      // Name the cause: an undefined name, or a variable, in the size.
      let why = "";
      walkAst(e, (x) => {
        if (why || x.kind !== "ident") return;
        const b = scope.get(x.name);
        if (b === undefined) why = `; it uses "${x.name}", which is not defined (defines must be given with -D / opts.defines)`;
        else if (!(b.kind === "expr" && b.expr.kind === "const")) why = `; it uses "${x.name}", which is not a compile-time integer`;
      });
      return fail(size + why, e.pos);
    }
    return v < 1 ? fail(size, e.pos) : v;
  });
}

/** Flatten `init` for an array `name` with extents `shape` (`undefined` first extent: `T a[] = {…}`). */
export function flattenInit(init: A.InitList, shape: readonly (number | undefined)[], name: string, fail: Fail): FlatInit {
  const inner = shape.slice(1).map((n) => n!);
  const rowSize = inner.reduce((p, n) => p * n, 1);
  const out: (A.Expr | undefined)[] = [];
  const fill = (list: A.InitList, dims: readonly number[], base: number, limit: number | undefined): number => {
    if (list.designators.some((d) => d !== undefined)) fail(`array "${name}": designated initializers are not supported`, list.pos);
    const sub = dims.slice(1).reduce((p, n) => p * n, 1);
    let at = 0;
    for (const item of list.items) {
      if (item.kind === "initList" && dims.length > 1) {
        // A braced item starts the next subarray; after elided scalars that is only C's meaning at a subarray boundary.
        if (at % sub !== 0) fail(`array "${name}": a braced initializer after a partly filled subarray is not supported`, item.pos);
        fill(item, dims.slice(1), base + at, sub);
        at += sub;
      } else {
        // `{x}` around a scalar is the scalar (C allows braces around a scalar initializer).
        let x = item;
        while (x.kind === "initList" && x.items.length === 1) x = x.items[0]!;
        if (x.kind === "initList") fail(`array "${name}": too many braces around a scalar initializer`, x.pos);
        out[base + at] = x;
        at += 1;
      }
      if (limit !== undefined && at > limit) fail(`array "${name}": too many initializers (it has ${limit} element(s) there)`, item.pos);
    }
    return at;
  };
  const first = shape[0];
  const used = fill(init, shape.length > 0 ? [first ?? Number.MAX_SAFE_INTEGER, ...inner] : [], 0, first === undefined ? undefined : first * rowSize);
  const rows = first ?? Math.max(1, Math.ceil(used / rowSize));
  const total = rows * rowSize;
  return { shape: [rows, ...inner], items: Array.from({ length: total }, (_, k) => out[k]) };
}

/** The flat row-major index of `indices` into an array with `extents`: `(i0*e1 + i1)*e2 + i2`. */
export function rowMajorIndex(indices: readonly Expr[], extents: readonly number[]): Expr {
  let lin = indices[0]!;
  for (let k = 1; k < indices.length; k++) lin = { kind: "arith", op: "+", left: { kind: "arith", op: "*", left: lin, right: c(extents[k]!) }, right: indices[k]! };
  return lin;
}

/** The row-major subscripts of flat element `k` of an array with extents `shape`: rowMajor(5, [2, 3]) is [1, 2]. */
export function rowMajor(k: number, shape: readonly number[]): Expr[] {
  const out: Expr[] = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    out.unshift(c(k % shape[d]!));
    k = Math.floor(k / shape[d]!);
  }
  return out;
}
