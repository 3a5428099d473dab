#include "lessons/trained_heads.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "lessons/format.h"

namespace lessons {
namespace {

namespace train = attn::train;

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'H', 'D', '0', '1'};
constexpr int kMaxSentence = 256;  // the longest batch a model takes (attn::train::ValidateModelConfig)

Status ParseError(const std::string& what) { return Status(StatusCode::kParseError, "trained heads: " + what); }

// [SECTION] float16 (IEEE 754 binary16), round to nearest even
// false when |f| does not fit (≥ 65520 rounds to infinity) or f is not finite.
bool FloatToHalf(float f, uint16_t* out) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7FFFFFFFu;
  if (abs >= 0x477FF000u) return false;  // 65520 and up, infinities, NaN
  if (abs < 0x38800000u) {               // below 2^-14: a subnormal half (or zero)
    float a;
    std::memcpy(&a, &abs, 4);
    *out = static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));  // units of 2^-24
    return true;
  }
  const uint32_t mantissa = abs & 0x7FFFFFu;
  uint32_t h = (((abs >> 23) - 127 + 15) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent, as it should
  *out = static_cast<uint16_t>(sign | h);
  return true;
}

// false for infinities and NaN.
bool HalfToFloat(uint16_t h, float* out) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  if (exponent == 31) return false;
  if (exponent == 0) {
    const float v = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    *out = sign ? -v : v;
    return true;
  }
  const uint32_t bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  std::memcpy(out, &bits, 4);
  return true;
}

// [SECTION] Little-endian bytes
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // kParseError "truncated: <what> needs N bytes at offset O, the file has S".
  Status Need(const std::string& what, uint64_t bytes) const {
    if (bytes <= size_ - at_) return Status::Ok();
    return ParseError("truncated: " + what + " needs " + std::to_string(bytes) + " bytes at offset " +
                      std::to_string(at_) + ", the file has " + std::to_string(size_));
  }
  Status U32(const std::string& what, uint32_t* v) {
    ATTN_RETURN_IF_ERROR(Need(what, 4));
    const uint8_t* p = data_ + at_;
    *v = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
    at_ += 4;
    return Status::Ok();
  }
  Status I32(const std::string& what, int32_t* v) {
    uint32_t u;
    ATTN_RETURN_IF_ERROR(U32(what, &u));
    std::memcpy(v, &u, 4);
    return Status::Ok();
  }
  // A finite float32.
  Status F32(const std::string& what, float* v) {
    uint32_t u;
    ATTN_RETURN_IF_ERROR(U32(what, &u));
    std::memcpy(v, &u, 4);
    if (!std::isfinite(*v)) return ParseError(what + ": expected a finite number, got " + std::to_string(*v));
    return Status::Ok();
  }
  // `bytes` bytes, then zero padding to a multiple of 4.
  Status Text(const std::string& what, uint32_t bytes, std::string* text) {
    const uint64_t padded = static_cast<uint64_t>(bytes) + (4 - bytes % 4) % 4;
    ATTN_RETURN_IF_ERROR(Need(what, padded));
    text->assign(reinterpret_cast<const char*>(data_ + at_), bytes);
    at_ += padded;
    return Status::Ok();
  }
  Status Halves(const std::string& what, Matrix* m) {
    const uint64_t count = static_cast<uint64_t>(m->size());
    ATTN_RETURN_IF_ERROR(Need(what, 2 * count + (2 * count) % 4));
    for (uint64_t i = 0; i < count; ++i) {
      const uint16_t h = static_cast<uint16_t>(data_[at_ + 2 * i] | data_[at_ + 2 * i + 1] << 8);
      if (!HalfToFloat(h, m->data() + i)) return ParseError(what + ": value " + std::to_string(i) + " is not finite");
    }
    at_ += 2 * count + (2 * count) % 4;
    return Status::Ok();
  }
  size_t at() const { return at_; }
  size_t left() const { return size_ - at_; }

 private:
  const uint8_t* data_;
  size_t size_, at_ = 0;
};

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>* out) : out_(out) {}
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void I32(int32_t v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    U32(u);
  }
  void F32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    U32(u);
  }
  void Text(const std::string& text) {
    out_->insert(out_->end(), text.begin(), text.end());
    Pad();
  }
  Status Halves(const std::string& what, const Matrix& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      uint16_t h;
      if (!FloatToHalf(m.data()[i], &h))
        return Status(StatusCode::kOutOfRange, what + ": value " + std::to_string(i) + ": expected finite and below 65520 "
                                               "in magnitude (float16), got " + std::to_string(m.data()[i]));
      out_->push_back(static_cast<uint8_t>(h & 0xFF));
      out_->push_back(static_cast<uint8_t>(h >> 8));
    }
    Pad();
    return Status::Ok();
  }

 private:
  void Pad() {
    while (out_->size() % 4) out_->push_back(0);
  }
  std::vector<uint8_t>* out_;
};

