/**
 * The inverse of oklStructPack (struct-args.ts): C's bytes of structs of a split pointer argument
 * read back into JS objects, `{ type: 1, vals: [1, 2, 3], pts: [{ x: 0, y: 1 }, …], n: { x, y } }`.
 *
 *   const out = await lp.run(k, { ...lp.oklStructArrays(k, "bcs", bytes), … });
 *   lp.oklStructUnpack(k, "bcs", lp.oklStructBytes(k, "bcs", out, bytes));   // the structs after the kernel
 *
 * Each field of the kernel's record (OklStructArg) has its declared `dims` per path segment, so the
 * objects have the declared shape: `double m[2][3]` as nested arrays, `pt_t g[2][3]` as nested
 * arrays of objects, a one-element array as an array of one. (A record without `dims`, from an
 * older kernel, is read in the shape C's layout shows: array fields flat, row-major.)
 * oklStructPack accepts these forms, so packing what this returns gives the same bytes back
 * (padding zero).
 */
import { LoomError } from "../errors.js";
import { byteSize, type Dtype, type Kernel, type OklStructArg } from "../ir/index.js";
import { bytesOf, get, oklStructArg, type View } from "./struct-args.js";

interface LeafNode { readonly kind: "leaf"; readonly name: string; readonly dtype: Dtype; readonly offs: readonly number[]; own: number }
interface StructNode { readonly kind: "struct"; readonly name: string; readonly children: (LeafNode | StructNode)[]; count: number }
type Node = LeafNode | StructNode;

/** 1 + how many steps of exactly `step` follow `xs[0]`. */
function run(xs: readonly number[], step: number): number {
  let k = 1;
  while (k < xs.length && xs[k]! - xs[k - 1]! === step) k++;
  return k;
}

function firstLeaf(n: Node): LeafNode {
  return n.kind === "leaf" ? n : firstLeaf(n.children[0]!);
}

/** The elements per enclosing element of `n`'s first leaf (counts inside `n`, its own included unless `n` is the leaf). */
function inside(n: Node): number {
  return n.kind === "leaf" ? n.own : n.children.length === 0 ? 1 : (n.children[0]!.kind === "leaf" ? n.children[0]!.own : n.children[0]!.count * inside(n.children[0]!));
}

/** Sets each child's count (leaves: their own array elements) from C's layout; returns sizeof and _Alignof of the struct. */
function analyze(p: StructNode): { size: number; align: number } {
  let at = 0;
  let align = 1;
  for (const ch of p.children) {
    let size: number, a: number;
    if (ch.kind === "leaf") {
      a = byteSize(ch.dtype);
      ch.own = run(ch.offs, a);
      size = ch.own * a;
    } else {
      const inner = analyze(ch);
      const per = inside(ch);
      const offs = firstLeaf(ch).offs;
      const bases = offs.filter((_, k) => k % per === 0);
      ch.count = run(bases, inner.size);
      size = ch.count * inner.size;
      a = inner.align;
    }
    at = Math.ceil(at / a) * a + size;
    align = Math.max(align, a);
  }
  return { size: Math.ceil(at / align) * align, align };
}

/** The shape of struct pointer argument `arg` as a tree of its fields, counts read from the layout. */
function shape(k: Kernel, arg: string): { readonly root: StructNode; readonly size: number } {
  const s = oklStructArg(k, arg);
  const root: StructNode = { kind: "struct", name: s.struct, children: [], count: 1 };
  for (const f of s.fields) {
    const path = f.name.split(".");
    let at = root;
    for (const seg of path.slice(0, -1)) {
      let next = at.children.find((c): c is StructNode => c.kind === "struct" && c.name === seg);
      if (!next) at.children.push((next = { kind: "struct", name: seg, children: [], count: 1 }));
      at = next;
    }
    at.children.push({ kind: "leaf", name: path[path.length - 1]!, dtype: f.dtype, offs: f.elements ?? [f.offset], own: 1 });
  }
  analyze(root);
  return { root, size: s.size };
}

