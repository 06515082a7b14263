/*
 * What OCCA's OpenMP mode makes of the kernels beside this file: the @outer loops as plain nested
 * loops with `#pragma omp parallel for` on the outermost, the @inner loops as plain loops inside,
 * @shared arrays declared in the outer body, @exclusive values as one array slot per work-item,
 * and each @tile's bound check kept where OCCA keeps it. Entry points take the native addon's
 * calling convention, `void f(void **a)`: the kernel's arguments in order.
 */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define INT(x) (*(const int32_t *)(x))

EXPORT void occa_addVectors(void **a);
void occa_addVectors(void **a)
{
  const int entries = INT(a[0]);
  const float *a_ = (const float *)a[1];
  const float *b = (const float *)a[2];
  float *ab = (float *)a[3];
#pragma omp parallel for
  for (int it = 0; it < entries; it += 16) {
    for (int i = it; i < it + 16; ++i) {
      if (i < entries) ab[i] = a_[i] + b[i];
    }
  }
}

EXPORT void occa_sharedMatmul(void **a);
void occa_sharedMatmul(void **a)
{
  const int n = INT(a[0]);
  const float *A = (const float *)a[1];
  const float *B = (const float *)a[2];
  float *C = (float *)a[3];
#pragma omp parallel for
  for (int by = 0; by < n / 16; ++by) {
    for (int bx = 0; bx < n / 16; ++bx) {
      float As[16][16];
      float Bs[16][16];
      float acc[256];
      int e = 0;
      for (int ty = 0; ty < 16; ++ty)
        for (int tx = 0; tx < 16; ++tx) acc[e++] = 0;
      for (int kb = 0; kb < n / 16; ++kb) {
        for (int ty = 0; ty < 16; ++ty)
          for (int tx = 0; tx < 16; ++tx) {
            As[ty][tx] = A[(16 * by + ty) * n + 16 * kb + tx];
            Bs[ty][tx] = B[(16 * kb + ty) * n + 16 * bx + tx];
          }
        e = 0;
        for (int ty = 0; ty < 16; ++ty)
          for (int tx = 0; tx < 16; ++tx) {
            for (int k = 0; k < 16; ++k) acc[e] += As[ty][k] * Bs[k][tx];
            ++e;
          }
      }
      e = 0;
      for (int ty = 0; ty < 16; ++ty)
        for (int tx = 0; tx < 16; ++tx) C[(16 * by + ty) * n + 16 * bx + tx] = acc[e++];
    }
  }
}

EXPORT void occa_tileMatmul(void **a);
void occa_tileMatmul(void **a)
{
  const int n = INT(a[0]);
  const float *A = (const float *)a[1];
  const float *B = (const float *)a[2];
  float *C = (float *)a[3];
#pragma omp parallel for
  for (int it = 0; it < n; it += 16) {
    for (int jt = 0; jt < n; jt += 16) {
      for (int i = it; i < it + 16; ++i) {
        for (int j = jt; j < jt + 16; ++j) {
          if (i < n && j < n) {
            float sum = 0;
            for (int k = 0; k < n; ++k) sum += A[i * n + k] * B[k * n + j];
            C[i * n + j] = sum;
          }
        }
      }
    }
  }
}

EXPORT void occa_stencil(void **a);
void occa_stencil(void **a)
{
  const int n = INT(a[0]);
  const float *u = (const float *)a[1];
  float *v = (float *)a[2];
#pragma omp parallel for
  for (int by = 0; by < (n + 15) / 16; ++by) {
    for (int bx = 0; bx < (n + 15) / 16; ++bx) {
      for (int ty = 0; ty < 16; ++ty) {
        for (int tx = 0; tx < 16; ++tx) {
          const int y = 16 * by + ty;
          const int x = 16 * bx + tx;
          if (0 < y && y < n - 1 && 0 < x && x < n - 1) {
            v[y * n + x] = 0.25f * (u[y * n + x - 1] + u[y * n + x + 1] + u[(y - 1) * n + x] + u[(y + 1) * n + x]);
          }
        }
      }
    }
  }
}
