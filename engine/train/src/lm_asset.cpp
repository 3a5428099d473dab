#include "attn/train/lm_asset.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace attn::train {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'L', 'M', '0', '1'};
constexpr uint32_t kFloat32 = 0, kInt8Rows = 1;

bool Quantised(const Matrix& m) { return m.rows() > 1; }

// Row r of m as int8: s = max|m_r| / 127 (0 for a zero row), q = round(m / s) in [−127, 127].
// The stored value is s·q in float, here and when read back.
void QuantiseRow(const Matrix& m, Eigen::Index r, float* scale, int8_t* q) {
  const float max = m.row(r).cwiseAbs().maxCoeff();
  *scale = max > 0 ? max / 127.0f : 0.0f;
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    q[j] = *scale > 0 ? static_cast<int8_t>(std::clamp(std::lround(m(r, j) / *scale), -127L, 127L)) : int8_t{0};
}

void Pad(std::string* out) { out->append((4 - out->size() % 4) % 4, '\0'); }

template <typename V>
void Put(std::string* out, const V& v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));  // little-endian hosts only (x86, wasm)
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool Take(size_t n, const char** data) {
    if (bytes_.size() - at_ < n) return false;
    *data = bytes_.data() + at_;
    at_ += n;
    return true;
  }
  bool U32(uint32_t* v) {
    const char* d = nullptr;
    if (!Take(4, &d)) return false;
    std::memcpy(v, d, 4);
    return true;
  }
  bool Align() {
    const size_t pad = (4 - at_ % 4) % 4;
    const char* d = nullptr;
    return Take(pad, &d);
  }
  size_t at() const { return at_; }
  size_t left() const { return bytes_.size() - at_; }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

}  // namespace

ModelParameters QuantizeLm(const ModelParameters& params) {
  ModelParameters out = params;
  ForEachParameter(out, [](const std::string&, Matrix& m) {
    if (!Quantised(m)) return;
    std::vector<int8_t> q(static_cast<size_t>(m.cols()));
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      float scale = 0;
      QuantiseRow(m, r, &scale, q.data());
      for (Eigen::Index j = 0; j < m.cols(); ++j) m(r, j) = scale * static_cast<float>(q[static_cast<size_t>(j)]);
    }
  });
  return out;
}

Status WriteLmAsset(const LmModel& model, std::string* bytes) {
  const LmConfig& c = model.config;
  ATTN_RETURN_IF_ERROR(ValidateLmConfig(c));
  // The asset has no field for them: a model with other settings goes to safetensors (lm_checkpoint.h).
  if (c.layer_norm_eps != 1e-5 || c.activation != LmActivation::kGeluTanh)
    return Status(StatusCode::kInvalidArgument,
                  "lm asset: expected layer_norm_eps 1e-5 and tanh GELU (the asset's fixed settings); write safetensors instead");
  if (model.vocabulary.size() != static_cast<size_t>(c.vocab))
    return Status(StatusCode::kShapeMismatch, "lm asset: vocabulary: expected " + std::to_string(c.vocab) +
                                                  " words, got " + std::to_string(model.vocabulary.size()));
  std::string words;
  for (size_t i = 0; i < model.vocabulary.size(); ++i) {
    const std::string& w = model.vocabulary[i];
    if (w.empty() || w.find('\n') != std::string::npos)
      return Status(StatusCode::kInvalidArgument, "lm asset: vocabulary[" + std::to_string(i) + "]: expected a word without '\\n'");
    words += (i ? "\n" : "") + w;
  }
  std::string out(kMagic, sizeof(kMagic));
  for (const int v : {c.vocab, c.seq_len, c.d_model, c.layers, c.heads, static_cast<int>(c.positions), 4 * c.d_model})
    Put(&out, static_cast<uint32_t>(v));
  Put(&out, static_cast<uint32_t>(words.size()));
  out += words;
  Pad(&out);
  ATTN_RETURN_IF_ERROR(CheckLmShapes(c, model.params));
  uint32_t count = 0;
  ForEachParameter(model.params, [&](const std::string&, const Matrix&) { ++count; });
  Put(&out, count);
  ForEachParameter(model.params, [&](const std::string&, const Matrix& m) {
    Put(&out, static_cast<uint32_t>(m.rows()));
    Put(&out, static_cast<uint32_t>(m.cols()));
    if (!Quantised(m)) {
      Put(&out, kFloat32);
      for (Eigen::Index i = 0; i < m.size(); ++i) Put(&out, m.data()[i]);
      return;
    }
    Put(&out, kInt8Rows);
    std::vector<float> scales(static_cast<size_t>(m.rows()));
    std::vector<int8_t> q(static_cast<size_t>(m.size()));
    for (Eigen::Index r = 0; r < m.rows(); ++r) QuantiseRow(m, r, &scales[static_cast<size_t>(r)], q.data() + r * m.cols());
    for (const float s : scales) Put(&out, s);
    out.append(reinterpret_cast<const char*>(q.data()), q.size());
    Pad(&out);
  });
  *bytes = std::move(out);
  return Status::Ok();
}

