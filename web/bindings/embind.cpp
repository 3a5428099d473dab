// The only embind file: the engine for JS callers, and the page's hooks (start, state, layout,
// pixels) that the page shell and the browser tests use. Results are copied into fresh JS
// typed arrays, since wasm memory growth would invalidate views.
// [SECTION] Conversions
// [SECTION] Engine
// [SECTION] Page
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <type_traits>
#include <vector>

#include "app.h"
#include "published.h"
#include "attn/attention.h"
#include "attn/config_names.h"
#include "lessons/text.h"
#include "lessons/word_vectors.h"
#include "lessons/prices.h"
#include "main.h"
#include "platform_html5.h"

using emscripten::val;

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Conversions
//-----------------------------------------------------------------------------

val ToFloat32Array(const attn::Matrix& m) {
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(static_cast<size_t>(m.size()), m.data()));
}

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
  out.set("message", status.message());
  return out;
}

val RectObject(const attnlab::LayoutRect& r) {
  val out = val::object();
  out.set("x", r.x);
  out.set("y", r.y);
  out.set("width", r.w);
  out.set("height", r.h);
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

//-----------------------------------------------------------------------------
// [SECTION] Engine
//-----------------------------------------------------------------------------

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
      const std::string kernel = options["kernel"].as<std::string>();
      bool known = false;
      for (attn::KernelId id : attn::AvailableKernels()) {
        if (kernel == attn::KernelName(id)) {
          config.kernel = id;
          known = true;
        }
      }
      if (!known) return ErrorObject(attn::Status(attn::StatusCode::kUnknownOption, "kernel: unknown '" + kernel + "'"));
    }
  }
  attn::Matrix m = n * d > 0 ? attn::Matrix(Eigen::Map<const attn::Matrix>(values.data(), n, d)) : attn::Matrix(n, d);
  attn::AttentionResult result;
  const attn::Status status = attn::SelfAttention(config, m, &result);
  return status.ok() ? ResultObject(result) : ErrorObject(status);
}

// {rows, cols, data} (data: Float32Array or array) -> Matrix; kShapeMismatch naming `what`.
attn::Status FromJsMatrix(const char* what, val m, attn::Matrix* out) {
  if (m.isUndefined() || m.isNull()) {
    out->resize(0, 0);
    return attn::Status::Ok();
  }
  const int rows = m["rows"].isNumber() ? m["rows"].as<int>() : -1;
  const int cols = m["cols"].isNumber() ? m["cols"].as<int>() : -1;
  if (rows < 0 || cols < 0 || m["data"].isUndefined())
    return attn::Status(attn::StatusCode::kShapeMismatch, std::string(what) + ": expected {rows, cols, data}");
  const std::vector<float> values = emscripten::convertJSArrayToNumberVector<float>(m["data"]);
  if (values.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols))
    return attn::Status(attn::StatusCode::kShapeMismatch, std::string(what) + ": expected rows*cols = " +
                                                               std::to_string(rows * cols) + " values, got " +
                                                               std::to_string(values.size()));
  *out = rows * cols > 0 ? attn::Matrix(Eigen::Map<const attn::Matrix>(values.data(), rows, cols)) : attn::Matrix(rows, cols);
  return attn::Status::Ok();
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
  if (o["kernel"].isString()) {
    const std::string kernel = o["kernel"].as<std::string>();
    for (attn::KernelId id : attn::AvailableKernels())
      if (kernel == attn::KernelName(id)) {
        c->kernel = id;
        return attn::Status::Ok();
      }
    return attn::Status(attn::StatusCode::kUnknownOption, "kernel: unknown '" + kernel + "'");
  }
  return attn::Status::Ok();
}

// The arguments of forward() / forwardOutput(): config, {query, key?, value?, floatMask?}, params?
// with matrices as {rows, cols, data}. params may give wq, wk, wv, wo, relativeCenter (1, h),
// relativeSharpness (1, h).
attn::Status CallFromJs(val config_js, val inputs_js, val params_js, attn::AttentionConfig* config,
                        attn::AttentionInputs* inputs, attn::AttentionParameters* params) {
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
    if (status.ok()) status = FromJsMatrix("relativeCenter", params_js["relativeCenter"], &params->relative_center);
    if (status.ok()) status = FromJsMatrix("relativeSharpness", params_js["relativeSharpness"], &params->relative_sharpness);
  }
  return status;
}

// forwardOutput(...): the output alone, {output, fused}; fused on a SIMD kernel ("wasm_simd128")
// for the configs attn::FusedKernelCovers names: no n×n matrix, memory O(n·d).
val ForwardOutput(val config_js, val inputs_js, val params_js) {
  attn::AttentionConfig config;
  attn::AttentionInputs inputs;
  attn::AttentionParameters params;
  attn::Status status = CallFromJs(config_js, inputs_js, params_js, &config, &inputs, &params);
  attn::Matrix output;
  if (status.ok()) status = attn::ForwardOutput(config, inputs, params, &output);
  if (!status.ok()) return ErrorObject(status);
  val out = val::object();
  out.set("output", ToJsMatrix(output));
  out.set("fused", attn::FusedKernelCovers(config, inputs));
  return out;
}

