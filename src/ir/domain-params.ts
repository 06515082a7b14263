/**
 * Loop bounds read scalars. A domain parameter (`t` in `[t] -> {[r]: 0 <= r < t}`) is a value
 * argument, an outer iname or a scalar temporary the kernel writes (loopy's data-dependent
 * domains; the interpreter reads a temporary parameter as a scalar). One naming a temporary ARRAY
 * has no meaning: generated code would read the array's address as the bound (C printed
 * `r <= t - 1`). Every kernel is built by `kernelRecord` or changed by `withKernel` (kernel.ts),
 * which refuse it here, for every target and the interpreter alike.
 */
import type { BasicSet } from "../poly/index.js";

/** What the check reads of a temporary (a `Temporary` of kernel.ts, which imports this module). */
export interface NamedShape {
  readonly name: string;
  readonly shape: readonly unknown[];
  readonly addressSpace: string;
}

/** A domain parameter that names a temporary array, with that domain. */
export interface ArrayDomainParam<T extends NamedShape = NamedShape> {
  readonly param: string;
  readonly temporary: T;
  readonly domain: BasicSet;
}

/**
 * The first domain parameter of `fields` naming a temporary with a shape (one axis or more), or
 * undefined. Asked at every change of a kernel's domains or temporaries: domains take few
 * parameters, so each is looked up (the first temporary of its name, as findTemporary) rather
 * than the temporaries indexed (a big OKL kernel has a thousand).
 */
export function arrayDomainParam<T extends NamedShape>(
  fields: { readonly domains: readonly BasicSet[]; readonly temporaries: readonly T[] },
): ArrayDomainParam<T> | undefined {
  if (fields.temporaries.length === 0) return undefined;
  // (Indexed: the kernel's arrays are frozen, and V8's for-of and find() over frozen arrays are slow.)
  const temps = fields.temporaries;
  for (let d = 0; d < fields.domains.length; d++) {
    const domain = fields.domains[d]!;
    for (let p = 0; p < domain.params.length; p++) {
      const param = domain.params[p]!;
      let temporary: T | undefined;
      for (let t = 0; t < temps.length && temporary === undefined; t++) if (temps[t]!.name === param) temporary = temps[t];
      if (temporary !== undefined && temporary.shape.length > 0) return { param, temporary, domain };
    }
  }
  return undefined;
}

/** What is wrong with `bad` in kernel `name`, naming the loops, the parameter and the temporary. */
export function arrayDomainParamProblem(name: string, bad: ArrayDomainParam): string {
  const loops = bad.domain.dims.map((x) => `"${x}"`).join(", ") || "(no iname)";
  const t = bad.temporary;
  const axes = t.shape.length === 1 ? "1 axis" : `${t.shape.length} axes`;
  return `kernel "${name}": the domain of ${loops} takes parameter "${bad.param}", which names ${t.addressSpace} temporary "${t.name}", ` +
    `an array (${axes}), not a scalar: a loop bound reads one number (generated code would read the array's address)`;
}

/** What a domain parameter may name, and how to bound a loop by an element. */
export function arrayDomainParamAdvice(bad: ArrayDomainParam): string {
  return `a domain parameter is a value argument, an outer iname or a scalar temporary; ` +
    `read the element into a scalar temporary first (e.g. "<int32> ${bad.param}_n = ${bad.param}[i]") and bound the loop by that`;
}
