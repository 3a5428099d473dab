// The plusminus generator: its shape and tokens, its targets on sequences checked by hand,
// determinism, and the balance of signs and digits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/tasks.h"

namespace attn::train {
namespace {

constexpr TaskKind kTask = TaskKind::kPlusMinus;
constexpr int kLength = 16;

struct Sequence {
  std::vector<int> ids, targets;
  std::vector<float> weights;
};

Sequence Sample(SeededRandom* rng) {
  Sequence s{std::vector<int>(kLength), std::vector<int>(kLength), std::vector<float>(kLength)};
  SampleSequence(kTask, rng, s.ids.data(), s.targets.data(), s.weights.data());
  return s;
}

std::string Text(const std::vector<int>& ids) {
  std::string text;
  for (int id : ids) text += (text.empty() ? "" : " ") + TokenText(kTask, id);
  return text;
}

TEST(PlusMinus, ShapeAndTokens) {
  const TaskShape shape = ShapeOf(kTask);
  EXPECT_EQ(shape.vocab, 8);    // digits 0…5, "+", "-"
  EXPECT_EQ(shape.classes, 6);  // digits 0…5
  EXPECT_EQ(shape.seq_len, kLength);
  EXPECT_EQ(TokenText(kTask, 0), "0");
  EXPECT_EQ(TokenText(kTask, 5), "5");
  EXPECT_EQ(TokenText(kTask, 6), "+");
  EXPECT_EQ(TokenText(kTask, 7), "-");
  EXPECT_EQ(ClassText(kTask, 4), "4");
  const ModelConfig m = ConfigForTask(kTask, ModelConfig());
  EXPECT_EQ(m.vocab, 8);
  EXPECT_EQ(m.classes, 6);
  EXPECT_EQ(m.seq_len, kLength);
}

// The first three sequences of seed 3, their targets worked out by hand.
TEST(PlusMinus, HandCheckedSequences) {
  SeededRandom rng(3);
  const Sequence a = Sample(&rng), b = Sample(&rng), c = Sample(&rng);
  EXPECT_EQ(Text(a.ids), "+ 2 1 3 4 0 0 5 1 1 4 3 5 5 0 1");
  // 2+1 = 3, 1+3 = 4, 3+4 = 7 → 1, 4+0 = 4, 0+0, 0+5, 5+1 = 6 → 0, 1+1, 1+4, 4+3 → 1, 3+5 → 2,
  // 5+5 → 4, 5+0, 0+1
  EXPECT_EQ(std::vector<int>(a.targets.begin() + 2, a.targets.end()),
            (std::vector<int>{3, 4, 1, 4, 0, 5, 0, 2, 5, 1, 2, 4, 5, 1}));
  EXPECT_EQ(Text(b.ids), "- 0 2 2 0 5 3 4 0 2 5 0 4 2 0 1");
  // 0−2 = −2 → 4, 2−2 = 0, 2−0 = 2, 0−5 → 1, 5−3 = 2, 3−4 → 5, 4−0, 0−2 → 4, 2−5 → 3, 5−0,
  // 0−4 → 2, 4−2, 2−0, 0−1 → 5
  EXPECT_EQ(std::vector<int>(b.targets.begin() + 2, b.targets.end()),
            (std::vector<int>{4, 0, 2, 1, 2, 5, 4, 4, 3, 5, 2, 2, 2, 5}));
  EXPECT_EQ(Text(c.ids), "+ 1 3 2 5 4 2 3 1 0 2 3 4 3 4 5");
  EXPECT_EQ(std::vector<int>(c.targets.begin() + 2, c.targets.end()),
            (std::vector<int>{4, 5, 1, 3, 0, 5, 4, 1, 2, 5, 1, 1, 1, 3}));
  for (const Sequence* s : {&a, &b, &c}) {  // the sign and the first digit have no target
    EXPECT_EQ(s->weights[0], 0.0f);
    EXPECT_EQ(s->weights[1], 0.0f);
    for (int t = 2; t < kLength; ++t) EXPECT_EQ(s->weights[t], 1.0f) << t;
  }
}

TEST(PlusMinus, Deterministic) {
  SeededRandom one(11), two(11), other(12);
  const Batch a = SampleBatch(kTask, &one, 64), b = SampleBatch(kTask, &two, 64), c = SampleBatch(kTask, &other, 64);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_NE(a.ids, c.ids);
}

// Both signs come about as often, and every digit (the rule itself: training_test.cpp's
// Tasks.EachSequenceIsWhatItsHeaderSays).
TEST(PlusMinus, SignsAndDigitsAreBalanced) {
  SeededRandom rng(5);
  const int sequences = 2000;
  const Batch batch = SampleBatch(kTask, &rng, sequences);
  int minus = 0;
  std::vector<int> digits(6, 0);
  for (int s = 0; s < sequences; ++s) {
    minus += TokenText(kTask, batch.ids[s * kLength]) == "-";
    for (int t = 1; t < kLength; ++t) ++digits[batch.ids[s * kLength + t]];
  }
  EXPECT_GT(minus, sequences * 0.45);
  EXPECT_LT(minus, sequences * 0.55);
  for (int d = 0; d < 6; ++d) EXPECT_GT(digits[d], sequences * 15 / 6 * 0.9) << d;
}

}  // namespace
}  // namespace attn::train
