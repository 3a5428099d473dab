// The language model's module (attnlab-lm.mjs / .wasm): the model of view 12 and nothing of the
// page, run in a Web Worker (web/bindings/lm_worker.mjs) or, where none can start, on the page's
// thread (web/bindings/lm_host.mjs). The page's own module never links the model's code, so a view
// or an embed that does not show the model does not download it.
//
//   loadModel(bytes: Uint8Array) -> "" | the asset's error (web/assets/lm-brown.bin, ReadLmAsset)
//   loadHeads(text) -> "" | the table's error (web/assets/lm-brown-heads.txt, ReadLmHeads)
//   computeView(request: Uint8Array) -> Uint8Array   (lessons/lm_wire.h: a request in, an answer out;
//                                                      an error is an answer too)
// and the model called directly, for JavaScript (the browser tests check the view against these):
//   run(text, knockedOut = [layer · heads + head, …]) -> {ok, words: [..], ids: [..], next: [(n, V) probabilities as {rows, cols, data}],
//                 weights: [{layer, head, rows, cols, data}]} | {ok: false, code, message}
//   generate(text, tokens, temperature, seed) -> {ok, generated: [{word, p}], cacheBytes}
//   info() -> {layers, heads, dModel, context, vocabulary}; vocabulary() -> [words by id]
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <string>

#include "attn/train/lm_asset.h"
#include "attn/train/lm_inference.h"
#include "js_guard.h"
#include "lessons/lm_heads.h"
#include "lessons/lm_wire.h"
#include "lessons/text.h"
#include "lessons/views/lm.h"

