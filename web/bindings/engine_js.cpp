// The engine's JS API: forward, forwardOutput, selfAttention, the tokenizer and hashed vectors,
// the kernels. Every call returns a plain object ({ok: false, code, message} on bad input); no
// exception crosses into JS.
#include <emscripten/bind.h>

#include <string>
#include <type_traits>
#include <vector>

#include "attn/attention.h"
#include "attn/config_names.h"
#include "js_convert.h"
#include "lessons/text.h"

using emscripten::val;
using namespace attnjs;

namespace {

// selfAttention(x: Float32Array|number[], n, d, {scale?, temperature?, kernel?: "reference"|"eigen"})
val SelfAttention(val x, int n, int d, val options) {
  const std::vector<float> values = emscripten::convertJSArrayToNumberVector<float>(x);
  if (n < 0 || d < 0 || static_cast<size_t>(n) * static_cast<size_t>(d) != values.size()) {
    return ErrorObject(attn::Status(attn::StatusCode::kShapeMismatch,
                                    "x: expected n*d = " + std::to_string(n) + "*" + std::to_string(d) +
                                        " values, got " + std::to_string(values.size())));
  }
  attn::AttentionConfig config;
  if (options.typeOf().as<std::string>() == "object" && !options.isNull()) {
    if (options["scale"].isNumber()) config.scale = options["scale"].as<float>();
    if (options["temperature"].isNumber()) config.temperature = options["temperature"].as<float>();
    if (options["kernel"].isString()) {
      const attn::Status status = attn::ParseKernel(options["kernel"].as<std::string>(), &config.kernel);
      if (!status.ok()) return ErrorObject(status);
    }
  }
  attn::Matrix m = n * d > 0 ? attn::Matrix(Eigen::Map<const attn::Matrix>(values.data(), n, d)) : attn::Matrix(n, d);
  attn::AttentionResult result;
  const attn::Status status = attn::SelfAttention(config, m, &result);
  return status.ok() ? ResultObject(result) : ErrorObject(status);
}

// Reads the JS options object into an AttentionConfig (camelCase keys, enum names as strings).
attn::Status ConfigFromJs(val o, attn::AttentionConfig* c) {
  if (o.isUndefined() || o.isNull()) return attn::Status::Ok();
  auto number = [&](const char* key, auto* field) {
    if (o[key].isNumber()) *field = o[key].as<std::remove_pointer_t<decltype(field)>>();
  };
  auto flag = [&](const char* key, bool* field) {
    if (!o[key].isUndefined()) *field = o[key].as<bool>();
  };
  number("scale", &c->scale);
  number("temperature", &c->temperature);
  number("cosineTemperature", &c->cosine_temperature);
  number("additiveDim", &c->additive_dim);
  number("numHeads", &c->num_heads);
  number("numKvHeads", &c->num_kv_heads);
  number("headDim", &c->head_dim);
  number("valueHeadDim", &c->value_head_dim);
  number("outputDim", &c->output_dim);
  number("softcap", &c->softcap);
  number("windowLeft", &c->window_left);
  number("windowRight", &c->window_right);
  number("positionBase", &c->position_base);
  number("maxPositions", &c->max_positions);
  if (o["seed"].isNumber()) c->seed = o["seed"].as<uint32_t>();
  flag("projectInputs", &c->project_inputs);
  flag("projectOutput", &c->project_output);
  flag("useBias", &c->use_bias);
  flag("causal", &c->causal);
  if (o["score"].isString()) ATTN_RETURN_IF_ERROR(attn::ParseScoreFunction(o["score"].as<std::string>(), &c->score));
  if (o["normalizer"].isString())
    ATTN_RETURN_IF_ERROR(attn::ParseNormalizer(o["normalizer"].as<std::string>(), &c->normalizer));
  if (o["position"].isString())
    ATTN_RETURN_IF_ERROR(attn::ParsePositionEncoding(o["position"].as<std::string>(), &c->position));
  if (o["kernel"].isString()) ATTN_RETURN_IF_ERROR(attn::ParseKernel(o["kernel"].as<std::string>(), &c->kernel));
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

attn::Status CallFromJs(val config_js, val inputs_js, val params_js, Call* call) {
  attn::AttentionConfig* config = &call->config;
  attn::AttentionInputs* inputs = &call->inputs;
  attn::AttentionParameters* params = &call->params;
  attn::Matrix float_mask;
  attn::Status status = ConfigFromJs(config_js, config);
  if (status.ok()) status = FromJsMatrix("query", inputs_js["query"], &inputs->query);
  if (status.ok()) status = FromJsMatrix("key", inputs_js["key"], &inputs->key);
  if (status.ok()) status = FromJsMatrix("value", inputs_js["value"], &inputs->value);
  if (status.ok()) status = FromJsMatrix("floatMask", inputs_js["floatMask"], &float_mask);
  if (status.ok() && float_mask.size() > 0) inputs->float_mask.push_back(float_mask);
  const bool has_params = !(params_js.isUndefined() || params_js.isNull());
  if (status.ok() && has_params) {
    status = FromJsMatrix("wq", params_js["wq"], &params->wq);
    if (status.ok()) status = FromJsMatrix("wk", params_js["wk"], &params->wk);
    if (status.ok()) status = FromJsMatrix("wv", params_js["wv"], &params->wv);
    if (status.ok()) status = FromJsMatrix("wo", params_js["wo"], &params->wo);
    if (status.ok()) status = FromJsMatrix("bq", params_js["bq"], &params->bq);
    if (status.ok()) status = FromJsMatrix("bk", params_js["bk"], &params->bk);
    if (status.ok()) status = FromJsMatrix("bv", params_js["bv"], &params->bv);
    if (status.ok()) status = FromJsMatrix("bo", params_js["bo"], &params->bo);
    if (status.ok()) status = FromJsMatrix("relativeCenter", params_js["relativeCenter"], &params->relative_center);
    if (status.ok()) status = FromJsMatrix("relativeSharpness", params_js["relativeSharpness"], &params->relative_sharpness);
  }
  return status;
}

// forwardOutput(...): the output alone, {output, fused}; fused on a SIMD kernel ("wasm_simd128")
// for the configs attn::FusedKernelCovers names: no n×n matrix, memory O(n·d).
val ForwardOutput(val config_js, val inputs_js, val params_js) {
  Call call;
  attn::Matrix output;
  attn::Status status = CallFromJs(config_js, inputs_js, params_js, &call);
  if (status.ok()) status = attn::ForwardOutput(call.config, call.inputs, call.params, &output);
  if (!status.ok()) return ErrorObject(status);
  val out = val::object();
  out.set("output", ToJsMatrix(output));
  out.set("fused", attn::FusedKernelCovers(call.config, call.inputs));
  return out;
}

// forward(...): every intermediate.
val Forward(val config_js, val inputs_js, val params_js) {
  Call call;
  attn::AttentionResult result;
  attn::Status status = CallFromJs(config_js, inputs_js, params_js, &call);
  if (status.ok()) status = attn::Forward(call.config, call.inputs, call.params, &result);
  if (!status.ok()) return ErrorObject(status);
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

val Tokenize(const std::string& text) { return ToJsStrings(lessons::Tokenize(text)); }

val HashEmbeddings(val tokens, int dim) {
  if (dim < 1 || dim > 4096)
    return ErrorObject(attn::Status(attn::StatusCode::kOutOfRange, "dim: expected 1..4096, got " + std::to_string(dim)));
  return ToJsMatrix(lessons::HashEmbeddings(emscripten::vecFromJSArray<std::string>(tokens), dim));
}

val AvailableKernels() {
  std::vector<std::string> names;
  for (attn::KernelId id : attn::AvailableKernels()) names.emplace_back(attn::KernelName(id));
  return ToJsStrings(names);
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_engine) {
  emscripten::function("selfAttention", &SelfAttention);
  emscripten::function("forward", &Forward);
  emscripten::function("forwardOutput", &ForwardOutput);
  emscripten::function("tokenize", &Tokenize);
  emscripten::function("hashEmbeddings", &HashEmbeddings);
  emscripten::function("availableKernels", &AvailableKernels);
}
