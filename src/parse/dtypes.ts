/** `addDtypes`: give arguments and temporaries their element types after creation. */
import { LoomError } from "../errors.js";
import { parseDtype, type Dtype } from "../ir/dtype.js";
import { withKernel, type Kernel } from "../ir/kernel.js";
import { inferTypes } from "../ir/types.js";

/**
 * Set the dtypes of arguments and temporaries that have none, then infer the rest:
 * `addDtypes(k, { a: "float32", n: "int32" })`. A name that is unknown, or that already has a
 * different dtype, is a LoomError.
 */
export function addDtypes(k: Kernel, dtypes: Record<string, Dtype | string>): Kernel {
  const wanted = new Map<string, Dtype>();
  for (const [name, d] of Object.entries(dtypes)) wanted.set(name, parseDtype(d));
  const names = [...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name)];
  for (const [name, d] of wanted) {
    if (!names.includes(name)) {
      throw new LoomError(`addDtypes: no argument or temporary "${name}" in kernel "${k.name}"; they are ${names.join(", ") || "(none)"}`);
    }
    const cur = k.args.find((a) => a.name === name)?.dtype ?? k.temporaries.find((t) => t.name === name)?.dtype;
    if (cur !== undefined && cur !== d) throw new LoomError(`addDtypes: "${name}" already has dtype ${cur}, not ${d}`);
  }
  const args = k.args.map((a) => (a.dtype === undefined && wanted.has(a.name) ? { ...a, dtype: wanted.get(a.name)! } : a));
  const temporaries = k.temporaries.map((t) => (t.dtype === undefined && wanted.has(t.name) ? { ...t, dtype: wanted.get(t.name)! } : t));
  return inferTypes(withKernel(k, { args, temporaries }));
}
