#include "js_convert.h"

#include "js_options.h"

#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>

#include <cctype>
#include <string>
#include <utility>

// {data: a typed array of exactly `length` numbers} from a matrix's data, or what is wrong with it:
// {notData}, {length} of another count, {at, value} for a value of another type than number (a
// string, boolean, null, nested array or BigInt, which Number() would have coerced), {at, threw}.
// A typed array (not BigInt64Array, BigUint64Array or a DataView) is taken as it is; an array is
// copied here into a Float32Array. Whatever throws (a getter, a Proxy) is caught.
EM_JS(emscripten::EM_VAL, attnjs_matrix_data, (emscripten::EM_VAL handle, double length), {
  const data = Emval.toValue(handle);
  let at = -1;
  try {
    if (ArrayBuffer.isView(data)) {
      const kind = Object.prototype.toString.call(data).slice(8, -1);
      if (kind === "DataView" || kind.startsWith("Big")) return Emval.toHandle({notData: true});
      const n = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), "length").get.call(data);
      return Emval.toHandle(n === length ? {data} : {length: n});
    }
    if (!Array.isArray(data)) return Emval.toHandle({notData: true});
    if (data.length !== length) return Emval.toHandle({length: data.length});
    const out = new Float32Array(length);
    for (at = 0; at < length; ++at) {
      const x = data[at];
      if (typeof x !== "number") return Emval.toHandle({at, value: x});
      out[at] = x;
    }
    return Emval.toHandle({data: out});
  } catch (e) {
    let error = "an exception";
    try { error = String(e && e.message !== undefined ? e.message : e).slice(0, 80); } catch (e2) {}
    return Emval.toHandle({at, threw: error});
  }
});

