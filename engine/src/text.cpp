#include "attn/text.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attn/seeded_random.h"

namespace attn {
namespace {

bool IsWordChar(unsigned char c) { return std::isalnum(c) || c >= 0x80; }  // keep UTF-8 bytes

uint64_t Fnv1a64(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// splitmix64: a tiny, well-mixed generator with identical output everywhere.
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Uniform01(uint64_t* state) {  // in (0, 1]
  return (static_cast<double>(SplitMix64(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

template <typename T>
std::string Shortest(T value, int max_digits, T (*read)(const char*, char**)) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[40];
  for (int digits = 1; digits <= max_digits; ++digits) {  // max_digits always reads back
    std::snprintf(text, sizeof(text), "%.*g", digits, static_cast<double>(value));
    if (read(text, nullptr) == value) break;
  }
  return text;
}

bool EndsWithIgnoringCase(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  return true;
}

// Splits English clitics off like the Penn Treebank (and GloVe's corpus): "didn't" -> "did" "n't",
// "it's" -> "it" "'s". Other apostrophes ("o'clock") stay inside the word.
void PushWord(std::string word, std::vector<std::string>* tokens) {
  static const char* const kClitics[] = {"'s", "'re", "'ll", "'ve", "'m", "'d"};
  if (word.size() > 3 && EndsWithIgnoringCase(word, "n't")) {
    tokens->push_back(word.substr(0, word.size() - 3));
    tokens->push_back(word.substr(word.size() - 3));
    return;
  }
  for (const char* clitic : kClitics) {
    const size_t n = std::strlen(clitic);
    if (word.size() > n && EndsWithIgnoringCase(word, clitic)) {
      tokens->push_back(word.substr(0, word.size() - n));
      tokens->push_back(word.substr(word.size() - n));
      return;
    }
  }
  tokens->push_back(std::move(word));
}

}  // namespace

std::vector<std::string> Tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) PushWord(std::move(current), &tokens);
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isspace(c)) {
      flush();
    } else if (IsWordChar(c)) {
      current.push_back(static_cast<char>(c));
    } else if (c == '\'' && !current.empty() && i + 1 < text.size() &&
               IsWordChar(static_cast<unsigned char>(text[i + 1]))) {
      current.push_back('\'');  // an apostrophe between letters stays in the word
    } else {
      flush();
      tokens.emplace_back(1, static_cast<char>(c));
    }
  }
  flush();
  return tokens;
}

std::string NormalizeToken(std::string_view token) {
  std::string out(token);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Matrix HashEmbedding(std::string_view token, int dim) {
  Matrix v(1, dim);
  uint64_t state = Fnv1a64(NormalizeToken(token));
  for (int c = 0; c < dim; ++c) {
    const double u1 = Uniform01(&state), u2 = Uniform01(&state);
    v(0, c) = static_cast<float>(attn::BoxMuller(u1, u2));
  }
  return v;
}

Matrix HashEmbeddings(const std::vector<std::string>& tokens, int dim) {
  Matrix x(static_cast<Eigen::Index>(tokens.size()), dim);
  for (size_t i = 0; i < tokens.size(); ++i) x.row(static_cast<Eigen::Index>(i)) = HashEmbedding(tokens[i], dim);
  return x;
}

std::string ShortestNumberText(float value) { return Shortest<float>(value, 9, std::strtof); }
std::string ShortestNumberText(double value) { return Shortest<double>(value, 17, std::strtod); }

}  // namespace attn
