/**
 * Kernels in the style of the HPC code bases OCCA's users write (element-local operators with
 * @shared arrays, @exclusive registers, data-file macros, struct boundary data, device functions
 * with pointer outputs, gather-scatter with a reduction given as a define), shared by the
 * real-world tests (test/okl/real-world-*.test.ts, which run each against its serial meaning) and
 * the "real-world style" row of scripts/okl-corpus-report.ts. `REAL_WORLD` lists each with the
 * kernel properties its host passes.
 */
import type { ParseOklOptions } from "../../src/okl/parse-okl.js";

export const SETUP_IC = `
#define dfloat float
#define p_Np 8
// A data file: the boundary data as macros writing through their pointer arguments.
#define insVelocityDirichlet2D(t, x, y, u, v) \\
  {                                          \\
    *(u) = x * y - t;                        \\
    *(v) = x + 2.0f * y;                     \\
  }

void initialCondition(const dfloat t, const dfloat x, const dfloat y, dfloat *r, dfloat *u) {
  *r = 1.0f + 0.5f * x * y;
  u[0] = t * x - y;
  if (x > 0.0f) *u += 1.0f;
}

dfloat twice(const dfloat *p) { return 2.0f * (*p); }

void accumulate(const dfloat a, const dfloat b, dfloat *acc) { *acc += a * b; }

@kernel void setupIC(const int Nelements, const dfloat t, @restrict const dfloat *x, @restrict const dfloat *y,
                     @restrict dfloat *q) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      const int id = e * p_Np + n;
      dfloat r = 0, u = 0;
      initialCondition(t, x[id], y[id], &r, &u);
      dfloat uB, vB;
      insVelocityDirichlet2D(t, x[id], y[id], &uB, &vB)
      q[4 * id + 0] = r;
      q[4 * id + 1] = u;
      q[4 * id + 2] = uB + twice(&vB);
      q[4 * id + 3] = *(&r) * 3.0f;
    }
  }
}`;

export const MASS_MATRIX = `
#define p_Np 6
void accumulate(const double a, const double b, double *acc) { *acc += a * b; }
@kernel void massMatrixMultiply(const int Nelements, const double *MM, const double *q, double *Mq) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared double s_q[p_Np];
    @exclusive double r_Mq;
    for (int n = 0; n < p_Np; ++n; @inner) s_q[n] = q[e * p_Np + n];
    for (int n = 0; n < p_Np; ++n; @inner) {
      r_Mq = 0;
      for (int m = 0; m < p_Np; ++m) accumulate(MM[n + m * p_Np], s_q[m], &r_Mq);
      Mq[e * p_Np + n] = r_Mq;
    }
  }
}`;

export const WALL_VELOCITY = `
typedef struct { double u; double v; } vel_t;
void wallVelocity(const double x, double *u, double *v) { *u = x * x; *v = -x; }
@kernel void wall(const int N, const double *x, vel_t *w) {
  for (int b = 0; b < N; b += 4; @outer) for (int i = b; i < b + 4; ++i; @inner) {
    if (i < N) {
      vel_t s;
      wallVelocity(x[i], &s.u, &s.v);
      w[i] = s;
    }
  }
}`;

export const FILTER = `
#define dfloat double
#define p_Nq 4
@kernel void filter(const int Nelements, const dfloat *x, dfloat *y) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared dfloat s_x[p_Nq];
    for (int n = 0; n < p_Nq; ++n; @inner) s_x[n] = x[e * p_Nq + n];
    for (int n = 0; n < p_Nq; ++n; @inner) {
      const dfloat half = 0.5;
      dfloat third = half * s_x[n] + M_PI * s_x[(n + 1) % p_Nq];
      y[e * p_Nq + n] = third * M_SQRT1_2 + M_E;
    }
  }
}`;

export const CSR_SPMV = `
@kernel void csrSpmv(const int Nrows, const int *rowStarts, const int *cols, const double *vals, const double *x, double *y) {
  for (int r = 0; r < Nrows; ++r; @tile(8, @outer, @inner)) {
    const int row = rowStarts[r];
    const int end = rowStarts[r + 1];
    double acc = 0;
    for (int i = 0; row + i < end; ++i) acc += vals[row + i] * x[cols[row + i]];
    y[r] = acc;
  }
}`;

