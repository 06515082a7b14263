/**
 * What a private temporary means when the loop around its accesses becomes lanes. A private value
 * belongs to one work-item (g, l) or to one ilp/vec lane: tagging a sequential iname that way gives
 * each iteration its own copy. That keeps the kernel's meaning only where no value flows from one
 * iteration of the iname to another through the private:
 *
 * - out of the loop: a reader after the loop would see one work-item's part only
 *   (`checkPrivateStaysInWorkItem`);
 * - from one iteration to the next (`checkNoValueCarriedAcross`): a counter bumped at the end of a
 *   while loop's trip and read at the start of the next, `if (it == 0) c = …; e = c; c = c*0.5 + v`,
 *   `acc = acc + a[i]` with the iname tagged l.0. Each iteration would read its own copy, never set
 *   (or set once), instead of the previous iteration's value: a silent wrong result on the
 *   interpreter and every target alike. Refused with a TransformError naming the iname, both
 *   instructions and the temporary.
 *
 * A read is not carried when, in the same iteration, an instruction it depends on has written the
 * whole cell first: unconditionally (or under the same predicates, which read nothing written in
 * between), within no loop the reader is not also in (a work-item's own l/g iname of the same axis
 * and range counts as the same loop).
 */
import { LoomError, TransformError } from "../src/errors.js";
import {
  exprEquals, exprToAff, formatInameTag, insnInames, insnReads, insnWrites, iterationDomain, walkExpr, walkStmts,
  type BlockStmt, type Expr, type InameTag, type Instruction, type Kernel,
} from "../src/ir/index.js";
import { addressSpaceOf } from "../src/analysis/index.js";
import {
  aff, affSub, affToString, dimBounds, rename, eliminateExact, extendSet, intersect, isSubset, reorderDims, varAff,
  type Aff, type BasicSet,
} from "../src/poly/index.js";

/** Tags under which each iteration keeps its own private copies (work-items, lanes). */
export function isLaneTag(t: InameTag | undefined): boolean {
  if (t === undefined) return false;
  return t.kind === "g" || t.kind === "l" || t.kind === "l.auto" || t.kind === "ilp" || t.kind === "ilp.seq" || t.kind === "vec";
}

const isHardware = (t: InameTag | undefined) => t !== undefined && (t.kind === "g" || t.kind === "l" || t.kind === "l.auto");

/**
 * A private temporary belongs to one work-item. Where its writer runs within an iname now spread
 * over work-items (g or l) and a reader runs outside that iname (a private prefetch read by the
 * instructions it was fetched for), each work-item would fill only its part and the reader would
 * see the rest unset: refused, naming the temporary, the iname and the tag.
 */
export function checkPrivateStaysInWorkItem(k: Kernel, inames: readonly string[], who: string): void {
  // (Indexed: V8's filter() over the kernel's frozen arrays is slow, and most kernels have no private temporary.)
  const priv = new Set<string>();
  for (let i = 0; i < k.temporaries.length; i++) if (k.temporaries[i]!.addressSpace === "private") priv.add(k.temporaries[i]!.name);
  if (priv.size === 0) return;
  for (const iname of inames) {
    for (const w of k.instructions) {
      if (!w.withinInames.includes(iname)) continue;
      for (const name of insnWrites(w).filter((x) => priv.has(x))) {
        const r = k.instructions.find((x) => !x.withinInames.includes(iname) && insnReads(x).has(name));
        if (r === undefined) continue;
        throw new TransformError(`${who}: iname "${iname}" cannot be tagged ${formatInameTag(k.inameTags[iname]!)}: instruction "${w.id}" writes the private temporary "${name}" within it, ` +
          `and "${r.id}" reads "${name}" outside it; spread over work-items, each would fill only its own part of "${name}". ` +
          `Make "${name}" local (setTemporaryAddressSpace, or addPrefetch's temporaryAddressSpace "local"), or keep "${iname}" a sequential loop`);
      }
    }
  }
}

/**
 * Throws where a private temporary of `k` (tags already applied) carries a value from one
 * iteration of one of `inames` (each newly given a lane tag) to a later one (see the header).
 */
