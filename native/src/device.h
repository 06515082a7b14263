// The backend-neutral device runtime: contexts, buffers and programs that OpenCL and CUDA
// implement. The JS classes (device_js.cc) validate everything coming from JS, so backends see
// only live objects of their own context, sizes that fit, and 1-3 launch axes.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "common.h"

namespace loom {

struct DeviceInfo {
  std::string platform, name, type, version;
  // The largest buffer and all of the device's memory, in bytes; 0 where the runtime does not say.
  uint64_t maxAllocBytes = 0, memoryBytes = 0;
};

struct RuntimeStatus {
  bool available = false;
  std::string reason;
  std::vector<DeviceInfo> devices;
};

// A failure of a device API; the message names the API's error (CL_INVALID_VALUE, ...).
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class DeviceContext;

// Something a context owns: released at most once, by the user, by the context's release, or
// when the JS object is collected.
class DeviceResource {
 public:
  explicit DeviceResource(std::shared_ptr<DeviceContext> ctx);
  virtual ~DeviceResource();
  DeviceResource(const DeviceResource&) = delete;
  DeviceResource& operator=(const DeviceResource&) = delete;

  bool released() const { return released_; }
  DeviceContext* context() const { return ctx_.get(); }
  void release() noexcept;

 protected:
  // Frees the native handle; called once, never after the context's own handles are gone.
  virtual void freeNative() noexcept = 0;
  std::shared_ptr<DeviceContext> ctx_;

 private:
  bool released_ = false;
};

class DeviceBuffer : public DeviceResource {
 public:
  DeviceBuffer(std::shared_ptr<DeviceContext> ctx, size_t bytes) : DeviceResource(std::move(ctx)), bytes(bytes) {}
  const size_t bytes;
};

class DeviceProgram : public DeviceResource {
 public:
  DeviceProgram(std::shared_ptr<DeviceContext> ctx, std::string log) : DeviceResource(std::move(ctx)), log(std::move(log)) {}
  const std::string log;
};

// One argument of a launch: a live buffer of the launching context, or a converted scalar.
struct LaunchArg {
  DeviceBuffer* buffer = nullptr;
  Kind kind = Kind::Invalid;
  Slot slot{};
};

struct LaunchShape {
  unsigned dims = 1;
  size_t groups[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
};

class DeviceContext : public std::enable_shared_from_this<DeviceContext> {
 public:
  virtual ~DeviceContext() = default;
  const DeviceInfo& info() const { return info_; }
  bool released() const { return released_; }

  virtual std::shared_ptr<DeviceProgram> build(const std::string& source, const std::vector<std::string>& options) = 0;
  virtual std::shared_ptr<DeviceBuffer> alloc(size_t bytes) = 0;
  virtual void write(DeviceBuffer& buf, const void* data, size_t bytes) = 0;
  virtual void read(DeviceBuffer& buf, void* data, size_t bytes) = 0;
  // Runs kernel `name` to completion; returns elapsed nanoseconds.
  virtual double launch(DeviceProgram& program, const std::string& name, const std::vector<LaunchArg>& args,
                        const LaunchShape& shape) = 0;

  // Releases every buffer and program made from this context, then the context itself.
  void release() noexcept;

 protected:
  virtual void freeNative() noexcept = 0;
  DeviceInfo info_;

 private:
  friend class DeviceResource;
  std::unordered_set<DeviceResource*> resources_;
  bool released_ = false;
};

// Runtime entry points (opencl.cc, cuda.cc).
RuntimeStatus openclStatus();
std::shared_ptr<DeviceContext> openclContext(size_t deviceIndex);
RuntimeStatus cudaStatus();
std::shared_ptr<DeviceContext> cudaContext(size_t deviceIndex);

// Joins build options with spaces, as both OpenCL and the error messages want them.
std::string joinOptions(const std::vector<std::string>& options);

}  // namespace loom
