import { describe, expect, it } from "vitest";
import { allocArray, arrayMatchesDtype, DTYPES, parseDtype, promote, byteSize } from "../../src/ir/dtype.js";
import { combineTypes, exprType } from "../../src/ir/types.js";
import { arith, c, v, sub } from "../../src/ir/expr.js";
import { LoomError } from "../../src/errors.js";

describe("dtypes", () => {
  it("parses numpy names and C aliases, rejects others with the accepted list", () => {
    expect(parseDtype("float32")).toBe("float32");
    expect(parseDtype("double")).toBe("float64");
    expect(parseDtype("int")).toBe("int32");
    expect(() => parseDtype("complex64")).toThrow(LoomError);
    expect(() => parseDtype("complex64")).toThrow(/expected one of float16, float32/);
  });

  it("promotes as loopy: a float keeps its width against integers", () => {
    expect(promote("float32", "int32")).toBe("float32");
    expect(promote("int32", "float64")).toBe("float64");
    expect(promote("float32", "float64")).toBe("float64");
    expect(promote("int8", "int32")).toBe("int32");
    expect(promote("uint32", "int32")).toBe("int64");
    expect(promote("uint8", "int8")).toBe("int16");
    expect(promote("uint64", "int64")).toBe("float64");
    expect(promote("bool", "int16")).toBe("int16");
  });

  it("promotion is commutative", () => {
    for (const a of DTYPES) for (const b of DTYPES) expect(promote(a, b)).toBe(promote(b, a));
  });

  it("allocates the storage of every dtype and recognizes it", () => {
    for (const d of DTYPES) {
      const arr = allocArray(d, 3);
      expect(arr.length).toBe(3);
      expect(arrayMatchesDtype(arr, d)).toBe(true);
      expect(arr.BYTES_PER_ELEMENT).toBe(d === "bool" ? 1 : byteSize(d));
    }
    expect(arrayMatchesDtype(new Float64Array(1), "float32")).toBe(false);
  });
});

describe("expression types", () => {
  const env = { varType: (n: string) => ({ a: "float32", n: "int32", b: "int8" } as Record<string, "float32" | "int32" | "int8">)[n] };

  it("implicit literals adapt to their context", () => {
    expect(exprType(arith("*", c(2), sub("a", v("i"))), env)).toEqual({ dtype: "float32", weak: false });
    expect(exprType(arith("*", c(2.5), v("n")), env)).toEqual({ dtype: "float64", weak: false });
    expect(exprType(arith("+", c(1), v("b")), env)).toEqual({ dtype: "int8", weak: false });
    expect(exprType(c(3), env)).toEqual({ dtype: "int32", weak: true });
    expect(exprType(c(3, "float32"), env)).toEqual({ dtype: "float32", weak: false });
  });

  it("math functions of integers are float64; comparisons are bool", () => {
    expect(exprType({ kind: "call", fn: "sqrt", args: [v("n")] }, env)?.dtype).toBe("float64");
    expect(exprType({ kind: "call", fn: "sqrt", args: [sub("a", v("i"))] }, env)?.dtype).toBe("float32");
    expect(exprType({ kind: "compare", op: "<", left: v("n"), right: c(0) }, env)?.dtype).toBe("bool");
  });

  it("unknown names make the type unknown", () => {
    expect(exprType(arith("+", v("zz"), c(1)), env)).toBeUndefined();
  });

  it("combineTypes: strong beats weak", () => {
    expect(combineTypes({ dtype: "int16", weak: false }, { dtype: "int64", weak: true })).toEqual({ dtype: "int16", weak: false });
  });
});
