/**
 * The table of OKL attribute handlers (OKL.md §2): for each attribute, what it may be written on and
 * how its arguments are checked and decoded. The parser consults it whenever it attaches an
 * attribute to a node, so an attribute in the wrong place or with bad arguments is an OklError at
 * the attribute, with OCCA's wording.
 */
import type { Attribute, AttributeArg, Expr, OklLoop, OklLoopLevel, OklVarInfo } from "./ast.js";
import { evalConst } from "./consteval.js";

/**
 * Barrier types OCCA 1.x accepted (any string was; libParanumal's kernels write `@barrier("local")`
 * and `@barrier("global")`) and current OCCA refuses: a work-group barrier, with a warning (parse-statements.ts).
 */
export const OCCA1_BARRIER_TYPES: ReadonlySet<string> = new Set(["local", "global"]);

/** What an attribute is attached to. */
export type AttrTarget = "function" | "variable" | "for" | "empty" | "expr" | "compound" | "statement";

/** Throws the OklError for `detail` at attribute `a` under rule `rule`. */
export type AttrFail = (detail: string, a: Attribute, rule: string) => Error;

interface Handler {
  readonly targets: readonly AttrTarget[];
  /** The message when written on anything else. */
  readonly misplaced: (target: AttrTarget) => string;
  readonly checkArgs: (a: Attribute, fail: AttrFail) => void;
  /**
   * For a loop attribute whose meaning depends on the loop tree: why it cannot be written on this
   * loop (validate.ts supplies the loop's kind and whether an @outer loop encloses it), or undefined.
   */
  readonly onLoop?: (loop: OklLoop | undefined, insideOuter: boolean) => string | undefined;
}

/** The first level of a loop (`@tile(T, @outer, @inner)` starts with @outer), or "regular". */
function firstLevel(loop: OklLoop | undefined): "outer" | "inner" | "regular" {
  if (!loop) return "regular";
  if (loop.kind !== "tile") return loop.kind;
  return loop.outer?.kind ?? loop.inner?.kind ?? "regular";
}

const describeLoop = (loop: OklLoop | undefined): string =>
  loop === undefined ? "a regular loop" : loop.kind === "tile" ? "a [@tile] without an [@inner] level" : `an [@${loop.kind}] loop`;

/**
 * OCCA reads @nobarrier only on outer-most @inner loops (withLauncher's implicit barriers) and
 * ignores it elsewhere; on a loop with no @inner level it can never have an effect.
 */
function innerOnly(loop: OklLoop | undefined): string | undefined {
  const inner = loop !== undefined && (loop.kind === "inner" || (loop.kind === "tile" && (loop.outer?.kind === "inner" || loop.inner?.kind === "inner")));
  if (inner) return undefined;
  return `[@nobarrier] only applies to [@inner] loops (it removes the implicit barrier after an [@inner] loop; this is ${describeLoop(loop)})`;
}

/**
 * OCCA reads @max_inner_dims and @simd_length only on the outer-most @outer loop of each kernel
 * launch (withLauncher, serial's @exclusive sizing) and silently ignores them anywhere else.
 */
const outermostOuterOnly = (name: string) => (loop: OklLoop | undefined, insideOuter: boolean): string | undefined => {
  if (firstLevel(loop) !== "outer") {
    return `[@${name}] only applies to the outer-most [@outer] loop (this is ${loop?.kind === "tile" ? "a [@tile] whose block loop is not [@outer]" : describeLoop(loop)})`;
  }
  if (insideOuter) return `[@${name}] only applies to the outer-most [@outer] loop (this [@outer] loop is nested in another one; move it to the outer-most)`;
  return undefined;
};

const constInt = (e: Expr): number | undefined => evalConst(e, () => undefined);

function noArgs(a: Attribute, fail: AttrFail): void {
  if (a.args.some((x) => x.kind === "kwArg") && (a.name === "nobarrier" || a.name === "globalPtr")) {
    throw fail(`[@${a.name}] does not take kwargs`, a, `@${a.name} arguments`);
  }
  if (a.args.length > 0) throw fail(`[@${a.name}] does not take arguments`, a, `@${a.name} arguments`);
}

