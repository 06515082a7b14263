// JS classes over the device runtime of device.h.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "device.h"

namespace loom {

class BufferWrap : public Napi::ObjectWrap<BufferWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit BufferWrap(const Napi::CallbackInfo& info);
  std::shared_ptr<DeviceBuffer> buffer;

 private:
  Napi::Value Bytes(const Napi::CallbackInfo& info);
  void Release(const Napi::CallbackInfo& info);
};

class ProgramWrap : public Napi::ObjectWrap<ProgramWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit ProgramWrap(const Napi::CallbackInfo& info);
  std::shared_ptr<DeviceProgram> program;

 private:
  Napi::Value Log(const Napi::CallbackInfo& info);
  void Release(const Napi::CallbackInfo& info);
};

class ContextWrap : public Napi::ObjectWrap<ContextWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  static Napi::Value wrap(Napi::Env env, std::shared_ptr<DeviceContext> ctx);
  explicit ContextWrap(const Napi::CallbackInfo& info);
  // A live buffer of this context, or throws naming `what`.
  DeviceBuffer& bufferArg(Napi::Value value, const std::string& what);

 private:
  Napi::Value Device(const Napi::CallbackInfo& info);
  Napi::Value Build(const Napi::CallbackInfo& info);
  Napi::Value Alloc(const Napi::CallbackInfo& info);
  void Write(const Napi::CallbackInfo& info);
  void Read(const Napi::CallbackInfo& info);
  Napi::Value Launch(const Napi::CallbackInfo& info);
  void Release(const Napi::CallbackInfo& info);
  void checkLive(Napi::Env env, const char* method) const;

  std::shared_ptr<DeviceContext> ctx_;
  Napi::ObjectReference device_;
};

// Adds openclStatus, openclContext, cudaStatus, cudaContext to `exports`.
void initDevices(Napi::Env env, Napi::Object exports);

}  // namespace loom
