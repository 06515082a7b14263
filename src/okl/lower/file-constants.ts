/**
 * File-scope constants that are not integers: floating-point scalars computed at compile time
 * (`const float t0 = 1.35 / freq;`) and arrays with initializer lists (`const float w[] = {…};`),
 * read by every kernel as constant tables. FileContext binds the integer ones itself (struct
 * layouts need them); these need the expression lowering.
 *
 *   bindFileConstants(file)   // file.globals: t0 -> (float) (1.35 / 10.0), w -> table [3]
 */
import { OklError } from "../../errors.js";
import { c, walkExpr, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Ctx, Fail } from "./bindings.js";
import { ExprLowering } from "./expressions.js";
import type { FileContext } from "./file-context.js";
import { arrayExtents, flattenInit } from "./initializers.js";

/** Bind the file-scope constants of `file` that FileContext left out, in source order. */
export function bindFileConstants(file: FileContext): void {
  const ex = new ExprLowering(file);
  const ctx: Ctx = { scope: file.globals, within: [], preds: [], outer: false, inner: false, seqLoop: false };
  for (const it of file.unit.items) {
    if (it.kind !== "declaration" || it.spec.storage.includes("typedef")) continue;
    for (const d of it.declarators) {
      if (d.init === undefined || d.pointers.length > 0 || file.globals.get(d.name) !== undefined) continue;
      try {
        if (file.structs.resolve(it.spec) !== undefined) continue; // struct constants: not lowered (yet)
        const dtype = file.dtype(it.spec, it.pos);
        const value = (x: A.Expr | undefined): Expr => {
          if (x === undefined) return c(0);
          const e = ex.expr(x, ctx);
          walkExpr(e, (n) => {
            if (n.kind === "var" || n.kind === "subscript") file.fail(`file-scope "${d.name}": its initializer is not a compile-time constant`, x.pos);
          });
          return { kind: "cast", dtype, value: e };
        };
        if (d.arrayDims.length === 0) {
          if (d.init.kind === "initList") file.fail(`scalar "${d.name}" cannot be initialized with {…}`, d.pos);
          file.globals.set(d.name, { kind: "expr", expr: value(d.init) });
          continue;
        }
        if (d.init.kind !== "initList") file.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
        const fail: Fail = (m, p, r) => file.fail(m, p, r);
        const flat = flattenInit(d.init, arrayExtents(d, file.globals, fail), d.name, fail);
        file.globals.set(d.name, { kind: "table", name: d.name, shape: flat.shape, values: flat.items.map(value) });
      } catch (e) {
        // A constant no kernel reads may be anything C allows; the error is reported where one reads it.
        if (!(e instanceof OklError)) throw e;
        file.globals.set(d.name, { kind: "absent", reason: `file-scope "${d.name}" cannot be lowered: ${e.detail} (at line ${e.line}:${e.column})` });
      }
    }
  }
}
