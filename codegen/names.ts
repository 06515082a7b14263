/**
 * The one name allocator of code generation. Built once per kernel and target from every user
 * name and the target dialect's reserved words (codegen/reserved-words.ts); the printers ask it
 * for the printed name of every identifier and for every name they introduce, so that nothing a
 * user names can shadow, or be shadowed by, what the generator writes.
 *
 *   const names = NameAllocator.forKernel(k, "js");
 *   names.user("var")      // "var_0": a JS keyword, renamed consistently
 *   names.user("a")        // "a": legal and free, unchanged
 *   names.fresh("i_hi")    // "i_hi_0" when the kernel has a value argument i_hi
 *   names.kernel("main")   // "main_0" on C; names.kernel("#define X") throws a CodegenError
 */
import { CodegenError } from "../src/errors.js";
import type { Kernel, TargetName } from "../src/ir/index.js";
import type { Schedule } from "../src/schedule/index.js";
import { dialectOf, isReserved, type NameDialect } from "./reserved-words.js";

export { allReservedWords, dialectOf, isReserved, type NameDialect } from "./reserved-words.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What every target accepts as a name, said in error messages. */
export const IDENTIFIER_RULE = "an identifier: ASCII letters, digits and underscores, not starting with a digit (as in C), e.g. \"my_kernel\"";

/** Whether `s` is an identifier every target can print: `isIdentifier("a_1")`, not `isIdentifier("#define X")`. */
export function isIdentifier(s: unknown): s is string {
  return typeof s === "string" && IDENTIFIER.test(s);
}

/**
 * `name` when it is an identifier, else a CodegenError naming it and what an identifier is.
 * `checkIdentifier("saxpy", "kernel name")` is "saxpy".
 */
export function checkIdentifier(name: unknown, what: string): string {
  if (isIdentifier(name)) return name;
  const shown = typeof name === "string" ? JSON.stringify(name) : String(name);
  throw new CodegenError(`${what} ${shown} cannot be printed in generated code: it must be ${IDENTIFIER_RULE}`);
}

/**
 * `name` made an identifier (`sanitizeNow`), remembered per dialect: a function of the two alone,
 * asked for the same bases (`loom_trap`, `k_body`) in every variant of a sweep. Bounded as `isPrintable`'s.
 */
function sanitize(name: string, dialect: NameDialect): string {
  let byName = sanitized.get(dialect);
  if (byName === undefined) sanitized.set(dialect, (byName = new Map()));
  let s = byName.get(name);
  if (s === undefined) {
    s = sanitizeNow(name, dialect);
    if (byName.size >= PRINTABLE_LIMIT) byName.clear();
    byName.set(name, s);
  }
  return s;
}

const sanitized = new Map<NameDialect, Map<string, string>>();

/** `name` made an identifier: other characters become `_`, a leading digit or reserved prefix gets `loom_`. */
function sanitizeNow(name: string, dialect: NameDialect): string {
  let s = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (s === "" || /^[0-9]/.test(s)) s = `loom_${s}`;
  // Suffixes cannot leave a reserved prefix (`__x`, `_X`, `loopy_min_…`): prefix instead.
  if (isReserved(`${s}_0`, dialect)) s = `loom_${s.replace(/^_+/, "")}`;
  return s;
}

/** Every name a kernel's user chose: arguments, temporaries, inames, parameters, rules, the kernel's name. */
export function userNamesOf(k: Kernel): Set<string> {
  const out = new Set<string>([k.name]);
  for (const a of k.args) out.add(a.name);
  for (const t of k.temporaries) out.add(t.name);
  for (const d of k.domains) for (const n of [...d.dims, ...d.params]) out.add(n);
  for (const n of k.assumptions.params) out.add(n);
  for (const r of k.substitutions) {
    out.add(r.name);
    for (const p of r.params) out.add(p);
  }
  return out;
}

/**
 * `userNamesOf` per frozen kernel (nothing can change it): the names pass and the lowering each
 * build an allocator of the same schedule kernel, and a sweep prints each kernel on several targets.
 */
const userNamesMemo = new WeakMap<Kernel, ReadonlySet<string>>();

function userNamesOfFrozen(k: Kernel): ReadonlySet<string> {
  if (!Object.isFrozen(k)) return userNamesOf(k);
  let names = userNamesMemo.get(k);
  if (names === undefined) userNamesMemo.set(k, (names = userNamesOf(k)));
  return names;
}