export const BOUNDARY_FLUX = `
#define p_Np 4
@kernel void boundaryFlux(const int Nelements, const int *EToB, const double *q, double *flux) {
  for (int e = 0; e < Nelements; ++e; @outer) for (int n = 0; n < p_Np; ++n; @inner) {
    const int bc = EToB[e];
    const double qn = q[e * p_Np + n];
    double f = 0;
    switch (bc) {
      case 1: f = qn; break;          // wall
      case 2:                          // inflow falls through to outflow
      case 3: f = 2 * qn;
      case 4: f += 1; break;
      default: f = -qn;
    }
    flux[e * p_Np + n] = f;
  }
}`;

export const RK_UPDATE = `
#define dfloat double
#define p_Nstages 3
@kernel void rkUpdate(const int N, const dfloat dt, const dfloat *rkb, const dfloat *rhs, const dfloat *q, dfloat *qn) {
  for (int n = 0; n < N; ++n; @tile(16, @outer, @inner)) {
    const dfloat *rhsq[p_Nstages];
    for (int s = 0; s < p_Nstages; ++s) rhsq[s] = rhs + s * N;
    dfloat r = q[n];
    for (int s = 0; s < p_Nstages; ++s) r += dt * rkb[s] * rhsq[s][n];
    qn[n] = r;
  }
}`;

export const AXHELM = `// a benchmark suite's headline kernel
#if OCCA_USE_CUDA=1
#define p_unroll 2
#else
#define p_unroll 1
#endif

#if p_Nq > 0
@kernel void axhelm(const int Nelements, const double lambda, const double *q, double *Aq) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared double s_q[p_Nq];
    for (int n = 0; n < p_Nq; ++n; @inner) s_q[n] = q[e * p_Nq + n];
    for (int n = 0; n < p_Nq; ++n; @inner) {
      double r = 0;
      for (int m = 0; m < p_Nq; ++m) r += (m == n ? 2.0 : -0.5) * s_q[m];
      Aq[e * p_Nq + n] = p_unroll * r + lambda * s_q[n];
    }
  }
}
`;

export const GATHER_SCATTER = `
@kernel void gatherScatter(const int Ngather, const int *starts, const int *ids, double *q) {
  for (int g = 0; g < Ngather; ++g; @tile(8, @outer, @inner)) {
    const int start = starts[g];
    const int end = starts[g + 1];
    double gq = OGS_INIT;
    for (int n = start; n < end; ++n) gq = OGS_OP(gq, q[ids[n]]);
    for (int n = start; n < end; ++n) q[ids[n]] = gq;
  }
}`;

export const PHYSICS_HEADER = `#define dfloat double
#define p_Np 4
dfloat flux(const dfloat u) { return 0.5 * u * u; }
`;

export const BURGERS = `@kernel void burgers(const int N, const dfloat *u, dfloat *f) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < p_Np; ++n; @inner) f[e * p_Np + n] = flux(u[e * p_Np + n]);
}`;

export const CUBATURE = `
#define dfloat double
#define p_Np 6
#define p_cubNp 84
@kernel void cubatureProject(const int Nelements, const dfloat *cubInterp, const dfloat *cubW, const dfloat *q, dfloat *Pq) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared dfloat s_q[p_Np];
    @exclusive dfloat r_acc;
    for (int n = 0; n < p_Np; ++n; @inner) s_q[n] = q[e * p_Np + n];
    for (int n = 0; n < p_Np; ++n; @inner) {
      r_acc = 0;
      for (int c = 0; c < p_cubNp; ++c) {
        dfloat qc = 0;
        for (int m = 0; m < p_Np; ++m) qc += cubInterp[c * p_Np + m] * s_q[m];
        r_acc += cubW[c] * cubInterp[c * p_Np + n] * qc;
      }
      Pq[e * p_Np + n] = r_acc;
    }
  }
}`;

/** A CFD code's boundary data: a struct mixing int and double fields, filled per point and passed to the user's function. */
export const BOUNDARY_DATA = `
#define p_Nfp 4
typedef struct {
  int idM;
  int fieldOffset;
  int id;
  double time;
  double x, y, z;
  double nx, ny, nz;
  double u, v, w;
  double p;
} bcData;

// the user's boundary conditions (their .udf file)
void insVelocityDirichletConditions(bcData *bc) {
  bc->u = bc->x * bc->time;
  bc->v = -bc->y + bc->nx;
  if (bc->id == 2) bc->w = 1.0;
  else bc->w = (*bc).z;
}

@kernel void velocityDirichletBC(const int Nelements, const double time, const int *EToB,
                                 const double *x, const double *y, const double *z, double *U) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    for (int n = 0; n < p_Nfp; ++n; @inner) {
      const int id = e * p_Nfp + n;
      const int bcType = EToB[e];
      if (bcType > 0) {
        bcData bc = {id, 0, bcType, time};
        bc.x = x[id]; bc.y = y[id]; bc.z = z[id];
        bc.nx = 0.5; bc.ny = 0; bc.nz = 0;
        insVelocityDirichletConditions(&bc);
        U[3 * id + 0] = bc.u;
        U[3 * id + 1] = bc.v;
        U[3 * id + 2] = bc.w + bc.idM;
      }
    }
  }
}`;

