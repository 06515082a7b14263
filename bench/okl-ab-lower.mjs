// A/B of the OKL lowering alone (issue 20's scale item): two compiled builds each lower one parsed
// unit of bench/okl-scale.ts's 1,000-line assembly kernel again and again (lowerOkl, no parsing),
// in alternating blocks without forced collections. The whole import's A/B (bench/ab-okl.mjs)
// cannot resolve a change of 10% in the lowering at a load of 5-10 on two cores: a scavenge lands on
// one import of three and doubles it (the median import is twice the fastest). Re-lowering one unit
// is cheaper than an import's lowering (its AST is old, not copied by the scavenges), so read the
// ratio, not the milliseconds. Run an A/A (the same build twice) for the noise: 1.00-1.08 at load 6.
//
//   npx tsc -p tsconfig.bench.json --outDir dist-a   # the build before the change, then after it:
//   npx tsc -p tsconfig.bench.json
//   node bench/okl-ab-lower.mjs dist-a dist [blocks] [--lines 1000]
import { alternate, importFrom, loadAverage, timeBlock } from "./ab-common.mjs";

const args = process.argv.slice(2);
const li = args.indexOf("--lines");
const lines = li >= 0 ? Number(args[li + 1]) : 1000;
const [dirA, dirB, blocksArg] = li >= 0 ? args.filter((_, i) => i !== li && i !== li + 1) : args;
if (!dirA || !dirB) {
  console.error("usage: node bench/okl-ab-lower.mjs DIST_A DIST_B [blocks] [--lines N]");
  process.exit(2);
}

/** A function lowering, with build `dir`, the unit that build parsed. */
async function lowering(dir) {
  const { assemblyKernel } = await importFrom(dir, "bench/okl-scale.js");
  const { parseOklAst } = await importFrom(dir, "src/okl/syntax/parse-okl-ast.js");
  const { lowerOkl } = await importFrom(dir, "src/okl/lower/lower-okl.js");
  const src = assemblyKernel(lines);
  const unit = parseOklAst(src, {});
  return () => lowerOkl(unit, { source: src });
}

const A = await lowering(dirA);
const B = await lowering(dirB);
const blocks = Number(blocksArg ?? 40);
// Each build goes first every other block; without --expose-gc nothing is collected between them.
const r = alternate(() => timeBlock(A, 3), () => timeBlock(B, 3), blocks, 5);
const f = (x) => x.toFixed(1);
console.log(`lowering, ${lines}-line assembly kernel, CPU ms per lowering over ${blocks} blocks: A min ${f(r.best[0])} median ${f(r.cpu[0])}; B min ${f(r.best[1])} median ${f(r.cpu[1])}; B/A of the minima ${(r.best[1] / r.best[0]).toFixed(3)}, median of the block ratios ${r.cpu[2].toFixed(3)}; load ${loadAverage()}`);