// [SECTION] The model's fields and shapes
// The config as stored: 13 u32, in this order.
std::vector<uint32_t> ConfigFields(const train::ModelConfig& c) {
  return {static_cast<uint32_t>(c.kind), static_cast<uint32_t>(c.vocab),   static_cast<uint32_t>(c.classes),
          static_cast<uint32_t>(c.seq_len), static_cast<uint32_t>(c.d_model), static_cast<uint32_t>(c.layers),
          static_cast<uint32_t>(c.heads), static_cast<uint32_t>(c.head_dim), static_cast<uint32_t>(c.positions),
          c.layer_norm,  c.mlp, c.causal, c.seed};
}
constexpr const char* kConfigNames[] = {"kind", "vocab", "classes", "seq_len", "d_model", "layers", "heads",
                                        "head_dim", "positions", "layer_norm", "mlp", "causal", "seed"};
constexpr int kConfigFields = 13;

// How many values InitializeModel allocates for `c`, wte aside, counted without allocating them
// (attn::train::ParameterCount initialises the model): checked against the file's size first, so
// that a bad header cannot ask for hundreds of megabytes.
uint64_t StoredValueCount(const train::ModelConfig& c) {
  const uint64_t d = static_cast<uint64_t>(c.d_model), inner = static_cast<uint64_t>(c.heads) * train::HeadDim(c);
  uint64_t block = 3 * (d * inner + inner) + inner * d + d;
  if (c.mlp) block += d * 4 * d + 4 * d + 4 * d * d + d;
  if (c.layer_norm) block += c.mlp ? 4 * d : 2 * d;
  uint64_t total = block * static_cast<uint64_t>(c.layers) + d * static_cast<uint64_t>(c.classes) + c.classes;
  if (c.layer_norm) total += 2 * d;
  if (c.positions == train::Positions::kLearned) total += static_cast<uint64_t>(c.seq_len) * d;
  return total;
}

// Every parameter but wte, in ForEachParameter's order, with its shape.
template <typename P, typename F>
void ForEachStoredParameter(P& params, F&& f) {
  train::ForEachParameter(params, [&](const std::string& name, auto& m) {
    if (name != "wte") f(name, m);
  });
}

// [SECTION] Head roles
const char* Plural(const std::string& tag) {
  static const char* const kPlurals[][2] = {
      {"NOUN", "nouns"},        {"VERB", "verbs"},          {"ADJ", "adjectives"},   {"ADV", "adverbs"},
      {"PRON", "pronouns"},     {"DET", "determiners"},     {"ADP", "prepositions"}, {"NUM", "numbers"},
      {"CONJ", "conjunctions"}, {"PRT", "particles"},       {".", "punctuation"},    {"X", "other words"}};
  for (const auto& p : kPlurals)
    if (tag == p[0]) return p[1];
  return nullptr;
}

std::string TagText(const std::vector<std::string>& names, int tag) {
  if (tag < 0 || tag >= static_cast<int>(names.size())) return "?";
  return TagPlural(names[static_cast<size_t>(tag)]);
}

}  // namespace

std::string TagPlural(const std::string& tag) {
  const char* plural = Plural(tag);
  return plural ? plural : tag;
}

// [SECTION] Head roles
HeadRoleCounter::HeadRoleCounter(int heads, int tags)
    : heads_(std::max(heads, 0)),
      tags_(std::max(tags, 0)),
      previous_(static_cast<size_t>(heads_), 0.0),
      next_(static_cast<size_t>(heads_), 0.0),
      itself_(static_cast<size_t>(heads_), 0.0),
      tag_queries_(static_cast<size_t>(tags_), 0),
      tag_weight_(static_cast<size_t>(heads_) * tags_ * tags_, 0.0),
      tag_even_(static_cast<size_t>(tags_) * tags_, 0.0) {}

