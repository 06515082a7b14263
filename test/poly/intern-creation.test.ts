// Interning at creation (src/poly/memo.ts `internAtCreation`, used by `factorOf`) and the key slot
// stamped on sets (`rawSet`): equal factors of different sets are one object, with the content a
// fresh computation gives; sets stay plain, frozen objects whose fields alone are visible.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  clearPolyMemos, dimBounds, factorOf, gist, intersect, internSet, isEmpty, parseSet, polyWork, printSet, projectOut, setContentId, type BasicSet,
} from "../../src/poly/index.js";
import { domainFactor, factorText } from "./domain-factors.js";

const fields = (s: BasicSet) => JSON.stringify({ params: s.params, dims: s.dims, exists: s.exists, constraints: s.constraints });

const deepFrozen = (x: unknown): boolean =>
  x === null || typeof x !== "object" || (Object.isFrozen(x) && Object.values(x).every(deepFrozen));

describe("factors interned at creation", () => {
  it("are one object exactly when their contents are equal, with the content a fresh computation gives", () => {
    fc.assert(
      fc.property(domainFactor(true), domainFactor(true), domainFactor(true), fc.boolean(), (f, g, h, clear) => {
        if (clear) clearPolyMemos();
        // Two domains sharing the (x, y) factor's kind or not, with different (u, v) factors.
        const textA = `[n] -> { [x, y, u, v] : ${factorText(f, "x", "y")} and ${factorText(g, "u", "v")} and n mod 8 = 0 }`;
        const a = parseSet(textA);
        const b = parseSet(`[n] -> { [x, y, u, v] : ${factorText(h, "x", "y")} and ${factorText(f, "u", "v")} and n mod 8 = 0 }`);
        const fa = factorOf(a, "y");
        const fb = factorOf(b, "y");
        const sameContent = fields(fa) === fields(fb);
        expect(fa === fb).toBe(sameContent);
        expect(setContentId(fa) === setContentId(fb)).toBe(sameContent);
        expect(internSet(fa)).toBe(fa);
        expect(deepFrozen(fa)).toBe(true);
        expect(Object.getPrototypeOf(fa)).toBe(Object.prototype);
        // The same content as with every memo and the intern table emptied first.
        const before = fields(fa);
        const printed = printSet(fa);
        clearPolyMemos();
        const again = factorOf(parseSet(textA), "y");
        expect(fields(again)).toBe(before);
        expect(printSet(again)).toBe(printed);
      }),
      { numRuns: 60 },
    );
  });
});

describe("a set's key slot", () => {
  it("is invisible: the set is a frozen plain object whose only keys are its fields", () => {
    const s = parseSet("[n] -> { [i] : 0 <= i < n and i mod 2 = 0 }");
    setContentId(s);
    expect(Object.getPrototypeOf(s)).toBe(Object.prototype);
    expect(Reflect.ownKeys(s)).toEqual(["params", "dims", "exists", "constraints"]);
    expect(Object.isFrozen(s)).toBe(true);
    expect(structuredClone(s)).toEqual({ ...s });
    // A copy (no slot) and the original get the same key, by content.
    expect(setContentId({ ...s })).toBe(setContentId(s));
  });
});

describe("memos keyed by canonical sets", () => {
  it("answer sets of equal content alike, once, and compute again after the memos are emptied", () => {
    fc.assert(
      fc.property(domainFactor(true), domainFactor(true), (f, g) => {
        const text = `[n] -> { [x, y, u, v] : ${factorText(f, "x", "y")} and ${factorText(g, "u", "v")} and n mod 8 = 0 }`;
        const ctx = "[n] -> { : n >= 8 and n mod 8 = 0 }";
        const ask = (s: BasicSet, c: BasicSet) => [dimBounds(s, "y", ["x"]), projectOut(s, ["u", "v"]), gist(s, c), intersect(s, c), isEmpty(s)] as const;
        clearPolyMemos();
        const first = ask(parseSet(text), parseSet(ctx));
        const work = polyWork();
        // New objects of the same content: every answer is the one remembered, nothing computed.
        const again = ask(parseSet(text), parseSet(ctx));
        expect(polyWork()).toBe(work);
        for (let i = 0; i < 4; i++) expect(again[i]).toBe(first[i]);
        expect(again[4]).toBe(first[4]);
        // Emptied: computed afresh (new objects), the same content.
        clearPolyMemos();
        const fresh = ask(parseSet(text), parseSet(ctx));
        expect(polyWork()).toBeGreaterThan(work);
        expect(JSON.stringify(fresh[0])).toBe(JSON.stringify(first[0]));
        for (const i of [1, 2, 3]) expect(printSet(fresh[i] as BasicSet)).toBe(printSet(first[i] as BasicSet));
        expect(fresh[4]).toBe(first[4]);
      }),
      { numRuns: 30 },
    );
  });
});
