/** Text forms: expressions in the instruction language, and `show(k)` in the layout of loopy's str(knl). */
import { assertNever } from "../errors.js";
import { printSet } from "../poly/index.js";
import type { ArithOp, Expr } from "./expr.js";
import { formatInameTag } from "./tags.js";
import type { Instruction } from "./insn.js";
import { blockToString } from "./block.js";
import { allInames, domainIndexOf, effectiveDimTags, type Kernel } from "./kernel.js";
import { axisStrides } from "./layout.js";

// C's precedence levels (pymbolic's too, except that it ranks "^" with "|"): bitwise operators
// below comparisons, shifts between comparisons and sums.
const PREC = {
  or: 1, and: 2, not: 3, bitor: 4, bitxor: 5, bitand: 6, compare: 7, shift: 8, add: 9, mul: 10, neg: 11, pow: 12, atom: 13,
} as const;
const ARITH_PREC: Readonly<Record<ArithOp, number>> = {
  "|": PREC.bitor, "^": PREC.bitxor, "&": PREC.bitand, "<<": PREC.shift, ">>": PREC.shift,
  "+": PREC.add, "-": PREC.add, "*": PREC.mul, "/": PREC.mul, "//": PREC.mul, "%": PREC.mul, "**": PREC.pow,
};

function precedence(e: Expr): number {
  switch (e.kind) {
    case "logical": return e.op === "or" ? PREC.or : PREC.and;
    case "not": return PREC.not;
    case "compare": return PREC.compare;
    case "arith": return ARITH_PREC[e.op];
    case "neg": case "bitnot": return PREC.neg;
    case "const": return e.value < 0 ? PREC.neg : PREC.atom;
    default: return PREC.atom;
  }
}

function constToString(value: number, isFloat: boolean, dtype: string | undefined): string {
  let s = Number.isFinite(value) ? String(value) : value > 0 ? "INFINITY" : value < 0 ? "-INFINITY" : "NAN";
  if ((isFloat || dtype?.startsWith("float")) && Number.isFinite(value) && !/[.e]/.test(s)) s += ".0";
  if (dtype === "float32") return s + "f";
  if (dtype === "float64") return s + "d";
  if (dtype !== undefined) return `cast(${dtype}, ${s})`;
  return s;
}

/** loopy's `name$tag` for a tagged use. */
const tagged = (name: string, tag: string | undefined): string => (tag === undefined ? name : `${name}$${tag}`);

/** `e` in the instruction language, with only the parentheses precedence needs: `2*a[i] + 1`. */
export function exprToString(e: Expr): string {
  const wrap = (child: Expr, minPrec: number): string => {
    const s = exprToString(child);
    return precedence(child) < minPrec ? `(${s})` : s;
  };
  switch (e.kind) {
    case "var": return tagged(e.name, e.tag);
    case "const": return constToString(e.value, e.isFloat, e.dtype);
    case "arith": {
      const p = precedence(e);
      // Left-associative: the right operand needs parentheses at equal precedence (a - (b - c)).
      if (e.op === "**") return `${wrap(e.left, p + 1)}**${wrap(e.right, p)}`;
      const sep = p === PREC.mul ? e.op : ` ${e.op} `;
      return `${wrap(e.left, p)}${sep}${wrap(e.right, p + 1)}`;
    }
    case "neg": return `-${wrap(e.operand, PREC.neg)}`;
    case "bitnot": return `~${wrap(e.operand, PREC.neg)}`;
    case "not": return `not ${wrap(e.operand, PREC.not)}`;
    case "compare": return `${wrap(e.left, PREC.compare + 1)} ${e.op} ${wrap(e.right, PREC.compare + 1)}`;
    case "logical": {
      const p = precedence(e);
      return `${wrap(e.left, p)} ${e.op} ${wrap(e.right, p + 1)}`;
    }
    case "if": return `if(${exprToString(e.cond)}, ${exprToString(e.then)}, ${exprToString(e.else)})`;
    case "call": return `${tagged(e.fn, e.tag)}(${e.args.map(exprToString).join(", ")})`;
    case "subscript": return `${tagged(e.array, e.tag)}[${e.indices.map(exprToString).join(", ")}]`;
    case "linear": return `${tagged(e.array, e.tag)}[[${exprToString(e.index)}]]`;
    case "reduce": {
      const inames = e.inames.length === 1 ? e.inames[0] : `(${e.inames.join(", ")})`;
      return `${e.op}(${inames}, ${exprToString(e.body)})`;
    }
    case "cast": return `cast(${e.dtype}, ${exprToString(e.value)})`;
    default: return assertNever(e, "expression");
  }
}

