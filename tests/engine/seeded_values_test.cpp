// Seeded values pinned to the bit: the e2e tests and the screenshots depend on them, so a change
// of how a seed becomes numbers must show up here first. Values written as hex floats (exact).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "attn/attention.h"
#include "attn/seeded_random.h"
#include "support/expect_close.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::BitsEqual;

TEST(SeededValues, InitializeParameters) {
  AttentionConfig c;
  c.project_inputs = c.project_output = c.use_bias = true;
  c.num_heads = 2;
  c.seed = 42;
  c.score = ScoreFunction::kAdditive;
  AttentionParameters p;
  ASSERT_TRUE(InitializeParameters(c, 4, 4, 4, &p).ok());
  EXPECT_TRUE(BitsEqual(p.wq.topLeftCorner(1, 3), {-0x1.a907p-8f, -0x1.ff399p-2f, -0x1.b6b9ap-3f}));
  EXPECT_TRUE(BitsEqual(p.wo.bottomRightCorner(1, 3), {0x1.fdf928p-2f, -0x1.56a928p-3f, 0x1.23aa3p-4f}));
  EXPECT_TRUE(BitsEqual(p.bv.leftCols(3), {0x1.6425f4p-2f, -0x1.fa4cdp-3f, 0x1.6ad38p-4f}));
  EXPECT_TRUE(BitsEqual(p.additive_v.at(1).leftCols(2), {-0x1.1bd6b8p-1f, -0x1.8594cp-2f}));
}

TEST(SeededValues, TestRandomMatrix) {
  EXPECT_TRUE(BitsEqual(testing::RandomMatrix(1, 3, 5), {-0x1.1cadd4p-1f, -0x1.c77eep-1f, 0x1.7ba13cp-1f}));
  EXPECT_TRUE(BitsEqual(testing::RandomMatrix(1, 3, 12, -2.5f, 0.5f), {-0x1.04cd2ep+1f, -0x1.294d3ep+0f, -0x1.1e914p-2f}));
}

TEST(SeededRandom, MapsMt19937OutputByHand) {
  std::mt19937 plain(3);
  std::seed_seq sequence{3u, 8u};
  std::mt19937 streamed(sequence);
  SeededRandom a(3), b(3), c(3, 8);
  for (int i = 0; i < 4; ++i) {
    const uint32_t bits = static_cast<uint32_t>(plain());
    EXPECT_EQ(a.Bits(), bits);
    EXPECT_EQ(b.Unit(), static_cast<float>(bits >> 8) / 16777216.0f);
    EXPECT_EQ(c.Bits(), static_cast<uint32_t>(streamed()));
  }
  SeededRandom r(5);
  for (int i = 0; i < 1000; ++i) {
    const float u = r.Uniform(-3.0f, 2.0f);
    EXPECT_TRUE(u >= -3.0f && u < 2.0f) << u;
    EXPECT_LT(r.Below(7), 7u);
    EXPECT_TRUE(std::isfinite(r.Normal()));
    EXPECT_TRUE(std::isfinite(r.ScaledNormalFloat(2.0f)));
  }
  EXPECT_EQ(BoxMuller(1.0, 0.25), 0.0);  // √(−2 ln 1) = 0
  EXPECT_EQ(BoxMuller(1.0f, 0.25f, 3.0f), 0.0f);
}

}  // namespace
}  // namespace attn
