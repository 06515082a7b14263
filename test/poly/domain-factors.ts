/**
 * Random factors of a domain (no dim or existential shared between two): split tiles, triangles,
 * strides and boxes, with constants from 0 and 1 up to near the int32 limit; `capped` adds splits of
 * a range shorter than the tile. Shared by the laws of test/ir/domain-memo.test.ts and
 * test/transforms/fetch-local-sizes.test.ts.
 */
import fc from "fast-check";

export type DomainFactor = { kind: string; f: number };

const BIG = 2 ** 31 - 2;

/** One factor's kind and constant. */
export function domainFactor(capped = false): fc.Arbitrary<DomainFactor> {
  const kinds: fc.Arbitrary<DomainFactor>[] = [
    fc.record({ kind: fc.constant("split"), f: fc.constantFrom(1, 2, 3, 16, 64, BIG) }),
    fc.record({ kind: fc.constant("triangle"), f: fc.constantFrom(0, 1, 7) }),
    fc.record({ kind: fc.constant("stride"), f: fc.constantFrom(1, 2, 5) }),
    fc.record({ kind: fc.constant("box"), f: fc.constantFrom(0, 1, 9, BIG) }),
  ];
  if (capped) kinds.push(fc.record({ kind: fc.constant("capped"), f: fc.constantFrom(4, 10, 16) }));
  return fc.oneof(...kinds);
}

/** The factor's constraints over its two inames `x` (outer) and `y`, with the parameter `n`. */
export function factorText(f: DomainFactor, x: string, y: string): string {
  switch (f.kind) {
    case "split": return `0 <= ${y} < ${f.f} and 0 <= ${f.f}*${x} + ${y} < n`;
    case "triangle": return `0 <= ${x} < n and ${f.f} <= ${y} <= ${x} + ${f.f}`;
    case "stride": return `0 <= ${x} < n and ${x} mod ${f.f} = 0 and 0 <= ${y} <= ${x}`;
    // A split of a range shorter than the tile: the inner iname's size is the range's, not the tile's.
    case "capped": return `0 <= ${y} < 16 and 0 <= 16*${x} + ${y} < ${f.f}`;
    default: return `${f.f} <= ${x} <= ${f.f} + 3 and 0 <= ${y} <= n`;
  }
}