Status HeadRoleCounter::Add(const std::vector<Matrix>& weights, const std::vector<int>& tags) {
  const int n = static_cast<int>(tags.size());
  if (n < 1) return Status(StatusCode::kEmptyInput, "tags: expected at least 1 token, got 0");
  if (static_cast<int>(weights.size()) != heads_)
    return Status(StatusCode::kShapeMismatch, "weights: expected " + std::to_string(heads_) + " heads, got " +
                                                  std::to_string(weights.size()));
  for (int h = 0; h < heads_; ++h) {
    const Matrix& w = weights[static_cast<size_t>(h)];
    if (w.rows() != n || w.cols() != n)
      return Status(StatusCode::kShapeMismatch, "weights[" + std::to_string(h) + "]: expected (" + std::to_string(n) +
                                                    ", " + std::to_string(n) + "), got (" + std::to_string(w.rows()) +
                                                    ", " + std::to_string(w.cols()) + ")");
    if (!w.allFinite())
      return Status(StatusCode::kNonFinite, "weights[" + std::to_string(h) + "]: expected finite values");
  }
  for (int t = 0; t < n; ++t)
    if (tags[static_cast<size_t>(t)] < 0 || tags[static_cast<size_t>(t)] >= tags_)
      return Status(StatusCode::kOutOfRange, "tags[" + std::to_string(t) + "]: expected in [0, " +
                                                 std::to_string(tags_) + "), got " + std::to_string(tags[static_cast<size_t>(t)]));
  std::vector<int> per_tag(static_cast<size_t>(tags_), 0);  // words of each tag in the sentence
  for (int tag : tags) ++per_tag[static_cast<size_t>(tag)];
  std::vector<double> on_tag(static_cast<size_t>(tags_));
  for (int t = 0; t < n; ++t) {
    const int a = tags[static_cast<size_t>(t)];
    ++queries_;
    position_even_ += 1.0 / n;
    previous_queries_ += t >= 1;
    next_queries_ += t + 1 < n;
    ++tag_queries_[static_cast<size_t>(a)];
    for (int b = 0; b < tags_; ++b)  // the other words tagged b, as a share of the sentence
      tag_even_[static_cast<size_t>(a) * tags_ + b] += static_cast<double>(per_tag[static_cast<size_t>(b)] - (a == b)) / n;
    for (int h = 0; h < heads_; ++h) {
      const Matrix& w = weights[static_cast<size_t>(h)];
      itself_[static_cast<size_t>(h)] += w(t, t);
      if (t >= 1) previous_[static_cast<size_t>(h)] += w(t, t - 1);
      if (t + 1 < n) next_[static_cast<size_t>(h)] += w(t, t + 1);
      std::fill(on_tag.begin(), on_tag.end(), 0.0);
      for (int j = 0; j < n; ++j)
        if (j != t) on_tag[static_cast<size_t>(tags[static_cast<size_t>(j)])] += w(t, j);
      double* sums = &tag_weight_[(static_cast<size_t>(h) * tags_ + a) * tags_];
      for (int b = 0; b < tags_; ++b) sums[b] += on_tag[static_cast<size_t>(b)];
    }
  }
  ++sentences_;
  return Status::Ok();
}

