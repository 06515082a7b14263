// NativeLibrary: a dlopen'ed shared object whose `void f(void **args)` symbols JS can call.
#pragma once

#include <napi.h>

#include <string>
#include <utility>
#include <vector>

namespace loom {

class Library : public Napi::ObjectWrap<Library> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit Library(const Napi::CallbackInfo& info);
  ~Library() override;

 private:
  Napi::Value Path(const Napi::CallbackInfo& info);
  Napi::Value Has(const Napi::CallbackInfo& info);
  Napi::Value Call(const Napi::CallbackInfo& info);
  void Close(const Napi::CallbackInfo& info);

  void* lookup(const char* symbol);
  bool owns(const void* addr) const;
  void checkOpen(Napi::Env env, const char* method) const;

  void* handle_ = nullptr;
  std::string path_;
  // dlsym results by name; a library exports few kernels, so a linear scan beats hashing.
  std::vector<std::pair<std::string, void*>> symbols_;
};

}  // namespace loom