/** Struct `i`'s values of the fields under `n`, starting at element `first` of each leaf, `n` repeated `times`. */
function build(v: DataView, base: number, n: StructNode, first: number, times: number): unknown {
  const one = (j: number): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    for (const ch of n.children) {
      if (ch.kind === "leaf") {
        const at = (first + j) * ch.own;
        const vals = Array.from({ length: ch.own }, (_, q) => get(v, base + ch.offs[at + q]!, ch.dtype));
        o[ch.name] = ch.own === 1 ? vals[0] : vals;
      } else o[ch.name] = build(v, base, ch, (first + j) * ch.count, ch.count);
    }
    return o;
  };
  return n.count === 1 && times === 1 ? one(0) : Array.from({ length: times }, (_, j) => one(j));
}

/**
 * JS objects of the `count` structs (default: as many whole ones as `data` holds) of struct pointer
 * argument `arg` in C's bytes: the inverse of oklStructPack. Scalars are numbers (bigints for
 * 64-bit integers); see the module comment for the shape of arrays.
 */
export function oklStructUnpack(k: Kernel, arg: string, data: View, count?: number): Record<string, unknown>[] {
  const s = oklStructArg(k, arg);
  const v = bytesOf(data);
  const n = count ?? Math.floor(v.byteLength / s.size);
  if (!Number.isInteger(n) || n < 0 || n * s.size > v.byteLength) {
    throw new LoomError(`oklStructUnpack("${arg}"): ${count} structs "${s.struct}" of ${s.size} bytes need ${n * s.size} bytes; the data holds ${v.byteLength}`);
  }
  // Kernels imported since fields carry their declared dims: the exact shape; older records: the shape C's layout shows.
  if (s.fields.every((f) => f.dims !== undefined)) {
    const root = declared(s.fields);
    return Array.from({ length: n }, (_, i) => exact(v, i * s.size, root, 0) as Record<string, unknown>);
  }
  const { root, size } = shape(k, arg);
  return Array.from({ length: n }, (_, i) => build(v, i * size, root, 0, 1) as Record<string, unknown>);
}

/** A field path as declared: a struct's members (in order) or a leaf's element offsets, each with its own array dims. */
interface DeclNode { readonly name: string; readonly dims: readonly number[]; readonly dtype?: Dtype; readonly offs?: readonly number[]; readonly children: DeclNode[] }

/** The tree of declared fields of OklStructArg `fields` (each with `dims`). */
function declared(fields: OklStructArg["fields"]): DeclNode {
  const root: DeclNode = { name: "", dims: [], children: [] };
  for (const f of fields) {
    const path = f.name.split(".");
    let at = root;
    path.forEach((seg, j) => {
      const last = j === path.length - 1;
      let next = last ? undefined : at.children.find((c) => c.name === seg && c.offs === undefined);
      if (!next) at.children.push((next = { name: seg, dims: f.dims![j] ?? [], children: [], ...(last ? { dtype: f.dtype, offs: f.elements ?? [f.offset] } : {}) }));
      at = next;
    });
  }
  return root;
}

/**
 * The value of struct node `n` at flat position `p` of the dims above it: an object of its
 * members, each a value or nested arrays of its dims. A leaf's elements are row-major over every
 * dim of its path, so member c's k-th element under position p is element p * |c| + k.
 */
function exact(v: DataView, base: number, n: DeclNode, p: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const ch of n.children) {
    const count = ch.dims.reduce((a, x) => a * x, 1);
    const vals = Array.from({ length: count }, (_, k) => (ch.offs ? get(v, base + ch.offs[p * count + k]!, ch.dtype!) : exact(v, base, ch, p * count + k)));
    o[ch.name] = nest(vals, ch.dims);
  }
  return o;
}

/** `vals` as nested arrays of extents `dims` (row-major); the one value itself for no dims. */
function nest(vals: readonly unknown[], dims: readonly number[]): unknown {
  if (dims.length === 0) return vals[0];
  if (dims.length === 1) return vals.slice();
  const inner = dims.slice(1).reduce((a, x) => a * x, 1);
  return Array.from({ length: dims[0]! }, (_, i) => nest(vals.slice(i * inner, (i + 1) * inner), dims.slice(1)));
}