Status HeadRoleCounter::Roles(const std::vector<std::string>& tag_names, int min_queries,
                              std::vector<TaggedHeadRole>* roles) const {
  if (static_cast<int>(tag_names.size()) != tags_)
    return Status(StatusCode::kShapeMismatch, "tag_names: expected " + std::to_string(tags_) + " names, got " +
                                                  std::to_string(tag_names.size()));
  if (min_queries < 1) return Status(StatusCode::kOutOfRange, "min_queries: expected ≥ 1, got " + std::to_string(min_queries));
  if (queries_ == 0) return Status(StatusCode::kEmptyInput, "head roles: no sentence was added");
  const auto mean = [](double sum, long count) { return count ? static_cast<float>(sum / count) : 0.0f; };
  roles->assign(static_cast<size_t>(heads_), TaggedHeadRole());
  for (int h = 0; h < heads_; ++h) {
    TaggedHeadRole& r = (*roles)[static_cast<size_t>(h)];
    r.previous = mean(previous_[static_cast<size_t>(h)], previous_queries_);
    r.next = mean(next_[static_cast<size_t>(h)], next_queries_);
    r.itself = mean(itself_[static_cast<size_t>(h)], queries_);
    r.position_even = mean(position_even_, queries_);
    double best = 0;
    for (int a = 0; a < tags_; ++a) {
      const long q = tag_queries_[static_cast<size_t>(a)];
      if (q < min_queries) continue;
      for (int b = 0; b < tags_; ++b) {
        const double even = tag_even_[static_cast<size_t>(a) * tags_ + b] / q;
        if (even <= 0) continue;  // no other word tagged b ever stood beside a query tagged a
        const double weight = tag_weight_[(static_cast<size_t>(h) * tags_ + a) * tags_ + b] / q;
        if (r.tag_from < 0 || weight - even > best) {
          best = weight - even;
          r.tag_from = a, r.tag_to = b;
          r.tag_weight = static_cast<float>(weight), r.tag_even = static_cast<float>(even);
        }
      }
    }
    r.text = DescribeHeadRole(h + 1, r, tag_names);
  }
  return Status::Ok();
}

Status MeasureHeadRoles(const std::vector<Matrix>& weights, const std::vector<int>& tags,
                        const std::vector<std::string>& tag_names, std::vector<TaggedHeadRole>* roles) {
  HeadRoleCounter counter(static_cast<int>(weights.size()), static_cast<int>(tag_names.size()));
  ATTN_RETURN_IF_ERROR(counter.Add(weights, tags));
  return counter.Roles(tag_names, 1, roles);
}

std::string DescribeHeadRole(int head, const TaggedHeadRole& r, const std::vector<std::string>& tag_names) {
  const char* where = "the previous word";
  float share = r.previous;
  if (r.next > share) where = "the next word", share = r.next;
  if (r.itself > share) where = "itself", share = r.itself;
  const float position_excess = share - r.position_even;
  const bool has_tag = r.tag_from >= 0 && r.tag_to >= 0;
  const float tag_excess = has_tag ? r.tag_weight - r.tag_even : 0.0f;
  const std::string link = has_tag ? TagText(tag_names, r.tag_from) + " \u2192 " + TagText(tag_names, r.tag_to) : "";
  if (std::max(position_excess, tag_excess) < 0.1f)
    return Format("head %d spreads its weight (at most %.2f on %s)", head, share, where);
  if (!has_tag || position_excess >= tag_excess) {
    std::string text = Format("head %d puts %.2f of its weight on %s", head, share, where);
    if (has_tag) text += Format("; strongest tag link: %s (%.2f)", link.c_str(), r.tag_weight);
    return text;
  }
  return Format("head %d: %s (%.2f of their weight, %.2f if spread evenly); %.2f on %s", head, link.c_str(),
                r.tag_weight, r.tag_even, share, where);
}

// [SECTION] The asset
Status SerializeTrainedHeads(const TrainedHeads& heads, std::vector<uint8_t>* bytes) {
  const train::ModelConfig& c = heads.config;
  if (static_cast<int>(heads.tags.size()) != c.classes)
    return Status(StatusCode::kShapeMismatch, "tags: expected " + std::to_string(c.classes) + " names (classes), got " +
                                                  std::to_string(heads.tags.size()));
  if (static_cast<int>(heads.corpus_roles.size()) != c.heads)
    return Status(StatusCode::kShapeMismatch, "corpus_roles: expected " + std::to_string(c.heads) + " (heads), got " +
                                                  std::to_string(heads.corpus_roles.size()));
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  Writer w(&out);
  for (uint32_t v : ConfigFields(c)) w.U32(v);
  std::string names;
  for (const std::string& t : heads.tags) {
    if (t.empty() || t.find('\n') != std::string::npos)
      return Status(StatusCode::kOutOfRange, "tags: expected non-empty names without a line break, got \"" + t + "\"");
    names += (names.empty() ? "" : "\n") + t;
  }
  w.U32(static_cast<uint32_t>(heads.tags.size()));
  w.U32(static_cast<uint32_t>(names.size()));
  w.Text(names);
  uint32_t count = 0;
  ForEachStoredParameter(heads.params, [&](const std::string&, const Matrix&) { ++count; });
  w.U32(count);
  Status status;
  ForEachStoredParameter(heads.params, [&](const std::string& name, const Matrix& m) {
    w.U32(static_cast<uint32_t>(name.size()));
    w.Text(name);
    w.U32(static_cast<uint32_t>(m.rows()));
    w.U32(static_cast<uint32_t>(m.cols()));
    if (status.ok()) status = w.Halves(name, m);
  });
  ATTN_RETURN_IF_ERROR(status);
  const HeldOutScores& s = heads.held_out;
  w.U32(s.tokens);
  for (float v : {s.loss, s.accuracy, s.baseline_word, s.baseline_row, s.baseline_majority}) w.F32(v);
  w.U32(static_cast<uint32_t>(heads.corpus_roles.size()));
  for (const TaggedHeadRole& r : heads.corpus_roles) {
    for (float v : {r.previous, r.next, r.itself, r.position_even}) w.F32(v);
    w.I32(r.tag_from);
    w.I32(r.tag_to);
    w.F32(r.tag_weight);
    w.F32(r.tag_even);
  }
  *bytes = std::move(out);
  return Status::Ok();
}

