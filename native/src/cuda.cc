// The CUDA device runtime: devices, primary contexts, NVRTC builds, buffers and launches, over
// the dlopen'ed driver API and NVRTC of cuda_api.h.
#include <climits>
#include <map>
#include <mutex>

#include "device.h"
#include "cuda_api.h"

namespace loom {

namespace {

using namespace cu;

struct CuDevice {
  CUdevice device;
  int major, minor;
  DeviceInfo info;
};

// The CUDA devices, kept once found.
std::vector<CuDevice> enumerate(std::string* reason) {
  static std::mutex mutex;  // workers may ask at once
  std::lock_guard<std::mutex> lock(mutex);
  static std::vector<CuDevice> cached;
  if (!cached.empty()) return cached;
  const CuApi& cu = api();
  if (!cu.error.empty()) { *reason = cu.error; return {}; }
  CUresult r = cu.Init(0);
  if (r != CUDA_SUCCESS) { *reason = "no CUDA device: cuInit failed: " + cuErrorName(r); return {}; }
  int count = 0, driver = 0;
  r = cu.DeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) { *reason = "no CUDA device"; return {}; }
  cu.DriverGetVersion(&driver);
  std::vector<CuDevice> found;
  for (int i = 0; i < count; ++i) {
    CuDevice d{};
    char name[256] = {0};
    if (cu.DeviceGet(&d.device, i) != CUDA_SUCCESS) continue;
    cu.DeviceGetName(name, sizeof name - 1, d.device);
    cu.DeviceGetAttribute(&d.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device);
    cu.DeviceGetAttribute(&d.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device);
    std::string cc = std::to_string(d.major) + std::to_string(d.minor);
    d.info = {"CUDA", name, "GPU",
              "compute_" + cc + ", CUDA driver " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10)};
    size_t total = 0;
    if (cu.DeviceTotalMem(&total, d.device) == CUDA_SUCCESS) d.info.maxAllocBytes = d.info.memoryBytes = total;
    found.push_back(d);
  }
  if (found.empty()) *reason = "no CUDA device";
  cached = found;
  return found;
}

class CuContext;
CUcontext nativeOf(DeviceContext* ctx);

class CuBuffer : public DeviceBuffer {
 public:
  CuBuffer(std::shared_ptr<DeviceContext> ctx, size_t bytes, CUdeviceptr ptr) : DeviceBuffer(std::move(ctx), bytes), ptr(ptr) {}
  ~CuBuffer() override { release(); }
  const CUdeviceptr ptr;

 protected:
  void freeNative() noexcept override {
    api().CtxSetCurrent(nativeOf(ctx_.get()));
    api().MemFree(ptr);
  }
};

struct CuKernel {
  CUfunction function;
  bool known;                       // whether the parameter sizes below are known
  std::vector<size_t> paramSizes;   // bytes of each parameter
};

// The number of `.param`s of `.entry name(...)` in PTX text; -1 if the entry is not there.
int ptxParamCount(const std::string& ptx, const std::string& name) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos) return -1;
  size_t end = ptx.find(')', at);
  int count = 0;
  for (size_t p = ptx.find(".param", at); p != std::string::npos && p < end; p = ptx.find(".param", p + 6)) ++count;
  return count;
}

class CuProgram : public DeviceProgram {
 public:
  CuProgram(std::shared_ptr<DeviceContext> ctx, std::string log, CUmodule module, std::string ptx)
      : DeviceProgram(std::move(ctx), std::move(log)), module(module), ptx_(std::move(ptx)) {}
  ~CuProgram() override { release(); }

  // The kernel `name` and its parameter sizes, looked up once.
  const CuKernel& kernel(const std::string& name, const std::string& where) {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return it->second;
    const CuApi& cu = api();
    CuKernel k{nullptr, false, {}};
    CUresult r = cu.ModuleGetFunction(&k.function, module, name.c_str());
    if (r != CUDA_SUCCESS) {
      throw DeviceError(where + ": cuModuleGetFunction failed: " + cuErrorName(r) + " (" + std::to_string(r) +
                        "); is the kernel declared extern \"C\" __global__?");
    }
    if (cu.FuncGetParamInfo != nullptr) {
      size_t offset = 0, size = 0;
      for (size_t i = 0; i < 4096; ++i) {
        r = cu.FuncGetParamInfo(k.function, i, &offset, &size);
        if (r != CUDA_SUCCESS) break;
        k.paramSizes.push_back(size);
      }
      k.known = true;
    } else if (int n = ptxParamCount(ptx_, name); n >= 0) {
      k.paramSizes.assign(static_cast<size_t>(n), 0);  // count only
      k.known = true;
    }
    return kernels_.emplace(name, std::move(k)).first->second;
  }

