// safetensors checkpoints in and out of the language model (formats, namings and bounds:
// attn/train/lm_checkpoint.h). Bytes are decoded explicitly little-endian, whatever the host.
#include "attn/train/lm_checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <set>

#include "attn/train/bounded_json.h"

namespace attn::train {
namespace {

// [SECTION] Helpers
Status ParseFail(const std::string& what) { return Status(StatusCode::kParseError, "safetensors: " + what); }
Status CheckpointFail(StatusCode code, const std::string& what) { return Status(code, "checkpoint: " + what); }

uint64_t ReadU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// Bytes per element of each dtype the format names (0: not a safetensors dtype).
int DtypeSize(const std::string& dtype) {
  static const std::pair<const char*, int> kSizes[] = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1},
      {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},   {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  for (const auto& [name, size] : kSizes)
    if (dtype == name) return size;
  return 0;
}

// A JSON number that is a non-negative integer (no fraction, no exponent, fits int64).
bool NonNegativeInteger(const JsonValue& v, int64_t* out) {
  if (v.kind != JsonValue::Kind::kNumber || !v.integral || v.integer < 0) return false;
  *out = v.integer;
  return true;
}

std::string Clip(const std::string& s) { return s.size() > 80 ? s.substr(0, 80) + "…" : s; }

}  // namespace

std::string SafetensorsShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// [SECTION] Dtypes
float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal: m · 2⁻²⁴, exact
  } else if (exponent == 31) {
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;  // bfloat16 is float's top half
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// [SECTION] Reading the format
Status ParseSafetensors(const uint8_t* bytes, size_t size, SafetensorsFile* out) {
  try {
    if (size < 8) return ParseFail("file of " + std::to_string(size) + " bytes, expected at least 8 (the header's length)");
    const uint64_t n = ReadU64(bytes);
    if (n > kSafetensorsMaxHeaderBytes)
      return ParseFail("header length " + std::to_string(n) + ": more than the " + std::to_string(kSafetensorsMaxHeaderBytes) +
                       " bytes allowed");
    if (n > size - 8)
      return ParseFail("header length " + std::to_string(n) + ": beyond the file (" + std::to_string(size - 8) +
                       " bytes after the length)");
    if (n < 2) return ParseFail("header length " + std::to_string(n) + ": expected at least 2 ('{}')");
    JsonValue header;
    if (Status s = ParseJson(reinterpret_cast<const char*>(bytes + 8), static_cast<size_t>(n), &header); !s.ok())
      return Status(s.code(), "safetensors: header: " + s.message());
    if (header.kind != JsonValue::Kind::kObject) return ParseFail("header: expected a JSON object");
    SafetensorsFile file;
    file.data = bytes + 8 + n;
    file.data_size = size - 8 - n;
    for (const auto& [name, entry] : header.members) {
      if (name == "__metadata__") {
        if (entry.kind != JsonValue::Kind::kObject) return ParseFail("__metadata__: expected an object of strings");
        for (const auto& [key, value] : entry.members) {
          if (value.kind != JsonValue::Kind::kString)
            return ParseFail("__metadata__: " + Clip(key) + ": expected a string value");
          file.metadata.emplace_back(key, value.text);
        }
        continue;
      }
      const std::string where = Clip(name) + ": ";
      if (entry.kind != JsonValue::Kind::kObject) return ParseFail(where + "expected an object {dtype, shape, data_offsets}");
      SafetensorsTensor t;
      t.name = name;
      const JsonValue *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
      for (const auto& [key, value] : entry.members) {
        if (key == "dtype") dtype = &value;
        else if (key == "shape") shape = &value;
        else if (key == "data_offsets") offsets = &value;
        else return ParseFail(where + "unknown field \"" + Clip(key) + "\" (expected dtype, shape, data_offsets)");
      }
      if (!dtype || dtype->kind != JsonValue::Kind::kString) return ParseFail(where + "dtype: expected a string");
      t.dtype = dtype->text;
      const int element = DtypeSize(t.dtype);
      if (!element) return ParseFail(where + "dtype: unknown \"" + Clip(t.dtype) + "\"");
      if (!shape || shape->kind != JsonValue::Kind::kArray) return ParseFail(where + "shape: expected an array of integers");
      if (shape->items.size() > 8) return ParseFail(where + "shape: " + std::to_string(shape->items.size()) + " dimensions, at most 8 allowed");
      // Π shape, stopped as soon as it exceeds the data (no overflow: both factors ≤ 2⁶³ / … checked).
      uint64_t count = 1;
      bool too_big = false;
      for (const JsonValue& dim : shape->items) {
        int64_t v = 0;
        if (!NonNegativeInteger(dim, &v)) return ParseFail(where + "shape: expected non-negative integers");
        t.shape.push_back(v);
      }
      for (const int64_t v : t.shape) {
        if (v == 0) {  // an empty tensor, whatever the other dimensions
          count = 0, too_big = false;
          break;
        }
        if (count > file.data_size / static_cast<uint64_t>(v)) too_big = true;
        else count *= static_cast<uint64_t>(v);
      }
      if (!offsets || offsets->kind != JsonValue::Kind::kArray || offsets->items.size() != 2)
        return ParseFail(where + "data_offsets: expected [begin, end]");
      int64_t begin = 0, end = 0;
      if (!NonNegativeInteger(offsets->items[0], &begin) || !NonNegativeInteger(offsets->items[1], &end))
        return ParseFail(where + "data_offsets: expected non-negative integers");
      t.begin = static_cast<uint64_t>(begin);
      t.end = static_cast<uint64_t>(end);
      const std::string range = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
      if (t.begin > t.end) return ParseFail(where + range + ": begin after end");
      if (t.end > file.data_size)
        return ParseFail(where + range + ": beyond the data (" + std::to_string(file.data_size) + " bytes)");
      const uint64_t want = too_big ? 0 : count * static_cast<uint64_t>(element);
      if (too_big || want / static_cast<uint64_t>(element) != count || want != t.end - t.begin)
        return ParseFail(where + range + " hold " + std::to_string(t.end - t.begin) + " bytes, expected " +
                         (too_big ? std::string("more than the data") : std::to_string(want)) + " (shape " +
                         SafetensorsShapeText(t.shape) + " × " + t.dtype + "'s " + std::to_string(element) + ")");
      file.tensors.push_back(std::move(t));
    }
    // No two tensors share a byte.
    std::vector<const SafetensorsTensor*> order;
    for (const auto& t : file.tensors) order.push_back(&t);
    std::sort(order.begin(), order.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    for (size_t i = 1; i < order.size(); ++i)
      if (order[i]->begin < order[i - 1]->end)
        return ParseFail(Clip(order[i]->name) + ": data_offsets overlap " + Clip(order[i - 1]->name) + "'s");
    *out = std::move(file);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "safetensors: out of memory reading the header");
  }
}

Status SafetensorsToFloats(const SafetensorsFile& file, const SafetensorsTensor& t, std::vector<float>* out) {
  const int element = DtypeSize(t.dtype);
  if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16")
    return ParseFail(Clip(t.name) + ": dtype " + Clip(t.dtype) + ": expected F32, F16 or BF16");
  if (t.end > file.data_size || t.begin > t.end || (t.end - t.begin) % static_cast<uint64_t>(element))
    return ParseFail(Clip(t.name) + ": data_offsets out of range");
  try {
    const size_t count = static_cast<size_t>((t.end - t.begin) / static_cast<uint64_t>(element));
    out->resize(count);
    const uint8_t* p = file.data + t.begin;
    for (size_t i = 0; i < count; ++i) {
      float v;
      if (element == 4) {
        const uint32_t bits = static_cast<uint32_t>(p[4 * i]) | static_cast<uint32_t>(p[4 * i + 1]) << 8 |
                              static_cast<uint32_t>(p[4 * i + 2]) << 16 | static_cast<uint32_t>(p[4 * i + 3]) << 24;
        std::memcpy(&v, &bits, sizeof v);
      } else {
        const uint16_t bits = static_cast<uint16_t>(p[2 * i] | p[2 * i + 1] << 8);
        v = t.dtype == "F16" ? HalfToFloat(bits) : BFloat16ToFloat(bits);
      }
      if (!std::isfinite(v))
        return Status(StatusCode::kNonFinite,
                      "safetensors: " + Clip(t.name) + ": element " + std::to_string(i) + " is " + (std::isnan(v) ? "nan" : "inf"));
      (*out)[i] = v;
    }
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "safetensors: " + Clip(t.name) + ": out of memory");
  }
}

