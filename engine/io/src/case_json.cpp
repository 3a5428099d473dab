// Case files <-> Case structs. nlohmann/json is used without exceptions: every access is
// type-checked first, so a malformed file becomes a kParseError, never a throw or an abort.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "attn/case_io.h"
#include "case_ops.h"

namespace attn {
namespace {

using Json = nlohmann::json;

// JSON text of `j`. Invalid UTF-8 is replaced, not thrown: the engine builds without exceptions,
// where nlohmann's throw would abort. Only for short values: dump() recurses once per level.
std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A bad value for a message, bounded whatever its size or depth: scalars as JSON (strings cut by
// Excerpt), arrays and objects by their size only.
std::string ValueExcerpt(const Json& j) {
  switch (j.type()) {
    case Json::value_t::array: return "an array of " + std::to_string(j.size()) + " elements";
    case Json::value_t::object: return "an object of " + std::to_string(j.size()) + " members";
    case Json::value_t::string: return case_ops::Excerpt(j.get_ref<const std::string&>());
    default: return Dump(j);  // a number, true, false or null: short
  }
}

// kParseError when brackets in `text` nest deeper than `max_depth`, before any parser sees it:
// a deep value is cheap to write (2 bytes a level) and every recursive walk of it (dump, copy)
// would overflow the stack. Brackets inside strings do not count.
Status CheckNesting(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) {
        return Status(StatusCode::kParseError, "case: nesting deeper than " +
                                                   std::to_string(max_depth) + " levels at byte " +
                                                   std::to_string(i));
      }
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  return Status::Ok();
}

Status ParseError(const std::string& where, const std::string& what) {
  return Status(StatusCode::kParseError, where + ": " + what);
}

bool ParseDType(const std::string& name, DType* out) {
  for (DType d : {DType::kFloat32, DType::kFloat16, DType::kBool, DType::kInt64}) {
    if (name == DTypeName(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

// A float element: a JSON number or one of the strings "inf", "-inf", "nan".
bool ParseFloatElement(const Json& j, float* out) {
  if (j.is_number()) {
    *out = static_cast<float>(j.get<double>());
    return true;
  }
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  if (s == "inf")
    *out = std::numeric_limits<float>::infinity();
  else if (s == "-inf")
    *out = -std::numeric_limits<float>::infinity();
  else if (s == "nan")
    *out = std::numeric_limits<float>::quiet_NaN();
  else
    return false;
  return true;
}

Status ParseTensor(const std::string& where, const Json& j, const CaseLimits& limits,
                   Tensor* out) {
  if (!j.is_object()) return ParseError(where, "expected a tensor object {dims, dtype, data}");
  // A misspelt key ("dtpye") must not leave a field silently at its default.
  for (auto key = j.begin(); key != j.end(); ++key)
    ATTN_RETURN_IF_ERROR(case_ops::CheckKnownName(key.key(), {"dims", "dtype", "data"}, "key", "a tensor"));
  const auto dims = j.find("dims"), dtype = j.find("dtype"), data = j.find("data");
  if (dims == j.end() || !dims->is_array()) return ParseError(where, "\"dims\" must be an array");
  if (dtype == j.end() || !dtype->is_string())
    return ParseError(where, "\"dtype\" must be a string");
  if (data == j.end() || !data->is_array()) return ParseError(where, "\"data\" must be an array");

  Tensor t;
  if (!ParseDType(dtype->get<std::string>(), &t.dtype)) {
    return ParseError(where, "unknown dtype " + ValueExcerpt(*dtype) +
                                 " (expected float32, float16, bool or int64)");
  }
  for (const Json& d : *dims) {
    // Unsigned integers past int64's range are integers too: they would wrap to negative.
    if (!d.is_number_integer() || (d.is_number_unsigned() && d.get<uint64_t>() > INT64_MAX) ||
        d.get<int64_t>() < 0) {
      return ParseError(where, "dims must be non-negative integers, got " + ValueExcerpt(d));
    }
    t.dims.push_back(d.get<int64_t>());
  }
  // Before the data is converted: what the dims promise must fit the limit, overflow included.
  ATTN_RETURN_IF_ERROR(case_ops::CheckElements(where, t.dims, limits));
  const int64_t count = t.NumElements();
  if (static_cast<int64_t>(data->size()) != count) {
    return ParseError(where, "data has " + std::to_string(data->size()) + " elements, dims say " +
                                 std::to_string(count));
  }

  if (t.dtype == DType::kInt64)
    t.integers.reserve(data->size());
  else
    t.values.reserve(data->size());
  for (size_t i = 0; i < data->size(); ++i) {
    const Json& e = (*data)[i];
    const std::string at = where + ".data[" + std::to_string(i) + "]";
    switch (t.dtype) {
      case DType::kFloat32:
      case DType::kFloat16: {
        float v = 0;
        if (!ParseFloatElement(e, &v)) {
          return ParseError(at, "expected a number or \"inf\", \"-inf\", \"nan\", got " +
                                    ValueExcerpt(e));
        }
        t.values.push_back(t.dtype == DType::kFloat16 ? RoundToFloat16(v) : v);
        break;
      }
      case DType::kBool:
        // Writers differ: numpy dumps true/false, some tools 0/1.
        if (e.is_boolean())
          t.values.push_back(e.get<bool>() ? 1.0f : 0.0f);
        else if (e.is_number_integer() && (e.get<int64_t>() == 0 || e.get<int64_t>() == 1))
          t.values.push_back(static_cast<float>(e.get<int64_t>()));
        else
          return ParseError(at, "expected true, false, 0 or 1, got " + ValueExcerpt(e));
        break;
      case DType::kInt64:
        if (!e.is_number_integer() || (e.is_number_unsigned() && e.get<uint64_t>() > INT64_MAX))
          return ParseError(at, "expected an int64 integer, got " + ValueExcerpt(e));
        t.integers.push_back(e.get<int64_t>());
        break;
    }
  }
  *out = std::move(t);
  return Status::Ok();
}

Status ParseTensorMap(const std::string& where, const Json& j, const CaseLimits& limits,
                      TensorMap* out) {
  if (!j.is_object()) return ParseError(where, "expected an object of named tensors");
  for (auto it = j.begin(); it != j.end(); ++it) {
    ATTN_RETURN_IF_ERROR(ParseTensor(where + "." + case_ops::Excerpt(it.key()), it.value(), limits,
                                     &(*out)[it.key()]));
  }
  return Status::Ok();
}

// Appends one float element: 9 significant digits round-trip every float32 exactly.
void AppendFloat(float v, std::string* out) {
  if (std::isnan(v)) {
    *out += "\"nan\"";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "\"inf\"" : "\"-inf\"";
  } else if (v == 0 && std::signbit(v)) {
    // "%.9g" writes "-0", which JSON readers (nlohmann too) take as the integer 0: the sign of a
    // fully masked row's zero would be lost.
    *out += "-0.0";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
    *out += buf;
  }
}

void AppendTensor(const Tensor& t, std::string* out) {
  *out += "{\"dims\":[";
  for (size_t i = 0; i < t.dims.size(); ++i) *out += (i ? "," : "") + std::to_string(t.dims[i]);
  *out += "],\"dtype\":\"";
  *out += DTypeName(t.dtype);
  *out += "\",\"data\":[";
  const size_t n = t.dtype == DType::kInt64 ? t.integers.size() : t.values.size();
  for (size_t i = 0; i < n; ++i) {
    if (i) *out += ",";
    switch (t.dtype) {
      case DType::kFloat32: AppendFloat(t.values[i], out); break;
      case DType::kFloat16: AppendFloat(RoundToFloat16(t.values[i]), out); break;
      case DType::kBool: *out += t.values[i] != 0 ? "true" : "false"; break;
      case DType::kInt64: *out += std::to_string(t.integers[i]); break;
    }
  }
  *out += "]}";
}

}  // namespace

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBool: return "bool";
    case DType::kInt64: return "int64";
  }
  return "unknown";
}

int64_t Tensor::NumElements() const {
  int64_t n = 0;
  return case_ops::CountElements(dims, std::numeric_limits<int64_t>::max(), &n)
             ? n
             : std::numeric_limits<int64_t>::max();
}

float RoundToFloat16(float value) {
  if (std::isnan(value)) return value;
  const float magnitude = std::fabs(value);
  // 65520 is halfway between float16's largest finite value (65504) and the next step: it rounds
  // up.
  if (magnitude >= 65520.0f) return std::copysign(std::numeric_limits<float>::infinity(), value);
  // float16 has 10 fraction bits down to 2^-14; below that the spacing stays 2^-24 (subnormals).
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m · 2^exponent with m in [0.5, 1)
  const int step_exponent = std::max(exponent - 11, -24);
  // nearbyint rounds half to even under the default rounding mode, like IEEE conversion.
  const float steps = std::nearbyint(std::ldexp(magnitude, -step_exponent));
  return std::copysign(std::ldexp(steps, step_exponent), value);
}

Status ParseCase(std::string_view json_text, Case* out, const CaseLimits& limits) {
  if (static_cast<int64_t>(json_text.size()) > limits.max_input_bytes) {
    return Status(StatusCode::kResourceExhausted,
                  "case: " + std::to_string(json_text.size()) +
                      " bytes is more than the limit of " +
                      std::to_string(limits.max_input_bytes) + " bytes (max_input_bytes)");
  }
  ATTN_RETURN_IF_ERROR(CheckNesting(json_text, limits.max_nesting_depth));
  const Json j = Json::parse(json_text.begin(), json_text.end(), /*cb=*/nullptr,
                             /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError("case", "not valid JSON");
  if (!j.is_object()) return ParseError("case", "expected a JSON object");
  // A misspelt key ("attribute", "output") must not silently drop what it holds.
  for (auto key = j.begin(); key != j.end(); ++key) {
    ATTN_RETURN_IF_ERROR(case_ops::CheckKnownName(
        key.key(), {"name", "op", "opset", "attributes", "inputs", "outputs"}, "key", "a case"));
  }

  Case c;
  if (auto it = j.find("name"); it != j.end()) {
    if (!it->is_string()) return ParseError("name", "expected a string");
    c.name = it->get<std::string>();
  }
  if (auto it = j.find("op"); it != j.end()) {
    if (!it->is_string()) return ParseError("op", "expected a string");
    c.op = it->get<std::string>();
  }
  if (auto it = j.find("opset"); it != j.end()) {
    if (!it->is_number_integer()) return ParseError("opset", "expected an integer");
    c.opset = it->get<int64_t>();
  }
  if (auto it = j.find("attributes"); it != j.end()) {
    if (!it->is_object()) return ParseError("attributes", "expected an object");
    for (auto a = it->begin(); a != it->end(); ++a) {
      if (!a.value().is_number()) {
        return ParseError("attributes." + case_ops::Excerpt(a.key()),
                          "expected a number, got " + ValueExcerpt(a.value()));
      }
      c.attributes[a.key()] = a.value().get<double>();
    }
  }
  const auto inputs = j.find("inputs");
  if (inputs == j.end()) return ParseError("case", "missing \"inputs\"");
  ATTN_RETURN_IF_ERROR(ParseTensorMap("inputs", *inputs, limits, &c.inputs));
  if (auto it = j.find("outputs"); it != j.end()) {
    ATTN_RETURN_IF_ERROR(ParseTensorMap("outputs", *it, limits, &c.outputs));
  }
  *out = std::move(c);
  return Status::Ok();
}

Status ReadCaseFile(const std::string& path, Case* out, const CaseLimits& limits) {
  // Only regular files: a directory "opens" and reads nothing; /dev/zero, /dev/urandom and pipes
  // never end. The size is known before a byte is read.
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return ParseError(path, "cannot open file");
  if (S_ISDIR(info.st_mode)) return ParseError(path, "is a directory, not a case file");
  if (!S_ISREG(info.st_mode))
    return ParseError(path, "not a regular file (a device, pipe or socket), not a case file");
  if (static_cast<int64_t>(info.st_size) > limits.max_input_bytes) {
    return Status(StatusCode::kResourceExhausted,
                  path + ": " + std::to_string(info.st_size) + " bytes is more than the limit of " +
                      std::to_string(limits.max_input_bytes) + " bytes (max_input_bytes)");
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return ParseError(path, "cannot open file");
  // Reads at most one byte past the limit, even if the file grew since stat().
  std::string text(static_cast<size_t>(info.st_size), '\0');
  text.resize(std::fread(text.data(), 1, text.size(), file));
  char extra[4096];
  while (static_cast<int64_t>(text.size()) <= limits.max_input_bytes) {
    const size_t n = std::fread(extra, 1, sizeof(extra), file);
    if (n == 0) break;
    text.append(extra, n);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return ParseError(path, "read failed");
  const Status status = ParseCase(text, out, limits);
  if (!status.ok()) return Status(status.code(), path + ": " + status.message());
  if (out->name.empty()) out->name = path;
  return Status::Ok();
}

std::string OutputsToJson(const TensorMap& outputs) {
  std::string out = "{\"outputs\":{";
  bool first = true;
  for (const auto& [name, tensor] : outputs) {
    if (!first) out += ",";
    first = false;
    out += Dump(Json(name));  // quotes and escapes the name
    out += ":";
    AppendTensor(tensor, &out);
  }
  out += "}}";
  return out;
}

}  // namespace attn
