// The engine's JS API: forward, forwardOutput, backward, selfAttention, prepare (a layer kept for many
// forward calls; the npm package only), the tokenizer and hashed
// vectors, the kernels, the version. The page (attnlab.js) and the npm package (web/lib/) both bind it. Every call returns a plain object ({ok: false, code, message} on bad input): every
// argument is checked strictly (js_options.h) and its size in 64 bits before anything is copied
// or allocated, and every body runs inside Guarded (js_guard.h), so no exception crosses into JS.
#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention.h"
#include "attn/config_names.h"
#include "attn/grad.h"
#include "attn/kernel_choice.h"
#include "attn/limits.h"
#include "attn/prepared_attention.h"
#include "attn/version.h"
#include "js_convert.h"
#include "js_guard.h"
#include "js_options.h"
#include "attn/text.h"

// {tokens: a fresh array of the strings} from hashEmbeddings' argument, or {message, tooMany}: an
// array of at most `max_tokens` strings of at most `max_units` UTF-16 units each, read in JS inside
// try/catch (a Proxy or a getter cannot throw through C++ frames).
EM_JS(emscripten::EM_VAL, attnjs_token_list, (emscripten::EM_VAL handle, int max_tokens, double max_units), {
  const v = Emval.toValue(handle);
  try {
    if (!Array.isArray(v)) return Emval.toHandle({message: "tokens: expected an array of strings, got " + (v === null ? "null" : typeof v === "object" ? "an object" : "the " + typeof v + (typeof v === "symbol" ? "" : " " + String(v).slice(0, 40))), tooMany: false});
    const n = v.length;
    if (n > max_tokens) return Emval.toHandle({message: "tokens: expected at most " + max_tokens + ", got " + n, tooMany: true});
    const tokens = new Array(n);
    for (let i = 0; i < n; ++i) {
      const t = v[i];
      if (typeof t !== "string") return Emval.toHandle({message: "tokens[" + i + "]: expected a string, got " + (t === null ? "null" : typeof t === "object" ? (Array.isArray(t) ? "an array" : "an object") : typeof t === "number" || typeof t === "boolean" || typeof t === "bigint" ? "the " + typeof t + " " + String(t) : "a " + typeof t), tooMany: false});
      if (t.length > max_units) return Emval.toHandle({message: "tokens[" + i + "]: expected at most " + max_units + " bytes, got " + t.length + " characters", tooMany: false});
      tokens[i] = t;
    }
    return Emval.toHandle({tokens});
  } catch (e) {
    let error = "an exception";
    try { error = String(e && e.message !== undefined ? e.message : e).slice(0, 80); } catch (e2) {}
    return Emval.toHandle({message: "tokens: reading it threw " + error, tooMany: false});
  }
});

using emscripten::val;
using namespace attnjs;

