// Entry point of the Loom native addon (loom_native.node). Context-aware: every worker thread
// that loads it gets its own AddonData.
#include <napi.h>

#include "common.h"
#include "device_js.h"
#include "library.h"

namespace {

Napi::Value LoadLibrary(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(info.Env(), "loadLibrary: the path must be a string");
  return loom::addonData(info.Env()).library.New({info[0]});
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new loom::AddonData();
  env.SetInstanceData<loom::AddonData>(data);
  data->library = Napi::Persistent(loom::Library::Define(env));
  exports.Set("loadLibrary", Napi::Function::New(env, LoadLibrary, "loadLibrary"));
  loom::initDevices(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(loom_native, Init)