Status ParseTrainedHeads(const uint8_t* data, size_t size, TrainedHeads* out) {
  if (!data && size) return ParseError("data: expected bytes, got a null pointer");
  Reader r(data, size);
  ATTN_RETURN_IF_ERROR(r.Need("the magic", sizeof(kMagic)));
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0) return ParseError("not an ATTNHD01 file (bad magic)");
  std::string skip;
  ATTN_RETURN_IF_ERROR(r.Text("the magic", sizeof(kMagic), &skip));

  // The config.
  uint32_t f[kConfigFields];
  for (int i = 0; i < kConfigFields; ++i) ATTN_RETURN_IF_ERROR(r.U32(std::string("config ") + kConfigNames[i], &f[i]));
  for (int i : {0, 8})  // enums
    if (f[i] > 16) return ParseError(std::string("config ") + kConfigNames[i] + ": expected a small enum value, got " + std::to_string(f[i]));
  for (int i = 1; i <= 7; ++i)
    if (f[i] > 65536) return ParseError(std::string("config ") + kConfigNames[i] + ": expected at most 65536, got " + std::to_string(f[i]));
  for (int i = 9; i <= 11; ++i)
    if (f[i] > 1) return ParseError(std::string("config ") + kConfigNames[i] + ": expected 0 or 1, got " + std::to_string(f[i]));
  TrainedHeads heads;
  train::ModelConfig& c = heads.config;
  c.kind = static_cast<train::ModelKind>(f[0]);
  c.vocab = static_cast<int>(f[1]), c.classes = static_cast<int>(f[2]), c.seq_len = static_cast<int>(f[3]);
  c.d_model = static_cast<int>(f[4]), c.layers = static_cast<int>(f[5]), c.heads = static_cast<int>(f[6]);
  c.head_dim = static_cast<int>(f[7]);
  c.positions = static_cast<train::Positions>(f[8]);
  c.layer_norm = f[9], c.mlp = f[10], c.causal = f[11], c.seed = f[12];
  c.train_embedding = false;
  if (c.kind != train::ModelKind::kTransformer) return ParseError("config kind: expected 0 (transformer), got " + std::to_string(f[0]));
  const Status valid = train::ValidateModelConfig(c);
  if (!valid.ok()) return ParseError("config: " + valid.message());

  // The tag names.
  uint32_t tag_count, names_bytes;
  ATTN_RETURN_IF_ERROR(r.U32("tag count", &tag_count));
  if (tag_count != f[2]) return ParseError("tag count: expected " + std::to_string(f[2]) + " (classes), got " + std::to_string(tag_count));
  ATTN_RETURN_IF_ERROR(r.U32("tag names' length", &names_bytes));
  std::string names;
  ATTN_RETURN_IF_ERROR(r.Text("tag names", names_bytes, &names));
  for (size_t start = 0; start <= names.size();) {
    const size_t end = std::min(names.find('\n', start), names.size());
    heads.tags.push_back(names.substr(start, end - start));
    start = end + 1;
  }
  if (heads.tags.size() != tag_count)
    return ParseError("tag names: expected " + std::to_string(tag_count) + ", got " + std::to_string(heads.tags.size()));

  // The parameters, in the order and shapes InitializeModel gives (wte aside).
  uint32_t param_count;
  ATTN_RETURN_IF_ERROR(r.U32("parameter count", &param_count));
  const uint64_t values = StoredValueCount(c);
  if (2 * values > r.left())
    return ParseError("parameters: the config needs " + std::to_string(values) + " float16 values (" +
                      std::to_string(2 * values) + " bytes), only " + std::to_string(r.left()) + " bytes are left");
  train::ModelConfig shapes = c;
  shapes.vocab = 2;  // wte is not stored
  heads.params = train::InitializeModel(shapes);
  heads.params.wte.resize(0, 0);
  uint32_t expected_count = 0;
  ForEachStoredParameter(heads.params, [&](const std::string&, const Matrix&) { ++expected_count; });
  if (param_count != expected_count)
    return ParseError("parameter count: expected " + std::to_string(expected_count) + ", got " + std::to_string(param_count));
  Status status;
  ForEachStoredParameter(heads.params, [&](const std::string& name, Matrix& m) {
    if (!status.ok()) return;
    uint32_t name_bytes, rows, cols;
    std::string stored;
    status = r.U32(name + ": name length", &name_bytes);
    if (status.ok() && name_bytes > 64) status = ParseError(name + ": name length: expected at most 64, got " + std::to_string(name_bytes));
    if (status.ok()) status = r.Text(name + ": name", name_bytes, &stored);
    if (status.ok() && stored != name) status = ParseError("parameter: expected " + name + ", got \"" + stored + "\"");
    if (status.ok()) status = r.U32(name + ": rows", &rows);
    if (status.ok()) status = r.U32(name + ": cols", &cols);
    if (status.ok() && (static_cast<Eigen::Index>(rows) != m.rows() || static_cast<Eigen::Index>(cols) != m.cols()))
      status = ParseError(name + ": expected (" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "), got (" +
                          std::to_string(rows) + ", " + std::to_string(cols) + ")");
    if (status.ok()) status = r.Halves(name, &m);
  });
  ATTN_RETURN_IF_ERROR(status);

  // The held-out scores and the corpus roles.
  HeldOutScores& s = heads.held_out;
  ATTN_RETURN_IF_ERROR(r.U32("held-out tokens", &s.tokens));
  ATTN_RETURN_IF_ERROR(r.F32("held-out loss", &s.loss));
  ATTN_RETURN_IF_ERROR(r.F32("held-out accuracy", &s.accuracy));
  ATTN_RETURN_IF_ERROR(r.F32("word baseline", &s.baseline_word));
  ATTN_RETURN_IF_ERROR(r.F32("word-list row baseline", &s.baseline_row));
  ATTN_RETURN_IF_ERROR(r.F32("majority baseline", &s.baseline_majority));
  uint32_t role_count;
  ATTN_RETURN_IF_ERROR(r.U32("role count", &role_count));
  if (role_count != f[6]) return ParseError("role count: expected " + std::to_string(f[6]) + " (heads), got " + std::to_string(role_count));
  for (uint32_t h = 0; h < role_count; ++h) {
    TaggedHeadRole role;
    const std::string at = "role " + std::to_string(h + 1) + ": ";
    ATTN_RETURN_IF_ERROR(r.F32(at + "previous", &role.previous));
    ATTN_RETURN_IF_ERROR(r.F32(at + "next", &role.next));
    ATTN_RETURN_IF_ERROR(r.F32(at + "itself", &role.itself));
    ATTN_RETURN_IF_ERROR(r.F32(at + "position_even", &role.position_even));
    int32_t from, to;
    ATTN_RETURN_IF_ERROR(r.I32(at + "tag_from", &from));
    ATTN_RETURN_IF_ERROR(r.I32(at + "tag_to", &to));
    for (int32_t tag : {from, to})
      if (tag < -1 || tag >= c.classes)
        return ParseError(at + "tag: expected -1 or a class in [0, " + std::to_string(c.classes) + "), got " + std::to_string(tag));
    role.tag_from = from, role.tag_to = to;
    ATTN_RETURN_IF_ERROR(r.F32(at + "tag_weight", &role.tag_weight));
    ATTN_RETURN_IF_ERROR(r.F32(at + "tag_even", &role.tag_even));
    role.text = DescribeHeadRole(static_cast<int>(h) + 1, role, heads.tags);
    heads.corpus_roles.push_back(std::move(role));
  }
  if (r.left()) return ParseError("expected " + std::to_string(r.at()) + " bytes, got " + std::to_string(size) + " (" +
                                  std::to_string(r.left()) + " trailing)");
  *out = std::move(heads);
  return Status::Ok();
}

