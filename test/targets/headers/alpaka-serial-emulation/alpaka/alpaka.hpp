// A serial emulation of the part of alpaka 1.x's execution model that Loom's alpaka target uses,
// to RUN generated kernels without barriers or shared memory (test/targets/alpaka.test.ts). Not
// alpaka: `exec` runs every thread of every block of the work division one after another, each
// with its block and thread index and the division's element extent, as alpaka's serial
// accelerators do for one thread per block. Barriers and shared variables are refused at compile
// time (threads run to completion one by one, so they cannot meet at a barrier).
#pragma once
#include <type_traits>
#include "../../alpaka/common.hpp"

namespace alpaka {
using Vec3 = Vec<DimInt<3>, std::size_t>;
template <typename TDim, typename TIdx> struct WorkDivMembers {
  Vec<TDim, TIdx> blocks, threads, elems;
  WorkDivMembers(Vec<TDim, TIdx> b, Vec<TDim, TIdx> t, Vec<TDim, TIdx> e) : blocks(b), threads(t), elems(e) {}
};

/** One thread's view: its block and thread index and the element extent (index 0 the slowest). */
struct AccSerialEmulation { Vec3 block, thread, elems; };

template <typename TOrigin, typename TUnit> Vec3 getIdx(AccSerialEmulation const &acc) {
  static_assert((std::is_same_v<TOrigin, Grid> && std::is_same_v<TUnit, Blocks>) || (std::is_same_v<TOrigin, Block> && std::is_same_v<TUnit, Threads>), "getIdx<Grid, Blocks> or <Block, Threads>");
  if constexpr (std::is_same_v<TUnit, Blocks>) return acc.block; else return acc.thread;
}
template <typename TOrigin, typename TUnit> Vec3 getWorkDiv(AccSerialEmulation const &acc) {
  static_assert(std::is_same_v<TOrigin, Thread> && std::is_same_v<TUnit, Elems>, "getWorkDiv<Thread, Elems>");
  return acc.elems;
}
template <typename TAcc> void syncBlockThreads(TAcc const &) { static_assert(!std::is_same_v<TAcc, TAcc>, "the serial emulation runs no barriers"); }
template <typename T, std::size_t Id, typename TAcc> T &declareSharedVar(TAcc const &) { static_assert(!std::is_same_v<TAcc, TAcc>, "the serial emulation has no shared memory"); }

template <typename TAcc, typename TQueue, typename TWorkDiv, typename TKernel, typename... TArgs>
void exec(TQueue &, TWorkDiv const &wd, TKernel const &kernel, TArgs &&...args) {
  for (std::size_t b0 = 0; b0 < wd.blocks[0]; ++b0) for (std::size_t b1 = 0; b1 < wd.blocks[1]; ++b1) for (std::size_t b2 = 0; b2 < wd.blocks[2]; ++b2)
    for (std::size_t t0 = 0; t0 < wd.threads[0]; ++t0) for (std::size_t t1 = 0; t1 < wd.threads[1]; ++t1) for (std::size_t t2 = 0; t2 < wd.threads[2]; ++t2)
      kernel(AccSerialEmulation{Vec3(b0, b1, b2), Vec3(t0, t1, t2), wd.elems}, args...);
}
}  // namespace alpaka
