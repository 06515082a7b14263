/**
 * Integer ranges of subscripts that are not affine, for row-layout.ts: the value of a private
 * scalar assigned only from inames (`k = ke % p_Nq; es = ke / p_Nq;`, hipBone's @exclusive
 * indices) lies in the hull of what its assignments give. Interval arithmetic over constants,
 * inames (their constant bounds), `+ - *`, `%` and `//` or `/` by a positive constant of a
 * non-negative value, selects, `min`/`max` and integer casts; anything else (memory, parameters,
 * variables an opaque block assigns) has no range.
 *
 *   const r = new IndexRanges(shell, insns); r.of({ kind: "var", name: "k" })   // { min: 0, max: 3 }
 */
import { insnStores, iterationDomain, type Expr, type Instruction, type Kernel } from "../../ir/index.js";
import { dimBounds } from "../../poly/index.js";

export interface Range {
  readonly min: number;
  readonly max: number;
}

/** Ranges of expressions over one kernel's inames and the private scalars its instructions assign. */
export class IndexRanges {
  private readonly assigned = new Map<string, Expr[] | "unknown">();
  private readonly vars = new Map<string, Range | undefined>();
  private readonly inames: ReadonlySet<string>;

  constructor(private readonly shell: Kernel, insns: readonly Instruction[]) {
    this.inames = new Set(shell.domains.flatMap((d) => [...d.dims]));
    for (const i of insns) {
      if (i.kind === "assign" && i.lhs.kind === "var") {
        const list = this.assigned.get(i.lhs.name);
        if (list !== "unknown") this.assigned.set(i.lhs.name, [...(list ?? []), i.atomicity === "none" ? i.rhs : { kind: "call", fn: "(atomic)", args: [] }]);
      } else if (i.kind === "block") {
        for (const s of insnStores(i)) if (s.kind === "var") this.assigned.set(s.name, "unknown");
      }
    }
  }

  /** The range of integer expression `e`, or undefined. */
  of(e: Expr): Range | undefined {
    switch (e.kind) {
      case "const": return Number.isInteger(e.value) && !e.isFloat ? { min: e.value, max: e.value } : undefined;
      case "var": return this.inames.has(e.name) ? this.iname(e.name) : this.variable(e.name);
      case "neg": {
        const r = this.of(e.operand);
        return r && { min: -r.max, max: -r.min };
      }
      case "cast": return e.dtype.startsWith("int") || e.dtype.startsWith("uint") ? this.of(e.value) : undefined;
      case "if": return hull(this.of(e.then), this.of(e.else));
      case "call": {
        if ((e.fn !== "min" && e.fn !== "max") || e.args.length !== 2) return undefined;
        const [a, b] = [this.of(e.args[0]!), this.of(e.args[1]!)];
        if (!a || !b) return undefined;
        const f = e.fn === "min" ? Math.min : Math.max;
        return { min: f(a.min, b.min), max: f(a.max, b.max) };
      }
      case "arith": return this.arith(e);
      default: return undefined;
    }
  }

  private arith(e: Extract<Expr, { kind: "arith" }>): Range | undefined {
    const a = this.of(e.left);
    const b = this.of(e.right);
    if (!a || !b) return undefined;
    switch (e.op) {
      case "+": return { min: a.min + b.min, max: a.max + b.max };
      case "-": return { min: a.min - b.max, max: a.max - b.min };
      case "*": {
        const p = [a.min * b.min, a.min * b.max, a.max * b.min, a.max * b.max];
        return { min: Math.min(...p), max: Math.max(...p) };
      }
      case "%": return a.min >= 0 && b.min === b.max && b.min > 0 ? { min: 0, max: Math.min(a.max, b.min - 1) } : undefined;
      case "/": case "//": return a.min >= 0 && b.min === b.max && b.min > 0 ? { min: Math.floor(a.min / b.min), max: Math.floor(a.max / b.min) } : undefined;
      default: return undefined;
    }
  }

  private iname(name: string): Range | undefined {
    if (this.vars.has(name)) return this.vars.get(name);
    let r: Range | undefined;
    try {
      const b = dimBounds(iterationDomain(this.shell, [name]), name, []);
      const ends = (side: typeof b.lower, f: (x: number) => number) => side.filter((x) => Object.keys(x.aff.terms).length === 0).map((x) => f(x.aff.constant / x.denom));
      const lo = ends(b.lower, Math.ceil);
      const hi = ends(b.upper, Math.floor);
      r = lo.length > 0 && hi.length > 0 ? { min: Math.max(...lo), max: Math.min(...hi) } : undefined;
    } catch {
      r = undefined;
    }
    this.vars.set(name, r);
    return r;
  }

  private variable(name: string): Range | undefined {
    if (this.vars.has(name)) return this.vars.get(name);
    this.vars.set(name, undefined); // a variable assigned from itself has no range found here
    const list = this.assigned.get(name);
    let r: Range | undefined;
    if (list !== undefined && list !== "unknown") {
      r = this.of(list[0]!);
      for (const x of list.slice(1)) r = r && hull(r, this.of(x));
    }
    this.vars.set(name, r);
    return r;
  }
}

function hull(a: Range | undefined, b: Range | undefined): Range | undefined {
  return a && b ? { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) } : undefined;
}
