// Shared helpers of the Loom native addon: scalar kinds, JS argument checks, the monotonic clock.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>

namespace loom {

// The scalar kinds of the TypeScript wrapper, in one order (kPtr only for `call`).
enum class Kind : uint8_t { Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64, Float32, Float64, Ptr, Invalid };

// An 8-byte-aligned cell holding one scalar in its exact C representation.
union alignas(8) Slot {
  int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
  int64_t i64; uint64_t u64; float f32; double f64; void* ptr;
};

// Parses "int32", "float64", "ptr", ...; Kind::Invalid otherwise. No allocation.
Kind parseKind(napi_env env, napi_value value);
const char* kindName(Kind k);
// The byte size of the C type of a scalar kind (8 for ptr).
size_t kindSize(Kind k);

// Converts a JS number or bigint to the C type of `kind` into `slot`; on failure returns false and
// writes a reason such as "1.5 is not an integer" into `why`.
bool toScalar(napi_env env, napi_value value, Kind kind, Slot* slot, std::string* why);

// The data pointer (byteOffset applied) and byte length of an ArrayBufferView; false if `value`
// is not one.
bool viewData(napi_env env, napi_value value, void** data, size_t* bytes);

// A short description of a JS value for error messages ("a Float32Array", "a string", ...).
std::string describe(Napi::Value value);

// A non-negative integer that fits size_t, or throws naming `what`.
size_t toSize(Napi::Value value, const char* what);

// The per-environment state of the addon (each worker thread loads its own copy).
struct AddonData {
  Napi::FunctionReference library, context, buffer, program;
};
inline AddonData& addonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

// Nanoseconds of CLOCK_MONOTONIC.
int64_t monotonicNs();

}  // namespace loom
