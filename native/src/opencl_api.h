// The OpenCL API as Loom uses it, declared here (the clew approach) so that the addon builds
// without OpenCL headers; the library is dlopen'ed on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace loom::ocl {

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id* cl_platform_id;
typedef struct _cl_device_id* cl_device_id;
typedef struct _cl_context* cl_context;
typedef struct _cl_command_queue* cl_command_queue;
typedef struct _cl_mem* cl_mem;
typedef struct _cl_program* cl_program;
typedef struct _cl_kernel* cl_kernel;
typedef struct _cl_event* cl_event;
typedef intptr_t cl_context_properties;

constexpr cl_int CL_SUCCESS = 0;
constexpr cl_int CL_PLATFORM_NOT_FOUND_KHR = -1001;
constexpr cl_int CL_DEVICE_NOT_FOUND = -1;
constexpr cl_uint CL_TRUE = 1;
constexpr cl_uint CL_PLATFORM_NAME = 0x0902;
constexpr cl_bitfield CL_DEVICE_TYPE_DEFAULT = 1 << 0, CL_DEVICE_TYPE_CPU = 1 << 1, CL_DEVICE_TYPE_GPU = 1 << 2,
                      CL_DEVICE_TYPE_ACCELERATOR = 1 << 3, CL_DEVICE_TYPE_CUSTOM = 1 << 4, CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;
constexpr cl_uint CL_DEVICE_TYPE = 0x1000, CL_DEVICE_NAME = 0x102B, CL_DEVICE_VERSION = 0x102F;
constexpr cl_uint CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010, CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F;
constexpr cl_context_properties CL_CONTEXT_PLATFORM = 0x1084;
constexpr cl_bitfield CL_MEM_READ_WRITE = 1 << 0;
constexpr cl_uint CL_PROGRAM_KERNEL_NAMES = 0x1168, CL_PROGRAM_BUILD_LOG = 0x1183, CL_KERNEL_NUM_ARGS = 0x1191;

typedef cl_int (*clGetPlatformIDs_t)(cl_uint, cl_platform_id*, cl_uint*);
typedef cl_int (*clGetPlatformInfo_t)(cl_platform_id, cl_uint, size_t, void*, size_t*);
typedef cl_int (*clGetDeviceIDs_t)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*);
typedef cl_int (*clGetDeviceInfo_t)(cl_device_id, cl_uint, size_t, void*, size_t*);
typedef cl_context (*clCreateContext_t)(const cl_context_properties*, cl_uint, const cl_device_id*, void (*)(const char*, const void*, size_t, void*), void*, cl_int*);
typedef cl_int (*clReleaseContext_t)(cl_context);
typedef cl_command_queue (*clCreateCommandQueue_t)(cl_context, cl_device_id, cl_bitfield, cl_int*);
typedef cl_command_queue (*clCreateCommandQueueWithProperties_t)(cl_context, cl_device_id, const cl_bitfield*, cl_int*);
typedef cl_int (*clReleaseCommandQueue_t)(cl_command_queue);
typedef cl_int (*clFinish_t)(cl_command_queue);
typedef cl_mem (*clCreateBuffer_t)(cl_context, cl_bitfield, size_t, void*, cl_int*);
typedef cl_int (*clReleaseMemObject_t)(cl_mem);
typedef cl_int (*clEnqueueWriteBuffer_t)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void*, cl_uint, const cl_event*, cl_event*);
typedef cl_int (*clEnqueueReadBuffer_t)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void*, cl_uint, const cl_event*, cl_event*);
typedef cl_program (*clCreateProgramWithSource_t)(cl_context, cl_uint, const char**, const size_t*, cl_int*);
typedef cl_int (*clBuildProgram_t)(cl_program, cl_uint, const cl_device_id*, const char*, void (*)(cl_program, void*), void*);
typedef cl_int (*clGetProgramBuildInfo_t)(cl_program, cl_device_id, cl_uint, size_t, void*, size_t*);
typedef cl_int (*clGetProgramInfo_t)(cl_program, cl_uint, size_t, void*, size_t*);
typedef cl_int (*clReleaseProgram_t)(cl_program);
typedef cl_kernel (*clCreateKernel_t)(cl_program, const char*, cl_int*);
typedef cl_int (*clGetKernelInfo_t)(cl_kernel, cl_uint, size_t, void*, size_t*);
typedef cl_int (*clSetKernelArg_t)(cl_kernel, cl_uint, size_t, const void*);
typedef cl_int (*clReleaseKernel_t)(cl_kernel);
typedef cl_int (*clEnqueueNDRangeKernel_t)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint, const cl_event*, cl_event*);

struct ClApi {
  std::string error;  // why the library is unusable; empty when loaded
  clGetPlatformIDs_t GetPlatformIDs;
  clGetPlatformInfo_t GetPlatformInfo;
  clGetDeviceIDs_t GetDeviceIDs;
  clGetDeviceInfo_t GetDeviceInfo;
  clCreateContext_t CreateContext;
  clReleaseContext_t ReleaseContext;
  clCreateCommandQueue_t CreateCommandQueue;  // OpenCL 1.x; may be absent
  clCreateCommandQueueWithProperties_t CreateCommandQueueWithProperties;  // OpenCL 2.0+; may be absent
  clReleaseCommandQueue_t ReleaseCommandQueue;
  clFinish_t Finish;
  clCreateBuffer_t CreateBuffer;
  clReleaseMemObject_t ReleaseMemObject;
  clEnqueueWriteBuffer_t EnqueueWriteBuffer;
  clEnqueueReadBuffer_t EnqueueReadBuffer;
  clCreateProgramWithSource_t CreateProgramWithSource;
  clBuildProgram_t BuildProgram;
  clGetProgramBuildInfo_t GetProgramBuildInfo;
  clGetProgramInfo_t GetProgramInfo;
  clReleaseProgram_t ReleaseProgram;
  clCreateKernel_t CreateKernel;
  clGetKernelInfo_t GetKernelInfo;
  clSetKernelArg_t SetKernelArg;
  clReleaseKernel_t ReleaseKernel;
  clEnqueueNDRangeKernel_t EnqueueNDRangeKernel;
};

// libOpenCL's entry points, loaded once; api().error says why they are unusable.
const ClApi& api();
const char* clErrorName(cl_int code);
[[noreturn]] void fail(const std::string& where, const char* fn, cl_int code);
// Throws "where: fn failed: CL_NAME (code)" unless `code` is CL_SUCCESS.
void check(cl_int code, const std::string& where, const char* fn);

}  // namespace loom::ocl
