// The OpenCL device runtime: device enumeration, contexts with one in-order queue, buffers,
// programs and launches, over the dlopen'ed API of opencl_api.h.
#include <cstdint>
#include <map>
#include <mutex>

#include "device.h"
#include "opencl_api.h"

namespace loom {

namespace {

using namespace ocl;

struct ClDevice {
  cl_platform_id platform;
  cl_device_id device;
  DeviceInfo info;
};

std::string platformString(cl_platform_id p, cl_uint param) {
  size_t size = 0;
  if (api().GetPlatformInfo(p, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (api().GetPlatformInfo(p, param, size, &s[0], nullptr) != CL_SUCCESS) return "";
  return s.c_str();  // drop the terminating NUL
}

std::string deviceString(cl_device_id d, cl_uint param) {
  size_t size = 0;
  if (api().GetDeviceInfo(d, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (api().GetDeviceInfo(d, param, size, &s[0], nullptr) != CL_SUCCESS) return "";
  return s.c_str();
}

// A cl_ulong property, 0 when the device does not say.
uint64_t deviceBytes(cl_device_id d, cl_uint param) {
  cl_ulong v = 0;
  return api().GetDeviceInfo(d, param, sizeof v, &v, nullptr) == CL_SUCCESS ? v : 0;
}

std::string deviceTypeName(cl_bitfield t) {
  std::string s;
  auto add = [&](cl_bitfield bit, const char* name) {
    if ((t & bit) == 0) return;
    if (!s.empty()) s += '|';
    s += name;
  };
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
  add(CL_DEVICE_TYPE_CUSTOM, "CUSTOM");
  if (s.empty() && (t & CL_DEVICE_TYPE_DEFAULT) != 0) s = "DEFAULT";
  return s.empty() ? "UNKNOWN" : s;
}

// Every device of every platform, in platform order; the list is kept once it is non-empty.
std::vector<ClDevice> enumerate(std::string* reason) {
  static std::mutex mutex;  // workers may ask at once
  std::lock_guard<std::mutex> lock(mutex);
  static std::vector<ClDevice> cached;
  if (!cached.empty()) return cached;
  const ClApi& cl = api();
  if (!cl.error.empty()) { *reason = cl.error; return {}; }
  cl_uint np = 0;
  cl_int err = cl.GetPlatformIDs(0, nullptr, &np);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) {
    *reason = "no OpenCL platform: no ICD is installed (install the Debian package pocl-opencl-icd)";
    return {};
  }
  if (err != CL_SUCCESS) { *reason = std::string("clGetPlatformIDs failed: ") + clErrorName(err); return {}; }
  std::vector<cl_platform_id> platforms(np);
  err = cl.GetPlatformIDs(np, platforms.data(), nullptr);
  if (err != CL_SUCCESS) { *reason = std::string("clGetPlatformIDs failed: ") + clErrorName(err); return {}; }
  std::vector<ClDevice> found;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    if (cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr) != CL_SUCCESS) continue;
    std::string platformName = platformString(p, CL_PLATFORM_NAME);
    for (cl_device_id d : devices) {
      cl_bitfield type = 0;
      cl.GetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      found.push_back({p, d, {platformName, deviceString(d, CL_DEVICE_NAME), deviceTypeName(type), deviceString(d, CL_DEVICE_VERSION),
                              deviceBytes(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE), deviceBytes(d, CL_DEVICE_GLOBAL_MEM_SIZE)}});
    }
  }
  if (found.empty()) *reason = "no OpenCL platform/device: " + std::to_string(np) + " platform(s) but no device";
  cached = found;
  return found;
}

class ClContext;

class ClBuffer : public DeviceBuffer {
 public:
  ClBuffer(std::shared_ptr<DeviceContext> ctx, size_t bytes, cl_mem mem) : DeviceBuffer(std::move(ctx), bytes), mem(mem) {}
  ~ClBuffer() override { release(); }
  const cl_mem mem;

 protected:
  void freeNative() noexcept override { api().ReleaseMemObject(mem); }
};

struct ClKernel {
  cl_kernel kernel;
  cl_uint numArgs;
};

class ClProgram : public DeviceProgram {
 public:
  ClProgram(std::shared_ptr<DeviceContext> ctx, std::string log, cl_program program)
      : DeviceProgram(std::move(ctx), std::move(log)), program(program) {}
  ~ClProgram() override { release(); }

  // The kernel `name`, created on first use and kept: creating a kernel per launch costs.
  const ClKernel& kernel(const std::string& name, const std::string& where) {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return it->second;
    const ClApi& cl = api();
    cl_int err = CL_SUCCESS;
    cl_kernel k = cl.CreateKernel(program, name.c_str(), &err);
    if (err != CL_SUCCESS || k == nullptr) {
      std::string names = kernelNames();
      throw DeviceError(where + ": clCreateKernel failed: " + clErrorName(err) + " (" + std::to_string(err) + ")" +
                        (names.empty() ? "" : "; the program's kernels are " + names));
    }
    cl_uint numArgs = 0;
    err = cl.GetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof numArgs, &numArgs, nullptr);
    if (err != CL_SUCCESS) {
      cl.ReleaseKernel(k);
      fail(where, "clGetKernelInfo", err);
    }
    return kernels_.emplace(name, ClKernel{k, numArgs}).first->second;
  }

  const cl_program program;

 protected:
  void freeNative() noexcept override {
    for (auto& entry : kernels_) api().ReleaseKernel(entry.second.kernel);
    kernels_.clear();
    api().ReleaseProgram(program);
  }

 private:
  std::string kernelNames() const {
    size_t size = 0;
    if (api().GetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
    std::string s(size, '\0');
    if (api().GetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, &s[0], nullptr) != CL_SUCCESS) return "";
    return s.c_str();
  }

  std::map<std::string, ClKernel> kernels_;
};

class ClContext : public DeviceContext {
 public:
  ClContext(const ClDevice& d) : device_(d.device) {
    info_ = d.info;
    const ClApi& cl = api();
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(d.platform), 0};
    cl_int err = CL_SUCCESS;
    context_ = cl.CreateContext(props, 1, &device_, nullptr, nullptr, &err);
    if (err != CL_SUCCESS || context_ == nullptr) fail("openclContext", "clCreateContext", err);
    queue_ = cl.CreateCommandQueue != nullptr ? cl.CreateCommandQueue(context_, device_, 0, &err)
                                              : cl.CreateCommandQueueWithProperties(context_, device_, nullptr, &err);
    if (err != CL_SUCCESS || queue_ == nullptr) {
      cl.ReleaseContext(context_);
      context_ = nullptr;
      fail("openclContext", "clCreateCommandQueue", err);
    }
  }
  ~ClContext() override { release(); }