  const CUmodule module;

 protected:
  void freeNative() noexcept override {
    api().CtxSetCurrent(nativeOf(ctx_.get()));
    api().ModuleUnload(module);
  }

 private:
  std::string ptx_;
  std::map<std::string, CuKernel> kernels_;
};

std::string nvrtcLog(nvrtcProgram prog) {
  size_t size = 0;
  if (api().GetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (api().GetProgramLog(prog, &log[0]) != NVRTC_SUCCESS) return "";
  return log.c_str();
}

class CuContext : public DeviceContext {
 public:
  explicit CuContext(const CuDevice& d) : device_(d) {
    info_ = d.info;
    check(api().DevicePrimaryCtxRetain(&context_, d.device), "cudaContext", "cuDevicePrimaryCtxRetain");
  }
  ~CuContext() override { release(); }

  CUcontext native() const { return context_; }

  std::shared_ptr<DeviceProgram> build(const std::string& source, const std::vector<std::string>& options) override {
    const CuApi& cu = api();
    bool hasArch = false, realArch = false;
    for (const std::string& o : options) {
      if (o.rfind("--gpu-architecture", 0) == 0 || o.rfind("-arch", 0) == 0) {
        hasArch = true;
        realArch = o.find("sm_") != std::string::npos;
      }
    }
    std::vector<std::string> all = options;
    if (!hasArch) all.push_back("--gpu-architecture=compute_" + std::to_string(device_.major) + std::to_string(device_.minor));
    std::vector<const char*> argv;
    for (const std::string& o : all) argv.push_back(o.c_str());

    nvrtcProgram prog = nullptr;
    nvrtcResult r = cu.CreateProgram(&prog, source.c_str(), "loom_kernel.cu", 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS) throw DeviceError(std::string("build: nvrtcCreateProgram failed: ") + cu.GetErrorString(r));
    r = cu.CompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    std::string log = nvrtcLog(prog);
    std::string image;
    if (r == NVRTC_SUCCESS) {
      size_t size = 0;
      r = realArch ? cu.GetCUBINSize(prog, &size) : cu.GetPTXSize(prog, &size);
      if (r == NVRTC_SUCCESS) {
        image.assign(size, '\0');
        r = realArch ? cu.GetCUBIN(prog, &image[0]) : cu.GetPTX(prog, &image[0]);
      }
    }
    cu.DestroyProgram(&prog);
    if (r != NVRTC_SUCCESS) {
      throw DeviceError(std::string("build: nvrtcCompileProgram failed: ") + cu.GetErrorString(r) + " (options: " +
                        joinOptions(all) + ")\n" + log);
    }

    check(cu.CtxSetCurrent(context_), "build", "cuCtxSetCurrent");
    char errorLog[8192] = {0}, infoLog[8192] = {0};
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {errorLog, reinterpret_cast<void*>(uintptr_t{sizeof errorLog - 1}), infoLog,
                      reinterpret_cast<void*>(uintptr_t{sizeof infoLog - 1})};
    CUmodule module = nullptr;
    CUresult cr = cu.ModuleLoadDataEx(&module, image.data(), 4, keys, values);
    if (cr != CUDA_SUCCESS) {
      throw DeviceError("build: cuModuleLoadDataEx failed: " + cuErrorName(cr) + " (" + std::to_string(cr) + ")\n" + log + errorLog);
    }
    if (infoLog[0] != '\0') log += infoLog;
    return std::make_shared<CuProgram>(shared_from_this(), log, module, realArch ? std::string() : image);
  }

  std::shared_ptr<DeviceBuffer> alloc(size_t bytes) override {
    check(api().CtxSetCurrent(context_), "alloc", "cuCtxSetCurrent");
    CUdeviceptr ptr = 0;
    check(api().MemAlloc(&ptr, bytes == 0 ? 1 : bytes), "alloc(" + std::to_string(bytes) + ")", "cuMemAlloc");
    return std::make_shared<CuBuffer>(shared_from_this(), bytes, ptr);
  }

  void write(DeviceBuffer& buf, const void* data, size_t bytes) override {
    check(api().CtxSetCurrent(context_), "write", "cuCtxSetCurrent");
    check(api().MemcpyHtoD(static_cast<CuBuffer&>(buf).ptr, data, bytes), "write", "cuMemcpyHtoD");
  }

  void read(DeviceBuffer& buf, void* data, size_t bytes) override {
    check(api().CtxSetCurrent(context_), "read", "cuCtxSetCurrent");
    check(api().MemcpyDtoH(data, static_cast<CuBuffer&>(buf).ptr, bytes), "read", "cuMemcpyDtoH");
  }

  double launch(DeviceProgram& program, const std::string& name, const std::vector<LaunchArg>& args,
                const LaunchShape& shape) override {
    const CuApi& cu = api();
    std::string where = "launch " + name;
    check(cu.CtxSetCurrent(context_), where, "cuCtxSetCurrent");
    const CuKernel& k = static_cast<CuProgram&>(program).kernel(name, where);
    if (k.known && k.paramSizes.size() != args.size()) {
      throw DeviceError(where + ": the kernel takes " + std::to_string(k.paramSizes.size()) + " arguments, got " +
                        std::to_string(args.size()));
    }
    std::vector<CUdeviceptr> ptrs(args.size());
    std::vector<void*> params(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      size_t size = args[i].buffer != nullptr ? sizeof(CUdeviceptr) : kindSize(args[i].kind);
      size_t want = k.known ? k.paramSizes[i] : 0;
      if (want != 0 && want != size) {
        throw DeviceError(where + ": argument " + std::to_string(i) + " has " + std::to_string(size) +
                          " bytes but the kernel's parameter has " + std::to_string(want));
      }
      if (args[i].buffer != nullptr) {
        ptrs[i] = static_cast<CuBuffer*>(args[i].buffer)->ptr;
        params[i] = &ptrs[i];
      } else {
        params[i] = const_cast<Slot*>(&args[i].slot);
      }
    }
    for (unsigned d = 0; d < 3; ++d) {
      if (shape.groups[d] > UINT_MAX || shape.local[d] > UINT_MAX) throw DeviceError(where + ": a grid or block size exceeds 2^32-1");
    }
    auto u = [](size_t v) { return static_cast<unsigned>(v); };
    int64_t start = monotonicNs();
    check(cu.LaunchKernel(k.function, u(shape.groups[0]), u(shape.groups[1]), u(shape.groups[2]), u(shape.local[0]),
                          u(shape.local[1]), u(shape.local[2]), 0, nullptr, params.data(), nullptr),
          where, "cuLaunchKernel");
    check(cu.CtxSynchronize(), where, "cuCtxSynchronize");
    return static_cast<double>(monotonicNs() - start);
  }

 protected:
  void freeNative() noexcept override {
    api().CtxSetCurrent(context_);
    api().CtxSynchronize();
    api().CtxSetCurrent(nullptr);
    api().DevicePrimaryCtxRelease(device_.device);
  }

 private:
  CuDevice device_;
  CUcontext context_ = nullptr;
};

CUcontext nativeOf(DeviceContext* ctx) { return static_cast<CuContext*>(ctx)->native(); }

}  // namespace

RuntimeStatus cudaStatus() {
  RuntimeStatus s;
  std::vector<CuDevice> devices = enumerate(&s.reason);
  s.available = !devices.empty();
  for (const CuDevice& d : devices) s.devices.push_back(d.info);
  return s;
}

std::shared_ptr<DeviceContext> cudaContext(size_t deviceIndex) {
  std::string reason;
  std::vector<CuDevice> devices = enumerate(&reason);
  if (devices.empty()) throw DeviceError("cudaContext: CUDA is unavailable: " + reason);
  if (deviceIndex >= devices.size()) {
    throw DeviceError("cudaContext: no device " + std::to_string(deviceIndex) + "; there are " + std::to_string(devices.size()));
  }
  return std::make_shared<CuContext>(devices[deviceIndex]);
}

}  // namespace loom
