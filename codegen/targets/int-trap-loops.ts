/**
 * Integer traps of c and openmp loops, checked so that gcc still vectorizes the loop: inside an
 * innermost `for` loop, a check does not call the recorder (a call and a store to the static
 * record keep gcc from vectorizing) but lowers a local key, a min reduction gcc vectorizes; after
 * the loop, the least key is the loop's first trap and is recorded (int-traps.ts's `loopy_trap`:
 * the first trap of the launch claims the record). The interpreter reports its first trap; the
 * least key is the first iteration's, and among the checks of one iteration the first printed
 * (C's order of evaluation), so the record holds what the interpreter reports.
 *
 * A key is the iteration's ordinal (`loopy_trap_ord(i)`: the loop variable as an unsigned
 * that keeps its order), where nothing is bad all ones:
 *
 * - `ord`: a 32-bit key, the ordinal alone, where the value reported is known after the loop: 0
 *   (a division) or the count (or exponent) evaluated again at the first bad iteration, where it
 *   reads nothing the loop writes (`a[i] << s[i]`: `s[i]` for that `i`);
 * - `key`: a 64-bit key, the ordinal above the value's low 32 bits, and for a 64-bit value a second
 *   key above its high 32 bits (`x << t` where `t` is a temporary the loop computes).
 *
 * OpenMP's SIMD and parallel loops reduce the keys (`reduction(min: …)`).
 */
import type { Stmt } from "../ast.js";
import type { LoopTrapHook } from "../printer.js";

/** How an accumulated trap's value is kept: the low 32 bits of a signed or unsigned value, or all 64 (two keys). */
export type TrapValue = "signed" | "unsigned" | "wide";

/** What a trap reports: 0 (a division), or a count or exponent (its printed code and how its bits are kept). */
export type AccValue = { readonly zero: true } | { readonly code: string; readonly bits: TrapValue };

/** How a checked helper in an accumulating loop takes its key: `ord` (32-bit, ordinal only) or `key` (64-bit, with the value). */
export type AccMode = "ord" | "key";

interface LoopUse {
  readonly site: number;
  readonly mode: AccMode;
  readonly keys: readonly string[];
  readonly bits?: TrapValue;
  /** `ord`: the value's code, evaluated again after the loop (its variable bound to the first bad ordinal). */
  readonly code?: string;
}

/** An innermost loop whose traps accumulate in local keys (`loopy_trap_k1`, …), recorded after it. */
interface LoopScope {
  readonly v: string;
  /** Every name the loop's body writes or declares (its values at the loop's end may not be those of the trap). */
  readonly written: ReadonlySet<string>;
  readonly uses: LoopUse[];
  keys: number;
}

/** What the spelling needs: type names, the recorder's helper registration. */
export interface AccDialect {
  readonly helperQualifier: string;
  readonly typeName: (t: "uint32" | "int32" | "int64" | "uint64") => string;
}

const NOT_ACCUMULATED = {};

export class TrapLoops {
  /** The loops being printed, innermost last: a scope where the loop's traps accumulate, else null. */
  private readonly loops: (LoopScope | null)[] = [];

  constructor(private readonly d: AccDialect) {}

  /** Whether the code being printed is in a loop whose traps accumulate. */
  get active(): boolean {
    return !!this.loops[this.loops.length - 1];
  }

  readonly hook: LoopTrapHook = {
    enter: (s) => {
      const written = new Set<string>();
      const scope = innermost(s.body, written) ? { v: s.v, written, uses: [], keys: 0 } : null;
      this.loops.push(scope);
      return scope ?? NOT_ACCUMULATED;
    },
    leave: (token) => {
      this.loops.pop();
      return token === NOT_ACCUMULATED || (token as LoopScope).uses.length === 0 ? undefined : this.around(token as LoopScope);
    },
  };

  /** The ordinal helper (for `helpers`): `[key, code]`. */
  ordHelper(mode: AccMode): [string, string] {
    const [u32, u64, i32] = [this.d.typeName("uint32"), this.d.typeName("uint64"), this.d.typeName("int32")];
    return mode === "ord"
      ? ["loopy_0trap_ord", `${this.d.helperQualifier} ${u32} loopy_trap_ord(${i32} i) { return (${u32}) i ^ 0x80000000u; }`]
      : ["loopy_0trap_ordk", `${this.d.helperQualifier} ${u64} loopy_trap_ordk(${i32} i) { return (${u64}) ((${u32}) i ^ 0x80000000u) << 32; }`];
  }

  /**
   * Inside an innermost loop whose traps accumulate: the check's mode and its call's extra
   * arguments (`, &loopy_trap_k1, loopy_trap_ord(i)`); undefined elsewhere.
   */
  accumulate(site: number, value: AccValue): { mode: AccMode; args: string } | undefined {
    const scope = this.loops[this.loops.length - 1];
    if (!scope) return undefined;
    const reeval = "zero" in value || reevaluable(value.code, scope.written);
    const mode: AccMode = reeval ? "ord" : "key";
    const bits = "zero" in value ? undefined : value.bits;
    const keys = (mode === "key" && bits === "wide" ? [0, 1] : [0]).map(() => `loopy_trap_k${++scope.keys}`);
    scope.uses.push({ site, mode, keys, ...(bits ? { bits } : {}), ...("zero" in value ? { code: "0" } : reeval ? { code: value.code } : {}) });
    return { mode, args: `, ${keys.map((k) => `&${k}`).join(", ")}, loopy_trap_ord${mode === "key" ? "k" : ""}(${scope.v})` };
  }

