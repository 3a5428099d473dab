#include "js_options.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <climits>
#include <cmath>

#include "attn/validate.h"

namespace attnjs {
namespace {

constexpr size_t kQuotedChars = 40;  // a string in a message is cut to this many characters

std::string JsString(const val& v) { return val::global("String")(v).as<std::string>(); }

attn::Status WrongType(const std::string& name, const char* expected, const val& given) {
  return attn::Status(attn::StatusCode::kInvalidArgument, name + ": expected " + expected + ", got " + DescribeJsValue(given));
}

// An integer in [lo, hi]: the number itself, checked before any conversion (a double holds every
// int and uint32 exactly).
attn::Status ReadInteger(const val& v, const std::string& name, double lo, double hi, double* out) {
  if (!v.isNumber()) return WrongType(name, "an integer", v);
  const double x = v.as<double>();
  if (!std::isfinite(x) || x != std::floor(x)) return WrongType(name, "an integer", v);
  if (x < lo || x > hi)
    return attn::Status(attn::StatusCode::kOutOfRange, name + ": expected an integer in " + JsString(val(lo)) + ".." +
                                                           JsString(val(hi)) + ", got " + JsString(v));
  *out = x;
  return attn::Status::Ok();
}

}  // namespace

std::string DescribeJsValue(const val& v) {
  const std::string type = v.typeOf().as<std::string>();
  if (type == "undefined") return "undefined";
  if (type == "string") {
    const size_t length = v["length"].as<size_t>();
    std::string text = length > kQuotedChars ? v.call<std::string>("slice", 0, static_cast<int>(kQuotedChars)) + "…"
                                            : v.as<std::string>();
    return "the string \"" + text + "\"";
  }
  if (type == "number" || type == "boolean" || type == "bigint") return "the " + type + " " + JsString(v);
  if (type == "function") return "a function";
  if (type == "symbol") return "a symbol";
  if (v.isNull()) return "null";
  if (val::global("Array").call<bool>("isArray", v)) return "an array";
  if (val::global("ArrayBuffer").call<bool>("isView", v)) return "a " + v["constructor"]["name"].as<std::string>();
  return "an object";
}

bool IsAbsent(const val& v) { return v.isUndefined() || v.isNull(); }

bool IsPlainObject(const val& v) {
  return v.typeOf().as<std::string>() == "object" && !v.isNull() && !val::global("Array").call<bool>("isArray", v) &&
         !val::global("ArrayBuffer").call<bool>("isView", v);
}

attn::Status CheckOptions(const val& o, const std::string& what, const std::vector<const char*>& known, bool optional) {
  if (optional && IsAbsent(o)) return attn::Status::Ok();
  if (!IsPlainObject(o)) return WrongType(what, "an object", o);
  const val keys = val::global("Object").call<val>("keys", o);
  const int count = keys["length"].as<int>();
  for (int i = 0; i < count; ++i) {
    const std::string key = keys[i].as<std::string>();
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
      // A key is echoed only in part: it may be megabytes long.
      std::string message = (key.size() > kQuotedChars ? key.substr(0, kQuotedChars) + "…" : key) + ": unknown option";
      const std::string_view nearest = attn::validate::NearestName(key, {known.begin(), known.end()});
      if (!nearest.empty()) message += " (did you mean " + std::string(nearest) + "?)";
      return attn::Status(attn::StatusCode::kUnknownOption, message);
    }
  }
  return attn::Status::Ok();
}

attn::Status ReadInt(const val& v, const std::string& name, int* out) {
  if (v.isUndefined()) return attn::Status::Ok();
  double x = 0;
  ATTN_RETURN_IF_ERROR(ReadInteger(v, name, INT_MIN, INT_MAX, &x));
  *out = static_cast<int>(x);
  return attn::Status::Ok();
}

attn::Status ReadUint32(const val& v, const std::string& name, uint32_t* out) {
  if (v.isUndefined()) return attn::Status::Ok();
  double x = 0;
  ATTN_RETURN_IF_ERROR(ReadInteger(v, name, 0, UINT32_MAX, &x));
  *out = static_cast<uint32_t>(x);
  return attn::Status::Ok();
}

attn::Status ReadFloat(const val& v, const std::string& name, float* out) {
  if (v.isUndefined()) return attn::Status::Ok();
  if (!v.isNumber()) return WrongType(name, "a number", v);
  const double x = v.as<double>();
  // NaN and ±Infinity pass through: the engine says which values an option takes.
  if (std::isfinite(x) && std::fabs(x) > FLT_MAX)
    return attn::Status(attn::StatusCode::kOutOfRange,
                        name + ": expected a number within float32's range (±3.4e38), got " + JsString(v));
  *out = static_cast<float>(x);
  return attn::Status::Ok();
}

attn::Status ReadBool(const val& v, const std::string& name, bool* out) {
  if (v.isUndefined()) return attn::Status::Ok();
  if (v.typeOf().as<std::string>() != "boolean") return WrongType(name, "a boolean", v);
  *out = v.as<bool>();
  return attn::Status::Ok();
}

attn::Status ReadString(const val& v, const std::string& name, size_t max_bytes, std::string* out) {
  if (v.isUndefined()) return attn::Status::Ok();
  if (!v.isString()) return WrongType(name, "a string", v);
  // Each UTF-16 unit is at least one UTF-8 byte: a string this long is refused before it is copied.
  const double units = v["length"].as<double>();
  if (units > static_cast<double>(max_bytes))
    return attn::Status(attn::StatusCode::kOutOfRange, name + ": expected at most " + std::to_string(max_bytes) +
                                                           " bytes, got " + JsString(val(units)) + " characters");
  std::string s = v.as<std::string>();
  if (s.size() > max_bytes)
    return attn::Status(attn::StatusCode::kOutOfRange, name + ": expected at most " + std::to_string(max_bytes) +
                                                           " bytes of UTF-8, got " + std::to_string(s.size()));
  *out = std::move(s);
  return attn::Status::Ok();
}

}  // namespace attnjs
