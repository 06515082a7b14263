/**
 * Generator of packing pipelines (issue 18B): a rectangular matmul blocked BLIS-style, with the
 * panels of a and/or b packed into temporaries at the level of the block loops, and a micro-tile
 * of lanes tagged ilp / ilp.seq / unr / nothing. Two kernel forms:
 *
 * - "update": the reduction written as an update over k blocks (`c = c + sum(k_inner, …)` inside
 *   a loop over k_outer), the panels packed once per (block, k_outer) outside the micro-tile loops;
 * - "reduction": `c = sum(k, …)` with k split, the panels packed inside the reduction over
 *   k_outer (sweeping k_inner and the ilp lanes, which nest inside the reduction).
 *
 * The outer inames of each fetch are either given (fetchOuterInames at the block loops) or left to
 * the default; the temporary is private, or global when no iname is on a group axis.
 */
import fc from "fast-check";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { applyPipeline, type PipelineJSON } from "../../transforms/pipeline.js";

type Json = PipelineJSON[number]["args"][number];

export type LaneTag = "ilp" | "ilp.seq" | "unr" | null;
type Space = "private" | "local" | "global";

export interface PackingSpec {
  readonly form: "update" | "reduction";
  readonly mc: number;
  readonly nc: number;
  readonly kc: number;
  readonly mr: number;
  readonly nr: number;
  readonly laneI: LaneTag;
  readonly laneJ: LaneTag;
  /** i_outer on g.0 (OpenMP's parallel loop; work-groups on OpenCL). */
  readonly group: boolean;
  /** The micro-tiles on work-items (i_mid on l.1, j_mid on l.0, the blocks on g.0, g.1): the GPU-style lowering on CPUs. */
  readonly workItems: boolean;
  readonly pack: readonly ("a" | "b")[];
  readonly explicitOuter: boolean;
  readonly space: Space;
  /** The address space of a's panel when both are packed (b's is `space`): mixed spaces put a private panel across the barriers of a local one. */
  readonly spaceA: Space;
  /** Micro-tile loop order: i_mid outside j_mid, or the other way round. */
  readonly iFirst: boolean;
  readonly sizes: { readonly n: number; readonly m: number; readonly p: number };
}

export interface PackingCase {
  readonly spec: PackingSpec;
  readonly ref: Kernel;
  readonly transformed: Kernel;
  readonly json: PipelineJSON;
  readonly params: Record<string, number>;
}

const ARGS = ["a: float32[n, m]", "b: float32[m, p]", "c: float32[n, p]", "n, m, p: int32"];

/** c = a b, n x m times m x p: the reference. */
export function matmulRef(): Kernel {
  return makeKernel("{ [i, j, k]: 0 <= i < n and 0 <= j < p and 0 <= k < m }", "c[i, j] = sum(k, a[i, k]*b[k, j])", ARGS, { name: "mm" });
}

/** The same product as an update over blocks of kc of the reduction. */
export function matmulUpdateForm(kc: number): Kernel {
  return makeKernel(
    ["{ [i, j]: 0 <= i < n and 0 <= j < p }", `{ [k_outer, k_inner]: 0 <= k_inner < ${kc} and 0 <= ${kc}*k_outer + k_inner < m }`],
    ["c[i, j] = 0 {id=zero}", `c[i, j] = c[i, j] + sum(k_inner, a[i, ${kc}*k_outer + k_inner]*b[${kc}*k_outer + k_inner, j]) {id=update, dep=zero}`],
    ARGS, { name: "mm_update" });
}

/** The pipeline of a spec, as JSON (replayable with applyPipeline). */
export function packingPipeline(s: PackingSpec): PipelineJSON {
  const lane = (t: LaneTag): Record<string, string> => (t === null ? {} : { innerTag: t });
  const steps: { op: string; args: Json[] }[] = [
    { op: "splitIname", args: ["i", s.mc, s.group ? { outerTag: "g.0" } : {}] },
    // On work-items, the blocks are work-groups (a barrier cannot be inside a block loop whose
    // bounds depend on the local ids of a partial block).
    { op: "splitIname", args: ["j", s.nc, s.workItems ? { outerTag: "g.1" } : {}] },
  ];
  if (s.form === "reduction") steps.push({ op: "splitIname", args: ["k", s.kc] });
  steps.push(
    { op: "splitIname", args: ["i_inner", s.mr, { outerIname: "i_mid", innerIname: "i_r", ...lane(s.laneI), ...(s.workItems ? { outerTag: "l.1" } : {}) }] },
    { op: "splitIname", args: ["j_inner", s.nr, { outerIname: "j_mid", innerIname: "j_r", ...lane(s.laneJ), ...(s.workItems ? { outerTag: "l.0" } : {}) }] },
  );
  const mids = s.workItems ? [] : s.iFirst ? ["i_mid", "j_mid"] : ["j_mid", "i_mid"];
  const order = [...(s.workItems ? [] : ["j_outer"]), ...(s.form === "update" ? ["k_outer", ...mids, "k_inner"] : mids)];
  if (order.length > 1) steps.push({ op: "prioritizeLoops", args: [order.join(",")] });
  // A private or global temporary is filled by sequential loops; a local one by the work-items
  // (l.auto) where there are work-items.
  const spaceOf = (x: "a" | "b") => {
    const sp = x === "a" && s.pack.length === 2 ? s.spaceA : s.space;
    return { temporaryAddressSpace: sp, ...(sp === "local" && s.workItems ? {} : { defaultTag: null }) };
  };
  for (const x of s.pack) {
    const space = spaceOf(x);
    const [mid, r] = x === "b" ? ["j_mid", "j_r"] : ["i_mid", "i_r"];
    if (s.form === "update") {
      // Given outer inames: the whole block's panel, once per (block, k_outer). By default the
      // store runs within every loop of the reader it does not sweep, so it sweeps the micro-tile's
      // panel only (sweeping the block too would need it outside the other micro-tile loop).
      const outer = x === "b" ? ["j_outer", "k_outer"] : ["i_outer", "j_outer", "k_outer"];
      const sweep = s.explicitOuter || s.workItems ? ["k_inner", mid, r] : ["k_inner", r];
      steps.push({ op: "addPrefetch", args: [x, { sweepInames: sweep, ...(s.explicitOuter ? { fetchOuterInames: outer } : {}), ...space }] });
    } else {
      // Inside the reduction over k_outer: the k block of the micro-tile's lanes (ilp lanes, which
      // nest inside the reduction; the store runs within every loop around it).
      const outer = ["i_outer", "j_outer", "i_mid", "j_mid", "k_outer"];
      // On work-items, the store sweeps the micro-tiles too (else each work-item would write its
      // own values into the one shared temporary: refused as a race).
      const sweep = s.workItems ? ["k_inner", mid, r] : ["k_inner", r];
      steps.push({ op: "addPrefetch", args: [x, { sweepInames: sweep, ...(s.explicitOuter ? { fetchOuterInames: outer.filter((o) => !(s.workItems && o === mid)) } : {}), ...space }] });
    }
  }
  return steps as PipelineJSON;
}

