// The language model's module (attnlab-lm.mjs / .wasm): the model of view 12 and nothing of the
// page, run in a Web Worker (web/bindings/lm_worker.mjs) or, where none can start, on the page's
// thread (web/bindings/lm_host.mjs); the npm package's loadLanguageModel and openModel
// (web/lib/index.mjs). The page's own module never links the model's code, so a view or an embed
// that does not show the model does not download it.
//
//   loadModel(bytes: Uint8Array) -> "" | the error (an ATTNLM01 asset, web/assets/lm-brown.bin, or a
//                                    safetensors checkpoint whose config is in its metadata)
//   openModel(bytes, configJson, heads) -> info() | {ok: false, code, message}
//                   bytes: an ATTNLM01 asset or a GPT-2 / nanoGPT / attnlab safetensors checkpoint
//                   (told apart by the first 8 bytes); configJson: config.json's text or "";
//                   heads: n_head (> 0) or 0 (lm_checkpoint.h: ReadLmCheckpoint)
//   loadHeads(text) -> "" | the table's error (web/assets/lm-brown-heads.txt, ReadLmHeads)
//   computeView(request: Uint8Array) -> Uint8Array   (lessons/lm_wire.h: a request in, an answer out;
//                   an error is an answer too). With a "gpt2" tokenizer named, the request's text goes
//                   through its encode (GPT-2's BPE from npm js-tiktoken, in JS) and the view reads ids
//   nameModel(source, tokenizer, vocabulary, encode) -> "" | the error: the file the model came from,
//                   its tokenizer ("words" | "gpt2" | "ids": a checkpoint without words reads the ids
//                   typed), each token's display form (V strings; null keeps the model's words) and,
//                   but for "words", encode(text) -> [ids]
//   saveModel() -> {ok, safetensors: Uint8Array, config: string}   (lm_checkpoint.h's WriteLmCheckpoint)
//   wordIds(text) -> [ids]   the text's words as the loaded model's ids (≤ T)
// and the model called directly, for JavaScript (the browser tests check the view against these):
//   run(text, knockedOut = [layer · heads + head, …]) -> {ok, words: [..], next: (n, V) probabilities as {rows, cols, data},
//                 weights: [{layer, head, rows, cols, data}]} | {ok: false, code, message}
//   generate(text, tokens, temperature, seed) -> {ok, generated: [{word, p}], cacheBytes}
// and by token ids, for a checkpoint without the page's words (n ids, each in [0, V), 1 ≤ n ≤ T):
//   runIds(ids, knockedOut, withWeights) -> {ok, logits: (n, V), next: (n, V), weights: [..] (when withWeights)}
//   generateIds(ids, tokens, temperature, seed) -> {ok, generated: [{id, p}], cacheBytes}
//   info() -> {layers, heads, dModel, context, vocabulary, parameters, dtype, naming, activation, eps,
//              positions, bytesInMemory, words: the model has words of its own}; vocabulary() -> [words by id]
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "attn/train/lm_asset.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/lm_inference.h"
#include "js_guard.h"
#include "lessons/lm_heads.h"
#include "lessons/lm_wire.h"
#include "attn/text.h"
#include "lessons/views/lm.h"

