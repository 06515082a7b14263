/**
 * OKL's loop form (OKL.md §3.1) for an attributed loop, split out of validate.ts: `for (T i = init;
 * i CMP bound; update)` with one integer iterator, a comparison of it with a bound, `++`, `--`,
 * `+=` or `-=` of it, a positive step and, where init and bound are constants, a range that is not
 * empty; each broken rule an OklError with OCCA's wording. Gives the trip count and step where they
 * are compile-time constants (validate-loops.ts checks @max_inner_dims against them).
 *
 *   for (int i = 0; i < 16; i += 4; @inner)   // { count: 4, step: 4 }
 */
import type { Expr, For, Pos, TypeSpec } from "./ast.js";
import { evalConst } from "./consteval.js";
import type { LoopExtent } from "./validate-loops.js";
import type { OklError } from "../../errors.js";

/** What the loop form needs of the validator. */
export interface LoopFormHost {
  err(detail: string, at: Pos, rule: string): OklError;
  /** File-scope integer constants. */
  readonly lookup: (name: string) => number | undefined;
  /** The typedef `spec` names, resolved (undefined: not a typedef in scope). */
  resolve(spec: TypeSpec): { readonly spec: TypeSpec; readonly pointer: boolean; readonly array: boolean } | undefined;
}

const ITERATOR_TYPES = new Set([
  "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long", "unsigned long",
  "long long", "unsigned long long", "size_t", "ptrdiff_t",
]);

/** OKL.md §3.1: `for (T i = init; i CMP bound; update)`; returns the trip count and step when constant. */
export function loopForm(f: For, label: string, host: LoopFormHost): LoopExtent {
  const rule = "OKL loop form";
  const fail = (m: string, at: Pos = f.pos): OklError => host.err(`${label} ${m}`, at, rule);
  if (!f.init) throw fail("OKL for loop init-statement cannot be a null statement");
  if (f.init.kind !== "declaration") throw fail("OKL for loop init-statement must be a simple declaration with initializer", f.init.pos);
  const decl = f.init;
  if (decl.declarators.length !== 1) throw fail("OKL for loops can only have 1 iterator variable", decl.pos);
  const d = decl.declarators[0]!;
  if (!d.name) throw fail("OKL for loop variable does not have a name.", d.pos);
  if (!d.init) throw fail(`OKL for loop variable is not initialized. (declare "${d.name}" with an initial value)`, d.pos);
  let base = decl.spec.base;
  let pointer = d.pointers.length > 0 || d.arrayDims.length > 0;
  const td = host.resolve(decl.spec);
  if (td) {
    base = td.spec.base;
    pointer ||= td.pointer || td.array;
  }
  const typeOk = !pointer && ((base.kind === "builtin" && ITERATOR_TYPES.has(base.name)) || (base.kind === "named" && !td));
  if (!typeOk) throw fail("Iterator variable needs to be of type [char, short, int, long, ptrdiff_t, size_t]", decl.spec.pos);
  const i = d.name;
  const isI = (e: Expr) => e.kind === "ident" && e.name === i;
  const c = f.cond;
  if (!c) throw fail(`Expected comparing [${i}] with some bound`);
  if (c.kind !== "binary" || !["<", "<=", ">", ">="].includes(c.op)) {
    throw fail(`Expected to compare [${i}] with one of these operators [<, <=, >=, >]`, c.pos);
  }
  if (!isI(c.left) && !isI(c.right)) throw fail(`Expected comparing [${i}] with some bound`, c.pos);
  const FLIP: Record<string, string> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" };
  const cmp = isI(c.left) ? c.op : FLIP[c.op]!;
  const bound = isI(c.left) ? c.right : c.left;
  const u = f.update;
  let inc: boolean | undefined;
  let step: Expr | undefined;
  if (u && (u.kind === "unary" || u.kind === "postfix") && (u.op === "++" || u.op === "--") && isI(u.operand)) inc = u.op === "++";
  else if (u && u.kind === "assign" && (u.op === "+=" || u.op === "-=") && isI(u.target)) {
    inc = u.op === "+=";
    step = u.value;
  }
  if (inc === undefined) throw fail(`Expected update [${i}] with one of these operators [++, --, +=, -=]`, u?.pos ?? f.pos);
  const s = step ? evalConst(step, host.lookup) : 1;
  if (s !== undefined && s <= 0) throw fail(`OKL for loop range is empty or infinite! (the step of "${i}" must be positive)`, step!.pos);
  const consistent = inc ? cmp === "<" || cmp === "<=" : cmp === ">" || cmp === ">=";
  const lo = evalConst(d.init, host.lookup);
  const hi = evalConst(bound, host.lookup);
  if (lo !== undefined && hi !== undefined) {
    const count = !consistent ? 0 : (inc ? hi - lo : lo - hi) + (cmp.length === 2 ? 1 : 0);
    if (count <= 0) throw fail(`OKL for loop range is empty or infinite! ("${i}" from ${lo}, ${cmp} ${hi}, ${inc ? "increasing" : "decreasing"})`, f.cond!.pos);
    return { count: s === undefined ? undefined : Math.ceil(count / s), step: s };
  } else if (!consistent) {
    throw fail(`OKL for loop range is empty or infinite! ("${i}" is ${inc ? "increased" : "decreased"} but compared with ${cmp})`, c.pos);
  }
  return { count: undefined, step: s };
}