function noKwargs(a: Attribute, fail: AttrFail): void {
  if (a.args.some((x) => x.kind === "kwArg")) throw fail(`[@${a.name}] does not take kwargs`, a, `@${a.name} arguments`);
}

function exprArgs(a: Attribute, fail: AttrFail): Expr[] {
  return a.args.map((x) => {
    if (x.kind !== "exprArg") throw fail(`[@${a.name}] arguments must be expressions, not "${x.raw}"`, a, `@${a.name} arguments`);
    return x.expr;
  });
}

function loopLevelArgs(a: Attribute, fail: AttrFail): void {
  noKwargs(a, fail);
  if (a.args.length > 1) throw fail(`[@${a.name}] takes at most one index`, a, `@${a.name} arguments`);
  const x = a.args[0];
  if (x) {
    const v = x.kind === "exprArg" ? constInt(x.expr) : undefined;
    if (v === undefined || ![0, 1, 2].includes(v)) throw fail(`[@${a.name}] argument must be 0, 1, or 2`, a, `@${a.name} arguments`);
  }
}

const forOnly = (name: string) => () => `'${name}' attribute only applies to for statement`;
const declOnly = (name: string) => () => `'${name}' attribute only applies to variable or type declarations`;
const typeOrVar = (name: string) => () => `'${name}' attribute only applies to type or variable declarations`;

function positiveInts(a: Attribute, fail: AttrFail, max: number): void {
  noKwargs(a, fail);
  if (a.args.length === 0) throw fail(`[@${a.name}] expects at least one argument`, a, `@${a.name} arguments`);
  if (a.args.length > max) {
    throw fail(max === 1 ? `[@${a.name}] takes one argument` : `[@${a.name}] takes at most ${max} arguments`, a, `@${a.name} arguments`);
  }
  for (const e of exprArgs(a, fail)) {
    const v = constInt(e);
    if (v === undefined) throw fail(`[@${a.name}] arguments must be compile-time integers`, a, `@${a.name} arguments`);
    if (v <= 0) throw fail(`[@${a.name}] arguments must be positive!`, a, `@${a.name} arguments`);
  }
}

