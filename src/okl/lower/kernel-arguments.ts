/**
 * Lowering one OKL @kernel, its arguments: pointers become array arguments, scalars value
 * arguments, by-value structs flattened fields, vectors one argument per component.
 */
import type { KernelArg } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { constValue, Scope, type Binding, type ScalarBinding } from "./bindings.js";
import { recordsArgument, type RecordSpec } from "./record-locals.js";
import { structReason, type StructBase } from "./structs.js";
import { componentNames, type VectorType } from "./vectors.js";
import { KernelCore } from "./kernel-core.js";

export abstract class ArgumentLowering extends KernelCore {
  /** The kernel's parameters: each bound in `scope` and made a kernel argument (or left out, with the reason, where the IR cannot hold it). */
  protected bindArguments(scope: Scope): void {
    const f = this.f;
    for (const p of f.params) {
      const d = p.declarator;
      if (d.name === "") continue;
      this.taken.add(d.name);
    }
    for (const [index, p] of f.params.entries()) {
      const { spec, declarator: d } = this.file.expandTypedef(p.spec, p.declarator);
      if (d.name === "") continue;
      this.argKeys.set(d.name, [index]);
      const levels = d.pointers.length + d.arrayDims.length;
      const vector = levels === 0 ? this.file.vectorType(spec) : undefined;
      if (vector) {
        scope.set(d.name, this.vectorArg(d.name, vector, index));
        continue;
      }
      const def = levels === 0 ? this.file.structs.definition(spec) : undefined;
      if (def) {
        scope.set(d.name, this.byValue(d.name, def, index));
        continue;
      }
      // No IR type holds pointers to pointers or structs that cannot be lowered: such an argument
      // is left out of the kernel's arguments, and naming it in the body is the error.
      const unusable = (why: string) => scope.set(d.name, { kind: "absent", reason: `argument "${d.name}": ${why} (an argument Loom cannot represent is left out of the kernel while the kernel does not use it)` });
      if (levels > 1) {
        unusable("pointers to pointers are not supported");
        continue;
      }
      if (levels === 1 && spec.base.kind === "builtin" && spec.base.name === "void") {
        this.voidPointer(d.name, scope, p.pos);
        continue;
      }
      const lookup = this.file.structs.resolve(spec);
      const record = levels === 1 && lookup && "reason" in lookup ? this.file.structs.recordFields(spec) : undefined;
      if (record) {
        const restrict = d.okl.restrict === true || d.pointers[0]?.qualifiers.includes("restrict") === true;
        scope.set(d.name, this.recordsArg(d.name, record, index, restrict));
        continue;
      }
      if (lookup && "reason" in lookup) {
        unusable(structReason(lookup));
        continue;
      }
      const struct = lookup?.layout;
      const dtype = struct?.dtype ?? this.file.dtype(spec, p.pos);
      if (levels === 1) {
        this.arrayArgs.add(d.name);
        if (d.okl.restrict || d.pointers[0]?.qualifiers.includes("restrict")) this.restrict.push(d.name);
        const dim = d.okl.dim ? { dims: d.okl.dim.map((e) => this.ex.expr(e, this.rootCtx(scope))), order: d.okl.dimOrder ?? d.okl.dim.map((_, k) => k) } : undefined;
        scope.set(d.name, { kind: "array", name: d.name, ...(dim ? { dim } : {}), ...(struct ? { struct } : {}) });
        if (struct) this.structArgs.set(d.name, struct.size);
        this.args.push({ kind: "array", name: d.name, dtype, shape: undefined, order: "C", dimTags: undefined, isInput: true, isOutput: false });
      } else {
        this.valueArgs.add(d.name);
        scope.set(d.name, { kind: "value", name: d.name });
        this.args.push({ kind: "value", name: d.name, dtype });
      }
    }
  }

  /**
   * A `void *` argument (libCEED's `ctx`): no element type, so the kernel can only pass it on or
   * cast it. Unused (OCCA's users pass a context pointer every kernel of a family takes), it is
   * left out of the kernel's arguments with a warning naming it: Loom's run() takes arguments by
   * name, so no position needs keeping, and the host must not pass it. Naming it in the body
   * (dereferencing, casting) is an OklError naming it and the line.
   */
  private voidPointer(name: string, scope: Scope, pos: A.Pos): void {
    scope.set(name, {
      kind: "absent",
      reason: `argument "${name}" is a \`void *\`: Loom cannot read or cast an untyped pointer (declare it with its element type, e.g. \`const double *${name}\`, and pass that array)`,
    });
    this.file.warn(`kernel "${this.f.name}": argument "${name}" is a \`void *\` the kernel never uses; it is left out of the kernel's arguments (do not pass it to run())`, pos, "unused void * argument");
  }