  std::shared_ptr<DeviceProgram> build(const std::string& source, const std::vector<std::string>& options) override {
    const ClApi& cl = api();
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program program = cl.CreateProgramWithSource(context_, 1, &text, &length, &err);
    if (err != CL_SUCCESS || program == nullptr) fail("build", "clCreateProgramWithSource", err);
    err = cl.BuildProgram(program, 1, &device_, joinOptions(options).c_str(), nullptr, nullptr);
    std::string log = buildLog(program);
    if (err != CL_SUCCESS) {
      cl.ReleaseProgram(program);
      throw DeviceError(std::string("build: clBuildProgram failed: ") + clErrorName(err) + " (" + std::to_string(err) +
                        ")\n" + log);
    }
    return std::make_shared<ClProgram>(shared_from_this(), log, program);
  }

  std::shared_ptr<DeviceBuffer> alloc(size_t bytes) override {
    cl_int err = CL_SUCCESS;
    // OpenCL rejects empty buffers; an empty array still gets a (1-byte) buffer.
    cl_mem mem = api().CreateBuffer(context_, CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &err);
    if (err != CL_SUCCESS || mem == nullptr) fail("alloc(" + std::to_string(bytes) + ")", "clCreateBuffer", err);
    return std::make_shared<ClBuffer>(shared_from_this(), bytes, mem);
  }

  void write(DeviceBuffer& buf, const void* data, size_t bytes) override {
    check(api().EnqueueWriteBuffer(queue_, static_cast<ClBuffer&>(buf).mem, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr),
          "write", "clEnqueueWriteBuffer");
  }

  void read(DeviceBuffer& buf, void* data, size_t bytes) override {
    check(api().EnqueueReadBuffer(queue_, static_cast<ClBuffer&>(buf).mem, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr),
          "read", "clEnqueueReadBuffer");
  }

  double launch(DeviceProgram& program, const std::string& name, const std::vector<LaunchArg>& args,
                const LaunchShape& shape) override {
    const ClApi& cl = api();
    std::string where = "launch " + name;
    const ClKernel& k = static_cast<ClProgram&>(program).kernel(name, where);
    if (k.numArgs != args.size()) {
      throw DeviceError(where + ": the kernel takes " + std::to_string(k.numArgs) + " arguments, got " + std::to_string(args.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      cl_int err = args[i].buffer != nullptr
                       ? cl.SetKernelArg(k.kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &static_cast<ClBuffer*>(args[i].buffer)->mem)
                       : cl.SetKernelArg(k.kernel, static_cast<cl_uint>(i), kindSize(args[i].kind), &args[i].slot);
      if (err != CL_SUCCESS) fail(where + ": argument " + std::to_string(i), "clSetKernelArg", err);
    }
    size_t global[3];
    for (unsigned d = 0; d < shape.dims; ++d) global[d] = shape.groups[d] * shape.local[d];
    int64_t start = monotonicNs();
    check(cl.EnqueueNDRangeKernel(queue_, k.kernel, shape.dims, nullptr, global, shape.local, 0, nullptr, nullptr), where,
          "clEnqueueNDRangeKernel");
    check(cl.Finish(queue_), where, "clFinish");
    return static_cast<double>(monotonicNs() - start);
  }

 protected:
  void freeNative() noexcept override {
    if (queue_ != nullptr) {
      api().Finish(queue_);
      api().ReleaseCommandQueue(queue_);
      queue_ = nullptr;
    }
    if (context_ != nullptr) {
      api().ReleaseContext(context_);
      context_ = nullptr;
    }
  }

 private:
  std::string buildLog(cl_program program) {
    size_t size = 0;
    if (api().GetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
    std::string s(size, '\0');
    if (api().GetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, &s[0], nullptr) != CL_SUCCESS) return "";
    return s.c_str();
  }

  cl_device_id device_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

}  // namespace

RuntimeStatus openclStatus() {
  RuntimeStatus s;
  std::vector<ClDevice> devices = enumerate(&s.reason);
  s.available = !devices.empty();
  for (const ClDevice& d : devices) s.devices.push_back(d.info);
  return s;
}

std::shared_ptr<DeviceContext> openclContext(size_t deviceIndex) {
  std::string reason;
  std::vector<ClDevice> devices = enumerate(&reason);
  if (devices.empty()) throw DeviceError("openclContext: OpenCL is unavailable: " + reason);
  if (deviceIndex >= devices.size()) {
    throw DeviceError("openclContext: no device " + std::to_string(deviceIndex) + "; there are " + std::to_string(devices.size()));
  }
  return std::make_shared<ClContext>(devices[deviceIndex]);
}

}  // namespace loom
