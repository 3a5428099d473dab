#include <gtest/gtest.h>

#include "attn/text.h"

namespace attn {
namespace {

TEST(Tokenize, SplitsWordsAndPunctuation) {
  const std::vector<std::string> want = {"The", "animal", "didn't", "cross", ",", "it", "was", "tired", "."};
  EXPECT_EQ(Tokenize("  The animal didn't cross,\tit was tired. "), want);
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

TEST(HashEmbedding, RoughlyUnitNorm) {
  // Entries ~ N(0, 1/d): the mean squared norm over many words is close to 1.
  double sum = 0;
  const int words = 400;
  for (int i = 0; i < words; ++i) sum += HashEmbedding("w" + std::to_string(i), 64).squaredNorm();
  EXPECT_NEAR(sum / words, 1.0, 0.05);
}

TEST(HashEmbeddings, OneRowPerToken) {
  const Matrix x = HashEmbeddings({"sky", "is", "clear"}, 8);
  ASSERT_EQ(x.rows(), 3);
  ASSERT_EQ(x.cols(), 8);
  EXPECT_EQ(Matrix(x.row(1)), HashEmbedding("is", 8));
}

}  // namespace
}  // namespace attn