namespace {

using emscripten::val;

struct Loaded {
  attn::train::LmModel model;
  bool ok = false;
  std::string error = "no model was loaded";
  lessons::LmHeadTable heads;  // web/assets/lm-brown-heads.txt, when it loaded
  bool heads_ok = false;
};
Loaded& TheModel() {
  static Loaded loaded;
  return loaded;
}

std::string LoadModel(const std::string& bytes) {
  Loaded& l = TheModel();
  const attn::Status status = attn::train::ReadLmAsset(bytes, &l.model);
  l.ok = status.ok();
  l.error = status.ok() ? "" : status.ToString();
  return l.error;
}

std::string LoadHeads(const std::string& text) {
  Loaded& l = TheModel();
  const attn::Status status = lessons::ReadLmHeads(text, &l.heads);
  l.heads_ok = status.ok();
  return status.ok() ? "" : status.ToString();
}

// How long the view's passes take here: a forward of the n words, one more word through the KV
// cache, and the same word by recomputing all n + 1 (what the cache saves). The model's numbers do
// not depend on it. Best of 3 runs each, so a first call's warm-up is not what the reader reads.
void Time(const attn::train::LmModel& model, const std::vector<std::string>& tokens, lessons::LmViewModel* m) {
  const attn::train::LmWordIndex index(model.vocabulary);
  std::vector<int> ids;
  const int n = std::min<int>(static_cast<int>(tokens.size()), model.config.seq_len - 1);
  for (int i = 0; i < n; ++i) ids.push_back(index.Id(lessons::NormalizeToken(tokens[static_cast<size_t>(i)])));
  if (ids.empty()) return;
  std::vector<int> longer = ids;
  longer.push_back(ids.back());
  double forward = 1e30, cached = 1e30, recompute = 1e30;
  for (int run = 0; run < 3; ++run) {
    attn::train::LmCache cache, fresh;
    double t0 = emscripten_get_now();
    if (!attn::train::LmAdvance(model, ids, {}, false, &cache, nullptr).ok()) return;
    double t1 = emscripten_get_now();
    if (!attn::train::LmAdvance(model, {ids.back()}, {}, false, &cache, nullptr).ok()) return;
    double t2 = emscripten_get_now();
    if (!attn::train::LmAdvance(model, longer, {}, false, &fresh, nullptr).ok()) return;
    double t3 = emscripten_get_now();
    forward = std::min(forward, t1 - t0), cached = std::min(cached, t2 - t1), recompute = std::min(recompute, t3 - t2);
  }
  m->forward_ms = forward, m->cached_word_ms = cached, m->recompute_word_ms = recompute;
}

val ComputeView(const std::string& request_bytes) {
  lessons::LmRequest request;
  lessons::LmViewModel model;
  attn::Status status = lessons::ReadLmRequest(request_bytes, &request);
  const Loaded& l = TheModel();
  if (status.ok() && !l.ok) status = attn::Status(attn::StatusCode::kInvalidArgument, "lm: model: " + l.error);
  if (status.ok()) status = lessons::ComputeLm(l.model, l.heads_ok ? &l.heads : nullptr, request.tokens, request.state, &model);
  if (status.ok()) Time(l.model, request.tokens, &model);
  const std::string answer = lessons::WriteLmAnswer(status, model);
  return val(emscripten::typed_memory_view(answer.size(), reinterpret_cast<const uint8_t*>(answer.data())))
      .call<val>("slice");
}

std::vector<int> IdsOf(const attn::train::LmModel& model, const std::string& text, val* words) {
  const attn::train::LmWordIndex index(model.vocabulary);
  std::vector<int> ids;
  for (const std::string& token : lessons::Tokenize(text)) {
    if (static_cast<int>(ids.size()) == model.config.seq_len) break;
    const std::string word = lessons::NormalizeToken(token);
    words->call<void>("push", word);
    ids.push_back(index.Id(word));
  }
  return ids;
}

val Failure(const attn::Status& status) { return attnjs::ErrorObject(status); }

val Run(const std::string& text, val knocked_out) {
  const Loaded& l = TheModel();
  if (!l.ok) return Failure(attn::Status(attn::StatusCode::kInvalidArgument, "lm: model: " + l.error));
  val words = val::array();
  const std::vector<int> ids = IdsOf(l.model, text, &words);
  attn::train::LmAblation ablation;
  const int heads = l.model.config.heads;
  if (knocked_out.isArray()) {
    const int count = knocked_out["length"].as<int>();
    for (int k = 0; k < count && k < 256; ++k) {
      const val v = knocked_out[k];
      if (!v.isNumber()) return Failure(attn::Status(attn::StatusCode::kInvalidArgument, "knockedOut: expected head numbers"));
      const int head = v.as<int>();
      ablation.heads.push_back({head / heads, head % heads});
    }
  }
  attn::train::LmCache cache;
  attn::train::LmTrace trace;
  const attn::Status status = attn::train::LmAdvance(l.model, ids, ablation, false, &cache, &trace);
  if (!status.ok()) return Failure(status);
  attn::Matrix probs(trace.logits.rows(), trace.logits.cols());
  for (Eigen::Index i = 0; i < probs.rows(); ++i) probs.row(i) = attn::train::LmSoftmax(trace.logits.row(i));
  val weights = val::array();
  for (size_t layer = 0; layer < trace.weights.size(); ++layer)
    for (size_t head = 0; head < trace.weights[layer].size(); ++head) {
      val w = attnjs::ToJsMatrix(trace.weights[layer][head]);
      w.set("layer", static_cast<int>(layer));
      w.set("head", static_cast<int>(head));
      weights.call<void>("push", w);
    }
  val out = val::object();
  out.set("ok", true);
  out.set("words", words);
  out.set("next", attnjs::ToJsMatrix(probs));
  out.set("weights", weights);
  out.set("vocabulary", static_cast<int>(l.model.vocabulary.size()));
  return out;
}

val Generate(const std::string& text, int tokens, double temperature, int seed) {
  const Loaded& l = TheModel();
  if (!l.ok) return Failure(attn::Status(attn::StatusCode::kInvalidArgument, "lm: model: " + l.error));
  val words = val::array();
  const std::vector<int> ids = IdsOf(l.model, text, &words);
  attn::train::LmGenerateConfig g;
  g.tokens = tokens;
  g.temperature = static_cast<float>(temperature);
  g.seed = static_cast<uint32_t>(seed);
  std::vector<attn::train::LmGenerated> generated;
  const attn::Status status = attn::train::LmGenerate(l.model, ids, g, &generated);
  if (!status.ok()) return Failure(status);
  val list = val::array();
  for (const attn::train::LmGenerated& w : generated) {
    val item = val::object();
    item.set("word", l.model.vocabulary[static_cast<size_t>(w.id)]);
    item.set("p", w.p);
    list.call<void>("push", item);
  }
  val out = val::object();
  out.set("ok", true);
  out.set("prompt", words);
  out.set("generated", list);
  out.set("cacheBytes", 4.0 * 2 * l.model.config.layers * l.model.config.d_model * generated.back().cache_length);
  return out;
}

// {layers, heads, dModel, context, vocabulary: V, parameters} of the loaded model.
val Info() {
  const Loaded& l = TheModel();
  val out = val::object();
  if (!l.ok) return out;
  const attn::train::LmConfig& c = l.model.config;
  out.set("layers", c.layers);
  out.set("heads", c.heads);
  out.set("dModel", c.d_model);
  out.set("context", c.seq_len);
  out.set("vocabulary", c.vocab);
  return out;
}

// The model's words, by id (the last is "<unk>").
val Vocabulary() {
  val out = val::array();
  for (const std::string& w : TheModel().model.vocabulary) out.call<void>("push", w);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_lm) {
  ATTNJS_FUNCTION("loadModel", LoadModel);
  ATTNJS_FUNCTION("loadHeads", LoadHeads);
  ATTNJS_FUNCTION("computeView", ComputeView);
  ATTNJS_FUNCTION("run", Run);
  ATTNJS_FUNCTION("generate", Generate);
  ATTNJS_FUNCTION("info", Info);
  ATTNJS_FUNCTION("vocabulary", Vocabulary);
}
