/**
 * Kernels in the style of the CFD code's boundary-condition kernels for test/okl/record-leftovers.test.ts:
 * structs mixing int and double fields with arrays of points and nested structs, reached through
 * `&bcs[i].pts[1]`, multi-dimensional arrays of them, and initializers of arrays of nested structs.
 */

/** `&bcs[f].pts[1]` (a struct inside an array field of a struct element of a pointer argument) passed to device functions that read and write through it. */
export const WALL_POINTS = `
#define p_Npts 3
typedef struct { double x, y; int tag; } point_t;
typedef struct { int type; double time; point_t pts[p_Npts]; double vals[2]; } bcData;

void reflect(point_t *p, const double nx, const double ny) {
  const double d = p->x * nx + p->y * ny;
  p->x = p->x - 2.0 * d * nx;
  p->y -= 2.0 * d * ny;
  p->tag += 1;
}

double dist2(const point_t *p, const point_t *q) {
  return (p->x - q->x) * (p->x - q->x) + (p[0].y - q[0].y) * (p->y - q->y);
}

void scaleBy(double *v, const double s) { *v = *v * s; }

@kernel void wallPoints(const int Nfaces, bcData *bcs, const double *nrm, double *out) {
  for (int f = 0; f < Nfaces; ++f; @outer) {
    for (int n = 0; n < 1; ++n; @inner) {
      if (bcs[f].type == 1) reflect(&bcs[f].pts[1], nrm[2 * f], nrm[2 * f + 1]);
      scaleBy(&bcs[f].vals[1], bcs[f].time);
      bcData bc = bcs[f];
      reflect(&bc.pts[2], 0.0, 1.0);
      out[2 * f] = dist2(&bcs[f].pts[0], &bcs[f].pts[1]) + bc.pts[2].tag;
      out[2 * f + 1] = dist2(&bc.pts[2], &bcs[f].pts[2]) + bc.vals[1];
    }
  }
}
`;

/** Two-dimensional local, @shared and @exclusive arrays of a struct with an int, a double[2] and a nested struct. */
export const NODE_GRID = `
#define p_Nq 4
typedef struct { int id; double w[2]; struct { double x, y; } c; } node_t;

double weigh(const node_t *a) { return a->w[0] * a->c.x + a->id; }

@kernel void nodeGrid(const int E, const node_t *nodes, double *out) {
  for (int e = 0; e < E; ++e; @outer) {
    @shared node_t s[2][p_Nq];
    @exclusive node_t r[2][2];
    for (int i = 0; i < p_Nq; ++i; @inner) {
      s[0][i] = nodes[e * p_Nq + i];
      s[1][i] = nodes[(E - 1 - e) * p_Nq + i];
      r[1][0] = nodes[e * p_Nq + p_Nq - 1 - i];
      r[0][1].id = 2 * i;
      r[0][1].c.y = s[1][i].w[1];
    }
    for (int i = 0; i < p_Nq; ++i; @inner) {
      node_t b[2][3];
      b[1][2] = s[1][p_Nq - 1 - i];
      b[0][1].c = r[1][0].c;
      b[0][1].id = r[0][1].id;
      out[e * p_Nq + i] = weigh(&b[1][2]) + weigh(&s[0][i]) + weigh(s[1]) + b[0][1].c.x * b[0][1].id + r[0][1].c.y + s[0][p_Nq - 1 - i].c.y;
    }
  }
}
`;

/** Initializers of arrays of nested structs: fully braced, with C's brace elision, a [] extent, two dimensions. */
export const BC_DEFAULTS = `
typedef struct { double x, y; } pt_t;
typedef struct { int type; double vals[2]; pt_t pts[2]; } bc_t;

@kernel void bcDefaults(const int N, const double *g, double *out) {
  for (int e = 0; e < N; ++e; @outer) {
    for (int n = 0; n < 1; ++n; @inner) {
      const bc_t table[2] = {{1, {0.5, 1.5}, {{1.0, 2.0}, {3.0, 4.0}}}, {2, {2.5}, {{5.0}}}};
      bc_t flat[2] = {3, 0.25, 0.75, 7.0, 8.0, 9.0, 10.0, 4, g[e]};
      pt_t ps[] = {{1.0, g[e]}, 3.0, 4.0, {5.0}};
      bc_t one = {e, {g[e]}, {{2.0, 3.0}}};
      bc_t grid[2][2] = {{{1}, {2}}, {{3, {g[e]}}}};
      bc_t list[] = {{7}, 8, 0.5};
      const int k = e % 2;
      out[8 * e + 0] = table[k].type + table[k].vals[1] + table[k].pts[1].x * table[k].pts[1].y;
      out[8 * e + 1] = flat[0].type + flat[0].vals[1] + flat[0].pts[1].y + flat[1].type + flat[1].vals[0];
      out[8 * e + 2] = flat[1].vals[1] + flat[1].pts[0].x;
      out[8 * e + 3] = ps[0].y + ps[1].x * ps[1].y + ps[2].x + ps[2].y;
      out[8 * e + 4] = one.type + one.vals[0] + one.vals[1] + one.pts[0].y + one.pts[1].x;
      out[8 * e + 5] = grid[0][1].type + grid[1][0].type * grid[1][0].vals[0] + grid[1][1].type;
      out[8 * e + 6] = list[0].type + list[1].type + list[1].vals[0];
      out[8 * e + 7] = list[1].pts[1].y + grid[1][1].pts[1].x + table[1].pts[1].y;
    }
  }
}
`;

/** OCCA vector types as fields of a struct mixing int and double: whole-vector values, components and their s0… aliases, an array of float3. */
export const VECTOR_BOUNDARY = `
typedef struct { int type; double2 uv; float3 n[2]; double time; } vbc_t;

double2 reflect2(const double2 u, const float3 nn) {
  const double d = u.x * nn.x + u.y * nn.y;
  return make_double2(u.x - 2.0 * d * nn.x, u.y - 2.0 * d * nn.y);
}

@kernel void vectorBoundary(const int N, vbc_t *bcs, const double *U, double *UP) {
  for (int e = 0; e < N; ++e; @outer) {
    for (int n = 0; n < 1; ++n; @inner) {
      const vbc_t bc = bcs[e];
      const double2 u = make_double2(U[2 * e], U[2 * e + 1]);
      double2 uP = bc.type == 1 ? reflect2(u, bc.n[0]) : bc.uv * bc.time;
      bcs[e].uv = uP + bc.uv;
      bcs[e].n[1].s2 = (float)(uP.x);
      UP[2 * e] = uP.x;
      UP[2 * e + 1] = uP.y + dot(bc.n[0], bc.n[1]);
    }
  }
}
`;