Status ReadLmAsset(std::string_view bytes, LmModel* model) {
  Reader in(bytes);
  const auto fail = [&](const std::string& what) {
    return Status(StatusCode::kParseError, "lm asset: " + what + " (at byte " + std::to_string(in.at()) + ")");
  };
  const char* data = nullptr;
  if (!in.Take(sizeof(kMagic), &data) || std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
    return fail("expected the magic \"ATTNLM01\"");
  uint32_t header[7];
  for (uint32_t& v : header)
    if (!in.U32(&v)) return fail("truncated header");
  for (const uint32_t v : header)
    if (v > 65536) return fail("header value " + std::to_string(v) + " out of range");
  LmModel m;
  m.config.vocab = static_cast<int>(header[0]);
  m.config.seq_len = static_cast<int>(header[1]);
  m.config.d_model = static_cast<int>(header[2]);
  m.config.layers = static_cast<int>(header[3]);
  m.config.heads = static_cast<int>(header[4]);
  m.config.positions = static_cast<Positions>(header[5]);
  if (Status s = ValidateLmConfig(m.config); !s.ok()) return fail(s.message());
  if (header[6] != 4 * header[2]) return fail("MLP width: expected 4·d_model = " + std::to_string(4 * header[2]) +
                                              ", got " + std::to_string(header[6]));
  uint32_t words_bytes = 0;
  if (!in.U32(&words_bytes) || !in.Take(words_bytes, &data) || !in.Align()) return fail("truncated vocabulary");
  const std::string_view words(data, words_bytes);
  for (size_t start = 0; start <= words.size();) {
    const size_t end = std::min(words.find('\n', start), words.size());
    m.vocabulary.emplace_back(words.substr(start, end - start));
    start = end + 1;
  }
  if (m.vocabulary.size() != header[0])
    return fail("vocabulary: expected " + std::to_string(header[0]) + " words, got " + std::to_string(m.vocabulary.size()));
  m.params = LmShapes(m.config);  // every value is read below
  uint32_t count = 0, expected_count = 0;
  ForEachParameter(m.params, [&](const std::string&, const Matrix&) { ++expected_count; });
  if (!in.U32(&count) || count != expected_count)
    return fail("tensor count: expected " + std::to_string(expected_count) + ", got " + std::to_string(count));
  Status status = Status::Ok();
  ForEachParameter(m.params, [&](const std::string& name, Matrix& p) {
    if (!status.ok()) return;
    uint32_t rows = 0, cols = 0, encoding = 0;
    if (!in.U32(&rows) || !in.U32(&cols) || !in.U32(&encoding)) return void(status = fail(name + ": truncated"));
    if (static_cast<Eigen::Index>(rows) != p.rows() || static_cast<Eigen::Index>(cols) != p.cols())
      return void(status = fail(name + ": expected (" + std::to_string(p.rows()) + ", " + std::to_string(p.cols()) +
                                "), got (" + std::to_string(rows) + ", " + std::to_string(cols) + ")"));
    const uint32_t want = Quantised(p) ? kInt8Rows : kFloat32;
    if (encoding != want)
      return void(status = fail(name + ": encoding: expected " + std::to_string(want) + ", got " + std::to_string(encoding)));
    const size_t size = static_cast<size_t>(p.size());
    if (encoding == kFloat32) {
      if (!in.Take(4 * size, &data)) return void(status = fail(name + ": truncated"));
      std::memcpy(p.data(), data, 4 * size);
    } else {
      const char* scales = nullptr;
      if (!in.Take(4 * static_cast<size_t>(rows), &scales) || !in.Take(size, &data) || !in.Align())
        return void(status = fail(name + ": truncated"));
      for (uint32_t r = 0; r < rows; ++r) {
        float s = 0;
        std::memcpy(&s, scales + 4 * r, 4);
        for (uint32_t j = 0; j < cols; ++j)
          p(r, j) = s * static_cast<float>(static_cast<int8_t>(data[static_cast<size_t>(r) * cols + j]));
      }
    }
    if (!p.allFinite()) status = fail(name + ": a value is not finite");
  });
  ATTN_RETURN_IF_ERROR(status);
  if (in.left() != 0) return fail("trailing bytes: " + std::to_string(in.left()));
  *model = std::move(m);
  return Status::Ok();
}

}  // namespace attn::train
