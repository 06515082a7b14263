// The JS face of the device runtimes: DeviceContext, DeviceBuffer and DeviceProgram classes that
// check every argument before a backend sees it.
#include "device_js.h"

#include <cmath>

namespace loom {

namespace {

// Type tags tell our wrapped objects apart, so a DeviceProgram passed where a DeviceBuffer is
// expected is an error, never a bad cast.
const napi_type_tag kBufferTag = {0x6c6f6f6d62756666ULL, 0x8a1f3c5d7e9b2a41ULL};
const napi_type_tag kProgramTag = {0x6c6f6f6d70726f67ULL, 0x3b7d9e1f5a2c4e68ULL};

// The native object a factory hands to the JS constructor it is about to call; JS code calling
// a constructor directly finds none and gets an error. Per thread: workers each run their own.
thread_local std::shared_ptr<DeviceContext> pendingContext;
thread_local std::shared_ptr<DeviceBuffer> pendingBuffer;
thread_local std::shared_ptr<DeviceProgram> pendingProgram;

AddonData& constructors(Napi::Env env) { return addonData(env); }

template <typename T>
std::shared_ptr<T> takePending(std::shared_ptr<T>* slot, Napi::Env env, const char* cls) {
  if (!*slot) throw Napi::TypeError::New(env, std::string(cls) + " cannot be constructed directly");
  return std::move(*slot);
}

Napi::Object infoObject(Napi::Env env, const DeviceInfo& d) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("platform", d.platform);
  o.Set("name", d.name);
  o.Set("type", d.type);
  o.Set("version", d.version);
  if (d.maxAllocBytes > 0) o.Set("maxAllocBytes", static_cast<double>(d.maxAllocBytes));
  if (d.memoryBytes > 0) o.Set("memoryBytes", static_cast<double>(d.memoryBytes));
  o.Freeze();
  return o;
}

Napi::Value statusObject(Napi::Env env, const RuntimeStatus& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("available", s.available);
  if (!s.reason.empty()) o.Set("reason", s.reason);
  Napi::Array devices = Napi::Array::New(env, s.devices.size());
  for (size_t i = 0; i < s.devices.size(); ++i) devices.Set(static_cast<uint32_t>(i), infoObject(env, s.devices[i]));
  o.Set("devices", devices);
  return o;
}

size_t deviceIndex(const Napi::CallbackInfo& info, const char* fn) {
  if (info.Length() < 1 || info[0].IsUndefined()) return 0;
  return toSize(info[0], (std::string(fn) + ": deviceIndex").c_str());
}

// Reads `groups` or `local` of a launch: 0-3 positive integers.
std::vector<size_t> readAxes(Napi::Value value, const std::string& what) {
  Napi::Env env = value.Env();
  if (!value.IsArray()) throw Napi::TypeError::New(env, what + " must be an array of 1-3 positive integers, got " + describe(value));
  Napi::Array a = value.As<Napi::Array>();
  if (a.Length() > 3) throw Napi::RangeError::New(env, what + " has " + std::to_string(a.Length()) + " axes; at most 3");
  std::vector<size_t> axes;
  for (uint32_t i = 0; i < a.Length(); ++i) {
    size_t n = toSize(a.Get(i), (what + "[" + std::to_string(i) + "]").c_str());
    if (n == 0) throw Napi::RangeError::New(env, what + "[" + std::to_string(i) + "] must be positive");
    axes.push_back(n);
  }
  return axes;
}

}  // namespace

// ---- DeviceBuffer ----------------------------------------------------------------------------

Napi::Function BufferWrap::Define(Napi::Env env) {
  return DefineClass(env, "DeviceBuffer",
                     {InstanceAccessor<&BufferWrap::Bytes>("bytes"), InstanceMethod<&BufferWrap::Release>("release")});
}

BufferWrap::BufferWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<BufferWrap>(info), buffer(takePending(&pendingBuffer, info.Env(), "DeviceBuffer")) {
  info.This().As<Napi::Object>().TypeTag(&kBufferTag);
}

Napi::Value BufferWrap::Bytes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(buffer->bytes));
}

void BufferWrap::Release(const Napi::CallbackInfo&) { buffer->release(); }

// ---- DeviceProgram ---------------------------------------------------------------------------

Napi::Function ProgramWrap::Define(Napi::Env env) {
  return DefineClass(env, "DeviceProgram",
                     {InstanceAccessor<&ProgramWrap::Log>("log"), InstanceMethod<&ProgramWrap::Release>("release")});
}

ProgramWrap::ProgramWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<ProgramWrap>(info), program(takePending(&pendingProgram, info.Env(), "DeviceProgram")) {
  info.This().As<Napi::Object>().TypeTag(&kProgramTag);
}

