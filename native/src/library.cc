#include "library.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // dladdr1, dlinfo
#endif
#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "common.h"

namespace loom {

namespace {

constexpr size_t kStackArgs = 32;

// Reads a JS string into `buf` when it fits, else into `heap`; returns the C string.
const char* readName(Napi::Env env, napi_value value, char (&buf)[256], std::string* heap, const char* what) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, value, buf, sizeof buf, &len) != napi_ok) {
    throw Napi::TypeError::New(env, std::string(what) + " must be a string, got " + describe(Napi::Value(env, value)));
  }
  if (len < sizeof buf - 1) return buf;
  *heap = Napi::Value(env, value).As<Napi::String>().Utf8Value();
  return heap->c_str();
}

}  // namespace

Napi::Function Library::Define(Napi::Env env) {
  return DefineClass(env, "NativeLibrary",
                     {InstanceAccessor<&Library::Path>("path"), InstanceMethod<&Library::Has>("has"),
                      InstanceMethod<&Library::Call>("call"), InstanceMethod<&Library::Close>("close")});
}

Library::Library(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Library>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    throw Napi::TypeError::New(env, "loadLibrary: the path must be a string");
  }
  path_ = info[0].As<Napi::String>().Utf8Value();
  dlerror();
  // RTLD_LOCAL: the library's symbols never serve later lookups of other code. The lookups of the
  // library itself bind to its own definitions because Loom compiles kernels with hidden
  // visibility (native-compile.ts); `call` accepts only symbols the library defines (owns()).
  // RTLD_NODELETE: an OpenMP kernel library leaves libgomp's worker threads alive; unmapping it on
  // close (or when the wrapper is collected at exit) made those threads crash the process.
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle_ == nullptr) {
    const char* err = dlerror();
    throw Napi::Error::New(env, "loadLibrary: " + std::string(err != nullptr ? err : "dlopen failed for " + path_));
  }
}

Library::~Library() {
  if (handle_ != nullptr) dlclose(handle_);
}

Napi::Value Library::Path(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), path_); }

void Library::checkOpen(Napi::Env env, const char* method) const {
  if (handle_ == nullptr) throw Napi::Error::New(env, std::string(method) + ": library \"" + path_ + "\" is closed");
}

// Whether `addr` lies in the object `handle` names, not in one it depends on: dlsym on a handle
// searches the library's dependencies too (libc, libgomp), so dlsym(h, "malloc") finds libc's.
bool Library::owns(const void* addr) const {
#ifdef __GLIBC__
  struct link_map* mine = nullptr;
  struct link_map* holder = nullptr;
  Dl_info where;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &mine) != 0 || mine == nullptr) return false;
  if (dladdr1(addr, &where, reinterpret_cast<void**>(&holder), RTLD_DL_LINKMAP) == 0) return false;
  return holder == mine;
#else
  // Elsewhere: the loader names an object by the path it was opened with.
  Dl_info where;
  return dladdr(addr, &where) != 0 && where.dli_fname != nullptr && path_ == where.dli_fname;
#endif
}

void* Library::lookup(const char* symbol) {
  for (const auto& entry : symbols_) {
    if (entry.first == symbol) return entry.second;
  }
  dlerror();
  void* fn = dlsym(handle_, symbol);
  if (fn == nullptr || !owns(fn)) return nullptr;
  symbols_.emplace_back(symbol, fn);
  return fn;
}

Napi::Value Library::Has(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkOpen(env, "has");
  char buf[256];
  std::string heap;
  const char* symbol = readName(env, info[0], buf, &heap, "has: the symbol");
  return Napi::Boolean::New(env, lookup(symbol) != nullptr);
}

Napi::Value Library::Call(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkOpen(env, "call");
  char buf[256];
  std::string heap;
  const char* symbol = readName(env, info[0], buf, &heap, "call: the symbol");
  void* fn = lookup(symbol);
  if (fn == nullptr) {
    throw Napi::Error::New(env, "call: \"" + path_ + "\" defines no symbol \"" + symbol + "\" (symbols of the libraries it uses do not count)");
  }
  if (!info[1].IsArray() || !info[2].IsArray()) throw Napi::TypeError::New(env, "call: args and kinds must be arrays");
  napi_value args = info[1];
  napi_value kinds = info[2];
  uint32_t n = 0, nk = 0;
  napi_get_array_length(env, args, &n);
  napi_get_array_length(env, kinds, &nk);
  if (n != nk) {
    throw Napi::Error::New(env, "call " + std::string(symbol) + ": " + std::to_string(n) + " args but " + std::to_string(nk) + " kinds");
  }

  Slot stackSlots[kStackArgs];
  void* stackPtrs[kStackArgs];
  std::vector<Slot> heapSlots;
  std::vector<void*> heapPtrs;
  Slot* slots = stackSlots;
  void** ptrs = stackPtrs;
  if (n > kStackArgs) {
    heapSlots.resize(n);
    heapPtrs.resize(n);
    slots = heapSlots.data();
    ptrs = heapPtrs.data();
  }

  std::string why;
  for (uint32_t i = 0; i < n; ++i) {
    napi_value arg, kindValue;
    napi_get_element(env, args, i, &arg);
    napi_get_element(env, kinds, i, &kindValue);
    Kind kind = parseKind(env, kindValue);
    auto fail = [&](const std::string& what) {
      return Napi::TypeError::New(env, "call " + std::string(symbol) + ": argument " + std::to_string(i) + " " + what);
    };
    if (kind == Kind::Invalid) {
      throw fail("has kind " + describe(Napi::Value(env, kindValue)) +
                 "; kinds are \"ptr\", int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64");
    }
    void* data = nullptr;
    size_t bytes = 0;
    bool isView = viewData(env, arg, &data, &bytes);
    if (kind == Kind::Ptr) {
      if (!isView) throw fail("has kind \"ptr\" but is " + describe(Napi::Value(env, arg)) + ", not an ArrayBufferView");
      ptrs[i] = data;
      continue;
    }
    if (isView) throw fail("is " + describe(Napi::Value(env, arg)) + " but has the scalar kind " + kindName(kind) + " (arrays take \"ptr\")");
    if (!toScalar(env, arg, kind, &slots[i], &why)) throw fail("(" + std::string(kindName(kind)) + "): " + why);
    ptrs[i] = &slots[i];
  }

  auto kernel = reinterpret_cast<void (*)(void**)>(fn);
  int64_t start = monotonicNs();
  kernel(ptrs);
  int64_t end = monotonicNs();
  return Napi::Number::New(env, static_cast<double>(end - start));
}

void Library::Close(const Napi::CallbackInfo&) {
  if (handle_ == nullptr) return;
  dlclose(handle_);
  handle_ = nullptr;
  symbols_.clear();
}

}  // namespace loom