export const HANDLERS: Readonly<Record<string, Handler>> = {
  kernel: {
    targets: ["function"],
    misplaced: (t) => (t === "variable" ? "'kernel' attribute only applies to functions" : "'kernel' attribute cannot be applied to a statement"),
    checkArgs: noArgs,
  },
  outer: { targets: ["for"], misplaced: forOnly("outer"), checkArgs: loopLevelArgs },
  inner: { targets: ["for"], misplaced: forOnly("inner"), checkArgs: loopLevelArgs },
  tile: {
    targets: ["for"],
    misplaced: forOnly("tile"),
    checkArgs(a, fail) {
      const rule = "@tile arguments";
      const pos = a.args.filter((x) => x.kind !== "kwArg");
      if (a.args.length === 0) throw fail("[@tile] expects at least one argument", a, rule);
      if (pos.length > 3) throw fail("[@tile] takes 1-3 arguments, the last 2 being attributes for the block and in-block loops respectively", a, rule);
      const first = a.args[0]!;
      if (first.kind !== "exprArg") throw fail("[@tile] expects a non-empty first argument", a, rule);
      for (const x of pos.slice(1)) {
        if (x.kind !== "attrArg" || (x.attr.name !== "outer" && x.attr.name !== "inner")) {
          throw fail("[@tile] can only take attributes for the 2nd and 3rd arguments", a, rule);
        }
        loopLevelArgs(x.attr, fail);
      }
      for (const x of a.args) {
        if (x.kind !== "kwArg") continue;
        // `safe` is OCCA 1.0's name of `check` (libocca/occa#92, 2018; its array kernels still spell it so).
        if (x.name !== "check" && x.name !== "safe") throw fail(`[@tile] does not take this kwarg: ${x.name}`, a, rule);
        if (x.value.kind !== "bool") throw fail(`[@tile] '${x.name}' argument must be true or false`, a, rule);
      }
    },
  },
  nobarrier: { targets: ["for"], misplaced: forOnly("nobarrier"), checkArgs: noArgs, onLoop: innerOnly },
  max_inner_dims: {
    targets: ["for"], misplaced: forOnly("max_inner_dims"), checkArgs: (a, f) => positiveInts(a, f, 3), onLoop: outermostOuterOnly("max_inner_dims"),
  },
  simd_length: {
    targets: ["for"], misplaced: forOnly("simd_length"), checkArgs: (a, f) => positiveInts(a, f, 1), onLoop: outermostOuterOnly("simd_length"),
  },
  shared: { targets: ["variable"], misplaced: declOnly("shared"), checkArgs: noArgs },
  exclusive: { targets: ["variable"], misplaced: typeOrVar("exclusive"), checkArgs: noArgs },
  restrict: {
    targets: ["variable", "function"],
    misplaced: () => "'restrict' attribute only applies to variable or type declaration",
    checkArgs: noArgs,
  },
  globalPtr: { targets: ["variable"], misplaced: declOnly("globalPtr"), checkArgs: noArgs },
  implicitArg: { targets: ["variable"], misplaced: declOnly("implicitArg"), checkArgs: noArgs },
  dim: {
    targets: ["variable"],
    misplaced: typeOrVar("dim"),
    checkArgs(a, fail) {
      noKwargs(a, fail);
      if (a.args.length === 0) throw fail("[@dim] expects at least one argument", a, "@dim arguments");
      exprArgs(a, fail);
    },
  },
  dimOrder: {
    targets: ["variable"],
    misplaced: typeOrVar("dimOrder"),
    checkArgs(a, fail) {
      const rule = "@dimOrder arguments";
      noKwargs(a, fail);
      if (a.args.length === 0) throw fail("[@dimOrder] expects at least one argument", a, rule);
      const seen = new Set<number>();
      for (const e of exprArgs(a, fail)) {
        const v = constInt(e);
        if (v === undefined || v < 0) {
          throw fail("[@dimOrder] arguments must be known at compile-time and an ordering of [0, 1, ...]", a, rule);
        }
        if (seen.has(v)) throw fail("[@dimOrder] Duplicate index", a, rule);
        seen.add(v);
      }
      // The range [0, n-1] depends on the @dim of the variable or its type: checked by validate.ts.
    },
  },
  barrier: {
    targets: ["empty"],
    misplaced: () => "'barrier' attribute only applies to empty statements",
    checkArgs(a, fail) {
      const rule = "@barrier arguments";
      noKwargs(a, fail);
      if (a.args.length > 1) throw fail("[@barrier] takes at most one argument", a, rule);
      const x = a.args[0];
      if (!x) return;
      if (x.kind !== "exprArg" || x.expr.kind !== "string") throw fail("[@barrier] must have no arguments or have one string argument", a, rule);
      if (x.expr.value !== "warp" && !OCCA1_BARRIER_TYPES.has(x.expr.value)) throw fail(`[@barrier] has an invalid barrier type: ${x.expr.value}`, a, rule);
    },
  },
  atomic: {
    targets: ["expr", "compound"],
    misplaced: () => "'atomic' attribute only applies to expression or compound statement",
    checkArgs: noArgs,
  },
};

Object.setPrototypeOf(HANDLERS, null);

/**
 * Names OKL does not have but real kernels write, with what they would mean in OKL (the
 * attribute list alone reads as "write @globalPtr" for libParanumal's `@global const dfloat *x`).
 */
const NOT_OKL: Readonly<Record<string, string>> = Object.assign(Object.create(null), {
  global: "OKL has no @global (nor has OCCA); a pointer argument already points to global memory, so drop it (@globalPtr marks a pointer field of a struct)",
  local: "OKL's work-group memory is @shared (OpenCL calls it local)",
});

/** The refusal of an attribute named `name` that no handler knows, e.g. `unknown attribute @outr (OKL attributes: …)`. */
export function unknownAttributeMessage(name: string): string {
  const known = Object.keys(HANDLERS).map((n) => "@" + n).join(" ");
  const hint = NOT_OKL[name];
  return hint ? `unknown attribute @${name}: ${hint} (OKL attributes: ${known})` : `unknown attribute @${name} (OKL attributes: ${known})`;
}

