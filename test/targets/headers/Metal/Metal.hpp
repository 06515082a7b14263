// A minimal declaration header of metal-cpp (Apple's C++ interface to Metal) as Loom's metal host
// code uses it, for a C++17 syntax and type check (g++ -std=c++17 -fsyntax-only). Not Metal:
// nothing runs. Names and signatures follow metal-cpp's MTL::ComputeCommandEncoder.
#pragma once
#include <cstdint>
namespace NS { using UInteger = unsigned long; }
namespace MTL {
struct Size {
  Size(NS::UInteger width, NS::UInteger height, NS::UInteger depth);
};
class Buffer;
class ComputePipelineState;
class ComputeCommandEncoder {
 public:
  void setComputePipelineState(const ComputePipelineState *state);
  void setBuffer(const Buffer *buffer, NS::UInteger offset, NS::UInteger index);
  void setBytes(const void *bytes, NS::UInteger length, NS::UInteger index);
  void dispatchThreadgroups(Size threadgroupsPerGrid, Size threadsPerThreadgroup);
};
}  // namespace MTL
