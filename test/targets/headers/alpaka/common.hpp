// What both alpaka stand-ins share (alpaka/alpaka.hpp, the declaration header of the syntax check;
// alpaka-serial-emulation/alpaka/alpaka.hpp, the serial emulation that runs kernels): alpaka 1.x's
// function qualifiers, its 3-dimensional Vec, and the tags of getIdx and getWorkDiv. Not alpaka.
#pragma once
#include <cstddef>
#define ALPAKA_FN_ACC
#define ALPAKA_FN_HOST_ACC
#define ALPAKA_UNROLL(...)

namespace alpaka {
template <std::size_t N> struct DimInt { static constexpr std::size_t value = N; };
template <typename TDim, typename TVal> class Vec {
 public:
  template <typename... T> constexpr Vec(T... v) : m{static_cast<TVal>(v)...} { static_assert(sizeof...(T) == TDim::value, "Vec<Dim> takes Dim values"); }
  constexpr TVal operator[](std::size_t i) const { return m[i]; }
 private:
  TVal m[TDim::value];
};
struct Grid {}; struct Block {}; struct Thread {};
struct Blocks {}; struct Threads {}; struct Elems {};
}  // namespace alpaka