namespace {

// forward() keeps five (n, m) matrices per head (raw, scaled, capped, masked scores and weights)
// and copies each to JS: heads·n·m is kept to 2^24 (n = 4096 with one head, 320 MiB in wasm).
// Longer sequences go through forwardOutput on a SIMD kernel, which never builds them.
constexpr int64_t kMaxForwardScoreValues = int64_t{1} << 24;
// tokenize(): the text (UTF-8 bytes), and hashEmbeddings(): the tokens.
constexpr size_t kMaxTextBytes = size_t{1} << 24;
constexpr int kMaxTokens = 1 << 20;
constexpr int kMaxHashDim = 4096;

// A whole number held in a double, written out in full ("281474976710656").
std::string Integer(double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

// selfAttention(x: Float32Array|number[], n, d, {scale?, temperature?, kernel?})
val SelfAttention(val x, val n_js, val d_js, val options_js) {
  int n = -1, d = -1;
  ATTN_JS_RETURN_IF_ERROR(ReadInt(n_js, "n", &n));
  ATTN_JS_RETURN_IF_ERROR(ReadInt(d_js, "d", &d));
  val options = val::undefined();
  ATTN_JS_RETURN_IF_ERROR(CheckOptions(options_js, "options", {"scale", "temperature", "kernel"}, true, &options));
  attn::AttentionConfig config;
  if (!IsAbsent(options)) {
    ATTN_JS_RETURN_IF_ERROR(ReadFloat(options["scale"], "scale", &config.scale));
    ATTN_JS_RETURN_IF_ERROR(ReadFloat(options["temperature"], "temperature", &config.temperature));
    std::string kernel;
    ATTN_JS_RETURN_IF_ERROR(ReadString(options["kernel"], "kernel", 64, &kernel));
    if (!kernel.empty()) ATTN_JS_RETURN_IF_ERROR(attn::ParseKernel(kernel, &config.kernel));
  }
  if (n < 0 || d < 0)
    return ErrorObject(attn::Status(attn::StatusCode::kShapeMismatch,
                                    "x: expected n, d >= 0, got n " + std::to_string(n) + ", d " + std::to_string(d)));
  val matrix = val::object();
  matrix.set("rows", n);
  matrix.set("cols", d);
  matrix.set("data", x);
  JsMatrixArg arg;
  ATTN_JS_RETURN_IF_ERROR(CheckJsMatrix("x", matrix, &arg));
  if (static_cast<double>(n) * n > static_cast<double>(kMaxForwardScoreValues))
    return ErrorObject(attn::Status(attn::StatusCode::kResourceExhausted,
                                    "x: n·n = " + Integer(static_cast<double>(n) * n) + " scores, over the limit of " +
                                        std::to_string(kMaxForwardScoreValues) + " (use forwardOutput for long sequences)"));
  attn::Matrix m;
  ATTN_JS_RETURN_IF_ERROR(CopyJsMatrix(arg, &m));
  attn::AttentionResult result;
  const attn::Status status = attn::SelfAttention(config, m, &result);
  return status.ok() ? ResultObject(result) : ErrorObject(status);
}

// The keys of forward()'s and forwardOutput()'s config, in AttentionConfig's terms.
const std::vector<const char*> kConfigKeys = {
    "scale",        "temperature", "cosineTemperature", "additiveDim",  "numHeads",     "numKvHeads", "headDim",
    "valueHeadDim", "outputDim",   "softcap",           "windowLeft",   "windowRight",  "positionBase",
    "maxPositions", "seed",        "projectInputs",     "projectOutput", "useBias",     "causal",     "score",
    "normalizer",   "position",    "kernel"};

// Reads the JS options object into an AttentionConfig (camelCase keys, enum names as strings),
// strictly: every key known, every value of its type.
// Integers within the engine's documented ranges (attn/limits.h), so a message quotes them.
constexpr int kMaxHeads = static_cast<int>(attn::Limits::max_heads);
constexpr int kMaxDimension = static_cast<int>(attn::Limits::max_dimension);

// *own: the options' own fields (CheckOptions), for keys the caller reads beside the config's.
attn::Status ConfigFromJs(const val& o_js, attn::AttentionConfig* c, const char* what = "config",
                          const std::vector<const char*>& known = kConfigKeys, val* own = nullptr) {
  val o = val::undefined();
  ATTN_RETURN_IF_ERROR(CheckOptions(o_js, what, known, true, &o));
  if (own) *own = o;
  if (IsAbsent(o)) return attn::Status::Ok();
  ATTN_RETURN_IF_ERROR(ReadFloat(o["scale"], "scale", &c->scale));
  ATTN_RETURN_IF_ERROR(ReadFloat(o["temperature"], "temperature", &c->temperature));
  ATTN_RETURN_IF_ERROR(ReadFloat(o["cosineTemperature"], "cosineTemperature", &c->cosine_temperature));
  ATTN_RETURN_IF_ERROR(ReadInt(o["additiveDim"], "additiveDim", &c->additive_dim, 0, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadInt(o["numHeads"], "numHeads", &c->num_heads, 1, kMaxHeads));
  ATTN_RETURN_IF_ERROR(ReadInt(o["numKvHeads"], "numKvHeads", &c->num_kv_heads, 0, kMaxHeads));
  ATTN_RETURN_IF_ERROR(ReadInt(o["headDim"], "headDim", &c->head_dim, 0, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadInt(o["valueHeadDim"], "valueHeadDim", &c->value_head_dim, 0, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadInt(o["outputDim"], "outputDim", &c->output_dim, 0, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadFloat(o["softcap"], "softcap", &c->softcap));
  ATTN_RETURN_IF_ERROR(ReadInt(o["windowLeft"], "windowLeft", &c->window_left, -1, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadInt(o["windowRight"], "windowRight", &c->window_right, -1, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadFloat(o["positionBase"], "positionBase", &c->position_base));
  ATTN_RETURN_IF_ERROR(ReadInt(o["maxPositions"], "maxPositions", &c->max_positions, 1, kMaxDimension));
  ATTN_RETURN_IF_ERROR(ReadUint32(o["seed"], "seed", &c->seed));
  ATTN_RETURN_IF_ERROR(ReadBool(o["projectInputs"], "projectInputs", &c->project_inputs));
  ATTN_RETURN_IF_ERROR(ReadBool(o["projectOutput"], "projectOutput", &c->project_output));
  ATTN_RETURN_IF_ERROR(ReadBool(o["useBias"], "useBias", &c->use_bias));
  ATTN_RETURN_IF_ERROR(ReadBool(o["causal"], "causal", &c->causal));
  std::string name;
  ATTN_RETURN_IF_ERROR(ReadString(o["score"], "score", 64, &name));
  if (!name.empty()) ATTN_RETURN_IF_ERROR(attn::ParseScoreFunction(name, &c->score));
  name.clear();
  ATTN_RETURN_IF_ERROR(ReadString(o["normalizer"], "normalizer", 64, &name));
  if (!name.empty()) ATTN_RETURN_IF_ERROR(attn::ParseNormalizer(name, &c->normalizer));
  name.clear();
  ATTN_RETURN_IF_ERROR(ReadString(o["position"], "position", 64, &name));
  if (!name.empty()) ATTN_RETURN_IF_ERROR(attn::ParsePositionEncoding(name, &c->position));
  name.clear();
  ATTN_RETURN_IF_ERROR(ReadString(o["kernel"], "kernel", 64, &name));
  if (!name.empty()) ATTN_RETURN_IF_ERROR(attn::ParseKernel(name, &c->kernel));
  return attn::Status::Ok();
}

// The arguments of forward() / forwardOutput(): config, {query, key?, value?, floatMask?}, params?
// with matrices as {rows, cols, data}. params may give wq, wk, wv, wo, bq, bk, bv, bo,
// relativeCenter (1, h), relativeSharpness (1, h).
struct Call {
  attn::AttentionConfig config;
  attn::AttentionInputs inputs;
  attn::AttentionParameters params;
};

const std::vector<const char*> kInputKeys = {"query", "key", "value", "floatMask"};
const std::vector<const char*> kParamKeys = {"wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo", "relativeCenter", "relativeSharpness"};

// The params argument, checked (ParamsFromJs) before anything is copied (CopyParams).
struct JsParams {
  JsMatrixArg matrices[10];  // in kParamKeys' order
};
attn::Status ParamsFromJs(const val& params_js, JsParams* out) {
  val params = val::undefined();
  ATTN_RETURN_IF_ERROR(CheckOptions(params_js, "params", kParamKeys, true, &params));
  for (size_t i = 0; !IsAbsent(params) && i < kParamKeys.size(); ++i)
    ATTN_RETURN_IF_ERROR(CheckJsMatrix(kParamKeys[i], params[kParamKeys[i]], &out->matrices[i]));
  return attn::Status::Ok();
}
attn::Status CopyParams(const JsParams& params, attn::AttentionParameters* p) {
  attn::Matrix* targets[10] = {&p->wq, &p->wk, &p->wv, &p->wo, &p->bq, &p->bk, &p->bv, &p->bo, &p->relative_center,
                               &p->relative_sharpness};
  for (size_t i = 0; i < kParamKeys.size(); ++i) ATTN_RETURN_IF_ERROR(CopyJsMatrix(params.matrices[i], targets[i]));
  return attn::Status::Ok();
}

// Checks every argument, then (when the call builds (n, m) matrices, `full`) that heads·n·m stays
// within kMaxForwardScoreValues, and only then copies the inputs in.
// A further matrix argument (backward's dOutput), checked with the others, before anything is copied.
struct ExtraMatrix {
  const char* what = nullptr;
  val js = val::undefined();
  JsMatrixArg arg;
};

attn::Status CallFromJs(const val& config_js, const val& inputs_js, const val& params_js, bool fused_allowed, Call* call,
                        bool* fused, ExtraMatrix* extra = nullptr) {
  ATTN_RETURN_IF_ERROR(ConfigFromJs(config_js, &call->config));
  val inputs_own = val::undefined();
  ATTN_RETURN_IF_ERROR(CheckOptions(inputs_js, "inputs", kInputKeys, false, &inputs_own));
  JsMatrixArg query, key, value, float_mask;
  ATTN_RETURN_IF_ERROR(CheckJsMatrix("query", inputs_own["query"], &query));
  ATTN_RETURN_IF_ERROR(CheckJsMatrix("key", inputs_own["key"], &key));
  ATTN_RETURN_IF_ERROR(CheckJsMatrix("value", inputs_own["value"], &value));
  ATTN_RETURN_IF_ERROR(CheckJsMatrix("floatMask", inputs_own["floatMask"], &float_mask));
  JsParams params;
  ATTN_RETURN_IF_ERROR(ParamsFromJs(params_js, &params));
  if (extra && extra->what) ATTN_RETURN_IF_ERROR(CheckJsMatrix(extra->what, extra->js, &extra->arg));

  attn::AttentionInputs shape_only;  // what FusedKernelCovers looks at: whether a float mask is given
  if (float_mask.given && float_mask.rows * float_mask.cols > 0) shape_only.float_mask.emplace_back(1, 1);
  *fused = fused_allowed && attn::FusedKernelCovers(call->config, shape_only);
  if (!*fused) {
    // In doubles: heads (up to 2^31) · n · m would overflow 64 bits; the limit is far inside 2^53.
    const double n = query.rows, m = key.given ? key.rows : query.rows;
    const double heads = std::max(call->config.num_heads, 1);
    if (heads * n * m > static_cast<double>(kMaxForwardScoreValues))
      return attn::Status(attn::StatusCode::kResourceExhausted,
                          "query: heads·n·m = " + Integer(heads) + "·" + Integer(n) + "·" + Integer(m) + " = " +
                              Integer(heads * n * m) + " scores per intermediate, over the limit of " +
                              std::to_string(kMaxForwardScoreValues) +
                              " (forwardOutput with kernel \"wasm_simd128\" needs no n×n matrix)");
  }

  attn::AttentionInputs* inputs = &call->inputs;
  ATTN_RETURN_IF_ERROR(CopyJsMatrix(query, &inputs->query));
  ATTN_RETURN_IF_ERROR(CopyJsMatrix(key, &inputs->key));
  ATTN_RETURN_IF_ERROR(CopyJsMatrix(value, &inputs->value));
  if (float_mask.given && float_mask.rows * float_mask.cols > 0) {
    inputs->float_mask.emplace_back();
    ATTN_RETURN_IF_ERROR(CopyJsMatrix(float_mask, &inputs->float_mask.back()));
  }
  return CopyParams(params, &call->params);
}

// forwardOutput(...): the output alone, {output, fused}; fused on a SIMD kernel ("wasm_simd128")
// for the configs attn::FusedKernelCovers names: no n×n matrix, memory O(n·d).
val ForwardOutput(val config_js, val inputs_js, val params_js) {
  Call call;
  bool fused = false;
  ATTN_JS_RETURN_IF_ERROR(CallFromJs(config_js, inputs_js, params_js, true, &call, &fused));
  attn::Matrix output;
  ATTN_JS_RETURN_IF_ERROR(attn::ForwardOutput(call.config, call.inputs, call.params, &output));
  val out = val::object();
  out.set("ok", true);
  out.set("output", ToJsMatrix(output));
  out.set("fused", fused);
  return out;
}

// forward(...): every intermediate.
val Forward(val config_js, val inputs_js, val params_js) {
  Call call;
  bool fused = false;
  ATTN_JS_RETURN_IF_ERROR(CallFromJs(config_js, inputs_js, params_js, false, &call, &fused));
  attn::AttentionResult result;
  ATTN_JS_RETURN_IF_ERROR(attn::Forward(call.config, call.inputs, call.params, &result));
  val out = ResultObject(result);
  out.set("queryIn", ToJsMatrix(result.query_in));
  out.set("concat", ToJsMatrix(result.concat));
  val p = val::object();
  p.set("wq", ToJsMatrix(result.parameters.wq));
  p.set("wk", ToJsMatrix(result.parameters.wk));
  p.set("wv", ToJsMatrix(result.parameters.wv));
  p.set("wo", ToJsMatrix(result.parameters.wo));
  out.set("parameters", p);
  return out;
}

// backward(config, inputs, dOutput, params?): the gradients of a scalar loss L given
// dOutput = ∂L/∂output, (n, d_out). Arguments as forward's (the same checks and limits: Backward
// runs Forward first and keeps its intermediates). Returns {ok, dQuery, dKey, dValue, dWq, dWk, dWv,
// dWo, dBq, dBk, dBv, dBo, dRelativeCenter, dRelativeSharpness}: a gradient the config does not use
// (no key given, no projections, ...) is a 0×0 matrix.
val Backward(val config_js, val inputs_js, val d_output_js, val params_js) {
  if (IsAbsent(d_output_js))
    return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument,
                                    "dOutput: expected a matrix {rows, cols, data}, got " + DescribeJsValue(d_output_js)));
  Call call;
  bool fused = false;
  ExtraMatrix d_output_arg;
  d_output_arg.what = "dOutput";
  d_output_arg.js = d_output_js;
  ATTN_JS_RETURN_IF_ERROR(CallFromJs(config_js, inputs_js, params_js, false, &call, &fused, &d_output_arg));
  attn::Matrix d_output;  // its shape is checked before the forward pass runs (attn::Backward)
  ATTN_JS_RETURN_IF_ERROR(CopyJsMatrix(d_output_arg.arg, &d_output));
  attn::AttentionGradients g;
  ATTN_JS_RETURN_IF_ERROR(attn::Backward(call.config, call.inputs, call.params, d_output, &g));
  val out = val::object();
  out.set("ok", true);
  const std::pair<const char*, const attn::Matrix*> fields[] = {
      {"dQuery", &g.d_query}, {"dKey", &g.d_key}, {"dValue", &g.d_value}, {"dWq", &g.d_wq},
      {"dWk", &g.d_wk},       {"dWv", &g.d_wv},   {"dWo", &g.d_wo},       {"dBq", &g.d_bq},
      {"dBk", &g.d_bk},       {"dBv", &g.d_bv},   {"dBo", &g.d_bo},       {"dRelativeCenter", &g.d_relative_center},
      {"dRelativeSharpness", &g.d_relative_sharpness}};
  for (const auto& [name, m] : fields) out.set(name, ToJsMatrix(*m));
  return out;
}

// tokenize(text): {ok, tokens}
val Tokenize(val text_js) {
  std::string text;
  if (text_js.isUndefined()) return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument, "text: expected a string, got undefined"));
  ATTN_JS_RETURN_IF_ERROR(ReadString(text_js, "text", kMaxTextBytes, &text));
  val out = val::object();
  out.set("ok", true);
  out.set("tokens", ToJsStrings(attn::Tokenize(text)));
  return out;
}

// hashEmbeddings(tokens: string[], dim): {ok, rows, cols, data}
val HashEmbeddings(val tokens_js, val dim_js) {
  int dim = 0;
  if (dim_js.isUndefined()) return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument, "dim: expected an integer, got undefined"));
  ATTN_JS_RETURN_IF_ERROR(ReadInt(dim_js, "dim", &dim));
  if (dim < 1 || dim > kMaxHashDim)
    return ErrorObject(attn::Status(attn::StatusCode::kOutOfRange,
                                    "dim: expected 1.." + std::to_string(kMaxHashDim) + ", got " + std::to_string(dim)));
  const val r = val::take_ownership(attnjs_token_list(tokens_js.as_handle(), kMaxTokens, static_cast<double>(kMaxTextBytes)));
  if (!r["message"].isUndefined())
    return ErrorObject(attn::Status(r["tooMany"].as<bool>() ? attn::StatusCode::kResourceExhausted : attn::StatusCode::kInvalidArgument,
                                    r["message"].as<std::string>()));
  const val list = r["tokens"];
  const int count = list["length"].as<int>();
  const int64_t values = int64_t{count} * dim;
  if (values > kMaxJsMatrixValues)
    return ErrorObject(attn::Status(attn::StatusCode::kResourceExhausted,
                                    "tokens: tokens·dim = " + std::to_string(count) + "·" + std::to_string(dim) + " = " +
                                        std::to_string(values) + " values, over the limit of " + std::to_string(kMaxJsMatrixValues)));
  std::vector<std::string> tokens(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) tokens[i] = list[i].as<std::string>();
  val out = ToJsMatrix(attn::HashEmbeddings(tokens, dim));
  out.set("ok", true);
  return out;
}

val AvailableKernels() {
  std::vector<std::string> names;
  for (attn::KernelId id : attn::AvailableKernels()) names.emplace_back(attn::KernelName(id));
  return ToJsStrings(names);
}

std::string EngineVersion() { return attn::Version(); }

// kernelChoice() -> {ok, kernel, build, gemmRows, gemmSliceKb, attentionRows, attentionKeys,
// fusedMultiplyAdd, gemmFusedMultiplyAdd, candidates, probeMs, gemmGflops, attentionGflops, setFromElsewhere, text}: how this CPU runs the
// fastest kernel (attn/kernel_choice.h; measured on the first call).
val KernelChoiceJs() {
  const attn::KernelChoice c = attn::ChosenKernelSettings(attn::FastestKernel());
  val out = val::object();
  out.set("ok", true);
  out.set("kernel", std::string(attn::KernelName(c.kernel)));
  out.set("build", std::string(attn::KernelBuildName(c.kernel)));
  out.set("gemmRows", c.gemm_rows);
  out.set("gemmSliceKb", c.gemm_slice_kb);
  out.set("attentionRows", c.attention_rows);
  out.set("attentionKeys", c.attention_keys);
  out.set("fusedMultiplyAdd", c.fused_multiply_add);
  out.set("gemmFusedMultiplyAdd", c.gemm_fused_multiply_add);
  out.set("candidates", c.candidates);
  out.set("probeMs", c.probe_ms);
  out.set("gemmGflops", c.gemm_gflops);
  out.set("attentionGflops", c.attention_gflops);
  out.set("setFromElsewhere", c.set_from_elsewhere);
  out.set("text", attn::DescribeKernelChoice(c));
  return out;
}

// kernelChoiceMade() -> whether the fastest kernel's settings are chosen (probed or set), so a caller
// can read kernelChoice() without starting the probe (the page saves a measured choice for its next load).
bool KernelChoiceMadeJs() { return attn::KernelChoiceMade(attn::FastestKernel()); }

// useDefaultKernelChoice() -> {ok}: today's tiles, unmeasured (attn::DefaultKernelChoice): a page's
// first load, whose worker probes for the next load instead (web/public/mount_kernel_choice.js).
val UseDefaultKernelChoiceJs() {
  ATTN_JS_RETURN_IF_ERROR(attn::SetKernelChoice(attn::DefaultKernelChoice(attn::AvailableKernels().back())));
  val out = val::object();
  out.set("ok", true);
  return out;
}

// probeKernelChoice(warmupMs) -> kernelChoice(), probed (if nothing is chosen yet) after running
// each timed function untimed for up to warmupMs (attn::SetKernelProbeWarmup): a worker's, off the
// page's thread, long enough for V8's optimised code.
val ProbeKernelChoiceJs(double warmup_ms) {
  attn::SetKernelProbeWarmup(warmup_ms / 1000.0);
  return KernelChoiceJs();
}

// setKernelChoice({kernel, gemmRows, gemmSliceKb, attentionRows, attentionKeys, fusedMultiplyAdd,
// gemmFusedMultiplyAdd, candidates?, probeMs?, gemmGflops?, attentionGflops?})
// -> {ok}: another instance's choice (a page's worker takes the page's, so both compute the same bits).
val SetKernelChoiceJs(val choice_js) {
  if (IsAbsent(choice_js) || choice_js.typeOf().as<std::string>() != "object")
    return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument,
                                    "choice: expected an object from kernelChoice(), got " + DescribeJsValue(choice_js)));
  attn::KernelChoice c;
  const val kernel = choice_js["kernel"];
  if (kernel.typeOf().as<std::string>() != "string")
    return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument,
                                    "choice.kernel: expected a kernel's name, got " + DescribeJsValue(kernel)));
  ATTN_JS_RETURN_IF_ERROR(attn::ParseKernel(kernel.as<std::string>(), &c.kernel));
  // One loop, not four calls: the page's module is size-bound (an embed's 500 KB).
  const struct {
    const char* key;
    int* field;
  } fields[] = {{"gemmRows", &c.gemm_rows},
                {"gemmSliceKb", &c.gemm_slice_kb},
                {"attentionRows", &c.attention_rows},
                {"attentionKeys", &c.attention_keys}};
  for (const auto& f : fields)  // SetKernelChoice then admits only the kernel's candidates
    ATTN_JS_RETURN_IF_ERROR(ReadInt(choice_js[f.key], std::string("choice.") + f.key, f.field, 1, 4096));
  const struct {
    const char* key;
    bool* field;
  } forms[] = {{"fusedMultiplyAdd", &c.fused_multiply_add}, {"gemmFusedMultiplyAdd", &c.gemm_fused_multiply_add}};
  for (const auto& f : forms) {
    const val fused = choice_js[f.key];
    if (fused.typeOf().as<std::string>() != "boolean")
      return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument, std::string("choice.") + f.key +
                                                                             ": expected true or false, got " +
                                                                             DescribeJsValue(fused)));
    *f.field = fused.as<bool>();
  }
  // The probe's numbers where the object carries them (a kernelChoice() handed on, or saved by the
  // page): its sentence says them again, as taken from an earlier probe.
  ATTN_JS_RETURN_IF_ERROR(ReadInt(choice_js["candidates"], "choice.candidates", &c.candidates, 0, 4096));
  const struct {
    const char* key;
    double* field;
  } measured[] = {{"probeMs", &c.probe_ms}, {"gemmGflops", &c.gemm_gflops}, {"attentionGflops", &c.attention_gflops}};
  for (const auto& f : measured) {
    float x = 0.0f;
    ATTN_JS_RETURN_IF_ERROR(ReadFloat(choice_js[f.key], std::string("choice.") + f.key, &x));
    if (!(x >= 0.0f && x <= FLT_MAX))
      return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument, std::string("choice.") + f.key +
                                                                             ": expected a finite number ≥ 0, got " +
                                                                             DescribeJsValue(choice_js[f.key])));
    *f.field = x;
  }
  ATTN_JS_RETURN_IF_ERROR(attn::SetKernelChoice(c));
  val out = val::object();
  out.set("ok", true);
  return out;
}

