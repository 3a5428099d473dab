#include "js_options.h"

#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <climits>
#include <cmath>

#include "attn/validate.h"

// The JS side of the strict reading. Every step that can run a caller's code (a getter, a Proxy's
// trap, valueOf, a revoked Proxy's TypeError) runs here inside try/catch: a JS exception thrown
// through C++ frames skips their destructors, and a refused call leaked what it had allocated (1 MB
// per forward() whose last value was a BigInt: 16 -> 1096 MB over 1000 calls, issue 26).
EM_JS(emscripten::EM_VAL, attnjs_describe, (emscripten::EM_VAL handle), {
  const v = Emval.toValue(handle);
  let text = "an object";
  try {
    if (v === undefined) text = "undefined";
    else if (v === null) text = "null";
    else if (typeof v === "string") text = "the string \"" + (v.length > 40 ? v.slice(0, 40) + "…" : v) + "\"";
    else if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") text = "the " + typeof v + " " + String(v);
    else if (typeof v === "function") text = "a function";
    else if (typeof v === "symbol") text = "a symbol";
    else if (Array.isArray(v)) text = "an array";
    else if (ArrayBuffer.isView(v)) text = "a " + Object.prototype.toString.call(v).slice(8, -1);
  } catch (e) {
    text = "an object";  // a revoked Proxy
  }
  return Emval.toHandle(text);
});

EM_JS(int, attnjs_is_plain_object, (emscripten::EM_VAL handle), {
  const v = Emval.toValue(handle);
  try {
    return typeof v === "object" && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v) ? 1 : 0;
  } catch (e) {
    return 0;
  }
});

// {fields}: a prototype-less copy of the object's own enumerable string keys (inherited keys, a
// polluted Object.prototype's included, are not options), each getter run once here; or {error}.
EM_JS(emscripten::EM_VAL, attnjs_own_fields, (emscripten::EM_VAL handle), {
  const o = Emval.toValue(handle);
  try {
    const fields = Object.create(null);
    for (const key of Object.keys(o)) fields[key] = o[key];
    return Emval.toHandle({fields});
  } catch (e) {
    let error = "an exception";
    try { error = String(e && e.message !== undefined ? e.message : e).slice(0, 80); } catch (e2) {}
    return Emval.toHandle({error});
  }
});

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
  return val::take_ownership(attnjs_describe(v.as_handle())).as<std::string>();
}

bool IsAbsent(const val& v) { return v.isUndefined() || v.isNull(); }

bool IsPlainObject(const val& v) { return attnjs_is_plain_object(v.as_handle()) != 0; }

attn::Status OwnFields(const val& o, const std::string& what, val* own) {
  const val r = val::take_ownership(attnjs_own_fields(o.as_handle()));
  if (!r["error"].isUndefined())
    return attn::Status(attn::StatusCode::kInvalidArgument, what + ": reading its keys threw " + r["error"].as<std::string>());
  *own = r["fields"];
  return attn::Status::Ok();
}

attn::Status CheckOptions(const val& o, const std::string& what, const std::vector<const char*>& known, bool optional,
                          val* own) {
  *own = val::undefined();
  if (optional && IsAbsent(o)) return attn::Status::Ok();
  if (!IsPlainObject(o)) return WrongType(what, "an object", o);
  val fields = val::undefined();
  ATTN_RETURN_IF_ERROR(OwnFields(o, what, &fields));
  const val keys = val::global("Object").call<val>("keys", fields);
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
  *own = fields;
  return attn::Status::Ok();
}

attn::Status ReadInt(const val& v, const std::string& name, int* out, int lo, int hi) {
  if (v.isUndefined()) return attn::Status::Ok();
  double x = 0;
  ATTN_RETURN_IF_ERROR(ReadInteger(v, name, lo, hi, &x));
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
