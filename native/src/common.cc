#include "common.h"

#include <cmath>
#include <cstring>
#include <ctime>

namespace loom {

namespace {

const char* const kKindNames[] = {"int8",  "uint8",  "int16",   "uint16",  "int32", "uint32",
                                  "int64", "uint64", "float32", "float64", "ptr"};

bool isIntegerKind(Kind k) { return k <= Kind::Uint64; }

// The closed range [lo, hi] of an integer kind narrower than 64 bits.
void narrowRange(Kind k, int64_t* lo, int64_t* hi) {
  switch (k) {
    case Kind::Int8: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case Kind::Uint8: *lo = 0; *hi = UINT8_MAX; return;
    case Kind::Int16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case Kind::Uint16: *lo = 0; *hi = UINT16_MAX; return;
    case Kind::Int32: *lo = INT32_MIN; *hi = INT32_MAX; return;
    default: *lo = 0; *hi = UINT32_MAX; return;
  }
}

void storeNarrow(Kind k, int64_t v, Slot* slot) {
  switch (k) {
    case Kind::Int8: slot->i8 = static_cast<int8_t>(v); return;
    case Kind::Uint8: slot->u8 = static_cast<uint8_t>(v); return;
    case Kind::Int16: slot->i16 = static_cast<int16_t>(v); return;
    case Kind::Uint16: slot->u16 = static_cast<uint16_t>(v); return;
    case Kind::Int32: slot->i32 = static_cast<int32_t>(v); return;
    default: slot->u32 = static_cast<uint32_t>(v); return;
  }
}

std::string numberText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

bool fromNumber(double d, Kind kind, Slot* slot, std::string* why) {
  if (kind == Kind::Float32) { slot->f32 = static_cast<float>(d); return true; }
  if (kind == Kind::Float64) { slot->f64 = d; return true; }
  if (!std::isfinite(d) || std::trunc(d) != d) {
    *why = numberText(d) + " is not an integer";
    return false;
  }
  if (kind == Kind::Int64) {
    if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) { *why = numberText(d) + " is out of range"; return false; }
    slot->i64 = static_cast<int64_t>(d);
    return true;
  }
  if (kind == Kind::Uint64) {
    if (d < 0 || d >= 18446744073709551616.0) { *why = numberText(d) + " is out of range"; return false; }
    slot->u64 = static_cast<uint64_t>(d);
    return true;
  }
  int64_t lo, hi;
  narrowRange(kind, &lo, &hi);
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) { *why = numberText(d) + " is out of range"; return false; }
  storeNarrow(kind, static_cast<int64_t>(d), slot);
  return true;
}

bool fromBigInt(napi_env env, napi_value value, Kind kind, Slot* slot, std::string* why) {
  if (!isIntegerKind(kind)) { *why = "a bigint cannot be a " + std::string(kindName(kind)); return false; }
  bool lossless = false;
  if (kind == Kind::Uint64) {
    uint64_t u = 0;
    if (napi_get_value_bigint_uint64(env, value, &u, &lossless) != napi_ok || !lossless) { *why = "the bigint is out of range"; return false; }
    slot->u64 = u;
    return true;
  }
  int64_t v = 0;
  if (napi_get_value_bigint_int64(env, value, &v, &lossless) != napi_ok || !lossless) { *why = "the bigint is out of range"; return false; }
  if (kind == Kind::Int64) { slot->i64 = v; return true; }
  int64_t lo, hi;
  narrowRange(kind, &lo, &hi);
  if (v < lo || v > hi) { *why = std::to_string(v) + "n is out of range"; return false; }
  storeNarrow(kind, v, slot);
  return true;
}

}  // namespace

Kind parseKind(napi_env env, napi_value value) {
  char buf[16];
  size_t len = 0;
  if (napi_get_value_string_utf8(env, value, buf, sizeof buf, &len) != napi_ok || len >= sizeof buf - 1) return Kind::Invalid;
  for (size_t i = 0; i < sizeof kKindNames / sizeof kKindNames[0]; ++i) {
    if (std::strcmp(buf, kKindNames[i]) == 0) return static_cast<Kind>(i);
  }
  return Kind::Invalid;
}

const char* kindName(Kind k) { return k < Kind::Invalid ? kKindNames[static_cast<int>(k)] : "invalid"; }

size_t kindSize(Kind k) {
  switch (k) {
    case Kind::Int8: case Kind::Uint8: return 1;
    case Kind::Int16: case Kind::Uint16: return 2;
    case Kind::Int32: case Kind::Uint32: case Kind::Float32: return 4;
    default: return 8;
  }
}

bool toScalar(napi_env env, napi_value value, Kind kind, Slot* slot, std::string* why) {
  slot->u64 = 0;
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok) { *why = "unreadable value"; return false; }
  if (type == napi_number) {
    double d = 0;
    napi_get_value_double(env, value, &d);
    return fromNumber(d, kind, slot, why);
  }
  if (type == napi_bigint) return fromBigInt(env, value, kind, slot, why);
  *why = describe(Napi::Value(env, value)) + " is not a number or bigint";
  return false;
}

bool viewData(napi_env env, napi_value value, void** data, size_t* bytes) {
  bool is = false;
  if (napi_is_typedarray(env, value, &is) == napi_ok && is) {
    napi_typedarray_type type;
    size_t length = 0;
    napi_value buffer;
    size_t offset = 0;
    // `data` already points at the first element (byteOffset applied).
    if (napi_get_typedarray_info(env, value, &type, &length, data, &buffer, &offset) != napi_ok) return false;
    size_t size = 1;
    switch (type) {
      case napi_int8_array: case napi_uint8_array: case napi_uint8_clamped_array: size = 1; break;
      case napi_int16_array: case napi_uint16_array: size = 2; break;
      case napi_int32_array: case napi_uint32_array: case napi_float32_array: size = 4; break;
      default: size = 8; break;
    }
    *bytes = length * size;
    return true;
  }
  if (napi_is_dataview(env, value, &is) == napi_ok && is) {
    napi_value buffer;
    size_t offset = 0;
    return napi_get_dataview_info(env, value, bytes, data, &buffer, &offset) == napi_ok;
  }
  return false;
}

std::string describe(Napi::Value value) {
  if (value.IsTypedArray() || value.IsDataView()) {
    Napi::Value ctor = value.As<Napi::Object>().Get("constructor");
    if (ctor.IsFunction()) {
      Napi::Value name = ctor.As<Napi::Object>().Get("name");
      if (name.IsString()) return "a " + name.As<Napi::String>().Utf8Value();
    }
    return "an ArrayBufferView";
  }
  if (value.IsNull()) return "null";
  if (value.IsUndefined()) return "undefined";
  if (value.IsArray()) return "an array";
  if (value.IsNumber()) return "the number " + numberText(value.As<Napi::Number>().DoubleValue());
  if (value.IsBigInt()) return "a bigint";
  if (value.IsString()) return "a string";
  if (value.IsBoolean()) return "a boolean";
  if (value.IsFunction()) return "a function";
  return "an object";
}

size_t toSize(Napi::Value value, const char* what) {
  if (value.IsNumber()) {
    double d = value.As<Napi::Number>().DoubleValue();
    if (std::isfinite(d) && std::trunc(d) == d && d >= 0 && d <= 9007199254740991.0) return static_cast<size_t>(d);
  }
  throw Napi::TypeError::New(value.Env(), std::string(what) + " must be a non-negative safe integer, got " + describe(value));
}

int64_t monotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace loom