export function checkNoValueCarriedAcross(k: Kernel, inames: readonly string[], who: string): void {
  if (inames.length === 0) return;
  const priv = new Set<string>();
  for (let i = 0; i < k.temporaries.length; i++) if (addressSpaceOf(k, k.temporaries[i]!) === "private") priv.add(k.temporaries[i]!.name);
  if (priv.size === 0) return;
  const xs = new Set(inames);
  const writers = new Map<string, Instruction[]>();
  for (const w of k.instructions) for (const n of insnWrites(w)) if (priv.has(n)) pushTo(writers, n, w);
  let c: Coverage | undefined; // built at the first read to judge
  // Reader by reader (one walk of each), over the private names it reads, then the newly tagged
  // inames it runs in.
  for (const r of k.instructions) {
    const rx = r.withinInames.filter((i) => xs.has(i));
    if (rx.length === 0) continue;
    for (const name of insnReads(r)) {
      const all = writers.get(name);
      if (all === undefined || (r.kind === "block" && !readsBeforeWriting(r, name))) continue;
      for (const x of rx) {
        const ws = all.filter((w) => w.withinInames.includes(x));
        if (ws.length === 0 || (c ??= new Coverage(k)).covered(r, name, ws, x)) continue;
        // One instruction updating a value shared by ilp/vec lanes (`s = s + a[x]`, the sum's
        // first cell set outside) runs its lanes in order: the serial meaning (vec: the target decides).
        const sequentialLanes = !isHardware(k.inameTags[x]);
        if (sequentialLanes && ws.length === 1 && ws[0] === r) continue;
        const w = ws.find((i) => i !== r) ?? r;
        throw new TransformError(`${who}: iname "${x}" cannot be tagged ${formatInameTag(k.inameTags[x]!)}: instruction "${r.id}" reads the private temporary "${name}" ` +
          `that "${w.id}" writes within "${x}", and nothing in the same iteration writes it before the read, so the value read is carried from an earlier iteration of "${x}" ` +
          `(a counter, a running value). Each ${sequentialLanes ? "lane" : "work-item"} would keep its own "${name}" and read its own, unset or stale, copy instead. ` +
          `Write "${name}" in each iteration before that read (an initialization within "${x}": \`inames=+${x}\`, or inside the loop body), or keep "${x}" a sequential loop and tag the loops inside it`);
      }
    }
  }
}

/** Whether the block `r`, which reads `name`, may read it before writing it (in statement order). */
function readsBeforeWriting(r: Instruction & { kind: "block" }, name: string): boolean {
  if (r.predicates.some((p) => mentions(p, name))) return true;
  return exposed(r.body, name);
}

/** Whether `body` reads `name` before a statement at its own level assigns it whole. */
function exposed(body: readonly BlockStmt[], name: string): boolean {
  for (const s of body) {
    if (s.kind === "decl" && s.name === name) return false; // a block local of that name hides it
    if (s.kind === "assign" && s.lhs.kind === "var" && s.lhs.name === name) {
      if (mentions(s.rhs, name)) return true;
      return false;
    }
    let reads = false;
    walkStmts([s], (t) => {
      if (reads) return;
      if (t.kind === "decl") reads = t.init !== undefined && mentions(t.init, name);
      else if (t.kind === "assign") reads = mentions(t.rhs, name) || (t.lhs.kind !== "var" && mentions(t.lhs, name));
      else if (t.kind === "if" || t.kind === "while" || t.kind === "doWhile" || t.kind === "for") reads = mentions(t.cond, name);
    });
    if (reads) return true;
  }
  return false;
}

function pushTo<T>(m: Map<string, T[]>, key: string, x: T): void {
  const list = m.get(key);
  if (list === undefined) m.set(key, [x]);
  else list.push(x);
}

const isConst = (e: Expr, value: number) => e.kind === "const" && Number(e.value) === value;

function mentions(e: Expr, name: string): boolean {
  let hit = false;
  walkExpr(e, (n) => {
    if ((n.kind === "var" && n.name === name) || ((n.kind === "subscript" || n.kind === "linear") && n.array === name)) hit = true;
  });
  return hit;
}

/** The facts the coverage question asks of one kernel, built once. */
class Coverage {
  private readonly byId = new Map<string, Instruction>();
  private readonly written = new Map<string, Instruction[]>();

  constructor(private readonly k: Kernel) {
    for (const i of k.instructions) {
      this.byId.set(i.id, i);
      for (const n of insnWrites(i)) pushTo(this.written, n, i);
    }
  }