#ifdef ATTNJS_WITH_PREPARE  // the npm package's module only (web/CMakeLists.txt)
// ---- prepare(options, params?): a layer prepared once (attn/prepared_attention.h) -------------

// What JS holds: the prepared layer and the matrices each forward() copies its input into and
// writes its output to, kept so a call of the same shape as the last allocates nothing in wasm.
struct JsPreparedLayer {
  attn::PreparedAttention layer;
  attn::Matrix query, output;
};

// prepare({dModel, ...config}, params?) -> {ok, layer, dModel, dOut, fused}: config and params
// checked once, the missing parameters seeded, the weights packed. `layer` is a PreparedLayer
// (embind class) that JS must delete().
val Prepare(val options_js, val params_js) {
  std::vector<const char*> keys = kConfigKeys;
  keys.push_back("dModel");
  attn::AttentionConfig config;
  val options = val::undefined();
  ATTN_JS_RETURN_IF_ERROR(ConfigFromJs(options_js, &config, "options", keys, &options));
  int d_model = 0;
  if (IsAbsent(options) || options["dModel"].isUndefined())
    return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument,
                                    "dModel: expected an integer (the width of the rows forward() takes), got undefined"));
  ATTN_JS_RETURN_IF_ERROR(ReadInt(options["dModel"], "dModel", &d_model, 1, kMaxDimension));
  JsParams params;
  ATTN_JS_RETURN_IF_ERROR(ParamsFromJs(params_js, &params));
  attn::AttentionParameters p;
  ATTN_JS_RETURN_IF_ERROR(CopyParams(params, &p));
  JsPreparedLayer prepared;
  ATTN_JS_RETURN_IF_ERROR(attn::Prepare(config, d_model, p, &prepared.layer));
  val out = val::object();
  out.set("ok", true);
  out.set("dModel", prepared.layer.d_model());
  out.set("dOut", prepared.layer.d_out());
  out.set("fused", prepared.layer.fused());
  out.set("layer", val(std::move(prepared)));
  return out;
}

