// Seeded values of the lessons pinned to the bit: the e2e tests and the screenshots depend on them,
// so a change of how a seed becomes numbers must show up here first. Values written as hex floats.
#include <gtest/gtest.h>

#include <vector>

#include "lessons/explain.h"
#include "lessons/saturation.h"
#include "lessons/signals.h"
#include "attn/text.h"
#include "support/expect_close.h"

namespace lessons {
namespace {

using attn::testing::BitsEqual;

TEST(SeededValues, NormalMatrix) {
  EXPECT_TRUE(BitsEqual(RandomNormalMatrix(1, 3, 9, 4), {-0x1.c97abp-2f, -0x1.0683bep+0f, -0x1.9832c6p-3f}));
}

TEST(SeededValues, SequenceAndConvolution) {
  EXPECT_TRUE(BitsEqual(SeededSequence(5, 2, 3).bottomRows(1), {-0x1.ed05e2p-4f, 0x1.22558ap-3f}));
  const Conv1dParams conv = SeededConv1d(3, 2, 2, 11);
  EXPECT_TRUE(BitsEqual(conv.taps.at(2).row(1), {-0x1.dd868p-6f, -0x1.18dec4p-1f}));
  EXPECT_TRUE(BitsEqual(conv.bias, {-0x1.f2e998p-1f, 0x1.95da58p-1f}));
}

TEST(SeededValues, Noise) {
  Matrix noisy, relative;
  ASSERT_TRUE(AddSeededNoise(Matrix::Ones(1, 3), 0.5f, 21, &noisy).ok());
  // The float Box–Muller goes through the C library's cosf, which rounds this one an ulp apart in
  // glibc (native) and in emscripten's libc (the page): each build is pinned to its own value.
#if defined(__EMSCRIPTEN__)
  const float second = 0x1.a5c37ep-1f;
#else
  const float second = 0x1.a5c38p-1f;
#endif
  EXPECT_TRUE(BitsEqual(noisy, {0x1.0c537p+0f, second, 0x1.c742eap+0f}));
  ASSERT_TRUE(AddSeededRelativeNoise(Matrix::Constant(1, 3, 2.0f), 0.1f, 22, &relative).ok());
  EXPECT_TRUE(BitsEqual(relative, {0x1.f597cep+0f, 0x1.f8d422p+0f, 0x1.dd420cp+0f}));
}

TEST(SeededValues, Permutation) {
  EXPECT_EQ(SeededPermutation(8, 3), (std::vector<int>{5, 4, 6, 0, 7, 1, 3, 2}));
}

TEST(SeededValues, HashEmbedding) {
  EXPECT_TRUE(BitsEqual(attn::HashEmbedding("cat", 4), {-0x1.aac184p-1f, -0x1.52a41cp-2f, -0x1.2033fp+0f, 0x1.ea019ep-1f}));
}

}  // namespace
}  // namespace lessons
