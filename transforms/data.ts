/** Data transformations (loopy/transform/data.py): where temporaries live. */
import { TransformError } from "../src/errors.js";
import { allInames, isHardwareIname, withKernel, type AddressSpace, type Kernel } from "../src/ir/index.js";
import { checkKernel } from "./common.js";
import { checkPrivateStaysInWorkItem } from "./iname.js";

const SPACES: readonly AddressSpace[] = ["private", "local", "global"];

/**
 * Set the address space of temporaries (loopy's set_temporary_address_space). `names` is a name,
 * a comma-separated list or an array.
 *
 *   setTemporaryAddressSpace(k, "a_fetch", "local")
 */
export function setTemporaryAddressSpace(k: Kernel, names: string | readonly string[], space: AddressSpace): Kernel {
  const who = "setTemporaryAddressSpace";
  checkKernel(k, who);
  if (!SPACES.includes(space)) throw new TransformError(`${who}: address space must be one of ${SPACES.join(", ")}; got ${JSON.stringify(space)}`);
  const list = typeof names === "string" ? names.split(",").map((s) => s.trim()).filter((s) => s.length > 0) : names;
  if (!Array.isArray(list) || list.length === 0) throw new TransformError(`${who}: expected a temporary name or a list of names; got ${JSON.stringify(names)}`);
  for (const n of list) {
    if (!k.temporaries.some((t) => t.name === n)) {
      const temps = k.temporaries.map((t) => t.name).join(", ") || "(none)";
      throw new TransformError(`${who}: no temporary "${n}" in kernel "${k.name}"; temporaries are ${temps}`);
    }
  }
  const temporaries = k.temporaries.map((t) => (list.includes(t.name) ? { ...t, addressSpace: space } : t));
  const out = withKernel(k, { temporaries });
  if (space === "private") checkPrivateStaysInWorkItem(out, allInames(out).filter((n) => isHardwareIname(out, n)), who);
  return out;
}