export function packingCase(s: PackingSpec): PackingCase {
  const json = packingPipeline(s);
  const source = s.form === "update" ? matmulUpdateForm(s.kc) : matmulRef();
  return { spec: s, ref: matmulRef(), transformed: applyPipeline(source, json), json, params: { ...s.sizes } };
}

const lane = fc.constantFrom<LaneTag>("ilp", "ilp.seq", "unr", null);

/** Random specs: small blocks (partial blocks included), every lane tag, both forms. */
export const packingSpec: fc.Arbitrary<PackingSpec> = fc.record({
  form: fc.constantFrom("update" as const, "reduction" as const),
  mc: fc.integer({ min: 2, max: 6 }),
  nc: fc.integer({ min: 2, max: 6 }),
  kc: fc.integer({ min: 1, max: 4 }),
  mr: fc.integer({ min: 1, max: 3 }),
  nr: fc.integer({ min: 1, max: 3 }),
  laneI: lane,
  laneJ: lane,
  group: fc.boolean(),
  workItems: fc.boolean(),
  pack: fc.constantFrom<("a" | "b")[]>(["a"], ["b"], ["a", "b"], ["b", "a"]),
  explicitOuter: fc.boolean(),
  space: fc.constantFrom<Space>("private", "private", "local", "global"),
  spaceA: fc.constantFrom<Space>("private", "local", "global"),
  iFirst: fc.boolean(),
  sizes: fc.record({ n: fc.integer({ min: 1, max: 9 }), m: fc.integer({ min: 1, max: 9 }), p: fc.integer({ min: 1, max: 9 }) }),
}).map((s) => ({
  ...s,
  // A micro-tile of at most the block; a global temporary is one for the whole kernel, so only
  // where no work-groups run side by side (the scheduler refuses it otherwise: see packing.test.ts).
  mr: Math.min(s.mr, s.mc),
  // In the reduction form the lanes a fetch sweeps are ilp lanes (a sequential loop around the
  // reduction cannot be swept by a store inside it: see packing.test.ts).
  // So are they on work-items by default: the store would also run within a sequential lane loop
  // of the reader, whose bounds depend on the local ids in a partial block, and the barriers after
  // the store cannot be inside such a loop (the scheduler refuses it).
  // And by default with both panels packed, whose stores would each run within the other's swept
  // lane loop: both nestings at once (refused, see packing.test.ts), so the i lanes are ilp there.
  laneI: (s.form === "reduction" || (!s.explicitOuter && (s.workItems || s.pack.length === 2))) && (s.laneI === null || s.laneI === "unr") ? "ilp" as const : s.laneI,
  laneJ: (s.form === "reduction" || (s.workItems && !s.explicitOuter)) && (s.laneJ === null || s.laneJ === "unr") ? "ilp.seq" as const : s.laneJ,
  nr: Math.min(s.nr, s.nc),
  group: s.group || s.workItems,
  space: (s.group || s.workItems) && s.space === "global" ? "private" as const : s.space,
  spaceA: (s.group || s.workItems) && s.spaceA === "global" ? "local" as const : s.spaceA,
}));

/** The BLIS-shaped case the law also always checks: update form, ilp micro-tile, both panels. */
export const BLIS_SPEC: PackingSpec = {
  form: "update", mc: 4, nc: 6, kc: 3, mr: 2, nr: 3, laneI: "ilp", laneJ: "ilp", group: true, workItems: false, pack: ["b", "a"],
  explicitOuter: true, space: "private", spaceA: "private", iFirst: true, sizes: { n: 9, m: 7, p: 13 },
};
