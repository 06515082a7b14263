/**
 * The law the hostile-name tests state (cucl-hip-names.test.ts, sycl-metal-alpaka-ispc.test.ts):
 * code generated from a kernel named with reserved words is the code of the same kernel with plain
 * names, but for each plain name replaced one for one by a name the dialect does not reserve and
 * the printer does not use itself.
 *
 *   expectRenaming(code(plain, "hip"), code(hostile, "hip"), ["p_a", "p_n"], (w) => isReserved(w, "cuda"), "hip");
 */
import { expect } from "vitest";

/** `code` as identifiers, numbers (with their suffixes: `2.0f`, `1e-3`, `4u` one token each) and the text between them. */
export const tokens = (code: string): string[] => code.match(/[A-Za-z_]\w*|\d[\w.]*|[^A-Za-z_\d]+/g) ?? [];

/**
 * `hostile` equals `plain` token by token, but where a token of `plain` containing one of
 * `plainNames` (or one `plainNames` accepts) is replaced, always by the same token, which stands
 * for no other, is not `reserved` and is none of the tokens both codes share (the printer's own
 * names; with `members`, a token after `.` or `->` is a member, not a name of the code's scope).
 * Returns the renaming, hostile token to plain.
 */
export function expectRenaming(
  plain: string, hostile: string, plainNames: readonly string[] | ((token: string) => boolean), reserved: (name: string) => boolean, what: string,
  opts: { readonly members?: boolean } = {},
): ReadonlyMap<string, string> {
  const isPlain = typeof plainNames === "function" ? plainNames : (x: string) => plainNames.some((q) => x.includes(q));
  const [p, h] = [tokens(plain), tokens(hostile)];
  expect(h.length, what).toBe(p.length);
  const forth = new Map<string, string>();
  const back = new Map<string, string>();
  const own = new Set<string>();
  p.forEach((x, n) => {
    const y = h[n]!;
    if (x === y) {
      if (!opts.members || !/(\.|->)$/.test(p[n - 1] ?? "")) own.add(x);
      return;
    }
    expect(isPlain(x), `${what}: the printer's ${x} became ${y}`).toBe(true);
    expect(reserved(y), `${what}: ${y} is reserved`).toBe(false);
    expect(forth.get(x) ?? y, `${what}: ${x} printed two ways`).toBe(y);
    expect(back.get(y) ?? x, `${what}: ${y} stands for two names`).toBe(x);
    forth.set(x, y);
    back.set(y, x);
  });
  for (const y of back.keys()) expect(own.has(y), `${what}: ${y} is also the printer's`).toBe(false);
  return back;
}