// layer.forward(query: {rows, cols, data}) -> {ok, output}: the prepared layer on query (n, dModel).
val PreparedForward(JsPreparedLayer& self, val query_js) {
  JsMatrixArg query;
  if (IsAbsent(query_js))
    return ErrorObject(attn::Status(attn::StatusCode::kInvalidArgument,
                                    "query: expected a matrix {rows, cols, data}, got " + DescribeJsValue(query_js)));
  ATTN_JS_RETURN_IF_ERROR(CheckJsMatrix("query", query_js, &query));
  ATTN_JS_RETURN_IF_ERROR(CopyJsMatrix(query, &self.query));
  ATTN_JS_RETURN_IF_ERROR(self.layer.Forward(self.query, &self.output));
  val out = val::object();
  out.set("ok", true);
  out.set("output", ToJsMatrix(self.output));
  return out;
}
#endif  // ATTNJS_WITH_PREPARE

}  // namespace

#ifdef ATTNJS_WITH_PREPARE
EMSCRIPTEN_BINDINGS(attnlab_prepared) {
  emscripten::class_<JsPreparedLayer>("PreparedLayer").function("forward", &Guarded<PreparedForward>::Call);
  ATTNJS_FUNCTION("prepare", Prepare);
}
#endif

EMSCRIPTEN_BINDINGS(attnlab_engine) {
  ATTNJS_FUNCTION("selfAttention", SelfAttention);
  ATTNJS_FUNCTION("forward", Forward);
  ATTNJS_FUNCTION("forwardOutput", ForwardOutput);
  ATTNJS_FUNCTION("backward", Backward);
  ATTNJS_FUNCTION("tokenize", Tokenize);
  ATTNJS_FUNCTION("hashEmbeddings", HashEmbeddings);
  ATTNJS_FUNCTION("availableKernels", AvailableKernels);
  ATTNJS_FUNCTION("version", EngineVersion);
  ATTNJS_FUNCTION("kernelChoice", KernelChoiceJs);
  ATTNJS_FUNCTION("kernelChoiceMade", KernelChoiceMadeJs);
  ATTNJS_FUNCTION("useDefaultKernelChoice", UseDefaultKernelChoiceJs);
  ATTNJS_FUNCTION("probeKernelChoice", ProbeKernelChoiceJs);
  ATTNJS_FUNCTION("setKernelChoice", SetKernelChoiceJs);
}
