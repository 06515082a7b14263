/**
 * The C family's integer helpers, with the interpreter's meaning: floor division and modulo,
 * truncating division, `abs` and `**` that wrap in the type, and shift counts; those that may meet
 * what the interpreter refuses (a divisor 0, a count outside 0..width-1, a negative exponent)
 * record it at their site (int-traps.ts) and give 0. One table for every C-family dialect.
 */
import type { Dtype } from "../../src/ir/index.js";
import type { ExDtype, IntTrapSite } from "../ast.js";
import type { ExprSyntax, Printer } from "../printer.js";
import type { AccValue, TrapSpelling } from "./int-traps.js";

/** What a division's trap reports: 0. */
const ZERO: AccValue = { zero: true };

/** Signed integer dtypes (idx is int32): their division by -1 and arithmetic can overflow. */
const SIGNED: ReadonlySet<string> = new Set(["idx", "int8", "int16", "int32", "int64"]);

/** What the helpers need of the dialect. */
export interface IntDialect {
  /** Qualifier of helper functions (`static inline`, `inline`, `__device__ inline`). */
  readonly helperQualifier: string;
  readonly typeName: (t: ExDtype) => string;
}

/** The integer helpers of one dialect, recording traps through `traps` (undefined: not at all, for launch sizes). */
export function intHelpers(d: IntDialect, traps?: TrapSpelling): Pick<ExprSyntax, "floorDiv" | "mod" | "div" | "shiftCount" | "loopTraps"> & {
  /** `abs` or `**` of an integer dtype `t`, wrapping in the type; `trap`: a `**` whose exponent may be negative. */
  absPow(fn: "abs" | "pow", t: Dtype, args: readonly string[], p: Printer, trap?: IntTrapSite): string;
} {
  const q = d.helperQualifier;
  const helper = (p: Printer, name: string, t: ExDtype, code: (ty: string) => string) => {
    p.helpers.add(`${name}|${code(d.typeName(t))}`);
  };
  const idx = (t: ExDtype) => (t === "idx" ? "int32" : t);
  /** A checked helper's extra parameters, a call's extra arguments and a helper's record of `value`. */
  const params = traps ? traps.params : "";
  const trapArgs = (p: Printer, site: IntTrapSite) => (traps ? traps.args(site, p) : "");
  const record = (value: string) => (traps ? `${traps.record(value)}; ` : "");
  /** The start of a checked division helper: by 0, the trap recorded and 0. */
  const byZero = (): string => `if (b == 0) { ${record("0")}return 0; } `;
  /**
   * A checked helper inside a loop whose traps accumulate (c, openmp: int-trap-loops.ts), or else
   * one that records: its name (`acc` or `acck` before the dtype), extra parameters and the
   * call's extra arguments; `rec(bad, value)`, in an accumulating helper, the key's update.
   */
  const checked = (p: Printer, site: IntTrapSite, base: string, t: string, value: AccValue) => {
    const acc = traps?.accumulate(site, p, value);
    if (acc === undefined) return { name: `${base}${t}`, params, args: trapArgs(p, site), acc: false, rec: () => "" };
    const w = wide(t) && acc.mode === "key";
    return {
      name: `${base}${acc.mode === "ord" ? "acc" : "acck"}_${t}`, params: traps!.loops.params(acc.mode, w), args: acc.args, acc: true,
      rec: (bad: string, v: string) => traps!.loops.record(acc.mode, bad, v, w),
    };
  };
  /** By 0 in an accumulating helper: the iteration's key lowers the least, and 0. */
  const byZeroAcc = "if (b == 0) { if (o < *k) *k = o; return 0; } ";
  const wide = (t: string) => t === "int64" || t === "uint64";
  /** `a / -1` of a signed type: the negation computed in the unsigned type, wrapping (INT_MIN / -1 is INT_MIN). */
  const byMinusOne = (t: ExDtype, ty: string): string =>
    (SIGNED.has(t) ? `if (b == -1) return (${ty}) (0 - (${d.typeName(t === "int64" ? "uint64" : "uint32")}) a); ` : "");
  return {
    // Integer division and modulo: by 0, a recorded trap and 0; by -1, the negation wrapping in the
    // type (C's INT_MIN / -1 is undefined, and traps on x86), as the interpreter's. (By a literal
    // other than 0 and -1, the plain helpers: the index arithmetic of splits.)
    floorDiv: (a, b, t, p, trap) => {
      const c = trap ? checked(p, trap, "loopy_floor_div_chk_", idx(t), ZERO) : undefined;
      const name = c?.name ?? `loopy_floor_div_${idx(t)}`;
      const check = c ? (c.acc ? byZeroAcc : byZero()) + byMinusOne(t, d.typeName(t)) : "";
      helper(p, name, t, (ty) => `${q} ${ty} ${name}(${ty} a, ${ty} b${c?.params ?? ""}) { ${check}${ty} q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }`);
      return `${name}(${a}, ${b}${c?.args ?? ""})`;
    },
    mod: (a, b, t, p, trap) => {
      const c = trap ? checked(p, trap, "loopy_mod_chk_", idx(t), ZERO) : undefined;
      const name = c?.name ?? `loopy_mod_${idx(t)}`;
      const check = c ? (c.acc ? byZeroAcc : byZero()) + (SIGNED.has(t) ? "if (b == -1) return 0; " : "") : "";
      helper(p, name, t, (ty) => `${q} ${ty} ${name}(${ty} a, ${ty} b${c?.params ?? ""}) { ${check}${ty} r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }`);
      return `${name}(${a}, ${b}${c?.args ?? ""})`;
    },
    div: (a, b, t, p, trap) => {
      const c = checked(p, trap ?? { insn: "?", what: "division" }, "loopy_div_", idx(t), ZERO);
      helper(p, c.name, t, (ty) => `${q} ${ty} ${c.name}(${ty} a, ${ty} b${c.params}) { ${c.acc ? byZeroAcc : byZero()}${byMinusOne(t, ty)}return a / b; }`);
      return `${c.name}(${a}, ${b}${c.args})`;
    },
    // A count outside 0..width-1 (C leaves the shift undefined) is recorded, and shifts by 0; in a
    // loop whose traps accumulate, by the count's low bits (no branch: gcc vectorizes the loop).
    shiftCount: (count, ct, trap, p) => {
      const w = trap.width ?? 32;
      const t = idx(ct);
      const unsigned = t.startsWith("uint") || t === "bool";
      const c = checked(p, trap, `loopy_shc_${w}_`, t, { code: count, bits: wide(t) ? "wide" : unsigned ? "unsigned" : "signed" });
      const int = d.typeName("int32");
      const bad = `(${d.typeName(wide(t) ? "uint64" : "uint32")}) b > ${w - 1}u`;
      helper(p, c.name, t, (ty) => (c.acc
        ? `${q} ${int} ${c.name}(${ty} b${c.params}) { ${c.rec(bad, "b")}return (${int}) (b & ${w - 1}); }`
        : `${q} ${int} ${c.name}(${ty} b${c.params}) { if (${unsigned ? "" : "b < 0 || "}b > ${w - 1}) { ${record("b")}return 0; } return (${int}) b; }`));
      return `${c.name}(${count}${c.args})`;
    },
    loopTraps: traps?.loopHook,
    // Integers wrap in the type, as the interpreter's: abs(-128) is -128 in int8 (C's abs of INT_MIN
    // is undefined, OpenCL's returns the unsigned type), powers wrap (C's pow is a double's; OpenCL
    // has none for integers). Computed in the unsigned 32- or 64-bit type, never overflowing, cast back;
    // powers by squaring (a ** 2147483647 in log2 steps, as the interpreter's H.ipow). A negative
    // exponent (of a signed type) is the interpreter's error: checked where it may be.
    absPow: (fn, t, args, p, trap) => {
      const c = fn === "pow" && trap ? checked(p, trap, "loopy_pow_chk_", t, { code: args[1]!, bits: wide(t) ? "wide" : "signed" }) : undefined;
      const name = c?.name ?? `loopy_${fn}_${t}`;
      const u = d.typeName(wide(t) ? "uint64" : "uint32");
      const check = !c ? "" : c.acc ? `if (b < 0) { ${c.rec("1", "b")}return 0; } ` : `if (b < 0) { ${record("b")}return 0; } `;
      helper(p, name, t, (ty) => (fn === "abs"
        ? `${q} ${ty} ${name}(${ty} a) { return a < 0 ? (${ty}) (0 - (${u}) a) : a; }`
        : `${q} ${ty} ${name}(${ty} a, ${ty} b${c?.params ?? ""}) { ${check}${u} r = 1, x = (${u}) a; for (; b > 0; b >>= 1) { if (b & 1) r *= x; x *= x; } return (${ty}) r; }`));
      return `${name}(${args.join(", ")}${c?.args ?? ""})`;
    },
  };
}
