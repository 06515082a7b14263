/**
 * OKL AST -> Loom kernels. One kernel per `@kernel` function; each outer-most `@outer` nest is
 * separated from the next by a global barrier, so the scheduler makes it its own device kernel,
 * in order (OCCA's `_occa_<name>_<k>`). Loops with affine bounds become inames over integer
 * domains (steps other than 1 and decreasing loops through a trip-count iname), `@outer(k)` /
 * `@inner(k)` become `g.k` / `l.k` with OCCA's automatic axis numbering, `@tile` a block and an
 * in-tile iname with the documented span semantics (OKL.md §5, not OCCA's stride bug).
 * Statements become instructions in program order with the data dependencies between them;
 * `if` conditions become predicates, `@shared`/`@exclusive` local/private temporaries, `@atomic`
 * atomic updates, `@barrier` and OCCA's implicit barriers local barriers.
 *
 *   lowerOkl(parseOklAst(src))   // [Kernel "addVectors"]
 */
import { kernelRecord, withKernel, type Expr, type Kernel, type OklKernelOptions } from "../../ir/index.js";
import { assembleKernel } from "./assemble.js";
import { checkChosenRegions } from "./chosen-regions.js";
import type * as A from "../syntax/ast.js";
import { containsOuter } from "./ast-queries.js";
import { Scope } from "./bindings.js";
import { FileContext, type LowerOklOptions } from "./file-context.js";
import { bindFileConstants } from "./file-constants.js";
import { LoopLowering } from "./kernel-loops.js";
import { movingPointers } from "./moving-pointers.js";
import { rowLayout } from "./row-layout.js";

export type { LowerOklOptions } from "./file-context.js";

export type { OklKernelOptions } from "../../ir/index.js";

/**
 * The `@restrict` arguments and `@max_inner_dims`/`@simd_length` of an imported kernel, kept on
 * the kernel (`Kernel.oklOptions`) so they survive transformations; undefined for other kernels.
 */
export function oklKernelOptions(k: Kernel): OklKernelOptions | undefined {
  if (k.oklOptions?.places === undefined) return k.oklOptions;
  // The source places are for messages of later passes, not an OKL option.
  const { places: _, ...options } = k.oklOptions;
  return options;
}

/** Lower every `@kernel` of `unit`. */
export function lowerOkl(source: A.TranslationUnit, opts: LowerOklOptions = {}): Kernel[] {
  const unit = movingPointers(source, (m, pos) => new FileContext(source, opts).fail(m, pos)); // `p++` as an offset (moving-pointers.ts)
  const file = new FileContext(unit, opts);
  bindFileConstants(file);
  return unit.items.filter((it): it is A.FunctionDef => it.kind === "function" && it.isKernel && it.body !== undefined)
    .map((f) => new OklKernelLowering(file, f).lower());
}

/** One @kernel function -> one Loom kernel: its arguments, then its body, then the assembled kernel. */
class OklKernelLowering extends LoopLowering {
  /** Per pointer argument tested for NULL, the value argument saying it was passed (null-tests.ts). */
  private readonly passedFlags = new Map<string, Expr>();
  protected readonly pointerPassed = (this.ex.pointerPassed = (array: string, label: string, pos: A.Pos): Expr => {
    const known = this.passedFlags.get(array);
    if (known) return known;
    if (this.argNamed(array)?.kind !== "array") return this.fail(`"${label}" is tested for NULL, but it points into "${array}", which is not a pointer argument of the kernel`, pos);
    const flag = this.derivedValue({ kind: "call", fn: "okl_passed", args: [{ kind: "var", name: array }] }, `${array}_passed`, `whether pointer argument "${array}" was passed (1) or is NULL (0)`, "int32");
    this.passedFlags.set(array, flag);
    return flag;
  });

  lower(): Kernel {
    const f = this.f;
    const scope = new Scope(this.file.globals);
    this.bindArguments(scope);
    const ctx = this.rootCtx(scope);
    if (f.body!.items.some((s) => containsOuter(s))) this.hostBlock(f.body!.items, ctx);
    else {
      // Without @outer loops (accepted when the loop check is off, as on OCCA's serial and OpenMP
      // modes), the body runs once: one work-group of one work-item, regular loops sequential.
      this.nests = 1;
      this.block(f.body!.items, { ...ctx, outer: true });
    }
    return this.finish();
  }

  protected finish(): Kernel {
    if (this.nests === 0) this.fail(`[@kernel] requires at least one [@outer] for-loop`, this.f.pos, "OKL §2");
    // Multi-dimensional local arrays read past a row keep C's row-major layout (row-layout.ts).
    const shell = kernelRecord({ name: this.f.name, domains: this.domains, instructions: [], args: [] });
    checkChosenRegions(shell, this.log.insns, this.ex.regions, this.valueArgs, this.failAt); // ping-pong buffers in one array stay apart
    const { insns, temps } = rowLayout(shell, this.log.insns, this.temps, this.ex.rows, (m, pos) => this.file.warn(m, pos), this.flatViews);
    const places = this.placesRecord();
    return withKernel(assembleKernel({
      name: this.f.name, pos: this.f.pos, domains: this.domains, insns, args: this.sortedArgs(), temps,
      rules: this.file.rules, tags: this.tags, accesses: this.log.accesses, read: this.log.read, written: this.log.written,
      structArgs: this.structArgs, typeChecked: this.log.typeChecked,
    }, this.failAt), {
      oklOptions: {
        restrict: this.restrict,
        ...(this.maxInnerDims ? { maxInnerDims: this.maxInnerDims } : {}),
        ...(this.simdLength !== undefined ? { simdLength: this.simdLength } : {}),
        ...(this.derivedArgs.length > 0 ? { derivedArgs: this.derivedArgs } : {}),
        ...(places ? { places } : {}),
        ...(this.recordArgs.length > 0 ? { structArgs: this.recordArgs.map(({ made, fields, ...r }) => ({ ...r, fields: fields.map((f) => ({ ...f, argument: made.get(f.name) })) })) } : {}),
      },
    });
  }
}
