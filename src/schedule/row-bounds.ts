/**
 * Bounds of a dim read off the rows of a set over that dim alone (`0 <= i_inner`, `i_inner <= 15`
 * of a split; a fetch's `0 <= a_dim_0 < 16`), with no projection: the tag checks (checks.ts) and
 * the local axes (device.ts) start from them. Also asked of an iname's own domain rather than of
 * its factor (issue 21: a sweep's variants each bring a new domain, whose factors would each be
 * built): local ranges (`ownerWitnessedRange`) and whether a loop's factor holds a local iname
 * (`componentHas`, barriers.ts).
 */
import type { BasicSet } from "../poly/index.js";

/**
 * The tightest constant bounds `[lo, hi]` of dim `name` of `s` that rows over it alone say
 * (`-Infinity`/`Infinity` where none does), or undefined where such an equality has no integer
 * solution (the set is empty) or `name` is no dim of `s`. Every point of `s` lies in `lo … hi`.
 */
export function rowBounds(s: BasicSet, name: string): [number, number] | undefined {
  const d = s.dims.indexOf(name);
  if (d < 0) return undefined;
  const at = s.params.length + d;
  let lo = -Infinity;
  let hi = Infinity;
  // Indexed loops: the rows are frozen arrays (a for-of over one allocates per element).
  const rows = s.constraints;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const a = row.coeffs[at] ?? 0;
    if (a === 0) continue;
    let alone = true;
    for (let x = 0; x < row.coeffs.length; x++) if (x !== at && (row.coeffs[x] ?? 0) !== 0) alone = false;
    if (!alone) continue;
    // a·x + c >= 0 (or = 0): x >= ceil(-c/a) where a > 0, x <= floor(c/|a|) where a < 0.
    if (row.eq && row.constant % a !== 0) return undefined;
    if (a > 0 || row.eq) lo = Math.max(lo, Math.ceil(-row.constant / a));
    if (a < 0 || row.eq) hi = Math.min(hi, Math.floor(-row.constant / a));
  }
  // (+ 0: no -0 from ceil(-0 / 1) in a printed bound.)
  return [lo + 0, hi + 0];
}

/** The value every parameter takes in a witness of `witnessedRange` (large: `i < n` holds for small i). */
const WITNESS_PARAM = 1 << 20;

/**
 * The constant bounds `[lo, hi]` of `iname` in `own` (a factor with no existentials) read off its
 * rows over `iname` alone, where a point of `own` lies at each end: `iname` at `lo` (then at
 * `hi`), every other dim 0, every parameter `WITNESS_PARAM`. Then `lo` and `hi` are the tightest
 * constant bounds the exact projection onto `iname` has (the rows are its rows, and a tighter
 * constant bound would exclude the witness), so the local axis `axisOf` reads off the projection
 * is `lo … hi`. `0 <= i_inner < 16` with `0 <= 16*i_outer + i_inner < n`: [0, 15] (i_outer 0,
 * n large). Undefined where the rows or the witnesses do not say: the projection decides.
 */
export function witnessedRange(own: BasicSet, iname: string): [number, number] | undefined {
  if (own.exists.length > 0) return undefined;
  const r = rowBounds(own, iname);
  if (r === undefined) return undefined;
  const [lo, hi] = r;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return undefined;
  const np = own.params.length;
  const at = np + own.dims.indexOf(iname);
  return holdsAt(own, np, at, lo) && holdsAt(own, np, at, hi) ? [lo, hi] : undefined;
}

/** Whether the witness with dim `at` at `value` (other dims 0, parameters WITNESS_PARAM) satisfies every row of `own`. */
function holdsAt(own: BasicSet, np: number, at: number, value: number): boolean {
  const rows = own.constraints;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    let sum = row.constant;
    for (let x = 0; x < row.coeffs.length; x++) {
      const q = row.coeffs[x] ?? 0;
      if (q !== 0) sum += q * (x === at ? value : x < np ? WITNESS_PARAM : 0);
    }
    if (row.eq ? sum !== 0 : sum < 0) return false;
  }
  return true;
}

