#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "attn/text.h"

namespace attn {
namespace {

// Significant digits of a "%g" text: its digits without leading zeros and without the exponent's.
int SignificantDigits(const std::string& text) {
  int digits = 0;
  bool leading = true;
  for (char c : text) {
    if (c == 'e') break;
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits;
}

TEST(Tokenize, SplitsWordsAndPunctuation) {
  const std::vector<std::string> want = {"The", "animal", "did", "n't", "cross", ",", "it", "was", "tired", "."};
  EXPECT_EQ(Tokenize("  The animal didn't cross,\tit was tired. "), want);
  EXPECT_EQ(Tokenize("It's o'clock, we'RE"), (std::vector<std::string>{"It", "'s", "o'clock", ",", "we", "'RE"}));
  EXPECT_TRUE(Tokenize("").empty());
  EXPECT_TRUE(Tokenize(" \n\t ").empty());
  EXPECT_EQ(Tokenize("'quoted'"), (std::vector<std::string>{"'", "quoted", "'"}));
}

TEST(HashEmbedding, DeterministicCaseInsensitiveAndDistinct) {
  const Matrix a = HashEmbedding("Cat", 16);
  EXPECT_EQ(a, HashEmbedding("cat", 16));
  const Matrix b = HashEmbedding("dog", 16);
  EXPECT_GT((a - b).norm(), 0.1f);
  EXPECT_TRUE(a.allFinite());
}

TEST(HashEmbedding, EntriesAreStandardNormal) {
  // Entries ~ N(0, 1): over many words the mean is ~0 and the variance ~1.
  double sum = 0, sum_sq = 0;
  const int words = 400, dim = 64;
  for (int i = 0; i < words; ++i) {
    const Matrix v = HashEmbedding("w" + std::to_string(i), dim);
    sum += v.sum();
    sum_sq += v.squaredNorm();
  }
  const double count = words * dim;
  EXPECT_NEAR(sum / count, 0.0, 0.02);
  EXPECT_NEAR(sum_sq / count, 1.0, 0.03);
}

TEST(HashEmbeddings, OneRowPerToken) {
  const Matrix x = HashEmbeddings({"sky", "is", "clear"}, 8);
  ASSERT_EQ(x.rows(), 3);
  ASSERT_EQ(x.cols(), 8);
  EXPECT_EQ(Matrix(x.row(1)), HashEmbedding("is", 8));
}

// The one number text of view states, CSV and the CLI's JSON: the shortest that reads back exactly.
TEST(ShortestNumberText, ShortestTextThatReadsBackTheSameValue) {
  EXPECT_EQ(ShortestNumberText(0.1f), "0.1");
  EXPECT_EQ(ShortestNumberText(0.1), "0.1");
  EXPECT_EQ(ShortestNumberText(1.0f / 3.0f), "0.33333334");
  EXPECT_EQ(ShortestNumberText(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(ShortestNumberText(1e-7), "1e-07");
  EXPECT_EQ(ShortestNumberText(-0.0f), "-0");
  EXPECT_EQ(ShortestNumberText(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(ShortestNumberText(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(ShortestNumberText(std::nan("")), "nan");
  // Random floats and doubles of every magnitude: the text reads back to the same bits, and one
  // significant digit fewer would not.
  uint64_t state = 12345;
  const auto next = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 2000; ++i) {
    float f;
    const uint32_t fbits = static_cast<uint32_t>(next());
    std::memcpy(&f, &fbits, sizeof f);
    double d;
    const uint64_t dbits = next();
    std::memcpy(&d, &dbits, sizeof d);
    if (std::isfinite(f)) {
      const std::string text = ShortestNumberText(f);
      EXPECT_EQ(std::strtof(text.c_str(), nullptr), f) << text;
      const int digits = SignificantDigits(text);
      if (digits > 1) {
        char shorter[40];
        std::snprintf(shorter, sizeof shorter, "%.*g", digits - 1, static_cast<double>(f));
        EXPECT_NE(std::strtof(shorter, nullptr), f) << text << " against " << shorter;
      }
    }
    if (std::isfinite(d)) {
      const std::string text = ShortestNumberText(d);
      EXPECT_EQ(std::strtod(text.c_str(), nullptr), d) << text;
    }
  }
}

}  // namespace
}  // namespace attn
