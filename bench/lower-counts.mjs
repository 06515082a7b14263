// Counts of the lowering's work per tiled-matmul variant (issue 21, engineer L's step 1), on a
// compiled build: the 50-variant sweep of bench/transforms.ts (OpenCL), memos emptied before the
// pass, each variant transformed and scheduled (not counted), then lowered with the lowering's
// methods wrapped. Per variant: loops lowered, hoisted-guard levels and instruction guards decided,
// statements lowered, array elements lowered, and of each how many an earlier variant of the pass
// already did from equal inputs (by content: the instructions' domains and frozen instructions, the
// loop context's set, the substitutions, the known inames) or with an equal result; poly answers
// computed (misses of every poly memo) during the lowering. Keys are computed with counting off,
// so they do not add to the counts. Plain node:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x
//   node bench/lower-counts.mjs dist-x
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { matmulSweep } from "./ab-common.mjs";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node bench/lower-counts.mjs DIST");
  process.exit(2);
}
const at = (p) => import(pathToFileURL(resolve(dir, p)).href);
const { scheduleForTarget } = await at("codegen/pipeline.js");
const { lowerSchedule } = await at("codegen/lower.js");
const { NameAllocator } = await at("codegen/names.js");
const { openclTarget } = await at("codegen/targets/opencl.js");
const { clearPolyMemos, setContentId, polyWork } = await at("src/poly/index.js");
const { exprToString } = await at("src/ir/index.js");
const { LoopLowering } = await at("codegen/lower/loops.js");
const { GuardLowering } = await at("codegen/lower/guards.js");
const { InstructionLowering } = await at("codegen/lower/statements.js");

const counts = new Map();
let inputs = new Map();
let outputs = new Map();
let counting = false;
const bump = (what, n = 1) => counts.set(what, (counts.get(what) ?? 0) + n);
const quiet = (f) => {
  const was = counting;
  counting = false;
  try {
    return f();
  } finally {
    counting = was;
  }
};

/** Wrap `cls.prototype[name]`: count calls, and calls whose input key or output an earlier call of the pass had. */
function wrap(cls, name, label, keyOf) {
  const orig = cls.prototype[name];
  cls.prototype[name] = function (...args) {
    if (!counting) return orig.apply(this, args);
    const inKey = quiet(() => keyOf(this, ...args));
    const out = orig.apply(this, args);
    const outKey = quiet(() => JSON.stringify(out));
    bump(`${label}`);
    for (const [seen, key, what] of [[inputs, inKey, "same input seen before"], [outputs, outKey, "same output seen before"]]) {
      let s = seen.get(label);
      if (!s) seen.set(label, (s = new Set()));
      if (s.has(key)) bump(`${label}: ${what}`);
      else s.add(key);
    }
    return out;
  };
}

const substKey = (h) => [...h.subst].map(([n, e]) => `${n}=${JSON.stringify(e)}`).sort().join(";");
const insnsKey = (h, nodes) => h.insnsUnder(nodes).map((id) => `${setContentId(h.insnDomain(h.insnOf(id)))}${JSON.stringify(h.insnOf(id))}`).join(",");
wrap(LoopLowering, "loop", "loops lowered", (L, iname, body, known, ctx) => `${iname}|${known}|${setContentId(ctx.set)}|${substKey(L.h)}|${insnsKey(L.h, body)}`);
wrap(GuardLowering, "withHoistedGuards", "hoisted-guard levels decided", (G, nodes, known, ctx) => `${known}|${setContentId(ctx.set)}|${substKey(G.h)}|${insnsKey(G.h, nodes)}`);
wrap(GuardLowering, "guarded", "instruction guards decided", (G, d, known, ctx, what) => `${setContentId(d)}|${known}|${setContentId(ctx.set)}|${substKey(G.h)}|${what}`);
wrap(InstructionLowering, "insn", "statements lowered", (I, id, known, ctx) => `${JSON.stringify(I.h.insnOf(id))}|${known}|${setContentId(ctx.set)}|${substKey(I.h)}`);
wrap(InstructionLowering, "element", "array elements lowered", (I, e, scope) => `${exprToString(e)}|${scope.insnId}|${substKey(I.h)}|${JSON.stringify(I.h.k.temporaries.find((t) => t.name === e.array) ?? e.array)}`);

const { matmul, variants } = await matmulSweep(dir);
/** One pass over the variants, memos emptied first: poly answers computed by the lowering. */
function pass(count) {
  clearPolyMemos();
  let work = 0;
  for (const p of variants) {
    const s = scheduleForTarget(p(matmul), "opencl");
    const names = NameAllocator.forKernel(s.kernel, "opencl");
    const w = polyWork();
    counting = count;
    lowerSchedule(s, openclTarget.d.lowerOptions, names);
    counting = false;
    work += polyWork() - w;
  }
  return work;
}
// Poly work from a pass without counting (the keys ask for context sets the lowering may not make).
const work = pass(false);
pass(true);
console.log(`per tiled-matmul variant (${variants.length} variants on OpenCL, memos emptied before the pass; ${dir}):`);
for (const [k, v] of [...counts].sort()) console.log(`  ${k.padEnd(58)} ${(v / variants.length).toFixed(2)}`);
console.log(`  ${"poly answers computed by the lowering".padEnd(58)} ${(work / variants.length).toFixed(2)}`);