// [SECTION] Tagging
Status TagSentence(const TrainedHeads& heads, const Matrix& x, TaggedSentence* out) {
  const train::ModelConfig& c = heads.config;
  if (heads.params.blocks.empty())
    return Status(StatusCode::kEmptyInput, "heads: expected a parsed model (ParseTrainedHeads), got no layers");
  const int longest = c.positions == train::Positions::kLearned ? c.seq_len : kMaxSentence;
  const int n = static_cast<int>(x.rows());
  if (n < 1 || n > longest)
    return Status(StatusCode::kShapeMismatch, "x: expected 1–" + std::to_string(longest) + " rows (tokens), got " + std::to_string(n));
  if (x.cols() != c.d_model)
    return Status(StatusCode::kShapeMismatch, "x: expected " + std::to_string(c.d_model) + " columns (d_model), got " +
                                                  std::to_string(x.cols()));
  if (!x.allFinite()) return Status(StatusCode::kNonFinite, "x: expected finite values");
  // The sentence is the vocabulary: token i is row i (a spare zero row keeps vocab ≥ 2).
  train::ModelConfig config = c;
  config.vocab = std::max(n, 2);
  config.seq_len = c.positions == train::Positions::kLearned ? c.seq_len : n;
  train::ModelParameters params = heads.params;
  params.wte = Matrix::Zero(config.vocab, c.d_model);
  params.wte.topRows(n) = x;
  train::Batch batch;
  batch.size = 1;
  batch.seq_len = n;
  for (int i = 0; i < n; ++i) batch.ids.push_back(i);
  batch.targets.assign(static_cast<size_t>(n), 0);
  batch.weights.assign(static_cast<size_t>(n), 0.0f);  // nothing scored: the tags are the output
  train::Activations acts;
  ATTN_RETURN_IF_ERROR(train::ModelForward(config, params, batch, &acts));
  TaggedSentence tagged;
  tagged.probabilities = acts.probs;
  for (int i = 0; i < n; ++i) {
    Eigen::Index best = 0;
    acts.logits.row(i).maxCoeff(&best);  // first on ties, as the training accuracy counts
    tagged.tags.push_back(static_cast<int>(best));
  }
  for (const auto& head : acts.blocks[0].attention[0].heads) tagged.weights.push_back(head.weights);
  *out = std::move(tagged);
  return Status::Ok();
}