// [SECTION] Mapping to the language model
namespace {

// The settings a config.json (or the options) gives.
struct Settings {
  int64_t n_embd = -1, n_layer = -1, n_positions = -1, vocab_size = -1, n_head = -1;
  double eps = 1e-5;
  LmActivation activation = LmActivation::kGeluTanh;
  Positions positions = Positions::kLearned;
};

Status ConfigInteger(const JsonValue& config, const char* key, int64_t* out) {
  const JsonValue* v = config.Find(key);
  if (!v || v->kind == JsonValue::Kind::kNull) return Status::Ok();
  if (!NonNegativeInteger(*v, out) || *out > (int64_t{1} << 40))
    return CheckpointFail(StatusCode::kInvalidArgument, std::string(key) + ": expected a non-negative integer in the config");
  return Status::Ok();
}

Status ActivationByName(const std::string& name, LmActivation* out) {
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") *out = LmActivation::kGeluTanh;
  else if (name == "gelu") *out = LmActivation::kGeluErf;
  else
    return CheckpointFail(StatusCode::kUnknownOption, "activation_function: \"" + Clip(name) +
                                                          "\": expected gelu_new, gelu_pytorch_tanh (tanh GELU) or gelu (erf)");
  return Status::Ok();
}

Status ReadSettings(const LmCheckpointOptions& o, Settings* s) {
  if (!o.config_json.empty()) {
    JsonValue config;
    if (Status st = ParseJson(o.config_json.data(), o.config_json.size(), &config); !st.ok())
      return Status(st.code(), "checkpoint: config.json: " + st.message());
    if (config.kind != JsonValue::Kind::kObject) return CheckpointFail(StatusCode::kParseError, "config.json: expected an object");
    ATTN_RETURN_IF_ERROR(ConfigInteger(config, "n_embd", &s->n_embd));
    ATTN_RETURN_IF_ERROR(ConfigInteger(config, "n_layer", &s->n_layer));
    ATTN_RETURN_IF_ERROR(ConfigInteger(config, "n_ctx", &s->n_positions));
    ATTN_RETURN_IF_ERROR(ConfigInteger(config, "n_positions", &s->n_positions));  // wins over n_ctx
    ATTN_RETURN_IF_ERROR(ConfigInteger(config, "vocab_size", &s->vocab_size));
    ATTN_RETURN_IF_ERROR(ConfigInteger(config, "n_head", &s->n_head));
    if (const JsonValue* eps = config.Find("layer_norm_epsilon")) {
      if (eps->kind != JsonValue::Kind::kNumber || !(eps->number > 0 && eps->number < 1))
        return CheckpointFail(StatusCode::kOutOfRange, "layer_norm_epsilon: expected a number in (0, 1)");
      s->eps = eps->number;
    }
    if (const JsonValue* act = config.Find("activation_function")) {
      if (act->kind != JsonValue::Kind::kString)
        return CheckpointFail(StatusCode::kInvalidArgument, "activation_function: expected a string");
      ATTN_RETURN_IF_ERROR(ActivationByName(act->text, &s->activation));
    }
    if (const JsonValue* pos = config.Find("attnlab_positions")) {
      if (pos->kind == JsonValue::Kind::kString && pos->text == "rope") s->positions = Positions::kRope;
      else if (!(pos->kind == JsonValue::Kind::kString && pos->text == "learned"))
        return CheckpointFail(StatusCode::kUnknownOption, "attnlab_positions: expected \"learned\" or \"rope\"");
    }
  }
  if (o.heads > 0) s->n_head = o.heads;
  if (o.layer_norm_eps > 0) s->eps = o.layer_norm_eps;
  if (!o.activation.empty()) ATTN_RETURN_IF_ERROR(ActivationByName(o.activation, &s->activation));
  return Status::Ok();
}

// "h.12.attn.c_attn.weight" -> 12 and "attn.c_attn.weight"; false when not "h.<digits>.…".
bool BlockName(const std::string& name, int* block, std::string* rest) {
  if (name.compare(0, 2, "h.") != 0) return false;
  size_t k = 2;
  int64_t v = 0;
  while (k < name.size() && name[k] >= '0' && name[k] <= '9' && k < 12) v = v * 10 + (name[k++] - '0');
  if (k == 2 || k >= name.size() || name[k] != '.' || (name[2] == '0' && k > 3)) return false;
  *block = v > 1000000 ? 1000000 : static_cast<int>(v);
  *rest = name.substr(k + 1);
  return true;
}

const char* const kBlockParameters[] = {"ln_1.weight", "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
                                        "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                                        "mlp.c_fc.weight",  "mlp.c_fc.bias",    "mlp.c_proj.weight", "mlp.c_proj.bias"};

bool IsBias(const std::string& name) { return name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0; }

}  // namespace

Status ReadLmCheckpoint(const std::string& bytes, const LmCheckpointOptions& options, LmModel* model,
                        LmCheckpointInfo* info) {
  try {
    SafetensorsFile file;
    ATTN_RETURN_IF_ERROR(ParseSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &file));
    Settings s;
    ATTN_RETURN_IF_ERROR(ReadSettings(options, &s));

    // Names without the "transformer." prefix; the same name twice (with and without) is refused.
    std::map<std::string, const SafetensorsTensor*> by_name;
    for (const SafetensorsTensor& t : file.tensors) {
      std::string name = t.name;
      if (name.compare(0, 12, "transformer.") == 0) name = name.substr(12);
      if (!by_name.emplace(name, &t).second)
        return CheckpointFail(StatusCode::kParseError, Clip(t.name) + ": the same parameter twice (with and without \"transformer.\")");
    }
    const auto find = [&](const std::string& name) -> const SafetensorsTensor* {
      const auto it = by_name.find(name);
      return it == by_name.end() ? nullptr : it->second;
    };
    const auto missing = [](const std::string& name, const std::string& why = "") {
      return CheckpointFail(StatusCode::kShapeMismatch, name + ": missing" + why);
    };

    // [SECTION] Sizes from the shapes, cross-checked with the config
    const SafetensorsTensor* wte = find("wte.weight");
    if (!wte) return missing("wte.weight", " (the token embedding: not a GPT-2 / nanoGPT checkpoint?)");
    if (wte->shape.size() != 2)
      return CheckpointFail(StatusCode::kShapeMismatch, "wte.weight: expected 2 dimensions (vocab, n_embd), got shape " + SafetensorsShapeText(wte->shape));
    const int64_t vocab = wte->shape[0], d = wte->shape[1];
    int layers = 0;
    for (const auto& [name, t] : by_name) {
      int block = 0;
      std::string rest;
      if (BlockName(name, &block, &rest)) layers = std::max(layers, block + 1);
    }
    const auto cross = [](const char* key, int64_t config, int64_t shapes, const std::string& from) {
      if (config >= 0 && config != shapes)
        return CheckpointFail(StatusCode::kShapeMismatch, std::string(key) + ": the config says " + std::to_string(config) +
                                                              ", the file's " + from + " " + std::to_string(shapes));
      return Status::Ok();
    };
    ATTN_RETURN_IF_ERROR(cross("n_layer", s.n_layer, layers, "blocks h.N number"));
    ATTN_RETURN_IF_ERROR(cross("n_embd", s.n_embd, d, "wte.weight has width"));
    ATTN_RETURN_IF_ERROR(cross("vocab_size", s.vocab_size, vocab, "wte.weight has rows"));
    const SafetensorsTensor* wpe = find("wpe.weight");
    int64_t seq_len = s.n_positions;
    if (s.positions == Positions::kLearned) {
      if (!wpe) return missing("wpe.weight", " (learned positions; an attnlab RoPE model says attnlab_positions \"rope\" in its config)");
      if (wpe->shape.size() != 2)
        return CheckpointFail(StatusCode::kShapeMismatch, "wpe.weight: expected 2 dimensions (n_positions, n_embd), got shape " + SafetensorsShapeText(wpe->shape));
      ATTN_RETURN_IF_ERROR(cross("n_positions", s.n_positions, wpe->shape[0], "wpe.weight has rows"));
      seq_len = wpe->shape[0];
    } else if (seq_len < 0) {
      return CheckpointFail(StatusCode::kInvalidArgument, "n_positions: not in the config (a RoPE model has no wpe.weight to read it from)");
    }
    if (s.n_head < 0)
      return CheckpointFail(StatusCode::kInvalidArgument,
                            "n_head: not in the config; pass a config.json with n_head or the number of heads "
                            "(a head count cannot be read off the weights' shapes, and is never guessed)");
    if (s.n_head < 1 || d % s.n_head)
      return CheckpointFail(StatusCode::kShapeMismatch, "n_head: " + std::to_string(s.n_head) +
                                                            " does not divide n_embd " + std::to_string(d));
    const auto narrow = [](int64_t v) { return static_cast<int>(std::min<int64_t>(v, int64_t{1} << 30)); };
    LmConfig c;
    c.vocab = narrow(vocab);
    c.seq_len = narrow(seq_len);
    c.d_model = narrow(d);
    c.layers = layers;
    c.heads = narrow(s.n_head);
    c.positions = s.positions;
    c.layer_norm_eps = s.eps;
    c.activation = s.activation;
    if (Status st = ValidateLmConfig(c); !st.ok()) return Status(st.code(), "checkpoint: " + st.message());

    // [SECTION] Layout, biases, missing and extra tensors (before any float is allocated)
    const SafetensorsTensor* c_attn = find("h.0.attn.c_attn.weight");
    if (!c_attn) return missing("h.0.attn.c_attn.weight");
    bool linear = false;  // nanoGPT's (out, in)
    if (c_attn->shape == std::vector<int64_t>{d, 3 * d}) linear = false;
    else if (c_attn->shape == std::vector<int64_t>{3 * d, d}) linear = true;
    else
      return CheckpointFail(StatusCode::kShapeMismatch, "h.0.attn.c_attn.weight: expected (" + std::to_string(d) + ", " +
                                                            std::to_string(3 * d) + ") (GPT-2's Conv1D) or (" + std::to_string(3 * d) +
                                                            ", " + std::to_string(d) + ") (nanoGPT's Linear), got " + SafetensorsShapeText(c_attn->shape));
    const bool biases = find("h.0.attn.c_attn.bias") != nullptr;
    std::set<std::string> expected = {"wte.weight", "ln_f.weight"};
    if (c.positions == Positions::kLearned) expected.insert("wpe.weight");
    if (biases) expected.insert("ln_f.bias");
    for (int l = 0; l < layers; ++l)
      for (const char* p : kBlockParameters)
        if (biases || !IsBias(p)) expected.insert("h." + std::to_string(l) + "." + p);
    for (const std::string& name : expected)
      if (!find(name))
        return missing(name);
    for (const auto& [name, t] : by_name) {
      int block = 0;
      std::string rest;
      const bool buffer = BlockName(name, &block, &rest) && (rest == "attn.bias" || rest == "attn.masked_bias");
      if (expected.count(name) || buffer || name == "lm_head.weight" || name == "lm_head.bias") continue;
      if (!biases && IsBias(name) && expected.count(name.substr(0, name.size() - 5) + ".weight"))
        return CheckpointFail(StatusCode::kShapeMismatch, Clip(t->name) + ": a bias in a file without h.0.attn.c_attn.bias "
                                                                       "(biases must be all present or all absent)");
      return CheckpointFail(StatusCode::kShapeMismatch, Clip(t->name) + ": an extra tensor (not a GPT-2 / nanoGPT parameter)");
    }

    // [SECTION] The floats
    std::set<std::string> dtypes;
    std::vector<float> buffer;
    // Loads `name` stored with `shape` (the file's layout) into `buffer`.
    const auto load = [&](const std::string& name, std::vector<int64_t> shape) -> Status {
      const SafetensorsTensor* t = find(name);
      if (t->shape != shape)
        return CheckpointFail(StatusCode::kShapeMismatch, Clip(t->name) + ": expected shape " + SafetensorsShapeText(shape) + ", got " + SafetensorsShapeText(t->shape));
      dtypes.insert(t->dtype);
      return SafetensorsToFloats(file, *t, &buffer);
    };
    // A (rows, cols) matrix from a row-major buffer, or its transpose (from (cols, rows)).
    const auto matrix = [&](Eigen::Index rows, Eigen::Index cols, bool transposed, Eigen::Index col0 = 0, Eigen::Index stride = -1) {
      Matrix m(rows, cols);
      if (stride < 0) stride = transposed ? rows : cols;
      for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index k = 0; k < cols; ++k)
          m(r, k) = transposed ? buffer[static_cast<size_t>((col0 + k) * stride + r)]
                               : buffer[static_cast<size_t>(r * stride + col0 + k)];
      return m;
    };
    const auto vector = [&](const std::string& name, int64_t n) -> Status {
      return load(name, {n});
    };
    const auto row = [&](Eigen::Index n, Eigen::Index at = 0) { return matrix(1, n, false, at, n); };
    LmModel m;
    m.config = c;
    ModelParameters& p = m.params;
    ATTN_RETURN_IF_ERROR(load("wte.weight", {vocab, d}));
    p.wte = matrix(vocab, d, false);
    const std::vector<float> wte_floats = buffer;
    if (c.positions == Positions::kLearned) {
      ATTN_RETURN_IF_ERROR(load("wpe.weight", {seq_len, d}));
      p.wpe = matrix(seq_len, d, false);
    }
    const Matrix zeros_d = Matrix::Zero(1, d);
    const auto layer_norm = [&](const std::string& prefix, Matrix* gamma, Matrix* beta) -> Status {
      ATTN_RETURN_IF_ERROR(vector(prefix + ".weight", d));
      *gamma = row(d);
      *beta = zeros_d;
      if (biases) {
        ATTN_RETURN_IF_ERROR(vector(prefix + ".bias", d));
        *beta = row(d);
      }
      return Status::Ok();
    };
    // A weight used as x·W with W (in, out): Conv1D stores exactly that, Linear its transpose.
    const auto weight = [&](const std::string& name, int64_t in, int64_t out) -> Status {
      return load(name, linear ? std::vector<int64_t>{out, in} : std::vector<int64_t>{in, out});
    };
    for (int l = 0; l < layers; ++l) {
      const std::string h = "h." + std::to_string(l) + ".";
      BlockParametersT<float> b;
      ATTN_RETURN_IF_ERROR(layer_norm(h + "ln_1", &b.ln1_gamma, &b.ln1_beta));
      ATTN_RETURN_IF_ERROR(weight(h + "attn.c_attn.weight", d, 3 * d));
      // q | k | v along "out": columns [0, d), [d, 2d), [2d, 3d) of the (d, 3d) matrix
      Matrix* qkv[] = {&b.attention.wq, &b.attention.wk, &b.attention.wv};
      for (int k = 0; k < 3; ++k) *qkv[k] = matrix(d, d, linear, k * d, linear ? d : 3 * d);
      Matrix* qkv_b[] = {&b.attention.bq, &b.attention.bk, &b.attention.bv};
      if (biases) {
        ATTN_RETURN_IF_ERROR(vector(h + "attn.c_attn.bias", 3 * d));
        for (int k = 0; k < 3; ++k) *qkv_b[k] = row(d, k * d);
      } else {
        for (Matrix* bias : qkv_b) *bias = zeros_d;
      }
      ATTN_RETURN_IF_ERROR(weight(h + "attn.c_proj.weight", d, d));
      b.attention.wo = matrix(d, d, linear);
      b.attention.bo = zeros_d;
      if (biases) {
        ATTN_RETURN_IF_ERROR(vector(h + "attn.c_proj.bias", d));
        b.attention.bo = row(d);
      }
      ATTN_RETURN_IF_ERROR(layer_norm(h + "ln_2", &b.ln2_gamma, &b.ln2_beta));
      ATTN_RETURN_IF_ERROR(weight(h + "mlp.c_fc.weight", d, 4 * d));
      b.fc_w = matrix(d, 4 * d, linear);
      b.fc_b = Matrix::Zero(1, 4 * d);
      if (biases) {
        ATTN_RETURN_IF_ERROR(vector(h + "mlp.c_fc.bias", 4 * d));
        b.fc_b = row(4 * d);
      }
      ATTN_RETURN_IF_ERROR(weight(h + "mlp.c_proj.weight", 4 * d, d));
      b.proj_w = matrix(4 * d, d, linear);
      b.proj_b = zeros_d;
      if (biases) {
        ATTN_RETURN_IF_ERROR(vector(h + "mlp.c_proj.bias", d));
        b.proj_b = row(d);
      }
      p.blocks.push_back(std::move(b));
    }
    ATTN_RETURN_IF_ERROR(layer_norm("ln_f", &p.lnf_gamma, &p.lnf_beta));
    p.out_b = Matrix::Zero(1, vocab);
    if (find("lm_head.bias")) {
      ATTN_RETURN_IF_ERROR(vector("lm_head.bias", vocab));
      p.out_b = row(vocab);
    }
    if (find("lm_head.weight")) {
      ATTN_RETURN_IF_ERROR(load("lm_head.weight", {vocab, d}));
      if (buffer != wte_floats)
        return CheckpointFail(StatusCode::kShapeMismatch,
                              "lm_head.weight: differs from wte.weight (an untied output head; attnlab's output is tied to wte)");
    }