/**
 * Per dialect, whether each name asked about is printable as it is: a function of the two alone,
 * asked for every identifier of every kernel printed, and the same names (`a`, `i_inner`, `n`)
 * come back in every variant of a sweep. Emptied when it grows past `PRINTABLE_LIMIT` names.
 */
const printableMemo = new Map<NameDialect, Map<string, boolean>>();
const PRINTABLE_LIMIT = 20_000;

function isPrintable(name: string, dialect: NameDialect): boolean {
  let byName = printableMemo.get(dialect);
  if (byName === undefined) printableMemo.set(dialect, (byName = new Map()));
  let ok = byName.get(name);
  if (ok === undefined) {
    ok = IDENTIFIER.test(name) && !isReserved(name, dialect);
    if (byName.size >= PRINTABLE_LIMIT) byName.clear();
    byName.set(name, ok);
  }
  return ok;
}

/** Names for one kernel's generated code on one dialect (see the module comment). */
export class NameAllocator {
  private readonly taken: Set<string>;
  /** Each name's printed name: a user name's (itself, or fresh where it cannot be printed), a fresh name's itself. */
  private readonly printed = new Map<string, string>();
  private readonly derivedNames = new Map<string, string>();

  constructor(readonly dialect: NameDialect, userNames: Iterable<string> = []) {
    // A set is copied whole (one native copy), other iterables name by name.
    this.taken = userNames instanceof Set ? new Set(userNames as Set<string>) : new Set(userNames);
  }

  /**
   * The allocator of `k` on `target`, knowing all of `k`'s user names: code generation builds one
   * per kernel and target and hands it to the lowering and the printer.
   */
  static forKernel(k: Kernel, target: TargetName): NameAllocator {
    return new NameAllocator(dialectOf(target), userNamesOfFrozen(k));
  }

  /** Mark `names` as used (user names, names already in the code): `fresh` avoids them. */
  take(names: Iterable<string>): void {
    for (const n of names) this.taken.add(n);
  }

  /** Whether `name` can be printed as it is: an identifier, not reserved in this dialect. */
  printable(name: string): boolean {
    return isPrintable(name, this.dialect);
  }

  /**
   * A new name from `base` (`base`, `base_0`, `base_1`, … as loopy suffixes), used by nothing else
   * and printed as it is: the lowering's names (a block local renamed away from a parameter) and
   * the printers' (js's loop bound `i_hi`) all come from here.
   */
  fresh(base: string): string {
    const b = sanitize(base, this.dialect);
    let cand = b;
    for (let k = 0; this.taken.has(cand) || !this.printable(cand); k++) cand = `${b}_${k}`;
    this.taken.add(cand);
    this.printed.set(cand, cand);
    return cand;
  }

  /** One fresh name per `base`, the same on every call (a loop's `i_hi` in every loop over `i`). */
  derived(base: string): string {
    let n = this.derivedNames.get(base);
    if (n === undefined) this.derivedNames.set(base, (n = this.fresh(base)));
    return n;
  }

  /** The printed name of the user identifier `name`: itself when printable, else a fresh name, the same every time. */
  user(name: string): string {
    let p = this.printed.get(name);
    if (p !== undefined) return p;
    p = this.printable(name) ? name : this.fresh(name);
    this.taken.add(name);
    this.printed.set(name, p);
    return p;
  }

  /**
   * The printed name of a kernel (a symbol a host calls): a CodegenError when `name` is not an
   * identifier, renamed when it is reserved (`main`, `system`, `kernel`).
   */
  kernel(name: string): string {
    return this.user(checkIdentifier(name, "kernel name"));
  }
}

/**
 * `s` with each device kernel named as it is printed on `target` (`main` → `main_0` on C), so
 * that a runtime finds the device kernel of a generated kernel by its printed name; a kernel name
 * that is not an identifier is a CodegenError. Printing renames nothing further.
 */
export function withPrintedKernelNames(s: Schedule, target: TargetName): Schedule {
  // Names that print as they are (most): nothing to rename, no allocator built.
  const dialect = dialectOf(target);
  if (s.deviceKernels.every((dk) => isPrintable(dk.name, dialect))) return s;
  const names = NameAllocator.forKernel(s.kernel, target);
  names.take(s.deviceKernels.map((dk) => dk.name));
  const renamed = s.deviceKernels.map((dk) => names.kernel(dk.name));
  if (renamed.every((n, x) => n === s.deviceKernels[x]!.name)) return s;
  return { ...s, deviceKernels: s.deviceKernels.map((dk, x) => ({ ...dk, name: renamed[x]! })) };
}
