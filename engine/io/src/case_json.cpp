// Case files <-> Case structs. nlohmann/json is used without exceptions: every access is
// type-checked first, so a malformed file becomes a kParseError, never a throw or an abort.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attn/case_io.h"

namespace attn {
namespace {

using Json = nlohmann::json;

// JSON text of `j`. Invalid UTF-8 is replaced, not thrown: the engine builds without exceptions,
// where nlohmann's throw would abort.
std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

Status ParseTensor(const std::string& where, const Json& j, Tensor* out) {
  if (!j.is_object()) return ParseError(where, "expected a tensor object {dims, dtype, data}");
  const auto dims = j.find("dims"), dtype = j.find("dtype"), data = j.find("data");
  if (dims == j.end() || !dims->is_array()) return ParseError(where, "\"dims\" must be an array");
  if (dtype == j.end() || !dtype->is_string())
    return ParseError(where, "\"dtype\" must be a string");
  if (data == j.end() || !data->is_array()) return ParseError(where, "\"data\" must be an array");

  Tensor t;
  if (!ParseDType(dtype->get<std::string>(), &t.dtype)) {
    return ParseError(where, "unknown dtype \"" + dtype->get<std::string>() +
                                 "\" (expected float32, float16, bool or int64)");
  }
  for (const Json& d : *dims) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      return ParseError(where, "dims must be non-negative integers, got " + Dump(d));
    }
    t.dims.push_back(d.get<int64_t>());
  }
  // A product of dims past 2^40 elements cannot be a real case; stop before it overflows.
  int64_t count = 1;
  for (int64_t d : t.dims) {
    if (d != 0 && count > (int64_t{1} << 40) / d) return ParseError(where, "dims are too large");
    count *= d;
  }
  if (static_cast<int64_t>(data->size()) != count) {
    return ParseError(where, "data has " + std::to_string(data->size()) + " elements, dims say " +
                                 std::to_string(count));
  }

  for (size_t i = 0; i < data->size(); ++i) {
    const Json& e = (*data)[i];
    const std::string at = where + ".data[" + std::to_string(i) + "]";
    switch (t.dtype) {
      case DType::kFloat32:
      case DType::kFloat16: {
        float v = 0;
        if (!ParseFloatElement(e, &v)) {
          return ParseError(at, "expected a number or \"inf\", \"-inf\", \"nan\", got " + Dump(e));
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
          return ParseError(at, "expected true, false, 0 or 1, got " + Dump(e));
        break;
      case DType::kInt64:
        if (!e.is_number_integer()) return ParseError(at, "expected an integer, got " + Dump(e));
        t.integers.push_back(e.get<int64_t>());
        break;
    }
  }
  *out = std::move(t);
  return Status::Ok();
}

Status ParseTensorMap(const std::string& where, const Json& j, TensorMap* out) {
  if (!j.is_object()) return ParseError(where, "expected an object of named tensors");
  for (auto it = j.begin(); it != j.end(); ++it) {
    ATTN_RETURN_IF_ERROR(ParseTensor(where + "." + it.key(), it.value(), &(*out)[it.key()]));
  }
  return Status::Ok();
}

// Appends one float element: 9 significant digits round-trip every float32 exactly.
void AppendFloat(float v, std::string* out) {
  if (std::isnan(v)) {
    *out += "\"nan\"";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "\"inf\"" : "\"-inf\"";
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
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
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

Status ParseCase(std::string_view json_text, Case* out) {
  const Json j = Json::parse(json_text.begin(), json_text.end(), /*cb=*/nullptr,
                             /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError("case", "not valid JSON");
  if (!j.is_object()) return ParseError("case", "expected a JSON object");

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
        return ParseError("attributes." + a.key(), "expected a number, got " + Dump(a.value()));
      }
      c.attributes[a.key()] = a.value().get<double>();
    }
  }
  const auto inputs = j.find("inputs");
  if (inputs == j.end()) return ParseError("case", "missing \"inputs\"");
  ATTN_RETURN_IF_ERROR(ParseTensorMap("inputs", *inputs, &c.inputs));
  if (auto it = j.find("outputs"); it != j.end()) {
    ATTN_RETURN_IF_ERROR(ParseTensorMap("outputs", *it, &c.outputs));
  }
  *out = std::move(c);
  return Status::Ok();
}

Status ReadCaseFile(const std::string& path, Case* out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return ParseError(path, "cannot open file");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return ParseError(path, "read failed");
  const Status status = ParseCase(text.str(), out);
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