/** The attribute block of an instruction: `{id=x, dep=y:z, …}`. */
function insnAttributes(insn: Instruction): string {
  const parts = [`id=${insn.id}`];
  if (insn.dependsOn.length > 0) parts.push(`dep=${insn.dependsOn.join(":")}`);
  if (insn.predicates.length > 0) parts.push(`if=${insn.predicates.map(exprToString).join(":")}`);
  if (insn.noSyncWith.length > 0) parts.push(`nosync=${insn.noSyncWith.map((n) => (n.scope === "any" ? n.id : `${n.id}@${n.scope}`)).join(":")}`);
  if (insn.priority !== 0) parts.push(`priority=${insn.priority}`);
  if (insn.tags.length > 0) parts.push(`tags=${insn.tags.join(":")}`);
  if (insn.kind === "assign" && insn.atomicity !== "none") parts.push(insn.atomicity === "update" ? "atomic" : "atomic=init");
  return `{${parts.join(", ")}}`;
}

/** One instruction in the instruction language (without loops). */
export function insnToString(insn: Instruction): string {
  switch (insn.kind) {
    case "assign": return `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}  ${insnAttributes(insn)}`;
    case "barrier": return `... ${insn.scope === "local" ? "lbarrier" : "gbarrier"}  ${insnAttributes(insn)}`;
    case "nop": return `... nop  ${insnAttributes(insn)}`;
    case "block": return [`... block  ${insnAttributes(insn)}`, ...blockToString(insn.body, exprToString, "    ")].join("\n");
    default: return assertNever(insn, "instruction");
  }
}

const RULE = "-".repeat(75);

/**
 * The kernel as text, in the sections of loopy's `str(knl)`: KERNEL, ARGUMENTS, DOMAINS,
 * INAME TAGS, TEMPORARIES, SUBSTITUTION RULES, INSTRUCTIONS.
 */
export function show(k: Kernel): string {
  const out: string[] = [RULE, `KERNEL: ${k.name}`, RULE, "ARGUMENTS:"];
  for (const a of k.args) {
    if (a.kind === "value") {
      out.push(`${a.name}: ValueArg, type: ${a.dtype ?? "<auto/runtime>"}`);
    } else {
      const shape = a.shape ? `(${a.shape.map(exprToString).join(", ")})` : "<auto>";
      const tags = a.shape ? `, dim_tags: (${dimTagsWithStrides(a.shape, effectiveDimTags(a))})` : "";
      out.push(`${a.name}: type: ${a.dtype ?? "<auto/runtime>"}, shape: ${shape}${tags} in aspace: global`);
    }
  }
  out.push(RULE, "DOMAINS:");
  k.domains.forEach((d) => out.push("  ".repeat(domainDepth(k, d.params)) + printSet(d)));
  if (k.assumptions.constraints.length > 0) out.push(`assumptions: ${printSet(k.assumptions)}`);
  out.push(RULE, "INAME TAGS:");
  for (const i of [...allInames(k)].sort(naturalCompare)) {
    const t = k.inameTags[i];
    out.push(`${i}: ${t ? formatInameTag(t) : "None"}`);
  }
  if (k.temporaries.length > 0) {
    out.push(RULE, "TEMPORARIES:");
    for (const t of k.temporaries) {
      const shape = t.shape.length === 0 ? "()" : `(${t.shape.map(exprToString).join(", ")})`;
      const tags = t.shape.length === 0 ? "" : `, dim_tags: (${dimTagsWithStrides(t.shape, effectiveDimTags(t))})`;
      out.push(`${t.name}: type: ${t.dtype ?? "<auto/runtime>"}, shape: ${shape}${tags} aspace: ${t.addressSpace}`);
    }
  }
  if (k.substitutions.length > 0) {
    out.push(RULE, "SUBSTITUTION RULES:");
    for (const s of k.substitutions) out.push(`${s.name}(${s.params.join(", ")}) := ${exprToString(s.expr)}`);
  }
  out.push(RULE, "INSTRUCTIONS:");
  let open: string[] = [];
  for (const insn of k.instructions) {
    const want = [...insn.withinInames];
    let common = 0;
    while (common < open.length && common < want.length && open[common] === want[common]) common++;
    for (let d = open.length - 1; d >= common; d--) out.push(`${"  ".repeat(d)}end ${open[d]}`);
    for (let d = common; d < want.length; d++) out.push(`${"  ".repeat(d)}for ${want[d]}`);
    open = want;
    out.push("  ".repeat(open.length) + insnToString(insn).replace(/\n/g, `\n${"  ".repeat(open.length)}`));
  }
  for (let d = open.length - 1; d >= 0; d--) out.push(`${"  ".repeat(d)}end ${open[d]}`);
  out.push(RULE);
  return out.join("\n");
}

