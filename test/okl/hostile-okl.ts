/**
 * OKL kernels whose every name is hostile, for the law of hostile-names.property.test.ts: one
 * kernel shape (a macro, a typedef, a struct with two fields, a class template with a constructor,
 * two methods and two members, a device function with a local, a struct array argument (split into
 * one array per field by the import), a @shared and an @exclusive array, a
 * barrier between two @inner loops) whose names are drawn from the reserved words of every target
 * (codegen/reserved-words.ts), the names the lowering and the printers invent (`okl_trip_*`,
 * `*_inner`, `tmp`, `cond`, `_g0`, `<function>_ret`, `<local>_<field>` …) and plain names. The
 * shape's meaning does not depend on its names: `hostileMeaning` computes it in TypeScript.
 *
 *   oklSource(PLAIN_NAMES)   // the kernel with names p_kernel, p_n, p_a, …
 */
import fc from "fast-check";
import { expect } from "vitest";
import { allReservedWords } from "../../codegen/names.js";
import { BUILTIN_WORDS, CXX, QUALIFIERS, STMT_KEYWORDS, STORAGE, VECTOR_TYPES } from "../../src/okl/syntax/parse-base.js";
import { expectRenaming, tokens } from "../targets/renaming.js";

/** The shape's name slots (all distinct), and the struct's two fields (distinct from each other and from the type and macro names). */
export const SLOTS = [
  "kernel", "n", "a", "b", "sp", "group", "item", "item2", "shared", "excl", "func", "fx", "fy", "flocal", "struct", "local",
  "cls", "ct", "cg", "setter", "getter", "ptr", "count", "pa", "pb", "obj", "tdef", "mac", "idx", "idx2", "sx", "sy",
] as const;
export type Slot = (typeof SLOTS)[number];
export type Names = Readonly<Record<Slot | "f1" | "f2", string>>;

/** The same kernel with plain names (`p_<slot>`): what the hostile kernel's code is compared with token by token. */
export const PLAIN_NAMES: Names = Object.fromEntries([...SLOTS, "f1", "f2"].map((s) => [s, `p_${s}`])) as unknown as Names;

/** The work-group size (the macro's value). */
export const GROUP = 8;

/** The kernel of `x`'s names (see the module comment). */
export function oklSource(x: Names): string {
  return `#define ${x.mac} ${GROUP}
typedef float ${x.tdef};
struct ${x.struct} { ${x.tdef} ${x.f1}; int ${x.f2}; };
template <class ${x.ct}, int ${x.cg}>
struct ${x.cls} {
  ${x.cls}(${x.ct} *${x.pa}, int ${x.pb}) : ${x.ptr}(${x.pa}), ${x.count}(${x.pb}) {}
  void ${x.setter}(int ${x.sx}, ${x.ct} ${x.sy}) { ${x.ptr}[${x.sx}] = ${x.sy} * (${x.ct})${x.cg}; }
  ${x.ct} ${x.getter}(int ${x.sx}) const { return ${x.ptr}[${x.sx}] + (${x.ct})${x.count}; }
  ${x.ct} *${x.ptr};
  int ${x.count};
};
${x.tdef} ${x.func}(${x.tdef} ${x.fx}, int ${x.fy}) {
  ${x.tdef} ${x.flocal} = ${x.fx} * ${x.fy};
  return ${x.flocal} + 1;
}
@kernel void ${x.kernel}(const int ${x.n}, const float *${x.a}, float *${x.b}, const ${x.struct} *${x.sp}) {
  for (int ${x.group} = 0; ${x.group} < (${x.n} + ${x.mac} - 1) / ${x.mac}; ++${x.group}; @outer) {
    @shared float ${x.shared}[${x.mac}];
    @exclusive float ${x.excl}[2];
    ${x.cls}<float, 2> ${x.obj}(${x.shared}, ${x.group});
    for (int ${x.item} = 0; ${x.item} < ${x.mac}; ++${x.item}; @inner) {
      const int ${x.idx} = ${x.group} * ${x.mac} + ${x.item};
      ${x.struct} ${x.local};
      ${x.local}.${x.f1} = ${x.idx} < ${x.n} ? ${x.a}[${x.idx}] : 0;
      ${x.local}.${x.f2} = ${x.item} + ${x.sp}[0].${x.f2};
      ${x.excl}[0] = ${x.func}(${x.local}.${x.f1}, ${x.local}.${x.f2});
      ${x.excl}[1] = ${x.excl}[0];
      ${x.obj}.${x.setter}(${x.item}, ${x.excl}[0]);
    }
    for (int ${x.item2} = 0; ${x.item2} < ${x.mac}; ++${x.item2}; @inner) {
      const int ${x.idx2} = ${x.group} * ${x.mac} + ${x.item2};
      if (${x.idx2} < ${x.n}) ${x.b}[${x.idx2}] = ${x.obj}.${x.getter}((${x.item2} + 1) % ${x.mac}) + ${x.excl}[1];
    }
  }
}
`;
}