namespace {

using emscripten::val;

struct Loaded {
  attn::train::LmModel model;
  bool ok = false;
  std::string error = "no model was loaded";
  attn::train::LmCheckpointInfo info;  // what info() reports beyond the config
  lessons::LmHeadTable heads;  // web/assets/lm-brown-heads.txt, when it loaded
  bool heads_ok = false;
  std::string source;              // "" the built-in model; else the file it was opened from
  std::string tokenizer = "words";  // what turns the sentence into ids: the page's words, or "gpt2"
  val encode = val::null();         // "gpt2": JS's encode(text) -> [ids]
};
Loaded& TheModel() {
  static Loaded loaded;
  return loaded;
}

constexpr char kAssetMagic[] = "ATTNLM01";

// Reads an asset or a checkpoint (by its first 8 bytes: a safetensors file starts with its header's
// length, never these letters) into the module's model; the model is untouched on error.
attn::Status Open(const std::string& bytes, const std::string& config_json, int heads) {
  Loaded& l = TheModel();
  attn::train::LmModel model;
  attn::train::LmCheckpointInfo info;
  if (heads < 0) return attn::Status(attn::StatusCode::kOutOfRange, "heads: expected ≥ 1 (0: the config's n_head), got " + std::to_string(heads));
  if (bytes.compare(0, 8, kAssetMagic) == 0) {
    if (!config_json.empty() || heads != 0)
      return attn::Status(attn::StatusCode::kInvalidArgument, "config: an attnlab asset (ATTNLM01) holds its own settings; expected none");
    ATTN_RETURN_IF_ERROR(attn::train::ReadLmAsset(bytes, &model));
    info.layout = "attnlab asset (ATTNLM01)";
    info.dtype = "int8";  // per-row int8 matrices (lm_asset.h), float in memory
    info.parameters = attn::train::LmParameterCount(model.config);
    info.bytes_in_memory = 4 * info.parameters;
    info.vocabulary = "attnlab";
  } else {
    attn::train::LmCheckpointOptions options;
    options.config_json = config_json;
    options.heads = heads;
    const attn::Status s = attn::train::ReadLmCheckpoint(bytes, options, &model, &info);
    // A broken asset reaches here too: say which two formats the bytes were not.
    if (s.code() == attn::StatusCode::kParseError)
      return attn::Status(s.code(), "not an attnlab asset (no \"ATTNLM01\"), so read as " + s.message());
    ATTN_RETURN_IF_ERROR(s);
    // A checkpoint's products on this CPU's fastest kernel (wasm SIMD128: Eigen has no wasm SIMD, and
    // GPT-2 small is 100× the built-in model). The built-in model stays on Eigen, as trained and as
    // the native CLI runs it.
    model.config.kernel = attn::FastestKernel();
    // Its weights packed once for that kernel (as much memory again; lm_host.mjs's pre-check counts
    // it): a forward then reads them in place instead of packing 500 MB (GPT-2 small) every time.
    ATTN_RETURN_IF_ERROR(attn::train::PrepareLm(&model));
  }
  l.model = std::move(model);
  l.info = std::move(info);
  l.ok = true;
  l.error.clear();
  l.heads_ok = false;  // a head table describes the model it was made for
  l.source.clear();
  l.tokenizer = "words";
  l.encode = val::null();
  return attn::Status::Ok();
}

std::string LoadModel(const std::string& bytes) {
  const attn::Status status = Open(bytes, "", 0);
  if (!status.ok()) {
    Loaded& l = TheModel();
    l.ok = false;
    l.error = status.ToString();
  }
  return status.ok() ? "" : status.ToString();
}

std::string LoadHeads(const std::string& text) {
  Loaded& l = TheModel();
  const attn::Status status = lessons::ReadLmHeads(text, &l.heads);
  l.heads_ok = status.ok();
  return status.ok() ? "" : status.ToString();
}

// How long the view's passes take here: a forward of the n words, one more word through the KV
// cache, and the same word by recomputing all n + 1 (what the cache saves; −1 where not timed). The model's numbers do
// not depend on it. Best of 3 runs each (1 for a model whose forward takes over 100 ms), so a first
// call's warm-up is not what the reader reads.
void Time(const attn::train::LmModel& model, std::vector<int> ids, lessons::LmViewModel* m) {
  ids.resize(std::min<size_t>(ids.size(), static_cast<size_t>(model.config.seq_len - 1)));
  if (ids.empty()) return;
  std::vector<int> longer = ids;
  longer.push_back(ids.back());
  double forward = 1e30, cached = 1e30, recompute = 1e30;
  // Best of 3 where a run is short; one run where a forward takes over 100 ms (GPT-2 small's), so
  // timing never costs the reader more than the answer did.
  int runs = 0;
  while (runs < 3 && (runs == 0 || forward < 100)) {
    ++runs;
    attn::train::LmCache cache, fresh;
    double t0 = emscripten_get_now();
    if (!attn::train::LmAdvance(model, ids, {}, false, &cache, nullptr).ok()) return;
    double t1 = emscripten_get_now();
    if (!attn::train::LmAdvance(model, {ids.back()}, {}, false, &cache, nullptr).ok()) return;
    double t2 = emscripten_get_now();
    // Recomputing all n + 1 costs at least the forward: timed only where that is under a second, so a
    // long text (GPT-2's 1024 tokens take seconds) does not make the reader wait for it twice.
    double t3 = t2;
    if (t1 - t0 < 1000) {
      if (!attn::train::LmAdvance(model, longer, {}, false, &fresh, nullptr).ok()) return;
      t3 = emscripten_get_now();
    }
    forward = std::min(forward, t1 - t0), cached = std::min(cached, t2 - t1);
    recompute = t3 > t2 ? std::min(recompute, t3 - t2) : -1;
  }
  m->forward_ms = forward, m->cached_word_ms = cached, m->recompute_word_ms = recompute;
  m->timed_runs = runs;
}

attn::Status ReadIntegers(const val& v, const std::string& name, int lo, int hi, int max_count, std::vector<int>* out);

// The bytes PrepareLm's packed weights hold (0 unpacked: the built-in model, on Eigen).
int64_t PackedBytes(const attn::train::LmModel& model) { return model.packed ? model.packed->bytes() : 0; }

val ComputeView(const std::string& request_bytes) {
  lessons::LmRequest request;
  lessons::LmViewModel model;
  attn::Status status = lessons::ReadLmRequest(request_bytes, &request);
  const Loaded& l = TheModel();
  if (status.ok() && !l.ok) status = attn::Status(attn::StatusCode::kInvalidArgument, "lm: model: " + l.error);
  std::vector<int> ids;
  const bool by_ids = l.tokenizer != "words";
  if (status.ok() && by_ids) {
    // GPT-2's BPE gives at most a token a byte: the 8191-byte sentence, at most 8191 tokens.
    const val encoded = l.encode(request.text);
    status = ReadIntegers(encoded, l.tokenizer == "ids" ? "the sentence's token ids" : "GPT-2's tokens", 0,
                          l.model.config.vocab - 1, 1 << 16, &ids);
    if (status.ok() && ids.empty() && l.tokenizer == "ids")
      status = attn::Status(attn::StatusCode::kEmptyInput,
                            "sentence: this checkpoint has no words, so the view reads token ids: type numbers 0–" +
                                std::to_string(l.model.config.vocab - 1) + " (\"5 17 96\"), got none");
  }
  if (status.ok() && by_ids) status = lessons::ComputeLmOnIds(l.model, l.heads_ok ? &l.heads : nullptr, ids, request.state, &model);
  if (status.ok() && !by_ids)
    status = lessons::ComputeLm(l.model, l.heads_ok ? &l.heads : nullptr, attn::Tokenize(request.text), request.state,
                                &model);
  if (status.ok()) {
    Time(l.model, model.ids, &model);  // the ids the view read
    model.source = l.source;
    model.tokenizer = l.tokenizer;
    if (!l.source.empty()) model.layout = l.info.layout, model.dtype = l.info.dtype;
    model.bytes_in_memory = l.info.bytes_in_memory;
    model.packed_bytes = PackedBytes(l.model);
  }
  const std::string answer = lessons::WriteLmAnswer(status, model);
  return val(emscripten::typed_memory_view(answer.size(), reinterpret_cast<const uint8_t*>(answer.data())))
      .call<val>("slice");
}

std::vector<int> IdsOf(const attn::train::LmModel& model, const std::string& text, val* words) {
  const attn::train::LmWordIndex index(model.vocabulary);
  std::vector<int> ids;
  for (const std::string& token : attn::Tokenize(text)) {
    if (static_cast<int>(ids.size()) == model.config.seq_len) break;
    const std::string word = attn::NormalizeToken(token);
    words->call<void>("push", word);
    ids.push_back(index.Id(word));
  }
  return ids;
}

val Failure(const attn::Status& status) { return attnjs::ErrorObject(status); }

attn::Status NoModel() { return attn::Status(attn::StatusCode::kInvalidArgument, "lm: model: " + TheModel().error); }

// `v` as integers, each in [lo, hi], at most max_count of them: "ids[3]: expected an integer 0–96, got 97".
attn::Status ReadIntegers(const val& v, const std::string& name, int lo, int hi, int max_count, std::vector<int>* out) {
  if (!v.isArray()) return attn::Status(attn::StatusCode::kInvalidArgument, name + ": expected an array of integers");
  const int count = v["length"].as<int>();
  if (count > max_count)
    return attn::Status(attn::StatusCode::kOutOfRange,
                        name + ": expected at most " + std::to_string(max_count) + " entries, got " + std::to_string(count));
  out->clear();
  for (int k = 0; k < count; ++k) {
    const val e = v[k];
    const double x = e.isNumber() ? e.as<double>() : NAN;
    if (!(x == std::floor(x) && x >= lo && x <= hi))  // NaN (not a number) fails too
      return attn::Status(attn::StatusCode::kOutOfRange, name + "[" + std::to_string(k) + "]: expected an integer " +
                                                             std::to_string(lo) + "–" + std::to_string(hi) + ", got " +
                                                             (e.isNumber() ? e.call<std::string>("toString") : e.typeOf().as<std::string>()));
    out->push_back(static_cast<int>(x));
  }
  return attn::Status::Ok();
}

// The ids of a call by ids: 1 – T of them, each a token of the model.
attn::Status ReadIds(const attn::train::LmModel& model, const val& ids, std::vector<int>* out) {
  ATTN_RETURN_IF_ERROR(ReadIntegers(ids, "ids", 0, model.config.vocab - 1, model.config.seq_len, out));
  if (out->empty()) return attn::Status(attn::StatusCode::kInvalidArgument, "ids: expected at least one token id, got none");
  return attn::Status::Ok();
}

// The model over `ids` with the heads of `knocked_out` (layer · heads + head) zeroed: {ok, logits,
// next, weights (when with_weights)}, each (n, V) or per head (n, n).
val RunOn(const attn::train::LmModel& model, const std::vector<int>& ids, const val& knocked_out, bool with_weights) {
  const int heads = model.config.heads;
  std::vector<int> knocked;
  if (!knocked_out.isUndefined()) {
    const attn::Status s = ReadIntegers(knocked_out, "knockedOut", 0, model.config.layers * heads - 1, 4096, &knocked);
    if (!s.ok()) return Failure(s);
  }
  attn::train::LmAblation ablation;
  for (int head : knocked) ablation.heads.push_back({head / heads, head % heads});
  attn::train::LmCache cache;
  attn::train::LmTrace trace;
  const attn::Status status = attn::train::LmAdvance(model, ids, ablation, false, &cache, &trace);
  if (!status.ok()) return Failure(status);
  attn::Matrix probs(trace.logits.rows(), trace.logits.cols());
  for (Eigen::Index i = 0; i < probs.rows(); ++i) probs.row(i) = attn::train::LmSoftmax(trace.logits.row(i));
  val out = val::object();
  out.set("ok", true);
  out.set("logits", attnjs::ToJsMatrix(trace.logits));
  out.set("next", attnjs::ToJsMatrix(probs));
  if (with_weights) {
    val weights = val::array();
    for (size_t layer = 0; layer < trace.weights.size(); ++layer)
      for (size_t head = 0; head < trace.weights[layer].size(); ++head) {
        val w = attnjs::ToJsMatrix(trace.weights[layer][head]);
        w.set("layer", static_cast<int>(layer));
        w.set("head", static_cast<int>(head));
        weights.call<void>("push", w);
      }
    out.set("weights", weights);
  }
  return out;
}

val Run(const std::string& text, val knocked_out) {
  const Loaded& l = TheModel();
  if (!l.ok) return Failure(NoModel());
  val words = val::array();
  const std::vector<int> ids = IdsOf(l.model, text, &words);
  val out = RunOn(l.model, ids, knocked_out, true);
  if (out["ok"].as<bool>()) {
    out.set("words", words);
    out.set("vocabulary", static_cast<int>(l.model.vocabulary.size()));
  }
  return out;
}

val RunIds(val ids, val knocked_out, bool with_weights) {
  const Loaded& l = TheModel();
  if (!l.ok) return Failure(NoModel());
  std::vector<int> read;
  const attn::Status s = ReadIds(l.model, ids, &read);
  return s.ok() ? RunOn(l.model, read, knocked_out, with_weights) : Failure(s);
}

// LmGenerate over `ids`: {ok, generated: [{id, p}], cacheBytes}. The vocabulary's last word is
// never chosen when it is attnlab's <unk> class; a checkpoint's last id is a real token.
val GenerateOn(const attn::train::LmModel& model, const std::vector<int>& ids, int tokens, double temperature, int seed) {
  attn::train::LmGenerateConfig g;
  g.tokens = tokens;
  g.temperature = static_cast<float>(temperature);
  g.seed = static_cast<uint32_t>(seed);
  g.exclude_unknown = !model.vocabulary.empty() && model.vocabulary.back() == attn::train::kLmUnknownWord;
  std::vector<attn::train::LmGenerated> generated;
  const attn::Status status = attn::train::LmGenerate(model, ids, g, &generated);
  if (!status.ok()) return Failure(status);
  val list = val::array();
  for (const attn::train::LmGenerated& w : generated) {
    val item = val::object();
    item.set("id", w.id);
    item.set("p", w.p);
    list.call<void>("push", item);
  }
  val out = val::object();
  out.set("ok", true);
  out.set("generated", list);
  out.set("cacheBytes", 4.0 * 2 * model.config.layers * model.config.d_model * generated.back().cache_length);
  return out;
}

val Generate(const std::string& text, int tokens, double temperature, int seed) {
  const Loaded& l = TheModel();
  if (!l.ok) return Failure(NoModel());
  val words = val::array();
  const std::vector<int> ids = IdsOf(l.model, text, &words);
  val out = GenerateOn(l.model, ids, tokens, temperature, seed);
  if (!out["ok"].as<bool>()) return out;
  const val list = out["generated"];
  for (int k = 0, n = list["length"].as<int>(); k < n; ++k) {
    val item = list[k];
    item.set("word", l.model.vocabulary[static_cast<size_t>(item["id"].as<int>())]);
    item.delete_("id");
  }
  out.set("prompt", words);
  return out;
}

// The ids of `text`'s words (the page's tokenizer, lower-cased; unknown words are <unk>), at most T.
val WordIdsOfText(const std::string& text) {
  const Loaded& l = TheModel();
  val out = val::array();
  if (!l.ok) return out;
  val words = val::array();
  for (int id : IdsOf(l.model, text, &words)) out.call<void>("push", id);
  return out;
}

val GenerateIds(val ids, int tokens, double temperature, int seed) {
  const Loaded& l = TheModel();
  if (!l.ok) return Failure(NoModel());
  std::vector<int> read;
  const attn::Status s = ReadIds(l.model, ids, &read);
  return s.ok() ? GenerateOn(l.model, read, tokens, temperature, seed) : Failure(s);
}

// {layers, heads, dModel, context, vocabulary: V, parameters, dtype, naming, activation, eps,
// positions, bytesInMemory} of the loaded model; {} before one loaded.
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
  out.set("parameters", static_cast<double>(l.info.parameters));
  out.set("dtype", l.info.dtype);
  out.set("naming", l.info.layout);
  out.set("activation", std::string(c.activation == attn::train::LmActivation::kGeluErf ? "gelu" : "gelu_new"));
  out.set("eps", c.layer_norm_eps);
  out.set("positions", std::string(c.positions == attn::train::Positions::kRope ? "rope" : "learned"));
  out.set("bytesInMemory", static_cast<double>(l.info.bytes_in_memory));
  out.set("packedBytes", static_cast<double>(PackedBytes(l.model)));
  out.set("words", l.info.vocabulary == "attnlab");  // its own words (else ids, "[0]", "[1]", …)
  return out;
}

