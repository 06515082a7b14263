/**
 * min/max of narrow integers on the targets whose min/max are overloaded built-ins (OpenCL, Metal,
 * ISPC): C promotes `short + short` to int, so `min(x[i] + x[i], x[i])` has no one overload and
 * PoCL refused the kernel. The arguments are converted to the type, which is also the interpreter's
 * int16 wraparound: run on PoCL against the interpreter, near the int16 limits. The same promotion
 * made `x + x > x` compare ints on every C-family target (a silent wrong result near the limits):
 * narrow sums, differences and products are cast back to their type by the printer.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { backendAvailability, run } from "../../src/run/index.js";
import { splitIname } from "../../transforms/index.js";

const opencl = backendAvailability("opencl");
const kernel = (dtype: string) => makeKernel("{[i]: 0<=i<n}",
  ["y[i] = min(x[i] + x[i], x[i])", "z[i] = max(x[i] - 3, x[i] * x[i])", "w[i] = (x[i] + x[i]) > x[i]", "u[i] = (x[i] * x[i]) < 0"],
  [`x, y, z: ${dtype}[n]`, "w, u: int32[n]", "n: int32"], { name: "narrow" });

describe("min and max of narrow integers", () => {
  it("convert both arguments to the type on the overloaded built-ins", () => {
    for (const target of ["opencl", "metal", "ispc"] as const) {
      const code = generateCode(kernel("int16"), target).deviceCode;
      expect(code, target).toMatch(/min\(\((short|int16)\) \(\((short|int16)\) \(x\[i\] \+ x\[i\]\)\), \((short|int16)\) \(x\[i\]\)\)/);
    }
    // (int32 sums wrap, computed unsigned: codegen/ast.ts)
    expect(generateCode(kernel("int32"), "opencl").deviceCode).toContain("min((int) ((uint) x[i] + (uint) x[i]), x[i])");
  });

  it.skipIf(!opencl.available)("agree with the interpreter on PoCL near the limits (int8, int16, uint16)", async () => {
    for (const dtype of ["int8", "int16", "uint16"]) {
      const k = kernel(dtype);
      const edges = dtype === "int8" ? [-128, -127, -1, 0, 1, 63, 64, 127] : dtype === "int16" ? [-32768, -32767, -1, 0, 1, 16383, 16384, 32767] : [0, 1, 2, 16383, 32768, 65535, 65534, 7];
      const Arr = dtype === "int8" ? Int8Array : dtype === "int16" ? Int16Array : Uint16Array;
      const args = { x: Arr.from(edges), n: edges.length };
      const want = await run(k, args);
      const got = await run(splitIname(k, "i", 4, { outerTag: "g.0", innerTag: "l.0" }), args, { backend: "opencl" });
      expect([...got.y!], dtype).toEqual([...want.y!]);
      expect([...got.z!], dtype).toEqual([...want.z!]);
      expect([...got.w!], dtype).toEqual([...want.w!]);
      expect([...got.u!], dtype).toEqual([...want.u!]);
      // C computes x + x and x * x on narrow types in int: the result is cast back to the type.
      const c = await run(k, args, { backend: "c" });
      expect([...c.w!], `${dtype} on c`).toEqual([...want.w!]);
      expect([...c.u!], `${dtype} on c`).toEqual([...want.u!]);
    }
  });
});
if (!opencl.available) console.warn(`narrow-int min/max on PoCL skipped: ${opencl.reason}`);