  /** The parameters of a helper that accumulates. */
  params(mode: AccMode, wide: boolean): string {
    if (mode === "ord") return `, ${this.d.typeName("uint32")} *k, ${this.d.typeName("uint32")} o`;
    const u64 = this.d.typeName("uint64");
    return `, ${u64} *k${wide ? `, ${u64} *h` : ""}, ${u64} o`;
  }

  /** Inside an accumulating helper: where `bad` (0 or 1), this iteration's key lowers the least (a min reduction, no branch). */
  record(mode: AccMode, bad: string, value: string, wide: boolean): string {
    const [u32, u64] = [this.d.typeName("uint32"), this.d.typeName("uint64")];
    if (mode === "ord") return `{ ${u32} key = o | ((${u32}) (${bad}) - 1u); *k = key < *k ? key : *k; } `;
    const mask = `((${u64}) (${bad}) - 1u)`;
    const key = (v: string, out: string) => `{ ${u64} key = o | (${u32}) (${v}) | ${mask}; *${out} = key < *${out} ? key : *${out}; } `;
    return key(value, "k") + (wide ? key(`(${u64}) (${value}) >> 32`, "h") : "");
  }

  /** The lines around an accumulating loop: its keys declared, its pragmas reducing them, the first trap recorded. */
  private around(scope: LoopScope): { before: string[]; pragmas: (pragma: string) => string; after: string[] } {
    const [u32, i32, i64, u64] = [this.d.typeName("uint32"), this.d.typeName("int32"), this.d.typeName("int64"), this.d.typeName("uint64")];
    const none = (u: LoopUse) => (u.mode === "ord" ? `~(${u32}) 0` : `~(${u64}) 0`);
    const all = scope.uses.flatMap((u) => u.keys.map((k) => ({ k, u })));
    const before = [...(["ord", "key"] as const)].flatMap((m) => {
      const ks = all.filter(({ u }) => u.mode === m);
      return ks.length === 0 ? [] : [`${m === "ord" ? u32 : u64} ${ks.map(({ k, u }) => `${k} = ${none(u)}`).join(", ")};`];
    });
    /** A use's ordinal (as a uint32) and the value it reports (where the loop variable is the first bad ordinal's). */
    const ordinal = (u: LoopUse) => (u.mode === "ord" ? u.keys[0]! : `(${u32}) (${u.keys[0]} >> 32)`);
    const value = (u: LoopUse) => (u.code !== undefined ? (u.code === "0" ? "0" : `(${i64}) (${u.code})`)
      : u.bits === "wide" ? `(${i64}) ((${u.keys[1]} << 32) | (${u32}) ${u.keys[0]})`
        : u.bits === "signed" ? `(${i32}) (${u32}) ${u.keys[0]}` : `(${u32}) ${u.keys[0]}`);
    const bind = `${i32} const ${scope.v} = (${i32}) (loopy_trap_o ^ 0x80000000u); (void) ${scope.v};`;
    const [first] = scope.uses;
    const after = scope.uses.length === 1
      ? [`if (${first!.keys[0]} != ${none(first!)})`, "{", `  ${u32} const loopy_trap_o = ${ordinal(first!)};`, `  ${bind}`,
        `  loopy_trap(${first!.site}u, ${value(first!)});`, "}"]
      // The least ordinal; between uses at the same one, the first printed (run first).
      : [`if (${scope.uses.map((u) => `${u.keys[0]} != ${none(u)}`).join(" || ")})`, "{",
        `  ${u32} loopy_trap_o = ~(${u32}) 0, loopy_trap_u = 0u;`,
        ...scope.uses.map((u, x) => `  if (${ordinal(u)} < loopy_trap_o) { loopy_trap_o = ${ordinal(u)}; loopy_trap_u = ${x}u; }`),
        "  {", `    ${bind}`,
        ...scope.uses.map((u, x) => `    if (loopy_trap_u == ${x}u) loopy_trap(${u.site}u, ${value(u)});`),
        "  }", "}"];
    // OpenMP threads and SIMD lanes each reduce their own keys.
    const clause = ` reduction(min: ${all.map(({ k }) => k).join(", ")})`;
    return { before, pragmas: (x) => (/^#pragma omp (parallel for|for|simd)\b/.test(x) ? x + clause : x), after };
  }
}

/** Identifiers of printed code. */
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * Whether printed `code` gives after the loop what it gave in the loop (its loop variable bound
 * again): it calls no checked helper and reads no name the loop writes or declares.
 */
function reevaluable(code: string, written: ReadonlySet<string>): boolean {
  if (code.includes("loopy_trap")) return false;
  for (const id of code.match(IDENT) ?? []) if (written.has(id)) return false;
  return true;
}

/**
 * Whether `s` (a loop's body) has no loop inside (nor printed code that records traps itself):
 * its traps may then be recorded after the loop, in order (an inner loop's would be recorded
 * first). Collects in `written` the names the body assigns or declares (every identifier of
 * printed code, to be safe).
 */
function innermost(s: Stmt, written: Set<string>): boolean {
  switch (s.k) {
    case "for": case "while": case "doWhile": return false;
    case "block": return s.body.every((x) => innermost(x, written));
    case "if": return innermost(s.then, written) && (s.else === undefined || innermost(s.else, written));
    case "raw":
      for (const id of s.text.match(IDENT) ?? []) written.add(id);
      return !/\bloopy_\w+\(/.test(s.text);
    case "assign": written.add(s.array ?? s.name!); return true;
    case "decl": written.add(s.name); return true;
    default: return true;
  }
}
