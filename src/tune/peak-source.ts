/**
 * The C source of the machine-peak microbenchmarks (see peak.ts). Entry points take the addon's
 * one calling convention, `void f(void **a)`, and are the only exported symbols.
 *
 * `<fma>64(a)`, `<fma>32(a)`: a[0] double out[3] (FLOPs done, a sink, threads), a[1] int64 iterations.
 * `<triad>(a)`: a[0] double out[3] (best seconds or -1 when allocation failed, a sink), a[1] int64
 * elements, a[2] int32 repetitions.
 */

const CHAINS = 12;

function fmaFunction(name: string, scalar: "double" | "float"): string {
  const v = `v_${scalar}`;
  const chains = Array.from({ length: CHAINS }, (_, i) => i);
  return `
__attribute__((visibility("default"))) void ${name}(void **a);
void ${name}(void **a)
{
  double *out = (double *)a[0];
  const int64_t iters = *(int64_t *)a[1];
  double total = 0;
  int threads = 1;
#pragma omp parallel reduction(+:total)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#pragma omp master
    threads = omp_get_num_threads();
#endif
    const ${v} zero = {0};
    const ${v} m = zero + (${scalar})0.9999999, c = zero + (${scalar})1e-7;
${chains.map((i) => `    ${v} x${i} = zero + (${scalar})(1e-3 * (t + ${i + 1}));`).join("\n")}
    for (int64_t i = 0; i < iters; i++) {
${chains.map((i) => `      x${i} = x${i} * m + c;`).join("\n")}
    }
    ${v} s = ${chains.map((i) => `x${i}`).join(" + ")};
    for (int l = 0; l < (int)(sizeof(${v}) / sizeof(${scalar})); l++) total += s[l];
  }
  out[0] = (double)iters * ${CHAINS} * 2.0 * (double)(sizeof(${v}) / sizeof(${scalar})) * threads;
  out[1] = total;
  out[2] = threads;
}
`;
}

/** The microbenchmarks' C source: FMA chains (entries `${fma}64`, `${fma}32`) and the triad (`triad`). `peakSource("f", "t")` defines f64, f32 and t */
export function peakSource(fma: string, triad: string): string {
  return `/* Loom: machine-peak microbenchmarks */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX512F__)
#define LOOM_VB 64
#elif defined(__AVX__)
#define LOOM_VB 32
#else
#define LOOM_VB 16
#endif
typedef double v_double __attribute__((vector_size(LOOM_VB)));
typedef float v_float __attribute__((vector_size(LOOM_VB)));
#pragma STDC FP_CONTRACT ON
${fmaFunction(`${fma}64`, "double")}${fmaFunction(`${fma}32`, "float")}
static double loom_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__attribute__((visibility("default"))) void ${triad}(void **a);
void ${triad}(void **a)
{
  double *out = (double *)a[0];
  const int64_t n = *(int64_t *)a[1];
  const int reps = *(int32_t *)a[2];
  double *x = malloc((size_t)n * sizeof(double));
  double *y = malloc((size_t)n * sizeof(double));
  double *z = malloc((size_t)n * sizeof(double));
  out[0] = -1;
  if (x && y && z) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) { x[i] = 0; y[i] = 1; z[i] = 2; }
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
      const double t0 = loom_now();
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; i++) x[i] = y[i] + 3.0 * z[i];
      const double t = loom_now() - t0;
      if (t < best) best = t;
    }
    out[0] = best > 0 ? best : 1e-9;
    out[1] = x[n / 2];
  }
  free(x);
  free(y);
  free(z);
}
`;
}