/**
 * What the kernel writes to b (of length `padded(n)`; the cells past n keep their value), the
 * struct array argument holding one record whose int field is 1: float32 arithmetic, as C computes it.
 */
export function hostileMeaning(a: Float32Array, n: number, b: Float32Array): Float32Array {
  const f = Math.fround;
  const out = Float32Array.from(b);
  const ex = (x: number) => f(f((x < n ? a[x]! : 0) * ((x % GROUP) + 1)) + 1);
  for (let x = 0; x < n; x++) {
    const g = Math.floor(x / GROUP);
    const next = g * GROUP + ((x % GROUP) + 1) % GROUP;
    out[x] = f(f(f(ex(next) * 2) + g) + ex(x));
  }
  return out;
}

/** The length of b: whole work-groups (Loom sizes an output by the work-items that may write it). */
export const padded = (n: number) => Math.ceil(n / GROUP) * GROUP;

/** Words of OKL's own syntax (C's keywords, types, storage classes, C++ words it refuses): no OKL file can use them as names. */
const SYNTAX = new Set<string>([
  ...Object.keys(STORAGE), ...Object.keys(QUALIFIERS), ...BUILTIN_WORDS, ...Object.keys(CXX), ...STMT_KEYWORDS, ...VECTOR_TYPES,
  "struct", "union", "enum", "typedef", "template", "class", "true", "false", "defined", "static_cast", "int8_t", "int16_t", "int32_t",
  "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
]);

/** The reserved words of every target that an OKL file can spell as a name. */
export const RESERVED_POOL: readonly string[] = allReservedWords().filter((w) => /^[A-Za-z_]\w*$/.test(w) && !SYNTAX.has(w));

/** Names the OKL lowering and the printers invent (codegen/names.ts, src/okl/lower, the printers' loop variables and helpers). */
export const GENERATED_POOL: readonly string[] = [
  "okl_trip_int32_add_lt", "okl_trip_int_add_lt", "okl_trip_int32_mul_lt_2", "i_inner", "i_outer", "item_inner", "tmp", "acc", "cond", "ret",
  "_g0", "_l0", "_occa_k_0", "loopy_floor_div_int32", "loopy_min_int32", "loom_shared", "loom_entry_0", "gid", "lid", "H",
  "loopy_p", "loopy_v", "loopy_lid1", "loopy_acc", "loopy_item", "lid_0", "k_0", "tmp_0", "cond_0", "v", "x_tile", "x_in_tile",
];

export const ORDINARY_POOL: readonly string[] = ["a", "b", "c", "i", "j", "n", "x", "y", "t", "s", "out", "data", "value", "result"];

/**
 * Names `<base>_<suffix>` the lowering makes from the user's (a function's `_ret`, `_body` and
 * `_<param>`, a struct local's and a struct array argument's `_<field>`, a loop's `_tile`, `_trip`, `_start`, `_end`): the late
 * slots may take one, so that a user name and one the lowering invents meet.
 */
function derivedNames(x: Partial<Names>): string[] {
  return [`${x.func}_ret`, `${x.func}_body`, `${x.func}_${x.fx}`, `${x.func}_${x.flocal}`, `${x.local}_${x.f1}`, `${x.local}_${x.f2}`,
    `${x.group}_tile`, `${x.group}_trip`, `${x.group}_end`, `${x.item}_inner`, `${x.excl}_tmp`, `${x.obj}_${x.ptr}`, `${x.obj}_${x.count}`,
    `${x.n}_end`, `${x.group}_start`, `${x.sp}_${x.f1}`, `${x.sp}_${x.f2}`];
}

/** Slots drawn last, each a pool word or a name derived from the earlier ones. */
const LATE: readonly Slot[] = ["idx", "idx2", "sx", "sy", "flocal", "pa", "pb"];

const pool = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...RESERVED_POOL) }, { weight: 2, arbitrary: fc.constantFrom(...GENERATED_POOL) },
  { weight: 1, arbitrary: fc.constantFrom(...ORDINARY_POOL) });

