/**
 * A minimal C++ stand-in for OCCA's serial vector header (include/occa/defines/vector.hpp), for
 * compiling legacy serial outputs that use `float3`: the layout (x, y, z, 12 bytes) and the
 * operators and functions with OCCA's definitions — componentwise `+ - * /` with vectors and with
 * scalars converted to float, the compound assignments, `length(v) = sqrt(Σ v_k²)`,
 * `normalize(v) = (float)(1.0 / length(v)) * v`, `dot`, `clamp(v, lo, hi)` componentwise and the
 * scalar `clamp(x, lo, hi) = x < lo ? lo : (hi < x ? hi : x)`. Only what the corpus kernels use.
 */
export const OCCA_VECTOR_PRELUDE = String.raw`
struct float3 {
  float x, y, z;
  float3() : x(0), y(0), z(0) {}
  float3(const float &x_) : x(x_), y(0), z(0) {}
  float3(const float &x_, const float &y_) : x(x_), y(y_), z(0) {}
  float3(const float &x_, const float &y_, const float &z_) : x(x_), y(y_), z(z_) {}
};
#define LOOM_OCCA_VEC_OP(OP, OPEQ) \
  inline float3 operator OP (const float3 &a, const float3 &b) { return float3(a.x OP b.x, a.y OP b.y, a.z OP b.z); } \
  inline float3 operator OP (const float &a, const float3 &b) { return float3(a OP b.x, a OP b.y, a OP b.z); } \
  inline float3 operator OP (const float3 &a, const float &b) { return float3(a.x OP b, a.y OP b, a.z OP b); } \
  inline float3 &operator OPEQ (float3 &a, const float3 &b) { a.x OPEQ b.x; a.y OPEQ b.y; a.z OPEQ b.z; return a; } \
  inline float3 &operator OPEQ (float3 &a, const float &b) { a.x OPEQ b; a.y OPEQ b; a.z OPEQ b; return a; }
LOOM_OCCA_VEC_OP(+, +=)
LOOM_OCCA_VEC_OP(-, -=)
LOOM_OCCA_VEC_OP(*, *=)
LOOM_OCCA_VEC_OP(/, /=)
inline float length(const float3 &v) { return sqrt(v.x*v.x+v.y*v.y+v.z*v.z); }
inline float3 normalize(const float3 &v) {
  const float invNorm = (1.0 / length(v));
  return float3(invNorm*v.x, invNorm*v.y, invNorm*v.z);
}
inline float dot(const float3 &a, const float3 &b) { return (a.x*b.x+a.y*b.y+a.z*b.z); }
inline float clamp(const float val, const float min, const float max) { return (val < min) ? min : ((max < val) ? max : val); }
inline double clamp(const double val, const double min, const double max) { return (val < min) ? min : ((max < val) ? max : val); }
inline int clamp(const int val, const int min, const int max) { return (val < min) ? min : ((max < val) ? max : val); }
inline float3 clamp(const float3 &v, const float min, const float max) { return float3(clamp(v.x,min,max), clamp(v.y,min,max), clamp(v.z,min,max)); }
`;

/** Whether a legacy serial output uses OCCA's `float3` (and needs the prelude). */
export function usesOccaVectors(cpp: string): boolean {
  return /\bfloat3\b/.test(cpp);
}