    // [SECTION] The vocabulary
    for (const auto& [key, value] : file.metadata)
      if (key == "attnlab.vocabulary") {
        std::vector<std::string> words;
        size_t start = 0;
        while (words.size() <= static_cast<size_t>(vocab)) {
          const size_t end = value.find('\n', start);
          words.push_back(value.substr(start, end == std::string::npos ? std::string::npos : end - start));
          if (end == std::string::npos) break;
          start = end + 1;
        }
        if (words.size() == static_cast<size_t>(vocab)) m.vocabulary = std::move(words);
      }
    const bool placeholders = m.vocabulary.empty();
    if (placeholders)
      for (int64_t i = 0; i < vocab; ++i) m.vocabulary.push_back("[" + std::to_string(i) + "]");

    if (info) {
      info->layout = linear ? "nanogpt (Linear)" : "gpt2 (Conv1D)";
      info->dtype = dtypes.size() == 1 ? *dtypes.begin() : "mixed";
      info->biases = biases;
      info->parameters = LmParameterCount(c);
      info->bytes_in_memory = 4 * info->parameters;
      info->vocabulary = placeholders ? "placeholders" : "attnlab";
    }
    *model = std::move(m);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "checkpoint: out of memory");
  }
}

// [SECTION] Writing
Status WriteSafetensors(const std::vector<std::pair<std::string, std::string>>& metadata,
                        const std::vector<SafetensorsEntry>& tensors, std::string* out) {
  try {
    std::string header = "{\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i) header += ",";
      AppendJsonString(metadata[i].first, &header);
      header += ":";
      AppendJsonString(metadata[i].second, &header);
    }
    header += "}";
    uint64_t offset = 0;
    for (const SafetensorsEntry& t : tensors) {
      int64_t count = 1;
      for (const int64_t n : t.shape) count *= n;
      if (count != t.values.size())
        return Status(StatusCode::kShapeMismatch, "safetensors: " + Clip(t.name) + ": shape " + SafetensorsShapeText(t.shape) + " holds " +
                                                      std::to_string(count) + " values, expected " + std::to_string(t.values.size()));
      const uint64_t bytes = 4 * static_cast<uint64_t>(count);
      header += ",";
      AppendJsonString(t.name, &header);
      header += ":{\"dtype\":\"F32\",\"shape\":" + SafetensorsShapeText(t.shape) + ",\"data_offsets\":[" + std::to_string(offset) +
                "," + std::to_string(offset + bytes) + "]}";
      offset += bytes;
    }
    header += "}";
    while (header.size() % 8) header += ' ';  // the data starts 8-aligned, as the safetensors crate writes it
    std::string bytes;
    bytes.reserve(8 + header.size() + offset);
    for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * k)) & 0xFF));
    bytes += header;
    for (const SafetensorsEntry& t : tensors)
      for (Eigen::Index r = 0; r < t.values.rows(); ++r)
        for (Eigen::Index k = 0; k < t.values.cols(); ++k) {
          uint32_t bits;
          const float v = t.values(r, k);
          std::memcpy(&bits, &v, sizeof bits);
          for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((bits >> (8 * b)) & 0xFF));
        }
    *out = std::move(bytes);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "safetensors: out of memory writing the tensors");
  }
}

