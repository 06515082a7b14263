// A minimal declaration header of the SYCL 2020 API that Loom's sycl target uses, for a C++17
// syntax and type check of generated code (g++ -std=c++17 -fsyntax-only). Not SYCL: nothing runs.
// Signatures follow the SYCL 2020 specification (queue, handler, nd_range, nd_item, group,
// local_accessor, atomic_ref, group_barrier); parallel_for calls the kernel once so that its body
// is instantiated and checked.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sycl {
using half = _Float16;

template <int D = 1> class range {
 public:
  template <typename... T> explicit range(T... extents) { static_assert(sizeof...(T) == D, "range<D> takes D extents"); }
  std::size_t get(int) const;
};
template <int D = 1> class nd_range {
 public:
  nd_range(range<D> global, range<D> local);
};
template <int D = 1> class group {};
template <int D = 1> class nd_item {
 public:
  std::size_t get_group(int dimension) const;
  group<D> get_group() const;
  std::size_t get_local_id(int dimension) const;
  std::size_t get_global_id(int dimension) const;
};
template <typename G> void group_barrier(G g);

class handler;
template <typename T, int D = 1> class local_accessor {
 public:
  local_accessor(range<D> r, handler &h);
  T &operator[](std::size_t i) const;
};
class handler {
 public:
  template <typename F> void parallel_for(nd_range<3> r, F kernel) { kernel(nd_item<3>{}); }
};
class event {
 public:
  void wait();
};
class queue {
 public:
  template <typename F> event submit(F group) { handler h; group(h); return event{}; }
};

enum class memory_order { relaxed, acquire, release, acq_rel, seq_cst };
enum class memory_scope { work_item, sub_group, work_group, device, system };
namespace access {
enum class address_space { global_space, local_space, constant_space, private_space, generic_space };
}
template <typename T, memory_order O, memory_scope S, access::address_space A = access::address_space::generic_space>
class atomic_ref {
 public:
  explicit atomic_ref(T &ref);
  T fetch_add(T v) const;
  T fetch_sub(T v) const;
  T fetch_and(T v) const;
  T fetch_or(T v) const;
  T fetch_xor(T v) const;
  T fetch_min(T v) const;
  T fetch_max(T v) const;
  T exchange(T v) const;
};
}  // namespace sycl