/**
 * The CFD code's boundary data as an array in global memory (C's layout, with padding after the
 * ints): a pointer argument to `bcData` read and written per boundary point, one element passed to
 * the user's function by address.
 */
export const BOUNDARY_ARRAY = `
typedef struct {
  int idM;          // 0
  double time;      // 8 (4 bytes of padding before)
  double x, y;      // 16, 24
  int id;           // 32
  double u, v;      // 40, 48
  char flag;        // 56 (7 bytes of padding after: sizeof 64)
} bcData;

void userBC(bcData *bc) {
  bc->u = bc->x * bc->time + bc->idM;
  if (bc->id == 2) (*bc).v = 1.0;
  else bc->v = -bc->y;
}

@kernel void boundaryArray(const int Nelements, @restrict bcData *bcs, @restrict double *U) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    for (int n = 0; n < 4; ++n; @inner) {
      const int id = 4 * e + n;
      if (bcs[id].flag) {
        userBC(&bcs[id]);
        U[id] = bcs[id].u + bcs[id].v;
      }
    }
  }
}`;

/**
 * An element-local gather through a @shared array of a struct mixing int and double fields: each
 * work-item fills one record, the neighbours' records are read after the barrier.
 */
export const SHARED_RECORDS = `
#define p_Nq 8
struct node { int owner; double w; float s; };

@kernel void sharedRecords(const int Nelements, const double *W, const int *owner, double *out) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared struct node s_n[p_Nq];
    for (int i = 0; i < p_Nq; ++i; @inner) {
      s_n[i].owner = owner[e * p_Nq + i];
      s_n[i].w = W[e * p_Nq + i];
      s_n[i].s = 0.5f;
    }
    for (int i = 0; i < p_Nq; ++i; @inner) {
      const int j = (i + 1) % p_Nq;
      struct node *nb = s_n + j;
      out[e * p_Nq + i] = (s_n[i].owner == nb->owner) ? s_n[i].w + nb->w * nb->s : s_n[i].w;
    }
  }
}`;

/**
 * The CFD code's boundary data with an array field, a nested struct and padding everywhere
 * (sizeof 80): read from global memory into a local, handed to the user's function by address, the
 * nested normal passed on by address, an array field as a pointer.
 */
export const BOUNDARY_VALUES = `
#define p_Nfp 4
typedef struct { double nx, ny; } normal_t;
typedef struct {
  int id;           // 0
  double time;      // 8
  double x, y;      // 16, 24
  normal_t n;       // 32, 40
  double uM[2];     // 48, 56
  int flags[3];     // 64, 68, 72
  char wall;        // 76 (3 bytes of padding after: sizeof 80)
} bcData;

double normalFlux(const normal_t *n, const double *u) { return u[0] * n->nx + u[1] * n->ny; }

// the user's boundary conditions (their .udf file)
void velocityBC(bcData *bc, double *uP) {
  const double un = normalFlux(&bc->n, bc->uM);
  if (bc->wall) {
    uP[0] = bc->uM[0] - 2.0 * un * bc->n.nx;
    uP[1] = bc->uM[1] - 2.0 * un * bc->n.ny;
  } else {
    uP[0] = bc->x * bc->time;
    uP[1] = bc->flags[bc->id % 3];
  }
}

@kernel void velocityBoundary(const int Nelements, const double time, @restrict const bcData *bcs,
                              @restrict const double *U, @restrict double *UP) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    for (int n = 0; n < p_Nfp; ++n; @inner) {
      const int id = e * p_Nfp + n;
      bcData bc = bcs[id];
      bc.time = time;
      bc.uM[0] = U[2 * id + 0];
      bc.uM[1] = U[2 * id + 1];
      double uP[2];
      velocityBC(&bc, uP);
      UP[2 * id + 0] = uP[0] + normalFlux(&bcs[id].n, bcs[id].uM);
      UP[2 * id + 1] = uP[1] + bc.flags[0];
    }
  }
}`;

