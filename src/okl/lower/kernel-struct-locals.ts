/**
 * Lowering one OKL @kernel, its struct and vector locals (split out of kernel-statements.ts): a
 * vector local as one scalar per component, a struct initialized or copied scalar by scalar (C
 * copies the bytes, which are these scalars), and structs whose fields mix types through
 * record-locals.ts.
 *
 *   float3 v = make_float3(a, b, c);   // v_x = a; v_y = b; v_z = c;
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Ctx, ScalarBinding } from "./bindings.js";
import { isStructValue, placeElement, type StructPlace } from "./structs.js";
import { vectorInit } from "./vector-exprs.js";
import { componentNames, type VectorType } from "./vectors.js";
import { copyRecord, type RecordDeclHost } from "./record-locals.js";
import type { RecordPlaces } from "./records.js";
import { LockstepLowering } from "./kernel-lockstep.js";

export abstract class StructLocalLowering extends LockstepLowering {
  /** Structs whose fields mix types (record-locals.ts): how their declarations and copies emit instructions here. */
  protected recordHost(ctx: Ctx): RecordDeclHost {
    return { ex: this.ex, fresh: (n) => this.fresh(n), addTemp: (t) => void this.temps.push(t), fail: this.failAt, assign: (l, r, pos) => this.emit(l, r, ctx, false, pos) };
  }

  protected copyRecord(to: RecordPlaces, value: A.Expr, ctx: Ctx, pos: A.Pos, refused?: string): void {
    copyRecord(this.recordHost(ctx), to, value, ctx, pos, refused);
  }

  /**
   * `float3 v = …;`: one scalar per component, bound as expressions when the vector is const and
   * its value reads no memory (like const scalars), else private temporaries assigned here.
   */
  protected vectorLocal(t: VectorType, d: A.Declarator, isConst: boolean, ctx: Ctx): void {
    const init = d.init === undefined ? undefined : vectorInit(this.ex, t, d, ctx, this.failAt);
    if (init && isConst && !d.okl.shared && !d.okl.exclusive && init.every((x) => this.pure(x))) {
      ctx.scope.set(d.name, { kind: "vector", type: t, comps: init.map((expr) => ({ kind: "expr", expr })) });
      return;
    }
    if (d.okl.shared && ctx.inner) this.fail(`@shared "${d.name}" must be declared between @outer and @inner loops`, d.pos);
    const comps = componentNames(t).map((cn): ScalarBinding => {
      const name = this.fresh(`${d.name}_${cn}`);
      this.temps.push({ name, dtype: t.dtype, shape: [], addressSpace: d.okl.shared ? "local" : "private", order: "C", dimTags: undefined });
      return { kind: "temp", name, rank: 0 };
    });
    init?.forEach((x, k) => this.emit({ kind: "var", name: (comps[k] as { name: string }).name }, x, ctx, false, d.pos));
    ctx.scope.set(d.name, { kind: "vector", type: t, comps });
  }

  /** `S v = w;`: the struct's scalars one by one (a list: structScalar per scalar). */
  protected structInit(dst: StructPlace, d: A.Declarator, ctx: Ctx): void {
    if (dst.need > 0) this.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
    this.copyStruct(dst, d.init!, ctx, d.pos);
  }

  /** Scalar `k` of element `at` (its subscripts) of a struct local or array of them, from an initializer item (undefined: 0). */
  protected structScalar(dst: StructPlace, at: readonly Expr[], k: number, item: A.Expr | undefined, ctx: Ctx, pos: A.Pos): void {
    const layout = dst.layout!;
    const own = layout.scalars[k]!;
    const value = item ? this.ex.expr(item, ctx) : c(0);
    this.emit(placeElement({ ...dst, prefix: at }, k), own === layout.dtype ? value : { kind: "cast", dtype: layout.dtype, value: { kind: "cast", dtype: own, value } }, ctx, false, pos);
  }

  /** `dst = src` of whole structs: one assignment per scalar (C copies the bytes, which are these scalars). */
  protected copyStruct(dst: StructPlace, src: A.Expr, ctx: Ctx, pos: A.Pos, atomic = false): void {
    const layout = dst.layout!;
    const from = this.ex.structPlace(src, ctx);
    if (!from || !isStructValue(from) || from.layout!.name !== layout.name) {
      this.fail(`struct "${layout.name}" can only be assigned a value of struct "${layout.name}" (an element, a local or a field of that type)`, src.pos);
    }
    for (let k = 0; k < layout.size; k++) this.emit(placeElement(dst, k), placeElement(from, k), ctx, atomic, pos);
  }
}