Napi::Value ProgramWrap::Log(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), program->log); }

void ProgramWrap::Release(const Napi::CallbackInfo&) { program->release(); }

// ---- DeviceContext ---------------------------------------------------------------------------

Napi::Function ContextWrap::Define(Napi::Env env) {
  return DefineClass(env, "DeviceContext",
                     {InstanceAccessor<&ContextWrap::Device>("device"), InstanceMethod<&ContextWrap::Build>("build"),
                      InstanceMethod<&ContextWrap::Alloc>("alloc"), InstanceMethod<&ContextWrap::Write>("write"),
                      InstanceMethod<&ContextWrap::Read>("read"), InstanceMethod<&ContextWrap::Launch>("launch"),
                      InstanceMethod<&ContextWrap::Release>("release")});
}

ContextWrap::ContextWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<ContextWrap>(info), ctx_(takePending(&pendingContext, info.Env(), "DeviceContext")) {
  device_ = Napi::Persistent(infoObject(info.Env(), ctx_->info()));
}

Napi::Value ContextWrap::wrap(Napi::Env env, std::shared_ptr<DeviceContext> ctx) {
  pendingContext = std::move(ctx);
  return constructors(env).context.New({});
}

void ContextWrap::checkLive(Napi::Env env, const char* method) const {
  if (ctx_->released()) {
    throw Napi::Error::New(env, std::string(method) + ": the DeviceContext (" + ctx_->info().name + ") is released");
  }
}

DeviceBuffer& ContextWrap::bufferArg(Napi::Value value, const std::string& what) {
  Napi::Env env = value.Env();
  if (!value.IsObject() || !value.As<Napi::Object>().CheckTypeTag(&kBufferTag)) {
    throw Napi::TypeError::New(env, what + " must be a DeviceBuffer, got " + describe(value));
  }
  DeviceBuffer& buf = *BufferWrap::Unwrap(value.As<Napi::Object>())->buffer;
  if (buf.released()) throw Napi::Error::New(env, what + " is a released DeviceBuffer");
  if (buf.context() != ctx_.get()) throw Napi::Error::New(env, what + " belongs to another DeviceContext");
  return buf;
}

Napi::Value ContextWrap::Device(const Napi::CallbackInfo&) { return device_.Value(); }

Napi::Value ContextWrap::Build(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkLive(env, "build");
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "build: the source must be a string, got " + describe(info[0]));
  std::vector<std::string> options;
  if (!info[1].IsUndefined()) {
    if (!info[1].IsArray()) throw Napi::TypeError::New(env, "build: options must be an array of strings");
    Napi::Array a = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) {
      Napi::Value o = a.Get(i);
      if (!o.IsString()) throw Napi::TypeError::New(env, "build: options[" + std::to_string(i) + "] is " + describe(o) + ", not a string");
      options.push_back(o.As<Napi::String>().Utf8Value());
    }
  }
  pendingProgram = ctx_->build(info[0].As<Napi::String>().Utf8Value(), options);
  return constructors(env).program.New({});
}

Napi::Value ContextWrap::Alloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkLive(env, "alloc");
  size_t bytes = toSize(info[0], "alloc: bytes");
  pendingBuffer = ctx_->alloc(bytes);
  return constructors(env).buffer.New({});
}

// Shared by write and read: the buffer, the host view, and the size check.
struct Transfer {
  DeviceBuffer* buf;
  void* data;
  size_t bytes;
};

static Transfer transferArgs(ContextWrap& self, const Napi::CallbackInfo& info, const char* method) {
  Napi::Env env = info.Env();
  DeviceBuffer& buf = self.bufferArg(info[0], std::string(method) + ": the buffer");
  Transfer t{&buf, nullptr, 0};
  if (!viewData(env, info[1], &t.data, &t.bytes)) {
    throw Napi::TypeError::New(env, std::string(method) + ": data must be an ArrayBufferView, got " + describe(info[1]));
  }
  if (t.bytes > buf.bytes) {
    throw Napi::RangeError::New(env, std::string(method) + ": data has " + std::to_string(t.bytes) + " bytes but the buffer only " +
                                         std::to_string(buf.bytes));
  }
  return t;
}

void ContextWrap::Write(const Napi::CallbackInfo& info) {
  checkLive(info.Env(), "write");
  Transfer t = transferArgs(*this, info, "write");
  if (t.bytes > 0) ctx_->write(*t.buf, t.data, t.bytes);
}

void ContextWrap::Read(const Napi::CallbackInfo& info) {
  checkLive(info.Env(), "read");
  Transfer t = transferArgs(*this, info, "read");
  if (t.bytes > 0) ctx_->read(*t.buf, t.data, t.bytes);
}

