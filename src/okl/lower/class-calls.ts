/**
 * Calls of a class's (or class template's) constructor and member functions (the parser made each a device
 * function taking the object by address, syntax/cxx.ts): `S<…> obj{a, b};` and `obj.m(x)` become
 * `S::ctor(&obj, a, b)` and `S::m(&obj, x)`, inlined as every device function call is.
 *
 *   MovingAverage<float, 256, 16> ma{n, m, in, out};  ma.process(t);
 *   // MovingAverage<float, 256, 16>::ctor(&ma, n, m, in, out);  MovingAverage<float, 256, 16>::process(&ma, t);
 */
import type * as A from "../syntax/ast.js";
import { isConstructorName, memberFunctionName } from "../syntax/cxx.js";
import type { Binding, Ctx, Fail } from "./bindings.js";
import type { FileContext } from "./file-context.js";

/** The constructor call a declarator was initialized with (`obj{a, b}` / `obj(a, b)`), or undefined. */
export function constructorOf(d: A.Declarator): A.Call | undefined {
  const i = d.init;
  return i?.kind === "call" && i.callee.kind === "ident" && isConstructorName(i.callee.name) ? i : undefined;
}

/**
 * `S<…> obj;` without arguments, of a class with a constructor: the call of that constructor with
 * none (C++ default-constructs the object; a constructor with parameters is then an error naming
 * its arity). Undefined for a pointer, an array, an initialized declarator or a class without one.
 */
export function defaultConstructor(spec: A.TypeSpec, d: A.Declarator, file: FileContext): A.Call | undefined {
  if (spec.base.kind !== "struct" || spec.base.name === undefined || d.init !== undefined || d.pointers.length + d.arrayDims.length > 0) return undefined;
  const name = memberFunctionName(spec.base.name, "ctor");
  if (!file.functions.has(name)) return undefined;
  return { kind: "call", callee: { kind: "ident", name, pos: d.pos }, args: [], pos: d.pos };
}

/** Whether `spec` is a class (a class template instance or a struct) with member functions or a constructor (its objects are declared by constructObjects). */
export function isClassObject(spec: A.TypeSpec, file: FileContext): boolean {
  const b = spec.base;
  return b.kind === "struct" && b.name !== undefined && hasMembers(b.name, file);
}

/** Whether struct `name` has a constructor or member functions (device functions `name::m`, syntax/cxx.ts). */
function hasMembers(name: string, file: FileContext): boolean {
  const prefix = `${name}::`;
  for (const k of file.functions.keys()) if (k.startsWith(prefix)) return true;
  return false;
}

/** The struct a binding holds one object of (a struct local), by name. */
function structName(b: Binding | undefined): string | undefined {
  switch (b?.kind) {
    case "record": case "records": return b.struct;
    case "temp": case "array": return b.struct?.name;
    default: return undefined;
  }
}

/**
 * `obj.m(args)` (or `p->m(args)`, `objs[i].m(args)`) where `obj` is an object of a class with member function `m`:
 * the call `S::m(&obj, args)`; undefined for every other expression. Fails for a member function
 * the class does not define.
 */
export function memberCall(e: A.Expr, ctx: Ctx, file: FileContext, fail: Fail): A.Call | undefined {
  if (e.kind !== "call" || e.callee.kind !== "member") return undefined;
  const m = e.callee;
  const target = m.target;
  // `obj.m()`, `p->m()`, or an element of an array of objects: `pts[i].m()` (its address is the object's).
  let root = target;
  while (root.kind === "index") root = root.target;
  if (root.kind !== "ident" || (root !== target && m.arrow)) return undefined;
  const s = structName(ctx.scope.get(root.name));
  if (s === undefined || !hasMembers(s, file)) return undefined;
  const name = memberFunctionName(s, m.name);
  const label = root === target ? root.name : "the element";
  if (!file.functions.has(name)) {
    const own = [...file.functions.keys()].filter((k) => k.startsWith(`${s}::`) && !isConstructorName(k)).map((k) => k.slice(s.length + 2));
    return fail(`"${label}" (a "${s}") has no member function "${m.name}"; its member functions are ${own.join(", ") || "none"}`, m.pos);
  }
  const self: A.Expr = m.arrow ? target : { kind: "unary", op: "&", operand: target, pos: target.pos } as A.Expr;
  return { kind: "call", callee: { kind: "ident", name, pos: m.pos }, args: [self, ...e.args], pos: e.pos };
}