/** Whether local ranges and loop bounds are asked of the iname's own domain (default) or of its factor (tests: the route before). */
export const ownerRanges = { on: true };

/** Tests: local ranges read off the iname's own domain (default), or off its factor only (the route before). */
export function useOwnerRanges(on: boolean): void {
  ownerRanges.on = on;
}

/**
 * `witnessedRange` of `iname` in the one domain that names it (`owners`: each dim's domain, null
 * where several name one), not in its factor: the answer device.ts's own-factor route gives,
 * without building the factor (a new set per variant of a sweep, each variant a new domain).
 * Where the domain names its dims alone and no row uses a parameter that is an iname of another
 * domain, its chain adds no row to it: the chain projects on `iname` as the domain does, and the
 * iname's factor in it is the own factor. A witness in the domain (`iname` at `lo`, then at
 * `hi`, every other dim 0, every parameter WITNESS_PARAM) restricted to the factor's dims is a
 * witness in the factor (the factor's rows are rows of the domain, the rows over `iname` alone
 * among them), so the factor's route finds the same `[lo, hi]`; where the domain's witness
 * fails, undefined (the factor's route decides).
 */
export function ownerWitnessedRange(owners: ReadonlyMap<string, BasicSet | null>, iname: string): [number, number] | undefined {
  const owner = owners.get(iname);
  if (!owner || !standsAlone(owner, owners)) return undefined;
  return witnessedRange(owner, iname);
}

/**
 * Per domain of the domain list last asked about (its `owners`): whether the domain names its dims
 * alone and no row uses an iname parameter. One kernel's passes ask of one list in turn; one
 * entry, no WeakMap entry per domain (each variant of a sweep brings new domains).
 */
let lastAlone: { owners: ReadonlyMap<string, BasicSet | null> | undefined; readonly yes: Map<BasicSet, boolean> } = { owners: undefined, yes: new Map() };

function standsAlone(d: BasicSet, owners: ReadonlyMap<string, BasicSet | null>): boolean {
  if (lastAlone.owners !== owners) lastAlone = { owners, yes: new Map() };
  const known = lastAlone.yes.get(d);
  if (known !== undefined) return known;
  let yes = d.exists.length === 0;
  for (let x = 0; x < d.dims.length; x++) if (owners.get(d.dims[x]!) !== d) yes = false;
  const np = d.params.length;
  for (let at = 0; at < np && yes; at++) {
    if (!owners.has(d.params[at]!)) continue;
    for (let r = 0; r < d.constraints.length; r++) if ((d.constraints[r]!.coeffs[at] ?? 0) !== 0) yes = false;
  }
  if (Object.isFrozen(d)) lastAlone.yes.set(d, yes);
  return yes;
}

/**
 * Whether a dim of the factor of `name` in `d` (the dims rows link to it, through dims and
 * existentials, as factorOf groups them) satisfies `test`: read off the rows, no set built.
 */
export function componentHas(d: BasicSet, name: string, test: (dim: string) => boolean): boolean {
  const np = d.params.length;
  const nv = d.dims.length + d.exists.length;
  const start = d.dims.indexOf(name);
  if (start < 0) return false;
  const seen: boolean[] = [];
  for (let x = 0; x < nv; x++) seen.push(false);
  seen[start] = true;
  const stack = [start];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (at < d.dims.length && test(d.dims[at]!)) return true;
    for (let r = 0; r < d.constraints.length; r++) {
      const row = d.constraints[r]!;
      if ((row.coeffs[np + at] ?? 0) === 0) continue;
      for (let x = 0; x < nv; x++) {
        if (!seen[x] && (row.coeffs[np + x] ?? 0) !== 0) {
          seen[x] = true;
          stack.push(x);
        }
      }
    }
  }
  return false;
}