/** Hostile names for every slot: distinct, the fields distinct from the type and macro names. */
export const genNames: fc.Arbitrary<Names> = fc.tuple(
  fc.uniqueArray(pool, { minLength: SLOTS.length - LATE.length, maxLength: SLOTS.length - LATE.length }),
  fc.uniqueArray(pool, { minLength: 2, maxLength: 2 }),
  fc.array(fc.tuple(fc.boolean(), fc.nat({ max: 1000 }), pool), { minLength: LATE.length, maxLength: LATE.length }),
).map(([early, fields, late]) => {
  const x: Record<string, string> = {};
  SLOTS.filter((s) => !LATE.includes(s)).forEach((s, k) => (x[s] = early[k]!));
  [x.f1, x.f2] = fields as [string, string];
  const used = new Set(Object.entries(x).filter(([s]) => s !== "f1" && s !== "f2").map(([, v]) => v));
  LATE.forEach((s, k) => {
    const [derive, pick, word] = late[k]!;
    const cands = derive ? derivedNames(x) : [word];
    let name = cands[pick % cands.length]!;
    if (used.has(name)) name = `${name}_${s}`;
    used.add(name);
    x[s] = name;
  });
  return x as unknown as Names;
}).filter((x) => ![x.f1, x.f2].some((f) => f === x.tdef || f === x.mac || f === x.struct || f === x.cls || f === x.ct || f === x.cg));


/** A line that only declares (`float x;`, `__local float t[8];`, `@exclusive int c;`, js's `let x = 0;`): the printers sort those by name. */
const DECL = /^\s*(?:(?:[A-Za-z_@][\w@]*[\s*]+)+[A-Za-z_]\w*(?:\[[^\]=]*\])*|auto &\w+ = alpaka::declareSharedVar<.*>\(loopy_acc\)|let \w+ = 0|var \w+: [\w<>, ]+|const \w+ = new \w+Array\(\d+\));\s*$/;

/** The functions `code` defines at the top level (a line `f(…) … {` with no indentation, to its closing line `}`), as text. */
function functionsOf(code: string): string[] {
  return code.match(/^[A-Za-z_][^\n]*\([^\n]*\{[^\n]*\}[^\n]*$|^[A-Za-z_][^\n]*\([^\n]*\n?\{?\n(?:[ \t][^\n]*\n|\n)*\}$/gm) ?? [];
}

/** `code` with each run of declaration lines replaced by a marker line, and the runs. */
function declRuns(code: string): { rest: string; runs: string[][] } {
  const runs: string[][] = [];
  const rest: string[] = [];
  for (const line of code.split("\n")) {
    if (!DECL.test(line)) rest.push(line);
    else if (rest[rest.length - 1] === "\u0000decls") runs[runs.length - 1]!.push(line.trim());
    else {
      rest.push("\u0000decls");
      runs.push([line.trim()]);
    }
  }
  return { rest: rest.join("\n"), runs };
}

/**
 * `hostile` is `plain` token for token, but where a token of `plain` names a plain name (contains
 * `p_<slot>`), or is a name Loom invented that the user's names took (`taken`): those tokens are
 * replaced one for one (the same token always, standing for no other) by tokens not `reserved`
 * and not among the tokens both codes share. Declarations, which the printers sort by name,
 * compare as sets, renamed back.
 */
export function expectRenamed(plain: string, hostile: string, taken: ReadonlySet<string>, reserved: (w: string) => boolean, what: string): void {
  // The printers' helpers (`static inline int32_t loopy_floor_div_int32(int32_t a, int32_t b) { … }`), the same in both, have names of their own scope.
  const theirs = new Set(functionsOf(hostile));
  const helpers = new Set(functionsOf(plain).filter((f) => theirs.has(f)));
  // Comments (commentText makes them harmless) may quote a name as the user wrote it.
  const noHelpers = (code: string) => functionsOf(code).reduce((c, f) => (helpers.has(f) ? c.replace(f, "") : c), code).replace(/\/\*.*?\*\/|\/\/.*$/gm, "");
  const [pd, hd] = [declRuns(noHelpers(plain)), declRuns(noHelpers(hostile))];
  const back = expectRenaming(pd.rest, hd.rest, (x) => Object.values(PLAIN_NAMES).some((q) => x.includes(q)) || taken.has(x), reserved, what, { members: true });
  expect(hd.runs.length, `${what}: runs of declarations`).toBe(pd.runs.length);
  hd.runs.forEach((run, r) => {
    const renamedBack = run.map((line) => tokens(line).map((y) => back.get(y) ?? y).join("")).sort();
    expect(renamedBack, `${what}: declarations`).toEqual([...pd.runs[r]!].sort());
  });
}
