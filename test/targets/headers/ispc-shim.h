// A shim that lets g++ -std=c++17 -fsyntax-only read the ISPC Loom's ispc target writes, for a
// syntax and type check (not ISPC: no gangs). ISPC's qualifiers (uniform, varying)
// and function kinds (task, export) are empty macros, its built-in variables and standard-library
// functions are declared with ISPC's names. Two spellings C++ lacks are rewritten by the test
// before compiling: `launch[a, b, c] f(args);` and double literals `2.5d`. With LOOPY_ISPC_RUN
// defined, the code runs with a gang of one (test/targets/ispc.test.ts).
#pragma once
#include <cmath>
#include <cstdint>
#define uniform
#define varying
#define task
#define export
#define sync loopy_sync()
typedef std::int8_t int8; typedef std::int16_t int16; typedef std::int32_t int32; typedef std::int64_t int64;
typedef std::uint8_t uint8; typedef std::uint16_t uint16; typedef std::uint32_t uint32; typedef std::uint64_t uint64;
typedef _Float16 float16;
#ifdef LOOPY_ISPC_RUN
// Run as C++ with a gang of one program instance (programCount 1): the tasks of a launch are
// loops over taskIndex0..2 (written by the test's rewrite of `launch[…]`).
#include <cstdlib>
inline int programIndex = 0, programCount = 1, taskIndex0 = 0, taskIndex1 = 0, taskIndex2 = 0;
inline void assert(bool c) { if (!c) std::abort(); }
inline void loopy_sync() {}
#else
extern const int programIndex, programCount, taskIndex0, taskIndex1, taskIndex2, taskCount0, taskCount1, taskCount2;
void assert(bool);
void loopy_sync();
void loopy_launch(int, int, int);
#endif
using std::sqrt; using std::exp; using std::log; using std::sin; using std::cos; using std::tan; using std::pow;
using std::floor; using std::ceil; using std::abs; using std::fmod; using std::exp2; using std::log2; using std::log10;
using std::tanh; using std::atan; using std::atan2; using std::round; using std::trunc;
template <typename T> T min(T a, T b) { return a < b ? a : b; }
template <typename T> T max(T a, T b) { return a > b ? a : b; }
float rsqrt(float x);
double rsqrt(double x);
#define LOOPY_ISPC_ATOMIC(name) \
  template <typename T, typename U> T name##_global(T *ptr, U value); template <typename T, typename U> T name##_local(T *ptr, U value);
LOOPY_ISPC_ATOMIC(atomic_add) LOOPY_ISPC_ATOMIC(atomic_subtract) LOOPY_ISPC_ATOMIC(atomic_and) LOOPY_ISPC_ATOMIC(atomic_or)
LOOPY_ISPC_ATOMIC(atomic_xor) LOOPY_ISPC_ATOMIC(atomic_min) LOOPY_ISPC_ATOMIC(atomic_max) LOOPY_ISPC_ATOMIC(atomic_swap)
#undef LOOPY_ISPC_ATOMIC
