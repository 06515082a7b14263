/**
 * ISPC, as loopy's ISPCTarget writes it: each device kernel a `task void` over `uniform` pointers,
 * launched from an `export void` host function with `launch[g0, g1, g2]` and `sync`; `g.N` is
 * `taskIndexN`, `l.0` is `programIndex` (the work-group's axis 0 is the gang: `programCount` must
 * equal its size), local temporaries are `uniform` arrays of the task. ISPC has one program index:
 * `l.1`/`l.2` become loops inside the task, split at barriers (ispc-local-loops.ts), where loopy
 * refuses them. Atomics are the standard library's `atomic_*_global` / `atomic_*_local`.
 */
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { Schedule } from "../../src/schedule/index.js";
import type { AtomicStore, Stmt } from "../ast.js";
import type { LoweredKernel } from "../lower.js";
import type { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { noAtomic } from "./atomics.js";
import { refuseMissingMath } from "./math-c99.js";
import { CFamilyTarget, floatText, type KernelParts } from "./cfamily.js";
import { hostFunction } from "./host-launch.js";
import { LOCAL_LOOP_VARS, withLocalLoops } from "./ispc-local-loops.js";

const FUNCTION: Readonly<Record<AtomicOp, string>> = {
  "+": "atomic_add", "-": "atomic_subtract", "&": "atomic_and", "|": "atomic_or", "^": "atomic_xor", min: "atomic_min", max: "atomic_max", "=": "atomic_swap",
};
const INTEGER: readonly Dtype[] = ["int32", "uint32", "int64", "uint64"];

/**
 * One atomic update: `_global` among all tasks for global memory, `_local` among the gang for a
 * task's uniform arrays. Integers take every update; floats add, subtract, min, max (ISPC 1.16's
 * floating-point atomics) and swap, not the bitwise ones.
 */
function ispcAtomic(a: AtomicStore, target: string, value: string, d: Dtype): string {
  const ok = INTEGER.includes(d) || ((d === "float32" || d === "float64") && !["&", "|", "^"].includes(a.op));
  if (!ok) throw noAtomic("ispc", a.op, d, "atomics on 32- and 64-bit integers, and add, subtract, min, max and swap of floats");
  return `${FUNCTION[a.op]}_${a.space === "local" ? "local" : "global"}(&${target}, ${value})`;
}

/** The task: the gang size checked, a group without `l.0` run by its first program instance, `l.1`/`l.2` as loops. */
function kernelFunction(k: KernelParts): string {
  const [l0, l1 = "1", l2 = "1"] = k.localSize;
  const loops = l1 !== "1" || l2 !== "1";
  const constant = /^\d+$/.test(l1) && /^\d+$/.test(l2) ? Number(l1) * Number(l2) : undefined;
  let body: Stmt[] = [...k.decls, ...k.body];
  if (loops) body = withLocalLoops(body, { kernel: k.name, sizes: [l1, l2], constant });
  // An l.1/l.2 axis of extent 1 has no loop: its id is 0.
  const unit = ([1, 2] as const).filter((ax) => k.localSize.length > ax && k.localSize[ax] === "1")
    .map((ax): Stmt => ({ k: "raw", text: `uniform int const ${LOCAL_LOOP_VARS[ax - 1]} = 0;` }));
  const locals = [...unit, ...body.filter((s) => s.k === "decl" && s.space === "local")];
  const rest = body.filter((s) => !(s.k === "decl" && s.space === "local"));
  const gang: Stmt[] = l0 === undefined || l0 === "1"
    // No l.0: the whole gang would repeat the group's work (atomics too); its first instance does it.
    ? [{ k: "if", cond: { k: "bin", op: "==", l: { k: "var", name: "programIndex" }, r: { k: "lit", value: 0, dtype: "int32" }, dtype: "int32" }, then: { k: "block", body: rest } }]
    : [{ k: "raw", text: `assert(programCount == ${/^\d+$/.test(l0) ? l0 : `(${l0})`});` }, ...rest];
  const params = k.params.join(", ");
  return [`task void ${k.name}(${params})`, ...k.printer.stmt({ k: "block", body: [...locals, ...gang] }, "").map((l) => l.trimEnd())].join("\n");
}

export const ispcTarget = new CFamilyTarget({
  name: "ispc", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: {
    float16: "float16", float32: "float", float64: "double", int8: "int8", int16: "int16", int32: "int32", int64: "int64",
    uint8: "uint8", uint16: "uint16", uint32: "uint32", uint64: "uint64", bool: "uint8",
  },
  includes: [],
  helperQualifier: "static inline",
  hw: (tag, axis) => (tag === "g" ? `((int) taskIndex${axis})` : axis === 0 ? "((int) programIndex)" : LOCAL_LOOP_VARS[axis - 1]!),
  localQualifier: "uniform",
  // The gang runs in step: a barrier among its program instances orders nothing more (l.1/l.2 loops are split at it).
  barrier: (comment) => `/* barrier (${comment}): the gang runs in step */;`,
  kernelHead: () => "task void",
  math: "overload", intMinMaxBuiltin: true, int64Suffix: "LL",
  atomic: ispcAtomic,
  // The trap buffer is uniform: each active program instance that traps records in turn, the first claiming the record.
  trapPointer: (u32) => `uniform ${u32} *uniform`,
  trapRecorder: (t, u32, i64) => `static inline void loopy_trap(${t}, ${u32} site, ${i64} value) {\n` +
    `  foreach_active (lane) {\n    if (t[3] == 0 && atomic_add_global(&t[3], (uniform ${u32}) 1) == 0) {\n` +
    `      uniform ${i64} v = extract(value, lane);\n      t[0] = extract(site, lane); t[1] = (uniform ${u32}) v; t[2] = (uniform ${u32}) ((uniform uint64) v >> 32);\n    }\n  }\n}`,
  argDecl: (a, ty) => (a.kind === "value" ? `uniform ${ty} ${a.name}` : `uniform ${ty}${a.written ? "" : " const"} *uniform ${a.name}`),
  // ISPC's min/max/abs are overloaded for floats; doubles are written with a `d` suffix (2.5d).
  call: (fn, t, args) => {
    refuseMissingMath("ispc", fn);
    return (fn === "min" || fn === "max" || fn === "abs") && (t === "float32" || t === "float64" || t === "int64") ? `${fn}(${args.join(", ")})` : undefined;
  },
  literal: (v, t) => (t === "float64" && Number.isFinite(v) ? `${floatText(v, false)}d` : undefined),
  kernelFunction,
});

/** The host function: `export void`, each launch over `taskIndex0..2`, then `sync` (the next launch sees its writes). */
export function ispcHostCode(s: Schedule, code: GeneratedCode, lowered: readonly LoweredKernel[], names: NameAllocator): string {
  return hostFunction(s, code, lowered, names, "ispc", {
    head: (params, name) => `export void ${name}(${params.join(", ")})`,
    param: (a, name) => (a.kind === "value" ? `uniform ${ispcTarget.typeName(a.dtype)} ${name}` : `uniform ${ispcTarget.typeName(a.dtype)}${a.written ? "" : " const"} *uniform ${name}`),
    launch: (info) => [`launch[${[0, 1, 2].map((n) => info.globalSize[n] ?? "1").join(", ")}] ${info.name}(${info.args.join(", ")});`, "sync;"],
    loopType: "uniform int",
  });
}
