#include "cuda_api.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "device.h"

namespace loom::cu {

static std::vector<int> soVersion(const std::string& file) {
  std::vector<int> v;
  size_t at = file.find(".so");
  for (size_t i = at + 3; i < file.size();) {
    if (file[i] != '.') break;
    v.push_back(std::atoi(file.c_str() + i + 1));
    i = file.find('.', i + 1);
    if (i == std::string::npos) break;
  }
  return v;
}

// Every libnvrtc.so* (not the builtins) in the usual CUDA places, newest first.
static std::vector<std::string> nvrtcCandidates() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"}) {
    if (const char* p = std::getenv(var)) dirs.push_back(std::string(p) + "/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  if (DIR* d = opendir("/usr/local")) {
    std::vector<std::string> versioned;
    while (dirent* e = readdir(d)) {
      if (std::strncmp(e->d_name, "cuda-", 5) == 0) versioned.push_back(e->d_name);
    }
    closedir(d);
    std::sort(versioned.begin(), versioned.end(), [](const std::string& a, const std::string& b) { return soVersion("x.so." + a.substr(5)) > soVersion("x.so." + b.substr(5)); });
    for (const std::string& v : versioned) {
      dirs.push_back("/usr/local/" + v + "/lib64");
      dirs.push_back("/usr/local/" + v + "/targets/x86_64-linux/lib");
    }
  }
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
    std::string s = ld;
    for (size_t start = 0; start <= s.size();) {
      size_t end = s.find(':', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) dirs.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"}) dirs.push_back(d);

  std::vector<std::pair<std::vector<int>, std::string>> found;
  for (const std::string& dir : dirs) {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      if (std::strncmp(e->d_name, "libnvrtc.so", 11) == 0) found.emplace_back(soVersion(e->d_name), dir + "/" + e->d_name);
    }
    closedir(d);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(f.second);
  // Then whatever the loader finds by name.
  for (const char* name : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}) paths.push_back(name);
  return paths;
}

// Loads the builtins library beside an absolute libnvrtc path first, so that NVRTC's own
// dlopen of it by soname succeeds even when that directory is not on the loader path.
static void preloadBuiltins(const std::string& nvrtcPath) {
  size_t slash = nvrtcPath.rfind('/');
  if (slash == std::string::npos) return;
  std::string dir = nvrtcPath.substr(0, slash);
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::string best;
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, "libnvrtc-builtins.so", 20) == 0 && std::string(e->d_name) > best) best = e->d_name;
  }
  closedir(d);
  if (!best.empty()) dlopen((dir + "/" + best).c_str(), RTLD_NOW | RTLD_GLOBAL);
}

static void* openNvrtc() {
  std::vector<std::string> candidates;
  if (const char* p = std::getenv("LOOM_NVRTC_LIBRARY")) candidates.push_back(p);
  for (std::string& c : nvrtcCandidates()) candidates.push_back(std::move(c));
  for (const std::string& c : candidates) {
    if (c.find('/') != std::string::npos) preloadBuiltins(c);
    if (void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
  }
  return nullptr;
}

const CuApi& api() {
  static CuApi a;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* override = std::getenv("LOOM_CUDA_LIBRARY");
    void* cuda = dlopen(override != nullptr && *override != '\0' ? override : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda == nullptr) {
      a.error = "libcuda.so.1 not found (no NVIDIA driver)";
      return;
    }
    void* nvrtc = openNvrtc();
    if (nvrtc == nullptr) {
      a.error = "libnvrtc not found (searched /usr/local/cuda*/lib64 and the loader path): install the CUDA toolkit's NVRTC or set LOOM_NVRTC_LIBRARY";
      return;
    }
    auto sym = [&](void* lib, const char* name, bool required = true) -> void* {
      void* p = dlsym(lib, name);
      if (p == nullptr && required && a.error.empty()) a.error = std::string("the CUDA libraries lack ") + name;
      return p;
    };
#define CU(field, name) a.field = reinterpret_cast<decltype(a.field)>(sym(cuda, name))
    CU(Init, "cuInit"); CU(DriverGetVersion, "cuDriverGetVersion"); CU(DeviceGetCount, "cuDeviceGetCount");
    CU(DeviceGet, "cuDeviceGet"); CU(DeviceGetName, "cuDeviceGetName"); CU(DeviceGetAttribute, "cuDeviceGetAttribute");
    CU(DeviceTotalMem, "cuDeviceTotalMem_v2");
    CU(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"); CU(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    CU(CtxSetCurrent, "cuCtxSetCurrent"); CU(CtxSynchronize, "cuCtxSynchronize"); CU(MemAlloc, "cuMemAlloc_v2");
    CU(MemFree, "cuMemFree_v2"); CU(MemcpyHtoD, "cuMemcpyHtoD_v2"); CU(MemcpyDtoH, "cuMemcpyDtoH_v2");
    CU(ModuleLoadDataEx, "cuModuleLoadDataEx"); CU(ModuleUnload, "cuModuleUnload");
    CU(ModuleGetFunction, "cuModuleGetFunction"); CU(LaunchKernel, "cuLaunchKernel"); CU(GetErrorName, "cuGetErrorName");
#undef CU
    a.FuncGetParamInfo = reinterpret_cast<decltype(a.FuncGetParamInfo)>(sym(cuda, "cuFuncGetParamInfo", false));
#define NV(field) a.field = reinterpret_cast<decltype(a.field)>(sym(nvrtc, "nvrtc" #field))
    NV(CreateProgram); NV(DestroyProgram); NV(CompileProgram); NV(GetProgramLogSize); NV(GetProgramLog);
    NV(GetPTXSize); NV(GetPTX); NV(GetCUBINSize); NV(GetCUBIN); NV(GetErrorString);
#undef NV
  });
  return a;
}

std::string cuErrorName(CUresult code) {
  const char* name = nullptr;
  if (api().GetErrorName != nullptr && api().GetErrorName(code, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUDA_ERROR_" + std::to_string(code);
}

void check(CUresult code, const std::string& where, const char* fn) {
  if (code != CUDA_SUCCESS) throw DeviceError(where + ": " + fn + " failed: " + cuErrorName(code) + " (" + std::to_string(code) + ")");
}

}  // namespace loom::cu