namespace attnjs {
namespace {

val ToFloat32Array(const attn::Matrix& m) {
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(static_cast<size_t>(m.size()), m.data()));
}

// The engine's messages name C++ fields (num_heads, window_right); a JS caller wrote numHeads and
// windowRight. Every config key, input and parameter of the JS API whose C++ name differs.
constexpr std::pair<const char*, const char*> kJsNames[] = {
    {"num_kv_heads", "numKvHeads"},   {"num_heads", "numHeads"},
    {"value_head_dim", "valueHeadDim"}, {"head_dim", "headDim"},
    {"output_dim", "outputDim"},      {"window_left", "windowLeft"},
    {"window_right", "windowRight"},  {"position_base", "positionBase"},
    {"max_positions", "maxPositions"}, {"additive_dim", "additiveDim"},
    {"cosine_temperature", "cosineTemperature"}, {"relative_center", "relativeCenter"},
    {"relative_sharpness", "relativeSharpness"}, {"float_mask", "floatMask"},
    {"project_inputs", "projectInputs"}, {"project_output", "projectOutput"},
    {"use_bias", "useBias"},          {"d_output", "dOutput"},
    {"d_model", "dModel"},
};

bool IdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `message` with each whole-word C++ name replaced by its JS name ("num_heads: expected a divisor
// of d_model" -> "numHeads: expected a divisor of dModel"); values such as 'wasm_simd128' are no
// field names and stay.
std::string WithJsNames(std::string message) {
  for (const auto& [cpp, js] : kJsNames) {
    const size_t length = std::char_traits<char>::length(cpp);
    for (size_t at = message.find(cpp); at != std::string::npos; at = message.find(cpp, at)) {
      // A key the caller wrote and the JS layer refused ("window_right: unknown option (did you
      // mean windowRight?)") stays as written.
      const bool callers_key = message.compare(at + length, 16, ": unknown option") == 0;
      const bool whole = (at == 0 || !IdentifierChar(message[at - 1])) &&
                         (at + length == message.size() || !IdentifierChar(message[at + length])) && !callers_key;
      if (whole) {
        message.replace(at, length, js);
        at += std::char_traits<char>::length(js);
      } else {
        at += length;
      }
    }
  }
  return message;
}

}  // namespace

// {rows, cols, data: Float32Array}: a row-major matrix for JS.
val ToJsMatrix(const attn::Matrix& m) {
  val out = val::object();
  out.set("rows", static_cast<int>(m.rows()));
  out.set("cols", static_cast<int>(m.cols()));
  out.set("data", ToFloat32Array(m));
  return out;
}

val ToJsStrings(const std::vector<std::string>& strings) {
  val out = val::array();
  for (size_t i = 0; i < strings.size(); ++i) out.set(i, strings[i]);
  return out;
}

val ErrorObject(const attn::Status& status) {
  val out = val::object();
  out.set("ok", false);
  out.set("code", std::string(attn::StatusCodeName(status.code())));
  out.set("message", WithJsNames(status.message()));
  return out;
}

val ResultObject(const attn::AttentionResult& result) {
  val out = val::object();
  out.set("ok", true);
  val heads = val::array();
  for (size_t h = 0; h < result.heads.size(); ++h) {
    const attn::HeadIntermediates& head = result.heads[h];
    val o = val::object();
    o.set("q", ToJsMatrix(head.q));
    o.set("k", ToJsMatrix(head.k));
    o.set("v", ToJsMatrix(head.v));
    o.set("rawScores", ToJsMatrix(head.raw_scores));
    o.set("scaledScores", ToJsMatrix(head.scaled_scores));
    o.set("cappedScores", ToJsMatrix(head.capped_scores));
    o.set("scores", ToJsMatrix(head.scores));
    o.set("weights", ToJsMatrix(head.weights));
    o.set("output", ToJsMatrix(head.output));
    heads.set(h, o);
  }
  out.set("heads", heads);
  out.set("output", ToJsMatrix(result.output));
  return out;
}

attn::Status CheckJsMatrix(const std::string& what, const val& m_js, JsMatrixArg* out) {
  *out = JsMatrixArg();
  if (IsAbsent(m_js)) return attn::Status::Ok();
  if (!IsPlainObject(m_js))
    return attn::Status(attn::StatusCode::kInvalidArgument, what + ": expected a matrix {rows, cols, data}, got " + DescribeJsValue(m_js));
  val m = val::undefined();
  ATTN_RETURN_IF_ERROR(OwnFields(m_js, what, &m));
  int rows = -1, cols = -1;
  for (const char* size : {"rows", "cols"})
    if (m[size].isUndefined())
      return attn::Status(attn::StatusCode::kInvalidArgument, what + "." + size + ": expected an integer, got undefined");
  ATTN_RETURN_IF_ERROR(ReadInt(m["rows"], what + ".rows", &rows));
  ATTN_RETURN_IF_ERROR(ReadInt(m["cols"], what + ".cols", &cols));
  if (rows < 0 || cols < 0)
    return attn::Status(attn::StatusCode::kShapeMismatch, what + ": expected {rows, cols, data} with rows, cols >= 0, got rows " +
                                                               std::to_string(rows) + ", cols " + std::to_string(cols));
  const int64_t values = int64_t{rows} * cols;
  if (values > kMaxJsMatrixValues)
    return attn::Status(attn::StatusCode::kResourceExhausted,
                        what + ": rows·cols = " + std::to_string(rows) + "·" + std::to_string(cols) + " = " + std::to_string(values) +
                            " values, over the limit of " + std::to_string(kMaxJsMatrixValues));
  const val r = val::take_ownership(attnjs_matrix_data(m["data"].as_handle(), static_cast<double>(values)));
  if (r["data"].isUndefined()) {
    const int at = r["at"].isUndefined() ? -1 : r["at"].as<int>();
    const std::string where = what + ".data" + (at >= 0 ? "[" + std::to_string(at) + "]" : "");
    if (!r["threw"].isUndefined())
      return attn::Status(attn::StatusCode::kInvalidArgument, where + ": reading it threw " + r["threw"].as<std::string>());
    if (!r["length"].isUndefined())
      return attn::Status(attn::StatusCode::kShapeMismatch, what + ": expected rows·cols = " + std::to_string(values) +
                                                                 " values, got " + val::global("String")(r["length"]).as<std::string>());
    if (at >= 0)
      return attn::Status(attn::StatusCode::kInvalidArgument, where + ": expected a number, got " + DescribeJsValue(r["value"]));
    return attn::Status(attn::StatusCode::kInvalidArgument,
                        where + ": expected a Float32Array or an array of numbers, got " + DescribeJsValue(m["data"]));
  }
  out->given = true;
  out->rows = rows;
  out->cols = cols;
  out->data = r["data"];
  return attn::Status::Ok();
}

attn::Status CopyJsMatrix(const JsMatrixArg& arg, attn::Matrix* out) {
  out->resize(arg.rows, arg.cols);
  // A typed array into a typed array: converted by value, no caller code runs, nothing can throw.
  if (out->size() > 0) val(emscripten::typed_memory_view(static_cast<size_t>(out->size()), out->data())).call<void>("set", arg.data);
  return attn::Status::Ok();
}


}  // namespace attnjs
