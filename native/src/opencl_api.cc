#include "opencl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "device.h"

namespace loom::ocl {

const char* clErrorName(cl_int code) {
  switch (code) {
#define E(name, value) case value: return #name;
    E(CL_SUCCESS, 0) E(CL_DEVICE_NOT_FOUND, -1) E(CL_DEVICE_NOT_AVAILABLE, -2) E(CL_COMPILER_NOT_AVAILABLE, -3)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4) E(CL_OUT_OF_RESOURCES, -5) E(CL_OUT_OF_HOST_MEMORY, -6)
    E(CL_PROFILING_INFO_NOT_AVAILABLE, -7) E(CL_MEM_COPY_OVERLAP, -8) E(CL_IMAGE_FORMAT_MISMATCH, -9)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10) E(CL_BUILD_PROGRAM_FAILURE, -11) E(CL_MAP_FAILURE, -12)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14)
    E(CL_COMPILE_PROGRAM_FAILURE, -15) E(CL_LINKER_NOT_AVAILABLE, -16) E(CL_LINK_PROGRAM_FAILURE, -17)
    E(CL_DEVICE_PARTITION_FAILED, -18) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19) E(CL_INVALID_VALUE, -30)
    E(CL_INVALID_DEVICE_TYPE, -31) E(CL_INVALID_PLATFORM, -32) E(CL_INVALID_DEVICE, -33) E(CL_INVALID_CONTEXT, -34)
    E(CL_INVALID_QUEUE_PROPERTIES, -35) E(CL_INVALID_COMMAND_QUEUE, -36) E(CL_INVALID_HOST_PTR, -37)
    E(CL_INVALID_MEM_OBJECT, -38) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39) E(CL_INVALID_IMAGE_SIZE, -40)
    E(CL_INVALID_SAMPLER, -41) E(CL_INVALID_BINARY, -42) E(CL_INVALID_BUILD_OPTIONS, -43) E(CL_INVALID_PROGRAM, -44)
    E(CL_INVALID_PROGRAM_EXECUTABLE, -45) E(CL_INVALID_KERNEL_NAME, -46) E(CL_INVALID_KERNEL_DEFINITION, -47)
    E(CL_INVALID_KERNEL, -48) E(CL_INVALID_ARG_INDEX, -49) E(CL_INVALID_ARG_VALUE, -50) E(CL_INVALID_ARG_SIZE, -51)
    E(CL_INVALID_KERNEL_ARGS, -52) E(CL_INVALID_WORK_DIMENSION, -53) E(CL_INVALID_WORK_GROUP_SIZE, -54)
    E(CL_INVALID_WORK_ITEM_SIZE, -55) E(CL_INVALID_GLOBAL_OFFSET, -56) E(CL_INVALID_EVENT_WAIT_LIST, -57)
    E(CL_INVALID_EVENT, -58) E(CL_INVALID_OPERATION, -59) E(CL_INVALID_GL_OBJECT, -60) E(CL_INVALID_BUFFER_SIZE, -61)
    E(CL_INVALID_MIP_LEVEL, -62) E(CL_INVALID_GLOBAL_WORK_SIZE, -63) E(CL_INVALID_PROPERTY, -64)
    E(CL_INVALID_IMAGE_DESCRIPTOR, -65) E(CL_INVALID_COMPILER_OPTIONS, -66) E(CL_INVALID_LINKER_OPTIONS, -67)
    E(CL_INVALID_DEVICE_PARTITION_COUNT, -68) E(CL_INVALID_PIPE_SIZE, -69) E(CL_INVALID_DEVICE_QUEUE, -70)
    E(CL_INVALID_SPEC_ID, -71) E(CL_MAX_SIZE_RESTRICTION_EXCEEDED, -72) E(CL_PLATFORM_NOT_FOUND_KHR, -1001)
#undef E
    default: return "CL_UNKNOWN_ERROR";
  }
}

[[noreturn]] void fail(const std::string& where, const char* fn, cl_int code) {
  throw DeviceError(where + ": " + fn + " failed: " + clErrorName(code) + " (" + std::to_string(code) + ")");
}

void check(cl_int code, const std::string& where, const char* fn) {
  if (code != CL_SUCCESS) fail(where, fn, code);
}

static void* openLibrary(std::string* tried) {
  const char* override = std::getenv("LOOM_OPENCL_LIBRARY");
  const char* names[] = {override, "libOpenCL.so.1", "libOpenCL.so"};
  for (const char* name : names) {
    if (name == nullptr || *name == '\0') continue;
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    if (!tried->empty()) *tried += ", ";
    *tried += name;
  }
  return nullptr;
}

const ClApi& api() {
  static ClApi a;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void* lib = openLibrary(&tried);
    if (lib == nullptr) {
      a.error = tried + " not found: install the Debian packages pocl-opencl-icd ocl-icd-opencl-dev (or set LOOM_OPENCL_LIBRARY)";
      return;
    }
    auto sym = [&](const char* name, bool required = true) -> void* {
      void* p = dlsym(lib, name);
      if (p == nullptr && required && a.error.empty()) a.error = std::string("the OpenCL library lacks ") + name;
      return p;
    };
#define LOAD(name) a.name = reinterpret_cast<cl##name##_t>(sym("cl" #name))
    LOAD(GetPlatformIDs); LOAD(GetPlatformInfo); LOAD(GetDeviceIDs); LOAD(GetDeviceInfo); LOAD(CreateContext);
    LOAD(ReleaseContext); LOAD(ReleaseCommandQueue); LOAD(Finish); LOAD(CreateBuffer); LOAD(ReleaseMemObject);
    LOAD(EnqueueWriteBuffer); LOAD(EnqueueReadBuffer); LOAD(CreateProgramWithSource); LOAD(BuildProgram);
    LOAD(GetProgramBuildInfo); LOAD(GetProgramInfo); LOAD(ReleaseProgram); LOAD(CreateKernel); LOAD(GetKernelInfo);
    LOAD(SetKernelArg); LOAD(ReleaseKernel); LOAD(EnqueueNDRangeKernel);
#undef LOAD
    a.CreateCommandQueue = reinterpret_cast<clCreateCommandQueue_t>(sym("clCreateCommandQueue", false));
    a.CreateCommandQueueWithProperties =
        reinterpret_cast<clCreateCommandQueueWithProperties_t>(sym("clCreateCommandQueueWithProperties", false));
    if (a.error.empty() && a.CreateCommandQueue == nullptr && a.CreateCommandQueueWithProperties == nullptr) {
      a.error = "the OpenCL library lacks clCreateCommandQueue";
    }
  });
  return a;
}

}  // namespace loom::ocl