function dimTagsWithStrides(shape: readonly Expr[], tags: ReturnType<typeof effectiveDimTags>): string {
  const strides = axisStrides(shape, tags);
  return tags
    .map((t, a) => {
      const s = strides[a];
      if (t.kind === "nest") return `N${t.level}:stride:${s ? exprToString(s) : "?"}`;
      if (t.kind === "stride") return `stride:${exprToString(t.stride)}`;
      return t.kind;
    })
    .join(", ");
}

function domainDepth(k: Kernel, params: readonly string[]): number {
  let depth = 0;
  for (const p of params) {
    const parent = domainIndexOf(k, p);
    if (parent >= 0) depth = Math.max(depth, 1 + domainDepth(k, k.domains[parent]!.params));
  }
  return depth;
}

/** Compare names with embedded numbers numerically (`i2` < `i10`), as loopy's natsort. */
export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const r = plainNaturalCompare(a, b);
  return r === undefined ? a.localeCompare(b, "en", { numeric: true }) : r;
}

/**
 * Collation class of a character of a plain name, in the order of the Unicode collation the
 * `en` locale uses: `_` (punctuation) before digits before letters. 0: not a plain character.
 */
function plainClass(c: number): number {
  if (c >= 97 && c <= 122) return 3; // a-z
  if (c >= 48 && c <= 57) return 2; // 0-9
  return c === 95 ? 1 : 0; // _
}

/**
 * `localeCompare(b, "en", { numeric: true })` for names made of `a-z`, `0-9` and `_` whose digit
 * runs have no leading zero (a fast path: the collator is slow, and sorting inames is frequent):
 * a digit run compares by its value, runs sort before letters, `_` before both, a prefix first.
 * undefined for anything else (upper case, other characters, leading zeros): the caller asks the
 * collator then.
 */
function plainNaturalCompare(a: string, b: string): number | undefined {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    const ka = plainClass(ca);
    const kb = plainClass(cb);
    if (ka === 0 || kb === 0) return undefined;
    if (ka === 2 && kb === 2) {
      let ei = i + 1;
      while (ei < a.length && plainClass(a.charCodeAt(ei)) === 2) ei++;
      let ej = j + 1;
      while (ej < b.length && plainClass(b.charCodeAt(ej)) === 2) ej++;
      if ((ca === 48 && ei - i > 1) || (cb === 48 && ej - j > 1)) return undefined; // leading zeros
      if (ei - i !== ej - j) return ei - i < ej - j ? -1 : 1;
      for (; i < ei; i++, j++) {
        const da = a.charCodeAt(i);
        const db = b.charCodeAt(j);
        if (da !== db) return da < db ? -1 : 1;
      }
      continue;
    }
    if (ka !== kb) return ka < kb ? -1 : 1;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i++;
    j++;
  }
  for (let x = i; x < a.length; x++) if (plainClass(a.charCodeAt(x)) === 0) return undefined;
  for (let x = j; x < b.length; x++) if (plainClass(b.charCodeAt(x)) === 0) return undefined;
  if (i === a.length && j === b.length) return 0;
  return i === a.length ? -1 : 1;
}
