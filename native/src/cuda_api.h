// The CUDA driver API and NVRTC as Loom uses them, declared here (the cuew approach) so that the
// addon builds without the CUDA toolkit; both libraries are dlopen'ed on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace loom::cu {

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef int CUjit_option;
typedef int nvrtcResult;
typedef struct _nvrtcProgram* nvrtcProgram;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, CU_JIT_ERROR_LOG_BUFFER = 5,
                       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr nvrtcResult NVRTC_SUCCESS = 0;

struct CuApi {
  std::string error;  // why CUDA is unusable; empty when both libraries loaded
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int*);
  CUresult (*DeviceGetCount)(int*);
  CUresult (*DeviceGet)(CUdevice*, int);
  CUresult (*DeviceGetName)(char*, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*DeviceTotalMem)(size_t*, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)();
  CUresult (*MemAlloc)(CUdeviceptr*, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*ModuleLoadDataEx)(CUmodule*, const void*, unsigned, CUjit_option*, void**);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
  CUresult (*GetErrorName)(CUresult, const char**);
  CUresult (*FuncGetParamInfo)(CUfunction, size_t, size_t*, size_t*);  // CUDA 12.4+; may be absent

  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
  nvrtcResult (*DestroyProgram)(nvrtcProgram*);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetPTX)(nvrtcProgram, char*);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*);
  const char* (*GetErrorString)(nvrtcResult);
};

// The version numbers after ".so." in a file name ("libnvrtc.so.12.4.99" -> 12, 4, 99).
// libcuda's and libnvrtc's entry points, loaded once; api().error says why they are unusable.
const CuApi& api();
std::string cuErrorName(CUresult code);
// Throws "where: fn failed: CUDA_ERROR_NAME (code)" unless `code` is CUDA_SUCCESS.
void check(CUresult code, const std::string& where, const char* fn);

}  // namespace loom::cu