  /**
   * A struct argument passed by value, flattened: each field the kernel reads becomes an argument
   * named `<arg>_<field path>` (`c.cc.ccc` -> `c_cc_ccc`, `c.d[k]` -> the array `c_d`), made on
   * first use and placed where the struct was, in field order. Fields never read are no arguments.
   */
  protected byValue(arg: string, top: { readonly name: string; readonly def: StructBase }, index: number): Binding {
    const made = new Map<string, Binding>();
    const field = (path: readonly string[], pos: A.Pos): Binding => {
      const key = path.join(".");
      const memo = made.get(key);
      if (memo) return memo;
      let cur: { readonly name: string; readonly def: StructBase } | undefined = top;
      let found: { spec: A.TypeSpec; d: A.Declarator } | undefined;
      const order: number[] = [];
      for (const [k, name] of path.entries()) {
        if (!cur) return this.fail(`"${arg}.${path.slice(0, k).join(".")}" is not a struct`, pos);
        const all = (cur.def.fields ?? []).flatMap((f) => f.declarators.map((d) => ({ spec: f.spec, d })));
        const at = all.findIndex((x) => x.d.name === name);
        if (at < 0) return this.fail(`struct "${cur.name}" has no field "${name}"; its fields are ${all.map((x) => x.d.name).join(", ")}`, pos);
        found = all[at]!;
        order.push(at);
        if (k < path.length - 1) {
          if (found.d.pointers.length + found.d.arrayDims.length > 0) this.fail(`"${arg}.${path.slice(0, k + 1).join(".")}": only struct fields (not pointers or arrays) of a struct passed by value can be followed by "."`, pos);
          cur = this.file.structs.definition(found.spec);
        }
      }
      const { spec, declarator: d } = this.file.expandTypedef(found!.spec, found!.d);
      const dims = d.arrayDims.map((e) => {
        const v = e === undefined ? undefined : constValue(e, this.file.globals);
        return v !== undefined && v > 0 ? v : this.fail(`the size of array field "${key}" is not a positive compile-time integer`, pos);
      });
      const lookup = this.file.structs.resolve(spec);
      if (lookup && "reason" in lookup) this.fail(structReason(lookup), pos);
      const struct = lookup?.layout;
      if (d.pointers.length + (dims.length > 0 ? 1 : 0) > 1) this.fail(`field "${arg}.${key}": pointers to pointers and arrays of pointers are not supported`, pos);
      if (struct && (d.pointers.length + dims.length === 0 || dims.length > 1)) {
        this.fail(`field "${arg}.${key}" of struct "${struct.name}": use its fields${dims.length > 1 ? " (multi-dimensional arrays of structs in a struct passed by value are not supported)" : ""}`, pos);
      }
      const dtype = struct?.dtype ?? this.file.dtype(spec, pos);
      const name = this.fresh(`${arg}_${path.join("_")}`);
      this.argKeys.set(name, [index, ...order]);
      let b: Binding;
      if (d.pointers.length + dims.length === 0) {
        this.valueArgs.add(name);
        this.args.push({ kind: "value", name, dtype });
        b = { kind: "value", name };
      } else {
        this.arrayArgs.add(name);
        if (struct) this.structArgs.set(name, struct.size);
        if (d.okl.restrict || d.pointers[0]?.qualifiers.includes("restrict")) this.restrict.push(name);
        // An array field is copied with the struct: the kernel reads its copy and cannot write the caller's.
        if (dims.length > 0) this.ex.readOnly.add(name);
        this.args.push({ kind: "array", name, dtype, shape: undefined, order: "C", dimTags: undefined, isInput: true, isOutput: false });
        b = { kind: "array", name, ...(struct ? { struct } : {}), ...(dims.length > 0 && !struct ? { extents: dims } : {}) };
      }
      made.set(key, b);
      return b;
    };
    return { kind: "byValue", name: arg, field };
  }

  /**
   * A pointer to structs whose fields mix types (`bcData *bc` with `int` and `double` fields): no IR
   * array holds C's padded layout, so each field is an array argument of its own type, `<arg>_<field>`,
   * made on first use and placed where the pointer was, in field order (`bc[i].u` is `bc_u[i]`).
   * C's layout is kept on the kernel (`oklOptions.structArgs`) for the host-side helpers that split
   * C's bytes into these arrays and join them back (struct-args.ts).
   */
  protected recordsArg(arg: string, r: RecordSpec, index: number, restrict: boolean): Binding {
    const { binding, layout } = recordsArgument(arg, r, (n) => this.fresh(n), (name, dtype, leaf) => {
      this.argKeys.set(name, [index, leaf]);
      this.arrayArgs.add(name);
      if (restrict) this.restrict.push(name);
      this.args.push({ kind: "array", name, dtype, shape: undefined, order: "C", dimTags: undefined, isInput: true, isOutput: false });
    }, this.failAt);
    this.recordArgs.push(layout);
    return binding;
  }

  /**
   * A vector passed by value, flattened like a struct passed by value: one value argument per
   * component, `<arg>_x`, `<arg>_y`, … (all of them, read or not), placed where the vector was.
   */
  protected vectorArg(arg: string, t: VectorType, index: number): Binding {
    const comps = componentNames(t).map((cn, k): ScalarBinding => {
      const name = this.fresh(`${arg}_${cn}`);
      this.argKeys.set(name, [index, k]);
      this.valueArgs.add(name);
      this.args.push({ kind: "value", name, dtype: t.dtype });
      return { kind: "value", name };
    });
    return { kind: "vector", type: t, comps };
  }

  // ---- the kernel -----------------------------------------------------------------------------

  /** The arguments in signature order (flattened struct fields are made in the order they are first read). */
  protected sortedArgs(): KernelArg[] {
    const key = (a: KernelArg) => this.argKeys.get(a.name) ?? [];
    const cmp = (x: readonly number[], y: readonly number[]): number => {
      for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
      return x.length - y.length;
    };
    return [...this.args].sort((a, b) => cmp(key(a), key(b)));
  }
}