  /**
   * Whether `later` depends on `earlier`, directly or through others: a search up from `later`
   * (no closure of the whole kernel, which is quadratic in a chain of 3,000 instructions).
   */
  private dependsOn(later: Instruction, earlier: string): boolean {
    if (later.dependsOn.includes(earlier)) return true;
    const seen = new Set<string>();
    const stack = [...later.dependsOn];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (id === earlier) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      const i = this.byId.get(id);
      if (i !== undefined) for (const d of i.dependsOn) if (!seen.has(d)) stack.push(d);
    }
    return false;
  }

  /** Whether one of `ws` writes, in `r`'s iteration of `x` and before it, every cell of `name` that `r` reads. */
  covered(r: Instruction, name: string, ws: readonly Instruction[], x: string): boolean {
    return ws.some((w) => w !== r && this.dependsOn(r, w.id) && this.samePredicates(w, r, x) &&
      ((this.wholeCell(w, r, name) && this.sameLoops(w, r)) || this.cellsFilled(w, r, name)));
  }

  /**
   * An array filled by a loop nest of its own before `r` (`for j: tmp[j] = …` then `… tmp[q] …`):
   * every cell `r` reads at a point of its domain is written by `w` at some point of `w`'s loops
   * that agrees with it on the loops they share (an exact integer-set containment; `w`'s own
   * loops sequential, each finished before `r` runs, as `r` depends on `w`). Non-affine indices,
   * or a question the sets cannot answer exactly, count as not filled.
   */
  private cellsFilled(w: Instruction, r: Instruction, name: string): boolean {
    if (w.kind !== "assign" || w.lhs.kind !== "subscript" || w.lhs.array !== name || r.kind !== "assign") return false;
    const own = w.withinInames.filter((i) => !r.withinInames.includes(i));
    // The reader's points: its loops and its reductions' inames (`sum(j, tmp[j])`), the latter
    // renamed apart from the writer's loops of the same name (they are not shared loops).
    const apart = Object.fromEntries(insnInames(r).filter((n) => !r.withinInames.includes(n) && w.withinInames.includes(n)).map((n) => [n, `__red_${n}`]));
    const reads: Expr[][] = [];
    walkExpr(r.rhs, (n) => { if (n.kind === "subscript" && n.array === name) reads.push([...n.indices]); });
    r.predicates.forEach((p) => walkExpr(p, (n) => { if (n.kind === "subscript" && n.array === name) reads.push([...n.indices]); }));
    let linear = false;
    walkExpr(r.rhs, (n) => { if ((n.kind === "linear" && n.array === name) || (n.kind === "var" && n.name === name)) linear = true; });
    if (linear || reads.length === 0) return false;
    try {
      const cells = w.lhs.indices.map((_, j) => `__cell${j}`);
      const steadyName = (n: string) => !this.written.has(n);
      const affs = (within: readonly string[], idx: readonly Expr[]) => {
        const out = idx.map((e) => exprToAff(e, (n) => within.includes(n) || steadyName(n)));
        return out.every((a) => a !== undefined) && out.length === cells.length ? (out as Aff[]) : undefined;
      };
      const dw = iterationDomain(this.k, w.withinInames);
      const dr = rename(iterationDomain(this.k, insnInames(r)), apart);
      const wa = affs(w.withinInames, w.lhs.indices);
      if (wa === undefined) return false;
      const space = (set: BasicSet, as: readonly Aff[]) => {
        const params = [...new Set([...set.params, ...as.flatMap((a) => Object.keys(a.terms))])].filter((n) => !set.dims.includes(n) && !cells.includes(n));
        return extendSet(set, params, [...set.dims, ...cells], as.map((a, j) => ({ aff: affSub(varAff(cells[j]!), a), eq: true })));
      };
      const filled = eliminateExact(intersect(space(dw, wa), dr), own);
      if (!filled.exact) return false;
      const dims = [...dr.dims, ...cells];
      const target = reorderDims(filled.set, dims);
      return reads.every((idx) => {
        const ra = affs(insnInames(r), idx)?.map((a) => aff(Object.fromEntries(Object.entries(a.terms).map(([n, c]) => [apart[n] ?? n, c])), a.constant));
        return ra !== undefined && isSubset(reorderDims(space(dr, ra), dims), target);
      });
    } catch (e) {
      if (e instanceof LoomError) return false;
      throw e;
    }
  }

  /** `w` assigns the cell `r` reads: the scalar, or the array cell at the same index (read off inames and unwritten names only). */
  private wholeCell(w: Instruction, r: Instruction, name: string): boolean {
    if (w.kind !== "assign") return false;
    if (w.lhs.kind === "var") return w.lhs.name === name;
    if (w.lhs.kind !== "subscript" || w.lhs.array !== name) return false;
    const cell = w.lhs;
    let same = true;
    const visit = (e: Expr) => walkExpr(e, (n) => {
      if ((n.kind === "subscript" || n.kind === "linear") && n.array === name && !exprEquals(n, cell)) same = false;
      if (n.kind === "var" && n.name === name) same = false;
    });
    if (r.kind === "block") return false;
    if (r.kind === "assign") {
      visit(r.rhs);
      // The reader's own subscripted store is no read of its cell (its subscripts are reads); a flat
      // store into the array counts as touching other cells.
      if (r.lhs.kind === "subscript") r.lhs.indices.forEach(visit);
      else if (r.lhs.kind === "linear") visit(r.lhs);
    }
    r.predicates.forEach(visit);
    return same && w.lhs.indices.every((e) => this.steady(e, w));
  }

  /** Every loop of `w` is one of `r`'s, or a work-item's own (g/l) iname matched in `r` by one of the same axis and range. */
  private sameLoops(w: Instruction, r: Instruction): boolean {
    const tags = this.k.inameTags;
    return w.withinInames.every((i) => r.withinInames.includes(i) ||
      (isHardware(tags[i]) && r.withinInames.some((j) => isHardware(tags[j]) && formatInameTag(tags[j]!) === formatInameTag(tags[i]!) && this.sameRange(i, j))));
  }

  private sameRange(a: string, b: string): boolean {
    const ra = this.range(a), rb = this.range(b);
    return ra !== undefined && ra === rb;
  }

  private range(i: string): string | undefined {
    const d = this.k.domains.find((s) => s.dims.includes(i));
    if (d === undefined) return undefined;
    const b = dimBounds(d, i, []);
    if (!b.exact) return undefined;
    const side = (bs: typeof b.lower) => bs.map((x) => `${affToString(x.aff)}/${x.denom}`).sort().join(";");
    return `${side(b.lower)}<=.<=${side(b.upper)}`;
  }

  /**
   * Each predicate of `w` is one of `r`'s and reads only names nothing writes between them (set
   * before `w`, in no loop of its own), or holds on the first trip of a sequential loop around
   * both inside `x` (`if=v == 0`, OKL's `if (v == 0)` through its condition scalar): that trip's
   * write comes before `r` on every trip of the same iteration of `x`.
   */
  private samePredicates(w: Instruction, r: Instruction, x: string): boolean {
    return w.predicates.every((p) => (r.predicates.some((q) => exprEquals(p, q)) && this.steady(p, w)) || this.firstTrip(p, w, r, x));
  }

  private firstTrip(p: Expr, w: Instruction, r: Instruction, x: string): boolean {
    const at = this.firstTripTest(p, w);
    if (at === undefined) return false;
    const [v, value] = at;
    if (v === x || !w.withinInames.includes(v) || !r.withinInames.includes(v) || isLaneTag(this.k.inameTags[v])) return false;
    // An order that puts `v` outside `x` makes the first trip's write another iteration's.
    if (this.k.loopPriority.some((order) => order.includes(v) && order.includes(x) && order.indexOf(v) < order.indexOf(x))) return false;
    const d = this.k.domains.find((s) => s.dims.includes(v));
    if (d === undefined) return false;
    const b = dimBounds(d, v, d.dims.filter((n) => n !== v));
    return b.exact && b.lower.length === 1 && b.lower[0]!.denom === 1 && affToString(b.lower[0]!.aff) === String(value);
  }

  /** `[v, c]` where `p` is `v == c` (an iname against an integer), or a condition scalar set once, before `w`, to such a test. */
  private firstTripTest(p: Expr, w: Instruction, depth = 0): readonly [string, number] | undefined {
    if (p.kind === "compare" && p.op === "==") {
      const [a, b] = p.left.kind === "var" ? [p.left, p.right] : [p.right, p.left];
      if (a.kind === "var" && b.kind === "const" && !b.isFloat && Number.isInteger(b.value) && this.k.domains.some((d) => d.dims.includes(a.name))) return [a.name, Number(b.value)];
      return undefined;
    }
    if (depth > 0) return p.kind === "if" && isConst(p.then, 1) && isConst(p.else, 0) ? this.firstTripTest(p.cond, w, depth) : undefined;
    const name = p.kind === "var" ? p.name : p.kind === "compare" && p.op === "!=" && p.left.kind === "var" && isConst(p.right, 0) ? p.left.name : undefined;
    if (name === undefined) return undefined;
    const ds = this.written.get(name) ?? [];
    const d = ds[0];
    if (ds.length !== 1 || d!.kind !== "assign" || d!.predicates.length > 0 || d!.lhs.kind !== "var") return undefined;
    if (!this.dependsOn(w, d!.id) || !d!.withinInames.every((i) => w.withinInames.includes(i))) return undefined;
    return this.firstTripTest(d!.rhs, w, 1);
  }

  /** Whether `e` reads only names no instruction writes, or (given `w`) ones written only before `w` within `w`'s loops. */
  private steady(e: Expr, w?: Instruction): boolean {
    let ok = true;
    walkExpr(e, (n) => {
      const name = n.kind === "var" ? n.name : n.kind === "subscript" || n.kind === "linear" ? n.array : undefined;
      if (name === undefined) return;
      for (const d of this.written.get(name) ?? []) {
        if (w === undefined || !this.dependsOn(w, d.id) || !d.withinInames.every((i) => w.withinInames.includes(i))) ok = false;
      }
    });
    return ok;
  }
}