// forward(...): every intermediate.
val Forward(val config_js, val inputs_js, val params_js) {
  attn::AttentionConfig config;
  attn::AttentionInputs inputs;
  attn::AttentionParameters params;
  attn::Status status = CallFromJs(config_js, inputs_js, params_js, &config, &inputs, &params);
  if (!status.ok()) return ErrorObject(status);
  attn::AttentionResult result;
  status = attn::Forward(config, inputs, params, &result);
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

//-----------------------------------------------------------------------------
// [SECTION] Page
//-----------------------------------------------------------------------------

std::string Start(const std::string& font_ttf) { return attnlab::Start(font_ttf); }

// The whole view state as its short string ("v=1&s=Sky%20is%20clear").
std::string PageState() { return attnlab::TheApp().StateString(); }

// Applies a state string; returns "" or what was wrong (the valid fields still apply).
std::string SetPageState(const std::string& text) {
  const attn::Status status = attnlab::TheApp().SetStateString(text);
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

void SetSentence(const std::string& sentence) {
  attnlab::TheApp().state().sentence.text = sentence;
  attnlab::platform::MarkDirty();
}

// The shared sentence and the page's bookkeeping.
val PageView() {
  const attnlab::App& app = attnlab::TheApp();
  const attnlab::SentenceInputs& s = app.sentence();
  val out = val::object();
  out.set("view", static_cast<int>(attnlab::TheApp().state().view));
  out.set("tokens", ToJsStrings(s.tokens));
  val known = val::array();
  for (size_t i = 0; i < s.known.size(); ++i) known.set(i, static_cast<bool>(s.known[i]));
  out.set("known", known);
  out.set("embeddings", ToJsMatrix(s.x));
  out.set("glove", s.glove);
  out.set("wordVectorsLoaded", app.word_vectors_loaded());
  out.set("error", app.sentence_error());
  out.set("engineRuns", app.engine_runs());
  const attnlab::HoveredCell& hover = app.published().hovered();
  if (hover.map.empty()) {
    out.set("hovered", val::null());
  } else {
    val h = val::object();
    h.set("map", hover.map);
    h.set("row", hover.row);
    h.set("col", hover.col);
    h.set("value", hover.value);
    out.set("hovered", h);
  }
  return out;
}

// A matrix the page drew this frame, by its published name ("words.W"), or null.
val PageMatrix(const std::string& name) {
  const attn::Matrix* m = attnlab::TheApp().published().FindMatrix(name);
  return m ? ToJsMatrix(*m) : val::null();
}

// Names of the matrices drawn this frame.
val PageMatrixNames() {
  std::vector<std::string> names;
  for (const auto& kv : attnlab::TheApp().published().matrices()) names.push_back(kv.first);
  return ToJsStrings(names);
}

// Where each published thing sits, in CSS pixels: {name: {x, y, width, height}}.
val PageLayout() {
  val out = val::object();
  for (const auto& kv : attnlab::TheApp().published().rects()) out.set(kv.first, RectObject(kv.second));
  return out;
}

// Published numbers ("words.lines.focus"): {name: value}.
val PageScalars() {
  val out = val::object();
  for (const auto& kv : attnlab::TheApp().published().scalars()) out.set(kv.first, kv.second);
  return out;
}

// Parses the GloVe asset's bytes and gives them to the page; returns "" or what is wrong.
std::string LoadWordVectors(const std::string& bytes) {
  lessons::WordVectors vectors;
  const attn::Status status =
      lessons::WordVectors::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &vectors);
  if (!status.ok()) {
    attnlab::TheApp().WordVectorsFailed("Word vectors unavailable (" + status.message() + "); using hashed vectors.");
  } else {
    attnlab::TheApp().SetWordVectors(std::move(vectors));
  }
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

// Parses prices.csv's text for view 8; returns "" or what is wrong (the view then says so).
std::string LoadPrices(const std::string& text) {
  lessons::PriceTable table;
  const attn::Status status = lessons::ParsePrices(text, &table);
  if (status.ok()) attnlab::TheApp().SetPrices(std::move(table));
  else attnlab::TheApp().PricesFailed("Prices unavailable (" + status.message() + ").");
  attnlab::platform::MarkDirty();
  return status.ok() ? "" : status.ToString();
}

void PricesFailed(const std::string& why) {
  attnlab::TheApp().PricesFailed("Prices unavailable (" + why + ").");
  attnlab::platform::MarkDirty();
}

void WordVectorsFailed(const std::string& why) {
  attnlab::TheApp().WordVectorsFailed("Word vectors unavailable (" + why + "); using hashed vectors.");
  attnlab::platform::MarkDirty();
}

val ReadPixel(float x, float y) {
  const auto rgba = attnlab::RenderAndReadPixel(x, y);
  val out = val::array();
  for (int i = 0; i < 4; ++i) out.set(i, rgba[i]);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::function("selfAttention", &SelfAttention);
  emscripten::function("forward", &Forward);
  emscripten::function("forwardOutput", &ForwardOutput);
  emscripten::function("tokenize", &Tokenize);
  emscripten::function("hashEmbeddings", &HashEmbeddings);
  emscripten::function("availableKernels", &AvailableKernels);
  emscripten::function("start", &Start);
  emscripten::function("renderNow", &attnlab::RenderNow);
  emscripten::function("idle", &attnlab::Idle);
  emscripten::function("lastFrameMs", &attnlab::LastFrameMs);
  emscripten::function("imeText", &attnlab::platform::AddText);
  emscripten::function("pageState", &PageState);
  emscripten::function("setPageState", &SetPageState);
  emscripten::function("setSentence", &SetSentence);
  emscripten::function("pageView", &PageView);
  emscripten::function("pageMatrix", &PageMatrix);
  emscripten::function("pageMatrixNames", &PageMatrixNames);
  emscripten::function("pageLayout", &PageLayout);
  emscripten::function("pageScalars", &PageScalars);
  emscripten::function("readPixel", &ReadPixel);
  emscripten::function("loadWordVectors", &LoadWordVectors);
  emscripten::function("wordVectorsFailed", &WordVectorsFailed);
  emscripten::function("loadPrices", &LoadPrices);
  emscripten::function("pricesFailed", &PricesFailed);
}