/** Per-work-item stage records (`@exclusive` array of a struct mixing int and double[2]) carried from one @inner loop to the next. */
export const EXCLUSIVE_RECORDS = `
#define p_Nq 4
struct stage { int count; double acc[2]; };

@kernel void exclusiveStages(const int Nelements, const double *q, const int *owner, double *out) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared double s_q[p_Nq];
    @exclusive struct stage r_st[2];
    for (int i = 0; i < p_Nq; ++i; @inner) {
      s_q[i] = q[e * p_Nq + i];
      for (int s = 0; s < 2; ++s) {
        r_st[s].count = owner[e * p_Nq + i] + s;
        r_st[s].acc[0] = 0;
        r_st[s].acc[1] = 0;
      }
    }
    for (int i = 0; i < p_Nq; ++i; @inner) {
      for (int m = 0; m < p_Nq; ++m) {
        r_st[0].acc[m % 2] += s_q[m] * (i + 1);
        r_st[1].acc[0] += r_st[1].count * s_q[(i + m) % p_Nq];
      }
      out[e * p_Nq + i] = r_st[0].acc[0] - r_st[0].acc[1] + r_st[1].acc[0] + r_st[0].count;
    }
  }
}`;

/** A solver's settings struct (int, double, double[3]) read by a device function with a while loop (an opaque block). */
export const NEWTON_RECORDS = `
typedef struct { int iters; double tol; double coef[3]; } solver_t;

double newtonRoot(const solver_t *s, double x) {
  int k = 0;
  double f = s->coef[0] + x * (s->coef[1] + x * s->coef[2]);
  while (fabs(f) > s->tol && k < s->iters) {
    x = x - f / (s->coef[1] + 2.0 * s->coef[2] * x);
    f = s->coef[0] + x * (s->coef[1] + x * s->coef[2]);
    ++k;
  }
  return x;
}

@kernel void newtonRoots(const int N, const solver_t *sv, const double *x0, double *x, int *steps) {
  for (int i = 0; i < N; ++i; @tile(4, @outer, @inner)) {
    solver_t s = sv[i];
    s.tol = 1e-12;
    x[i] = newtonRoot(&s, x0[i]);
    int k = 0;
    while (k < s.iters && s.coef[k % 3] != 0.0) ++k;
    steps[i] = k;
  }
}`;

/** The headers the real-world kernels include (OCCA's `includes` property), by path. */
export const REAL_WORLD_FILES: Readonly<Record<string, string>> = { "/inc/physics.h": PHYSICS_HEADER };

/** Every real-world-style kernel source with the properties its host passes. */
export const REAL_WORLD: readonly { readonly name: string; readonly source: string; readonly options: ParseOklOptions }[] = [
  { name: "setupIC", source: SETUP_IC, options: {} },
  { name: "massMatrixMultiply", source: MASS_MATRIX, options: {} },
  { name: "wall", source: WALL_VELOCITY, options: {} },
  { name: "filter", source: FILTER, options: {} },
  { name: "csrSpmv", source: CSR_SPMV, options: {} },
  { name: "boundaryFlux", source: BOUNDARY_FLUX, options: {} },
  { name: "rkUpdate", source: RK_UPDATE, options: {} },
  { name: "axhelm", source: AXHELM, options: { defines: { p_Nq: 4 } } },
  { name: "gatherScatter", source: GATHER_SCATTER, options: { defines: { "OGS_OP(a,b)": "a+b", OGS_INIT: "0.0" } } },
  { name: "cubatureProject", source: CUBATURE, options: {} },
  { name: "velocityDirichletBC", source: BOUNDARY_DATA, options: {} },
  { name: "boundaryArray", source: BOUNDARY_ARRAY, options: {} },
  { name: "sharedRecords", source: SHARED_RECORDS, options: {} },
  { name: "burgers", source: BURGERS, options: { includes: ["physics.h"], includePaths: ["/inc"], readFile: (p) => REAL_WORLD_FILES[p] } },
  { name: "velocityBoundary", source: BOUNDARY_VALUES, options: {} },
  { name: "exclusiveStages", source: EXCLUSIVE_RECORDS, options: {} },
  { name: "newtonRoots", source: NEWTON_RECORDS, options: {} },
];
