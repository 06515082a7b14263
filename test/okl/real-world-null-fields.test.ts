/**
 * Null tests of a struct local's pointer field (issue 20; nekRS's `bcData`, whose `usrwrk` field the
 * kernel sets to its optional work array and whose user boundary function tests it: `if
 * (bc->usrwrk)`, `bc->usrwrk ? … : …`, `bc.usrwrk != NULL`). The field is an alias of the argument
 * its assignment names (record-pointers.ts), so its test is that argument's `W_passed`
 * (null-tests.ts). Each kernel runs on interp and openmp, W passed and null, against its serial
 * meaning. Before, every such test was refused ("pointer field "bc.usrwrk" used as a value").
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const NFP = 4;
const DEFINES = { defines: { dfloat: "double", dlong: "int", p_Nfp: NFP } };

// The user's .oudf function: inflow from the work array where the host gave one, else a profile.
const BC = `
typedef struct {
  int idM;
  int fieldOffset;
  dfloat time;
  dfloat x, y;
  dfloat u, v;
  @globalPtr const dfloat *usrwrk;
} bcData;

void velocityDirichletConditions(bcData *bc) {
  if (bc->usrwrk) bc->u = bc->usrwrk[bc->idM];
  else bc->u = bc->x * bc->time;
  bc->v = bc->usrwrk != NULL ? bc->usrwrk[bc->fieldOffset + bc->idM] : -bc->y;
}

@kernel void velocityDirichletBC(const dlong Nelements, const dlong offset, const dfloat time,
                                 @restrict const dfloat *x, @restrict const dfloat *y,
                                 @restrict const dfloat *W, @restrict dfloat *U) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Nfp; ++n; @inner(0)) {
      const dlong id = e*p_Nfp + n;
      bcData bc;
      bc.idM = id; bc.fieldOffset = offset; bc.time = time;
      bc.x = x[id]; bc.y = y[id];
      bc.u = 0; bc.v = 0;
      bc.usrwrk = W;
      velocityDirichletConditions(&bc);
      U[id] = bc.u;
      U[offset + id] = !bc.usrwrk ? 2.0 * bc.v : bc.v;
    }
  }
}`;

function bcSerial(ne: number, time: number, x: readonly number[], y: readonly number[], W: readonly number[] | null): number[] {
  const N = ne * NFP, U = new Array<number>(2 * N).fill(0);
  for (let id = 0; id < N; id++) {
    const u = W ? W[id]! : x[id]! * time;
    const v = W ? W[N + id]! : -y[id]!;
    U[id] = u;
    U[N + id] = W ? v : 2 * v;
  }
  return U;
}

describe("a struct local's pointer field tested for NULL", () => {
  it("tests the argument the field was given (if, ?:, != NULL, !): interp and openmp, W passed and null", async () => {
    const [k] = parseOkl(BC, { filename: "bc.okl", ...DEFINES });
    expect(k!.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["W_passed"]);
    const ne = 3, N = ne * NFP, x = seeded(N, 1), y = seeded(N, 2), W = seeded(2 * N, 3);
    for (const w of [W, null]) {
      const args = () => ({ Nelements: ne, offset: N, time: 0.5, x: Float64Array.from(x), y: Float64Array.from(y), W: w && Float64Array.from(w), U: new Float64Array(2 * N) });
      // bc.idM is a private copy of the index, which the native bounds proof does not follow.
      await expectSerialMeaning(k!, args, { U: bcSerial(ne, 0.5, x, y, w) }, 1e-12, { checkBounds: false });
    }
  });

  it("a field tested before any assignment gives it an array is an OklError at the test", () => {
    const e = oklError(() => parseOkl(BC.replace("bc.usrwrk = W;\n", "").replace("velocityDirichletConditions(&bc);", "if (bc.usrwrk) velocityDirichletConditions(&bc);"), { filename: "bc.okl", ...DEFINES }));
    expect(e.message).toMatch(/bc\.okl:\d+:\d+: pointer field "bc\.usrwrk" is tested for NULL before any assignment gives it an array/);
  });
});