/**
 * Check `a` written on `target`: a known attribute (or one in `extra`), in a legal place, with
 * legal arguments. Arguments are checked first, as OCCA does.
 */
export function checkAttribute(a: Attribute, target: AttrTarget, fail: AttrFail, extra?: ReadonlySet<string>): void {
  const h = HANDLERS[a.name];
  if (!h) {
    if (extra?.has(a.name)) return;
    throw fail(unknownAttributeMessage(a.name), a, "attribute name");
  }
  if (!h.targets.includes(target)) throw fail(h.misplaced(target), a, `@${a.name} placement`);
  h.checkArgs(a, fail);
}

/**
 * Why attribute `a` cannot be written on a loop of kind `loop` (undefined for a regular loop),
 * given whether an @outer loop encloses it; undefined when it can (or has no such rule).
 *
 *   loopPlacementError(nobarrierAttr, { kind: "outer", axis: undefined }, false)  // "[@nobarrier] only applies to [@inner] loops ..."
 */
export function loopPlacementError(a: Attribute, loop: OklLoop | undefined, insideOuter: boolean): string | undefined {
  return HANDLERS[a.name]?.onLoop?.(loop, insideOuter);
}

function level(a: Attribute): OklLoopLevel {
  const x = a.args[0];
  const axis = x?.kind === "exprArg" ? constInt(x.expr) : undefined;
  return { kind: a.name as "outer" | "inner", axis };
}

/** The OKL loop kind of a `for` with (already checked) attributes `attrs`. */
export function decodeLoop(attrs: readonly Attribute[], fail: AttrFail): OklLoop | undefined {
  const kinds = attrs.filter((a) => a.name === "outer" || a.name === "inner" || a.name === "tile");
  if (kinds.length === 0) return undefined;
  if (kinds.length > 1) {
    throw fail(`a for loop takes one of [@outer], [@inner], [@tile]; found ${kinds.map((k) => "[@" + k.name + "]").join(" and ")}`, kinds[1]!, "loop attributes");
  }
  const a = kinds[0]!;
  if (a.name !== "tile") return level(a);
  const pos = a.args.filter((x): x is Extract<AttributeArg, { kind: "attrArg" }> => x.kind === "attrArg");
  const sizeArg = a.args[0] as Extract<AttributeArg, { kind: "exprArg" }>;
  const check = a.args.find((x): x is Extract<AttributeArg, { kind: "kwArg" }> => x.kind === "kwArg");
  return {
    kind: "tile",
    size: sizeArg.expr,
    outer: pos[0] ? level(pos[0].attr) : undefined,
    inner: pos[1] ? level(pos[1].attr) : undefined,
    check: check ? check.value.kind === "bool" && check.value.value : true,
  };
}

/** Integer hints of a loop (`max_inner_dims`, `simd_length`). */
export function decodeLoopHints(attrs: readonly Attribute[]): Record<string, readonly number[]> {
  const out: Record<string, readonly number[]> = {};
  for (const a of attrs) {
    if (a.name !== "max_inner_dims" && a.name !== "simd_length") continue;
    out[a.name] = a.args.map((x) => (x.kind === "exprArg" ? (constInt(x.expr) ?? 0) : 0));
  }
  return out;
}

/** The OKL meaning of the attributes on a variable. */
export function decodeVar(attrs: readonly Attribute[]): OklVarInfo {
  const has = (n: string) => attrs.some((a) => a.name === n);
  const dim = attrs.find((a) => a.name === "dim");
  const order = attrs.find((a) => a.name === "dimOrder");
  return {
    shared: has("shared"),
    exclusive: has("exclusive"),
    restrict: has("restrict"),
    dim: dim ? dim.args.flatMap((x) => (x.kind === "exprArg" ? [x.expr] : [])) : undefined,
    dimOrder: order ? order.args.map((x) => (x.kind === "exprArg" ? (constInt(x.expr) ?? 0) : 0)) : undefined,
  };
}
