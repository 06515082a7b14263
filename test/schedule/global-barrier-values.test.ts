/**
 * loopy's tutorial "rotate" kernel (issue 15, points 1 and 2): a private value live across a
 * global barrier is refused (loopy's MissingDefinitionError) unless saveAndReloadTemporaries keeps
 * it in global memory; without the barrier, the dependency across work-groups is refused
 * (loopy's MissingBarrierError). Every backend agrees, with a plain TypeScript reference.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError, TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { saveAndReloadTemporaries, splitIname, step, tagInames, toJSON, fromJSON } from "../../transforms/index.js";
import { parityBackends } from "../transforms/every-backend.js";

const rotate = (gbarrier: boolean) => makeKernel("{[i]: 0<=i<n}", gbarrier ? `
  for i
    <>tmp = arr[i] {id=maketmp,dep=*}
    ... gbarrier {id=gb,dep=maketmp}
    arr[(i+1) % n] = tmp {id=rotate,dep=gb}
  end` : `
  for i
    <>tmp = arr[i] {id=maketmp,dep=*}
    arr[(i+1) % n] = tmp {id=rotate,dep=maketmp}
  end`, ["arr: float32[n]", "..."], { name: "rotate" });

const split = (gbarrier: boolean) => splitIname(rotate(gbarrier), "i", 16, { outerTag: "g.0", innerTag: "l.0" });

function reference(arr: Float32Array): number[] {
  const n = arr.length;
  return Array.from({ length: n }, (_, i) => arr[(i - 1 + n) % n]!);
}

const BACKENDS = parityBackends() as ("interp" | "js" | "c" | "openmp" | "opencl")[];

describe("a private value live across a global barrier (rotate)", () => {
  it("is refused on every backend, naming the temporary, both instructions and the barrier", async () => {
    for (const backend of BACKENDS) {
      await expect(run(split(true), { arr: new Float32Array(40), n: 40 }, { backend }), backend)
        .rejects.toThrow(/private temporary "tmp" is written by instruction "maketmp" .* read by instruction "rotate" .* across global barrier "gb".*saveAndReloadTemporaries/);
      await expect(run(split(true), { arr: new Float32Array(40), n: 40 }, { backend })).rejects.toBeInstanceOf(ScheduleError);
    }
  });

  it("runs after saveAndReloadTemporaries: tmp is a global slot per work-item", async () => {
    const k = saveAndReloadTemporaries(split(true));
    const tmp = k.temporaries.find((t) => t.name === "tmp")!;
    expect(tmp.addressSpace).toBe("global");
    expect(tmp.shape.length).toBe(2);
    for (const n of [1, 16, 17, 40]) {
      const arr = Float32Array.from({ length: n }, (_, i) => i + 1);
      for (const backend of BACKENDS) {
        expect([...(await run(k, { arr, n }, { backend })).arr!], `${backend} n=${n}`).toEqual(reference(arr));
      }
    }
  });

  it("is a step: it replays from JSON, and does nothing to a kernel without such a value", () => {
    const s = step.saveAndReloadTemporaries();
    expect(toJSON(fromJSON(toJSON(s)))).toEqual([{ op: "saveAndReloadTemporaries", args: [] }]);
    expect(fromJSON(toJSON(s))(split(true)).temporaries[0]!.addressSpace).toBe("global");
    const plain = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "..."]);
    expect(saveAndReloadTemporaries(plain)).toBe(plain);
  });

  it("refuses a reader outside the writer's parallel loops", () => {
    const k = splitIname(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], [
      "<>tmp = a[i] {id=w, inames=i}",
      "... gbarrier {id=gb, dep=w}",
      "out[j] = tmp {id=r, dep=gb, inames=j}",
    ], ["a, out: float32[n]", "..."]), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    expect(() => saveAndReloadTemporaries(k)).toThrow(TransformError);
    expect(() => saveAndReloadTemporaries(k)).toThrow(/instruction "r" uses "tmp" outside hardware iname\(s\) "i_inner", "i_outer"/);
  });
});

describe("a dependency across work-groups without a global barrier (rotate v1)", () => {
  it("is refused at scheduling on every backend (loopy's MissingBarrierError)", async () => {
    for (const backend of BACKENDS) {
      await expect(run(split(false), { arr: new Float32Array(40), n: 40 }, { backend }), backend)
        .rejects.toThrow(/instruction "rotate" depends on instruction "maketmp" through global array "arr", but they may touch the same cell from different work-groups/);
    }
  });

  it("nosync (global or any scope) is the author's promise, as in loopy: scheduling accepts it", () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=w}", "out[i] = t[(i+1) % n] {id=r, dep=w, nosync=w@global}"], ["a, t, out: float32[n]", "..."]),
      "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    expect(() => generateCode(k, "opencl")).not.toThrow();
    const local = splitIname(makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=w}", "out[i] = t[(i+1) % n] {id=r, dep=w, nosync=w@local}"], ["a, t, out: float32[n]", "..."]),
      "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    expect(() => generateCode(local, "opencl")).toThrow(/may touch the same cell from different work-groups/);
  });

  it("an instruction outside the g iname runs in every group: reading what the groups write is refused", async () => {
    const k = tagInames(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], ["z[i] = 2*a[i] {id=w, inames=i}", "out[j] = z[j] + 1 {id=r, dep=w, inames=j}"],
      ["a, z, out: float32[n]", "n: int32"]), { i: "g.0" });
    for (const backend of BACKENDS) {
      await expect(run(k, { a: new Float32Array(4), n: 4 }, { backend }), backend).rejects.toThrow(/"r" depends on instruction "w" through global array "z", but they may touch the same cell from different work-groups \(along "i"\)/);
    }
    // With a global barrier between them, it runs.
    const split = tagInames(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], ["z[i] = 2*a[i] {id=w, inames=i}", "... gbarrier {id=g, dep=w}", "out[j] = z[j] + 1 {id=r, dep=g, inames=j}"],
      ["a, z, out: float32[n]", "n: int32"]), { i: "g.0" });
    for (const backend of BACKENDS) expect([...(await run(split, { a: new Float32Array([1, 2, 3, 4]), n: 4 }, { backend })).out!], backend).toEqual([3, 5, 7, 9]);
  });

  it("the same dependency within each group's own cells is accepted", async () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=w}", "out[i] = t[i] + 1 {id=r, dep=w}"], ["a, t, out: float32[n]", "..."]),
      "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    const a = Float32Array.from({ length: 10 }, (_, i) => i);
    for (const backend of BACKENDS) {
      expect([...(await run(k, { a, n: 10 }, { backend })).out!], backend).toEqual([...a].map((x) => 2 * x + 1));
    }
  });
});
