// A minimal declaration header of the alpaka 1.x API that Loom's alpaka target uses, for a C++17
// syntax and type check of generated code (g++ -std=c++17 -fsyntax-only). Not alpaka: nothing
// runs. Names and signatures follow alpaka 1.x (getIdx, getWorkDiv, declareSharedVar, syncBlockThreads, the
// atomic functions with a hierarchy level, Vec, WorkDivMembers, exec); exec calls the kernel once
// so that its body is instantiated and checked.
#pragma once
#include <cstdint>
#include "common.hpp"

namespace alpaka {
template <typename TDim, typename TIdx> class WorkDivMembers {
 public:
  WorkDivMembers(Vec<TDim, TIdx> blocks, Vec<TDim, TIdx> threads, Vec<TDim, TIdx> elems);
};
template <typename TDim, typename TIdx> struct AccCpuSerial { using Dim = TDim; using Idx = TIdx; };
template <typename TAcc> struct QueueOf {};

template <typename TOrigin, typename TUnit, typename TAcc> Vec<DimInt<3>, std::size_t> getIdx(TAcc const &acc);
template <typename TOrigin, typename TUnit, typename TAcc> Vec<DimInt<3>, std::size_t> getWorkDiv(TAcc const &acc);
template <typename T, std::size_t Id, typename TAcc> T &declareSharedVar(TAcc const &acc);
template <typename TAcc> void syncBlockThreads(TAcc const &acc);

namespace hierarchy { struct Grids {}; struct Blocks {}; struct Threads {}; }
#define LOOPY_ALPAKA_ATOMIC(name) \
  template <typename TAcc, typename T, typename THierarchy> T name(TAcc const &acc, T *addr, T const &value, THierarchy = THierarchy{});
LOOPY_ALPAKA_ATOMIC(atomicAdd) LOOPY_ALPAKA_ATOMIC(atomicSub) LOOPY_ALPAKA_ATOMIC(atomicMin) LOOPY_ALPAKA_ATOMIC(atomicMax)
LOOPY_ALPAKA_ATOMIC(atomicExch) LOOPY_ALPAKA_ATOMIC(atomicAnd) LOOPY_ALPAKA_ATOMIC(atomicOr) LOOPY_ALPAKA_ATOMIC(atomicXor)
#undef LOOPY_ALPAKA_ATOMIC

template <typename TAcc, typename TQueue, typename TWorkDiv, typename TKernel, typename... TArgs>
void exec(TQueue &queue, TWorkDiv const &workDiv, TKernel const &kernel, TArgs &&...args) {
  kernel(TAcc{}, args...);
}
}  // namespace alpaka