void TrainedLayer(const TrainedHeads& heads, attn::AttentionConfig* config, attn::AttentionParameters* params) {
  *config = train::LayerAttentionConfig(heads.config);
  *params = heads.params.blocks[0].attention;
}

Status TrainedHead(const TrainedHeads& heads, int head, attn::AttentionConfig* config, attn::AttentionParameters* params) {
  if (heads.params.blocks.empty())
    return Status(StatusCode::kEmptyInput, "heads: expected a parsed model (ParseTrainedHeads), got no layers");
  if (head < 0 || head >= heads.config.heads)
    return Status(StatusCode::kOutOfRange, "head: expected 0–" + std::to_string(heads.config.heads - 1) + ", got " +
                                               std::to_string(head));
  const attn::AttentionParameters& all = heads.params.blocks[0].attention;
  const int d_k = train::HeadDim(heads.config);
  *config = train::LayerAttentionConfig(heads.config);
  config->num_heads = 1;
  config->project_output = false;  // one head's own output, as view 3 draws it
  params->wq = all.wq.middleCols(head * d_k, d_k);
  params->wk = all.wk.middleCols(head * d_k, d_k);
  params->wv = all.wv.middleCols(head * d_k, d_k);
  params->bq = all.bq.middleCols(head * d_k, d_k);
  params->bk = all.bk.middleCols(head * d_k, d_k);
  params->bv = all.bv.middleCols(head * d_k, d_k);
  return Status::Ok();
}

}  // namespace lessons
