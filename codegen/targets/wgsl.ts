/**
 * WGSL, WebGPU's shading language: one compute shader module holding every device kernel as an
 * entry point (`@compute @workgroup_size(x, y, z)`), arrays as storage buffers, each kernel's
 * value arguments in a uniform buffer of its own, local temporaries as module-scope
 * `var<workgroup>`, `workgroupBarrier()` / `storageBarrier()`, group and local ids from the
 * `workgroup_id` and `local_invocation_id` built-ins. WGSL is not C, so the shared lowered AST is
 * printed by this target's own printer (as js does), expressions by wgsl-expr.ts.
 *
 * Refused with a CodegenError: dtypes WGSL has no type for (64-bit, 8/16-bit integers, float16)
 * and the C pragmas of other targets. WGSL has atomics of `i32` and `u32` only: a float32 cell
 * updated atomically is an `atomic<u32>` holding its bits, updated by compare-and-swap.
 */
import { assertNever, CodegenError } from "../../src/errors.js";
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { Ex, Stmt } from "../ast.js";
import type { LoweredKernel, LowerOptions } from "../lower.js";
import { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { noAtomic } from "./atomics.js";
import { commentText, printedKernels } from "./rename.js";
import { ERR, GROUP_ID, LOCAL_ID, literal, WgslExprPrinter, wtypeOf, type WgslTrap, type WType } from "./wgsl-expr.js";

export { trapMessage, type WgslTrap } from "./wgsl-expr.js";

/** What the wgsl target asks of the lowering: hardware axes, native atomics, no pragmas. */
export const WGSL_LOWER_OPTIONS: LowerOptions = { hwAxes: true, atomics: "native" };

/** Where a run binds what (all in bind group 0), for the webgpu backend. */
export interface WgslLayout {
  /** Each array argument and global temporary, by its user name, with its binding. */
  readonly arrays: readonly { readonly name: string; readonly binding: number; readonly dtype: Dtype; readonly access: "read" | "read_write" }[];
  /** The trap buffer (two `u32`: the site, from 1, and its value), where some operation can trap. */
  readonly errBinding?: number;
  /** The trap sites, site n at index n - 1. */
  readonly traps: readonly WgslTrap[];
  readonly kernels: readonly {
    /** The uniform buffer of the value arguments (`info.args`' values in `values` order, 4 bytes each). */
    readonly argsBinding?: number;
    readonly values: readonly { readonly name: string; readonly dtype: Dtype }[];
    /** The pipeline-overridable constant of each work-group axis sized at launch (undefined: constant). */
    readonly overrides: readonly (string | undefined)[];
  }[];
}

/** WGSL code and its binding layout. */
export interface WgslCode extends GeneratedCode {
  readonly wgsl: WgslLayout;
}

const ATOMIC: Readonly<Record<AtomicOp, string>> = {
  "+": "atomicAdd", "-": "atomicSub", "&": "atomicAnd", "|": "atomicOr", "^": "atomicXor", min: "atomicMin", max: "atomicMax", "=": "atomicStore",
};

/** A float32 atomic update's new value from the old one and the operand. */
const FLOAT_UPDATE: Readonly<Partial<Record<AtomicOp, (old: string, v: string) => string>>> = {
  "+": (old, v) => `${old} + ${v}`, "-": (old, v) => `${old} - ${v}`, min: (old, v) => `min(${old}, ${v})`, max: (old, v) => `max(${old}, ${v})`, "=": (_, v) => v,
};

/** The cell type of a variable: `atomic<…>` where updated atomically (float32's bits in `atomic<u32>`). */
function cellType(t: WType, atomic: boolean): string {
  return atomic ? `atomic<${t === "f32" ? "u32" : t}>` : t;
}

/** Every statement of `stmts`, nested ones included. */
function* walk(stmts: readonly Stmt[]): Generator<Stmt> {
  for (const s of stmts) {
    yield s;
    switch (s.k) {
      case "block": yield* walk(s.body); break;
      case "for": case "while": case "doWhile": yield* walk([s.body]); break;
      case "if": yield* walk(s.else ? [s.then, s.else] : [s.then]); break;
      default: break;
    }
  }
}

/** A size expression (exact index arithmetic in the parameters) as readable C-like text for `GeneratedKernelInfo`. */
function sizeText(e: Ex): string {
  switch (e.k) {
    case "lit": return String(e.value);
    case "var": return e.name;
    case "bin":
      if (e.op === "min" || e.op === "max") return `${e.op}(${sizeText(e.l)}, ${sizeText(e.r)})`;
      if (e.op === "//") return e.nonneg ? `(${sizeText(e.l)}) / ${sizeText(e.r)}` : `floor((${sizeText(e.l)}) / ${sizeText(e.r)})`;
      return `${sizeText(e.l)} ${e.op} ${e.op === "-" || e.op === "*" ? `(${sizeText(e.r)})` : sizeText(e.r)}`;
    case "neg": return `-(${sizeText(e.e)})`;
    default: throw new CodegenError(`internal: a launch size of the wgsl target holds a ${e.k} expression`);
  }
}

/** `code` without the parentheses around all of it, where it stands alone (a condition, a right-hand side, an index). */
function bare(code: string): string {
  if (!code.startsWith("(") || !code.endsWith(")")) return code;
  let depth = 0;
  for (let i = 0; i < code.length - 1; i++) {
    if (code[i] === "(") depth++;
    else if (code[i] === ")" && --depth === 0) return code;
  }
  return code.slice(1, -1);
}

/** The printer of one kernel's statements. */
class KernelPrinter {
  private readonly types = new Map<string, WType>();
  readonly x: WgslExprPrinter;

  constructor(lk: LoweredKernel, private readonly atomics: ReadonlySet<string>, helpers: Map<string, string>, trap: (t: WgslTrap) => number) {
    for (const a of lk.args) this.types.set(a.name, wtypeOf(a.dtype, `${a.kind === "value" ? "value argument" : "array"} "${a.name}"`));
    for (const s of walk([...lk.decls, ...lk.body])) {
      if (s.k === "decl") this.types.set(s.name, wtypeOf(s.dtype, `variable "${s.name}"`));
      else if (s.k === "for") this.types.set(s.v, "i32");
    }
    this.x = new WgslExprPrinter({
      varType: (n) => {
        const t = this.types.get(n);
        if (!t) throw new CodegenError(`internal: the wgsl target found no declaration of "${n}"`);
        return t;
      },
      atomics, helpers, trap,
    });
  }

  private typedTo(e: Ex, t: WType): string {
    return bare(this.x.convert(this.x.ex(e), t).c);
  }

  private cond(e: Ex): string {
    return this.typedTo(e, "bool");
  }

  /** Lines of `s` at indentation `ind`; braces everywhere, as WGSL asks. */
  stmt(s: Stmt, ind: string): string[] {
    const inner = ind + "  ";
    const braced = (head: string, body: Stmt, tail = "}"): string[] => [`${ind}${head} {`, ...this.body(body, inner), `${ind}${tail}`];
    switch (s.k) {
      case "block": return [`${ind}{`, ...s.body.flatMap((b) => this.stmt(b, inner)), `${ind}}`];
      case "for": {
        if (s.pragmas && s.pragmas.length > 0) throw new CodegenError(`the wgsl target has no pragmas (${s.pragmas.join("; ")})`);
        return braced(`for (var ${s.v}: i32 = ${this.typedTo(s.lo, "i32")}; ${s.v} <= ${this.typedTo(s.hi, "i32")}; ${s.v}++)`, s.body);
      }
      case "if": {
        const out = braced(`if (${this.cond(s.cond)})`, s.then);
        if (!s.else) return out;
        return [...out.slice(0, -1), `${ind}} else {`, ...this.body(s.else, inner), `${ind}}`];
      }
      case "while": return braced(`while (${this.cond(s.cond)})`, s.body);
      // C's do-while: the condition is checked after the body, and `continue` goes to the check.
      case "doWhile": return [`${ind}loop {`, ...this.body(s.body, inner), `${inner}continuing {`, `${inner}  break if !(${this.cond(s.cond)});`, `${inner}}`, `${ind}}`];
      case "break": case "continue": return [`${ind}${s.k};`];
      case "decl": {
        // Local (workgroup) variables live at module scope (declared by the module's printer).
        if (s.space === "local") return [];
        const t = wtypeOf(s.dtype, `variable "${s.name}"`);
        if (s.size !== undefined) return [`${ind}var ${s.name}: array<${t}, ${s.size}>;`];
        const init = s.init ? ` = ${this.typedTo(s.init, t)}` : "";
        return [`${ind}${s.isConst && s.init ? "let" : "var"} ${s.name}: ${t}${init};`];
      }
      case "assign": return this.assign(s).map((l) => `${ind}${l}`);
      case "barrier": {
        const calls = s.memory === "local" ? ["workgroupBarrier();"] : s.memory === "global" ? ["storageBarrier();"] : ["storageBarrier();", "workgroupBarrier();"];
        return [`${ind}// barrier: ${commentText(s.comment)}`, ...calls.map((c) => `${ind}${c}`)];
      }
      case "comment": return [`${ind}// ${commentText(s.text)}`];
      case "raw":
        if (s.text.trim() === "") return [""];
        throw new CodegenError(`the wgsl target cannot print the C text ${JSON.stringify(s.text)}`);
      default: return assertNever(s, "AST statement");
    }
  }

  /** The statements of a body, without the braces of a block (the caller prints its own). */
  private body(s: Stmt, ind: string): string[] {
    return s.k === "block" ? s.body.flatMap((b) => this.stmt(b, ind)) : this.stmt(s, ind);
  }

  /** The lines of an assignment: plain, through `atomicStore`, or an atomic update. */
  private assign(s: Stmt & { k: "assign" }): string[] {
    const name = s.array ?? s.name!;
    const target = s.array === undefined ? name : `${name}[${bare(this.x.index(s.index!))}]`;
    const t = wtypeOf(s.dtype, `"${name}"`);
    const rhs = this.typedTo(s.rhs, t);
    const bits = (v: string) => (t === "f32" ? `bitcast<u32>(${v})` : v);
    if (!s.atomic) return [this.atomics.has(name) ? `atomicStore(&${target}, ${bits(rhs)});` : `${target} = ${rhs};`];
    if (t === "i32" || t === "u32") return [`${ATOMIC[s.atomic.op]}(&${target}, ${rhs});`];
    if (t !== "f32" || !FLOAT_UPDATE[s.atomic.op]) throw noAtomic("wgsl", s.atomic.op, s.dtype, "atomic updates of int32 and uint32, and + - min max and exchange of float32");
    if (s.atomic.op === "=") return [`atomicStore(&${target}, ${bits(rhs)});`];
    // Compare-and-swap on the float's bits until no other work-item changed the cell meanwhile.
    const update = FLOAT_UPDATE[s.atomic.op]!("bitcast<f32>(loom_cas_old)", "loom_cas_v");
    return ["{", `  let loom_cas_v = ${rhs};`, "  loop {", `    let loom_cas_old = atomicLoad(&${target});`,
      `    if (atomicCompareExchangeWeak(&${target}, loom_cas_old, bitcast<u32>(${update})).exchanged) { break; }`, "  }", "}"];
  }
}

/** The names updated atomically somewhere in `kernels` (declared `atomic<…>`: every access goes through atomics). */
function atomicNames(kernels: readonly LoweredKernel[]): Set<string> {
  const out = new Set<string>();
  for (const lk of kernels) for (const s of walk([...lk.decls, ...lk.body])) if (s.k === "assign" && s.atomic) out.add(s.array ?? s.name!);
  return out;
}

/**
 * The WGSL module of lowered kernels, every identifier printed through `names` (renamed where
 * reserved in WGSL), and its layout (`WgslCode.wgsl`) for the runtime.
 */
export function renderWgsl(kernels: readonly LoweredKernel[], names = new NameAllocator("wgsl")): WgslCode {
  const printed = printedKernels(kernels, names);
  const atomics = atomicNames(printed);
  const helpers = new Map<string, string>();
  const traps: WgslTrap[] = [];
  const trapKeys = new Map<string, number>();
  const trap = (t: WgslTrap) => {
    const key = `${t.what}|${t.insn}`;
    let n = trapKeys.get(key);
    if (n === undefined) trapKeys.set(key, (n = traps.push(t)));
    return n;
  };
  // Arrays by printed name, in order of first use; their user names for the runtime.
  const arrays = new Map<string, { name: string; dtype: Dtype; written: boolean }>();
  printed.forEach((lk, x) => lk.args.forEach((a, y) => {
    if (a.kind !== "array") return;
    const seen = arrays.get(a.name);
    arrays.set(a.name, { name: kernels[x]!.args[y]!.name, dtype: a.dtype, written: (seen?.written ?? false) || a.written });
  }));
  const workgroup = new Map<string, string>();
  const fns = printed.map((lk, x) => {
    const p = new KernelPrinter(lk, atomics, helpers, trap);
    for (const s of walk([...lk.decls, ...lk.body])) {
      if (s.k !== "decl" || s.space !== "local") continue;
      if (s.init) throw new CodegenError(`the wgsl target cannot initialize the local variable "${s.name}" where it is declared`);
      const t = wtypeOf(s.dtype, `local variable "${s.name}"`);
      const cell = cellType(t, atomics.has(s.name));
      workgroup.set(s.name, `var<workgroup> ${s.name}: ${s.size !== undefined ? `array<${cell}, ${s.size}>` : cell};`);
    }
    const body = [...lk.decls, ...lk.body].flatMap((s) => p.stmt(s, "  "));
    return { lk, x, body };
  });
  const arrayBindings = [...arrays.keys()];
  const errBinding = helpers.has("loom_trap") ? arrayBindings.length : undefined;
  let next = arrayBindings.length + (errBinding === undefined ? 0 : 1);
  const lines: string[] = [...[...helpers.keys()].sort().map((h) => `${helpers.get(h)!}\n`)];
  arrayBindings.forEach((name, b) => {
    const a = arrays.get(name)!;
    const t = wtypeOf(a.dtype, `array "${a.name}"`);
    if (t === "bool") throw new CodegenError(`the wgsl target cannot pass the bool array "${a.name}" (storage buffers hold no bool); it passes arrays of int32, uint32 and float32`);
    lines.push(`@group(0) @binding(${b}) var<storage, ${a.written ? "read_write" : "read"}> ${name}: array<${cellType(t, atomics.has(name))}>;`);
  });
  if (errBinding !== undefined) lines.push(`@group(0) @binding(${errBinding}) var<storage, read_write> ${ERR}: array<atomic<u32>, 2>;`);
  lines.push(...workgroup.values());
  const layoutKernels: WgslLayout["kernels"][number][] = [];
  const entries = fns.map(({ lk, x, body }) => {
    const values = lk.args.filter((a) => a.kind === "value");
    let argsBinding: number | undefined;
    const head: string[] = [];
    if (values.length > 0) {
      argsBinding = next++;
      const members = values.map((a) => `  ${a.name}: ${wtypeOf(a.dtype, `value argument "${a.name}"`)},`);
      lines.push(`struct loom_args_t${x} {\n${members.join("\n")}\n}`, `@group(0) @binding(${argsBinding}) var<uniform> loom_args_${x}: loom_args_t${x};`);
      head.push(...values.map((a) => `  let ${a.name} = loom_args_${x}.${a.name};`));
    }
    const overrides = lk.localSize.map((s, axis) => (typeof s === "number" ? undefined : `loom_wg_${x}_${axis}`));
    for (const o of overrides) if (o) lines.push(`override ${o}: u32 = 1u;`);
    const size = lk.localSize.length === 0 ? ["1"] : lk.localSize.map((s, axis) => (typeof s === "number" ? String(s) : overrides[axis]!));
    layoutKernels.push({ argsBinding, values: values.map((a) => ({ name: kernels[x]!.args[lk.args.indexOf(a)]!.name, dtype: a.dtype })), overrides });
    return [
      `@compute @workgroup_size(${size.join(", ")})`,
      `fn ${lk.name}(@builtin(workgroup_id) ${GROUP_ID}: vec3<u32>, @builtin(local_invocation_id) ${LOCAL_ID}: vec3<u32>) {`,
      ...head, ...body, "}",
    ].join("\n");
  });
  return {
    target: "wgsl",
    deviceCode: `${[...lines, "", entries.join("\n\n")].join("\n")}\n`,
    kernels: kernels.map((lk, n) => ({
      name: printed[n]!.name,
      globalSize: lk.groupSize.map(sizeText),
      localSize: lk.localSize.map((s) => (typeof s === "number" ? String(s) : sizeText(s))),
      args: lk.args.map((a) => a.name),
    })),
    wgsl: {
      arrays: arrayBindings.map((name, binding) => {
        const a = arrays.get(name)!;
        return { name: a.name, binding, dtype: a.dtype, access: a.written ? "read_write" : "read" } as const;
      }),
      ...(errBinding !== undefined ? { errBinding } : {}),
      traps, kernels: layoutKernels,
    },
  };
}

/** A literal's WGSL spelling (for tests and docs): `wgslLiteral(-1, "int32")` is `(-1i)`. */
export function wgslLiteral(value: number, d: Dtype): string {
  return literal(value, wtypeOf(d, "a literal")).c;
}