// The checkpoint of `bytes` (see the top): info() of it, or the error (the model loaded before stays).
val OpenModel(const std::string& bytes, const std::string& config_json, int heads) {
  const attn::Status status = Open(bytes, config_json, heads);
  if (!status.ok()) return Failure(status);
  val out = Info();
  out.set("ok", true);
  return out;
}

// What the view says of the model: the file it came from, the tokenizer that gives its ids, and the
// display form of each token (a GPT-2 checkpoint has no words of its own; the worker decodes them).
std::string NameModel(const std::string& source, const std::string& tokenizer, val vocabulary, val encode) {
  Loaded& l = TheModel();
  if (!l.ok) return NoModel().ToString();
  if (tokenizer != "words" && tokenizer != "gpt2" && tokenizer != "ids")
    return "tokenizer: expected \"words\", \"gpt2\" or \"ids\", got \"" + tokenizer.substr(0, 40) + "\"";
  if (tokenizer != "words" && encode.typeOf().as<std::string>() != "function")
    return "encode: expected a function for \"" + tokenizer + "\"";
  std::vector<std::string> words;
  if (!vocabulary.isUndefined() && !vocabulary.isNull()) {
    if (!vocabulary.isArray() || vocabulary["length"].as<int>() != l.model.config.vocab)
      return "vocabulary: expected " + std::to_string(l.model.config.vocab) + " strings, one a token";
    words = emscripten::vecFromJSArray<std::string>(vocabulary);
    l.model.vocabulary = std::move(words);
  }
  l.source = source.substr(0, 200);
  l.tokenizer = tokenizer;
  l.encode = tokenizer != "words" ? encode : val::null();
  return "";
}

