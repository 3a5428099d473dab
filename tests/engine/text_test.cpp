#include <gtest/gtest.h>

#include "attn/text.h"

namespace attn {
namespace {

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

}  // namespace
}  // namespace attn