std::string ConfigNameBeside(const std::string& name) {
  const std::string ending = ".safetensors";
  const bool ends = name.size() > ending.size() && name.compare(name.size() - ending.size(), ending.size(), ending) == 0;
  return (ends ? name.substr(0, name.size() - ending.size()) : name) + ".config.json";
}

Status WriteLmCheckpoint(const LmModel& model, std::string* safetensors, std::string* config_json) {
  try {
    const LmConfig& c = model.config;
    ATTN_RETURN_IF_ERROR(CheckLmShapes(c, model.params));
    // No words (a GPT-2 vocabulary, whose tokenizer is not attnlab's): no "attnlab.vocabulary".
    if (!model.vocabulary.empty() && model.vocabulary.size() != static_cast<size_t>(c.vocab))
      return Status(StatusCode::kShapeMismatch, "checkpoint: vocabulary: expected " + std::to_string(c.vocab) +
                                                    " words or none, got " + std::to_string(model.vocabulary.size()));
    std::string words;
    for (size_t i = 0; i < model.vocabulary.size(); ++i) {
      if (model.vocabulary[i].find('\n') != std::string::npos)
        return Status(StatusCode::kInvalidArgument, "checkpoint: vocabulary[" + std::to_string(i) + "]: expected a word without '\\n'");
      words += (i ? "\n" : "") + model.vocabulary[i];
    }
    const ModelParameters& p = model.params;
    const Eigen::Index d = c.d_model;
    std::vector<SafetensorsEntry> tensors;
    const auto add = [&](const std::string& name, const Matrix& m, bool vector) {
      tensors.push_back({name, vector ? std::vector<int64_t>{m.size()} : std::vector<int64_t>{m.rows(), m.cols()}, m});
    };
    add("wte.weight", p.wte, false);
    if (c.positions == Positions::kLearned) add("wpe.weight", p.wpe, false);
    for (int l = 0; l < c.layers; ++l) {
      const BlockParametersT<float>& b = p.blocks[static_cast<size_t>(l)];
      const std::string h = "h." + std::to_string(l) + ".";
      Matrix qkv(d, 3 * d), qkv_b(1, 3 * d);
      qkv << b.attention.wq, b.attention.wk, b.attention.wv;
      qkv_b << b.attention.bq, b.attention.bk, b.attention.bv;
      add(h + "ln_1.weight", b.ln1_gamma, true);
      add(h + "ln_1.bias", b.ln1_beta, true);
      add(h + "attn.c_attn.weight", qkv, false);
      add(h + "attn.c_attn.bias", qkv_b, true);
      add(h + "attn.c_proj.weight", b.attention.wo, false);
      add(h + "attn.c_proj.bias", b.attention.bo, true);
      add(h + "ln_2.weight", b.ln2_gamma, true);
      add(h + "ln_2.bias", b.ln2_beta, true);
      add(h + "mlp.c_fc.weight", b.fc_w, false);
      add(h + "mlp.c_fc.bias", b.fc_b, true);
      add(h + "mlp.c_proj.weight", b.proj_w, false);
      add(h + "mlp.c_proj.bias", b.proj_b, true);
    }
    add("ln_f.weight", p.lnf_gamma, true);
    add("ln_f.bias", p.lnf_beta, true);
    add("lm_head.bias", p.out_b, true);
    std::string out;
    std::vector<std::pair<std::string, std::string>> metadata = {{"format", "pt"}};
    if (!model.vocabulary.empty()) metadata.emplace_back("attnlab.vocabulary", words);
    ATTN_RETURN_IF_ERROR(WriteSafetensors(metadata, tensors, &out));
    char eps[32];
    std::snprintf(eps, sizeof eps, "%.17g", c.layer_norm_eps);
    std::string config = "{\n  \"model_type\": \"gpt2\",\n  \"architectures\": [\"GPT2LMHeadModel\"],\n";
    config += "  \"vocab_size\": " + std::to_string(c.vocab) + ",\n  \"n_positions\": " + std::to_string(c.seq_len) +
              ",\n  \"n_ctx\": " + std::to_string(c.seq_len) + ",\n  \"n_embd\": " + std::to_string(c.d_model) +
              ",\n  \"n_layer\": " + std::to_string(c.layers) + ",\n  \"n_head\": " + std::to_string(c.heads) +
              ",\n  \"layer_norm_epsilon\": " + eps + ",\n  \"activation_function\": \"" +
              (c.activation == LmActivation::kGeluErf ? "gelu" : "gelu_new") + "\",\n  \"attnlab_positions\": \"" +
              (c.positions == Positions::kRope ? "rope" : "learned") + "\",\n  \"attnlab_output_bias\": \"lm_head.bias\"\n}\n";
    *safetensors = std::move(out);
    *config_json = std::move(config);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "checkpoint: out of memory writing the model");
  }
}

}  // namespace attn::train
