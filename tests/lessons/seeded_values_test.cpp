// Seeded values of the lessons pinned to the bit: the e2e tests and the screenshots depend on them,
// so a change of how a seed becomes numbers must show up here first. Values written as hex floats.
#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

#include "lessons/explain.h"
#include "lessons/saturation.h"
#include "lessons/signals.h"
#include "lessons/text.h"

namespace lessons {
namespace {

void ExpectBits(const Matrix& got, std::initializer_list<float> want) {
  ASSERT_EQ(got.size(), static_cast<Eigen::Index>(want.size()));
  Eigen::Index i = 0;
  for (float w : want) {
    EXPECT_EQ(got.data()[i], w) << "entry " << i << ": got " << got.data()[i];
    ++i;
  }
}

TEST(SeededValues, NormalMatrix) {
  ExpectBits(RandomNormalMatrix(1, 3, 9, 4), {-0x1.c97abp-2f, -0x1.0683bep+0f, -0x1.9832c6p-3f});
}

TEST(SeededValues, SequenceAndConvolution) {
  ExpectBits(SeededSequence(5, 2, 3).bottomRows(1), {-0x1.ed05e2p-4f, 0x1.22558ap-3f});
  const Conv1dParams conv = SeededConv1d(3, 2, 2, 11);
  ExpectBits(conv.taps.at(2).row(1), {-0x1.dd868p-6f, -0x1.18dec4p-1f});
  ExpectBits(conv.bias, {-0x1.f2e998p-1f, 0x1.95da58p-1f});
}

TEST(SeededValues, Noise) {
  Matrix noisy, relative;
  ASSERT_TRUE(AddSeededNoise(Matrix::Ones(1, 3), 0.5f, 21, &noisy).ok());
  ExpectBits(noisy, {0x1.0c537p+0f, 0x1.a5c38p-1f, 0x1.c742eap+0f});
  ASSERT_TRUE(AddSeededRelativeNoise(Matrix::Constant(1, 3, 2.0f), 0.1f, 22, &relative).ok());
  ExpectBits(relative, {0x1.f597cep+0f, 0x1.f8d422p+0f, 0x1.dd420cp+0f});
}

TEST(SeededValues, Permutation) {
  EXPECT_EQ(SeededPermutation(8, 3), (std::vector<int>{5, 4, 6, 0, 7, 1, 3, 2}));
}

TEST(SeededValues, HashEmbedding) {
  ExpectBits(HashEmbedding("cat", 4), {-0x1.aac184p-1f, -0x1.52a41cp-2f, -0x1.2033fp+0f, 0x1.ea019ep-1f});
}

}  // namespace
}  // namespace lessons