// The model as safetensors + config.json (attnlab's own, GPT-2 names): what PyTorch loads.
val SaveModel() {
  Loaded& l = TheModel();
  if (!l.ok) return Failure(NoModel());
  std::string tensors, config;
  // Words go into the file only when they are the model's own: a GPT-2 vocabulary's display forms
  // ("·the") or "[id]" placeholders would reopen as words. Set aside, not copied (GPT-2 small's floats
  // are 0.5 GB).
  std::vector<std::string> shown;
  if (l.tokenizer != "words") std::swap(shown, l.model.vocabulary);
  const attn::Status status = attn::train::WriteLmCheckpoint(l.model, &tensors, &config);
  if (l.tokenizer != "words") std::swap(shown, l.model.vocabulary);
  if (!status.ok()) return Failure(status);
  val out = val::object();
  out.set("ok", true);
  out.set("safetensors", val(emscripten::typed_memory_view(tensors.size(), reinterpret_cast<const uint8_t*>(tensors.data())))
                             .call<val>("slice"));
  out.set("config", config);
  return out;
}

// The model's words, by id (the asset's last is "<unk>"; a checkpoint's are its metadata's words or "[0]", "[1]", …).
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
  ATTNJS_FUNCTION("openModel", OpenModel);
  ATTNJS_FUNCTION("runIds", RunIds);
  ATTNJS_FUNCTION("generateIds", GenerateIds);
  ATTNJS_FUNCTION("info", Info);
  ATTNJS_FUNCTION("vocabulary", Vocabulary);
  ATTNJS_FUNCTION("nameModel", NameModel);
  ATTNJS_FUNCTION("wordIds", WordIdsOfText);
  ATTNJS_FUNCTION("saveModel", SaveModel);
}