Napi::Value ContextWrap::Launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkLive(env, "launch");
  if (!info[1].IsString()) throw Napi::TypeError::New(env, "launch: the kernel name must be a string, got " + describe(info[1]));
  std::string name = info[1].As<Napi::String>().Utf8Value();
  std::string where = "launch " + name;
  Napi::Value progValue = info[0];
  if (!progValue.IsObject() || !progValue.As<Napi::Object>().CheckTypeTag(&kProgramTag)) {
    throw Napi::TypeError::New(env, where + ": the program must be a DeviceProgram, got " + describe(progValue));
  }
  DeviceProgram& program = *ProgramWrap::Unwrap(progValue.As<Napi::Object>())->program;
  if (program.released()) throw Napi::Error::New(env, where + ": the program is released");
  if (program.context() != ctx_.get()) throw Napi::Error::New(env, where + ": the program belongs to another DeviceContext");

  if (!info[2].IsArray()) throw Napi::TypeError::New(env, where + ": args must be an array");
  Napi::Array argArray = info[2].As<Napi::Array>();
  std::vector<LaunchArg> args(argArray.Length());
  std::string why;
  for (uint32_t i = 0; i < argArray.Length(); ++i) {
    Napi::Value a = argArray.Get(i);
    std::string what = where + ": argument " + std::to_string(i);
    if (a.IsObject() && a.As<Napi::Object>().CheckTypeTag(&kBufferTag)) {
      args[i].buffer = &bufferArg(a, what);
      continue;
    }
    if (!a.IsObject() || a.IsArray() || a.IsTypedArray()) {
      throw Napi::TypeError::New(env, what + " must be a DeviceBuffer or {kind, value}, got " + describe(a));
    }
    Napi::Object o = a.As<Napi::Object>();
    Napi::Value kindValue = o.Get("kind");
    Kind kind = parseKind(env, kindValue);
    if (kind == Kind::Invalid || kind == Kind::Ptr) {
      throw Napi::TypeError::New(env, what + " has kind " + describe(kindValue) + "; a scalar kind is one of int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64");
    }
    args[i].kind = kind;
    if (!toScalar(env, o.Get("value"), kind, &args[i].slot, &why)) throw Napi::TypeError::New(env, what + " (" + kindName(kind) + "): " + why);
  }

  std::vector<size_t> groups = readAxes(info[3], where + ": groups");
  std::vector<size_t> local = readAxes(info[4], where + ": local");
  if (groups.size() != local.size()) {
    throw Napi::RangeError::New(env, where + ": groups has " + std::to_string(groups.size()) + " axes but local has " +
                                         std::to_string(local.size()));
  }
  LaunchShape shape;
  shape.dims = groups.empty() ? 1 : static_cast<unsigned>(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    if (static_cast<double>(groups[i]) * static_cast<double>(local[i]) > 9007199254740991.0) {
      throw Napi::RangeError::New(env, where + ": groups[" + std::to_string(i) + "] * local[" + std::to_string(i) + "] is too large");
    }
    shape.groups[i] = groups[i];
    shape.local[i] = local[i];
  }
  return Napi::Number::New(env, ctx_->launch(program, name, args, shape));
}

void ContextWrap::Release(const Napi::CallbackInfo&) { ctx_->release(); }

// ---- module functions ------------------------------------------------------------------------

static Napi::Value OpenclStatus(const Napi::CallbackInfo& info) { return statusObject(info.Env(), openclStatus()); }
static Napi::Value CudaStatus(const Napi::CallbackInfo& info) { return statusObject(info.Env(), cudaStatus()); }
static Napi::Value OpenclContext(const Napi::CallbackInfo& info) {
  return ContextWrap::wrap(info.Env(), openclContext(deviceIndex(info, "openclContext")));
}
static Napi::Value CudaContext(const Napi::CallbackInfo& info) {
  return ContextWrap::wrap(info.Env(), cudaContext(deviceIndex(info, "cudaContext")));
}

void initDevices(Napi::Env env, Napi::Object exports) {
  AddonData& c = addonData(env);
  c.context = Napi::Persistent(ContextWrap::Define(env));
  c.buffer = Napi::Persistent(BufferWrap::Define(env));
  c.program = Napi::Persistent(ProgramWrap::Define(env));
  exports.Set("openclStatus", Napi::Function::New(env, OpenclStatus, "openclStatus"));
  exports.Set("openclContext", Napi::Function::New(env, OpenclContext, "openclContext"));
  exports.Set("cudaStatus", Napi::Function::New(env, CudaStatus, "cudaStatus"));
  exports.Set("cudaContext", Napi::Function::New(env, CudaContext, "cudaContext"));
}

}  // namespace loom
