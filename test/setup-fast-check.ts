/**
 * Property tests explore new random cases on every local run. CI pins the seed of the tests that
 * do not choose their own (LOOM_FC_SEED), so a submission is judged on reproducible cases; a
 * failing seed printed by fast-check can be replayed the same way.
 */
import fc from "fast-check";

const seed = process.env.LOOM_FC_SEED;
if (seed !== undefined && seed !== "") fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed) });
