// What training reaches: each task at seed 1 with the default model (2 layers, 2 heads, d = 32,
// learned positions, LayerNorm, no MLP; Adam 3e-3, batches of 32) reaches a stated held-out accuracy
// within a stated step budget. The same test runs natively and under node (WebAssembly): the
// numbers differ in the last bits between the two builds, the outcome must not. Also the tasks'
// generators (plusminus's in detail: plusminus_test.cpp), the optimizers and the head roles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "attn/train/head_roles.h"
#include "attn/train/model.h"
#include "attn/train/optimizer.h"
#include "attn/train/tasks.h"
#include "attn/train/trainer.h"
#include "support/optimized_build.h"

namespace attn::train {
namespace {

// [SECTION] Tasks
std::string Text(TaskKind kind, const Batch& b, const std::vector<int>& values, int sequence) {
  std::string s;
  for (int t = 0; t < b.seq_len; ++t) s += TokenText(kind, values[sequence * b.seq_len + t]);
  return s;
}

TEST(Tasks, EachSequenceIsWhatItsHeaderSays) {
  for (int k = 0; k < static_cast<int>(TaskKind::kCount); ++k) {
    const TaskKind kind = static_cast<TaskKind>(k);
    SeededRandom rng(3);
    const Batch b = SampleBatch(kind, &rng, 50);
    const TaskShape shape = ShapeOf(kind);
    ASSERT_EQ(b.seq_len, shape.seq_len);
    ASSERT_EQ(b.ids.size(), 50u * shape.seq_len);
    for (int s = 0; s < b.size; ++s) {
      const int* ids = &b.ids[s * b.seq_len];
      const int* targets = &b.targets[s * b.seq_len];
      const float* weights = &b.weights[s * b.seq_len];
      SCOPED_TRACE(std::string(TaskName(kind)) + ": " + Text(kind, b, b.ids, s));
      for (int t = 0; t < b.seq_len; ++t) {
        ASSERT_GE(ids[t], 0);
        ASSERT_LT(ids[t], shape.vocab);
        if (weights[t] > 0) ASSERT_LT(targets[t], shape.classes);
      }
      if (kind == TaskKind::kPrevious) {
        EXPECT_EQ(weights[0], 0);
        for (int t = 1; t < b.seq_len; ++t) EXPECT_EQ(targets[t], ids[t - 1]);
      } else if (kind == TaskKind::kRecall) {
        const int asked = ids[b.seq_len - 1];
        int found = 0;
        for (int i = 0; i + 1 < b.seq_len - 1; i += 2) {
          for (int j = 0; j < i; j += 2) EXPECT_NE(ids[i], ids[j]) << "keys are distinct";
          if (ids[i] != asked) continue;
          ++found;
          EXPECT_EQ(targets[b.seq_len - 1], ids[i + 1]);
        }
        EXPECT_EQ(found, 1);
        EXPECT_EQ(weights[b.seq_len - 1], 1);
      } else if (kind == TaskKind::kPlusMinus) {  // sign, digits: (previous ± this) mod 6 from t = 2
        ASSERT_TRUE(TokenText(kind, ids[0]) == "+" || TokenText(kind, ids[0]) == "-");
        const int sign = TokenText(kind, ids[0]) == "-" ? -1 : 1;
        for (int t = 1; t < b.seq_len; ++t) ASSERT_LT(ids[t], 6);
        for (int t = 2; t < b.seq_len; ++t) EXPECT_EQ(targets[t], ((ids[t - 1] + sign * ids[t]) % 6 + 6) % 6) << t;
        for (int t = 0; t < b.seq_len; ++t) EXPECT_EQ(weights[t], t >= 2 ? 1 : 0);
      } else {  // digits | answer: the answer after the separator, fed back one step late
        const int n = b.seq_len / 2;
        EXPECT_EQ(TokenText(kind, ids[n]), "|");
        std::vector<int> digits(ids, ids + n), answer(targets + n, targets + 2 * n);
        if (kind == TaskKind::kReverse) std::reverse(digits.begin(), digits.end());
        if (kind == TaskKind::kSort) std::sort(digits.begin(), digits.end());
        EXPECT_EQ(answer, digits);
        for (int i = 0; i + 1 < n; ++i) EXPECT_EQ(ids[n + 1 + i], answer[i]);
        for (int t = 0; t < b.seq_len; ++t) EXPECT_EQ(weights[t], t >= n ? 1 : 0);
      }
    }
  }
}

TEST(Tasks, TheSameSeedGivesTheSameSequences) {
  SeededRandom a(9), b(9);
  EXPECT_EQ(SampleBatch(TaskKind::kSort, &a, 20).ids, SampleBatch(TaskKind::kSort, &b, 20).ids);
}

TEST(Tasks, NamesRoundTripAndUnknownNamesAreRejected) {
  for (int k = 0; k < static_cast<int>(TaskKind::kCount); ++k) {
    TaskKind parsed;
    ASSERT_TRUE(ParseTask(TaskName(static_cast<TaskKind>(k)), &parsed).ok());
    EXPECT_EQ(static_cast<int>(parsed), k);
  }
  TaskKind parsed;
  const Status s = ParseTask("juggle", &parsed);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOption);
  EXPECT_EQ(s.message(), "task: expected previous, copy, reverse, sort, recall, plusminus, got 'juggle'");
  EXPECT_EQ(TaskNames("|"), "previous|copy|reverse|sort|recall|plusminus");
}

// [SECTION] Optimizers
ModelParameters OneMatrix(float value) {
  ModelParameters p;
  p.out_w = Matrix::Constant(2, 2, value);
  return p;
}

TEST(Optimizer, AdamFirstStepMovesEachEntryByTheLearningRate) {
  // m̂ = g, v̂ = g² after one step: θ ← θ − lr·g/(|g| + ε), i.e. −lr·sign(g).
  OptimizerConfig c;
  c.learning_rate = 0.01f;
  c.clip_norm = 0;
  Optimizer adam(c);
  ModelParameters p = OneMatrix(1.0f), g = OneMatrix(0.0f);
  g.out_w << 3, -0.5f, 1e-3f, 0;
  adam.Step(&p, g);
  EXPECT_NEAR(p.out_w(0, 0), 0.99f, 1e-6f);
  EXPECT_NEAR(p.out_w(0, 1), 1.01f, 1e-6f);
  EXPECT_NEAR(p.out_w(1, 0), 0.99f, 1e-5f);
  EXPECT_EQ(p.out_w(1, 1), 1.0f);
}

TEST(Optimizer, SgdWithMomentumAndClipping) {
  OptimizerConfig c;
  c.kind = OptimizerKind::kSgd;
  c.learning_rate = 0.1f;
  c.momentum = 0.5f;
  c.clip_norm = 1.0f;
  Optimizer sgd(c);
  ModelParameters p = OneMatrix(0.0f), g = OneMatrix(0.0f);
  g.out_w << 3, 4, 0, 0;  // norm 5: clipped to (0.6, 0.8)
  EXPECT_FLOAT_EQ(sgd.Step(&p, g), 5.0f);
  EXPECT_NEAR(p.out_w(0, 0), -0.06f, 1e-7f);
  EXPECT_NEAR(p.out_w(0, 1), -0.08f, 1e-7f);
  sgd.Step(&p, g);  // velocity 0.5·0.6 + 0.6 = 0.9
  EXPECT_NEAR(p.out_w(0, 0), -0.06f - 0.09f, 1e-6f);
}

TEST(Optimizer, RejectsBadSettings) {
  OptimizerConfig c;
  c.learning_rate = -1;
  const Status s = ValidateOptimizerConfig(c);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("learning_rate"), std::string::npos);
  c = OptimizerConfig();
  c.beta2 = 1;
  EXPECT_FALSE(ValidateOptimizerConfig(c).ok());
  c = OptimizerConfig();
  c.clip_norm = std::nanf("");
  EXPECT_FALSE(ValidateOptimizerConfig(c).ok());
}

// [SECTION] Training reaches what it should
struct Budget {
  TaskKind task;
  int steps;
  float accuracy;  // held-out, at least (measured natively at seed 1: 1.000 for each)
};

class TaskBudgetTest : public ::testing::TestWithParam<Budget> {};

TEST_P(TaskBudgetTest, ReachesTheStatedAccuracyWithinTheStepBudget) {
  ATTN_SKIP_UNLESS_OPTIMIZED();
  const Budget b = GetParam();
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(DefaultTrainConfig(b.task)).ok());
  Evaluation before;
  ASSERT_TRUE(trainer.Evaluate(256, &before).ok());
  for (int s = 0; s < b.steps; ++s) {
    StepStats stats;
    ASSERT_TRUE(trainer.Step(&stats).ok()) << "step " << s;
  }
  Evaluation after;
  ASSERT_TRUE(trainer.Evaluate(256, &after).ok());
  EXPECT_LT(before.accuracy, 0.3f) << "untrained, the model guesses";
  EXPECT_GE(after.accuracy, b.accuracy) << TaskName(b.task) << " after " << b.steps << " steps";
  EXPECT_LT(after.loss, before.loss / 10);
}

INSTANTIATE_TEST_SUITE_P(SeedOne, TaskBudgetTest,
                         ::testing::Values(Budget{TaskKind::kPrevious, 250, 0.97f}, Budget{TaskKind::kCopy, 250, 0.97f},
                                           Budget{TaskKind::kReverse, 250, 0.97f}, Budget{TaskKind::kSort, 600, 0.95f},
                                           Budget{TaskKind::kRecall, 1200, 0.9f}),
                         [](const ::testing::TestParamInfo<Budget>& info) { return std::string(TaskName(info.param.task)); });

TEST(HeadRoles, APreviousTokenHeadFormsAndIsNamed) {
  ATTN_SKIP_UNLESS_OPTIMIZED();
  Trainer trainer;
  TrainConfig c = DefaultTrainConfig(TaskKind::kPrevious);
  c.model.layers = 1;
  c.model.heads = 1;
  ASSERT_TRUE(trainer.Init(c).ok());
  std::vector<HeadRole> roles;
  ASSERT_TRUE(MeasureHeadRoles(trainer, 32, &roles).ok());
  ASSERT_EQ(roles.size(), 1u);
  EXPECT_LT(roles[0].shares[static_cast<int>(KeyKind::kPrevious)], 0.5f) << "untrained: no such head yet";
  for (int s = 0; s < 400; ++s) {
    StepStats stats;
    ASSERT_TRUE(trainer.Step(&stats).ok());
  }
  ASSERT_TRUE(MeasureHeadRoles(trainer, 32, &roles).ok());
  // One head, one layer: the only way to predict the previous letter is to look at it (whose
  // letter it also must output, so both kinds name the same key).
  EXPECT_GT(roles[0].shares[static_cast<int>(KeyKind::kPrevious)], 0.9f);
  EXPECT_NE(roles[0].text.find("head 1.1 puts 0."), std::string::npos) << roles[0].text;
}

TEST(Trainer, RejectsBadSettingsAndUninitialisedUse) {
  Trainer trainer;
  StepStats stats;
  EXPECT_EQ(trainer.Step(&stats).code(), StatusCode::kEmptyInput);
  TrainConfig c = DefaultTrainConfig(TaskKind::kCopy);
  c.batch_size = 0;
  EXPECT_EQ(trainer.Init(c).code(), StatusCode::kOutOfRange);
  c = DefaultTrainConfig(TaskKind::kCopy);
  c.model.heads = 3;  // does not divide 32
  EXPECT_EQ(trainer.Init(c).code(), StatusCode::kShapeMismatch);
  c.task = static_cast<TaskKind>(99);
  EXPECT_EQ(trainer.Init(c).code(), StatusCode::kUnknownOption);
}

TEST(Trainer, TheSameSeedTrainsTheSameModel) {
  Trainer a, b;
  ASSERT_TRUE(a.Init(DefaultTrainConfig(TaskKind::kSort)).ok());
  ASSERT_TRUE(b.Init(DefaultTrainConfig(TaskKind::kSort)).ok());
  StepStats sa, sb;
  for (int s = 0; s < 5; ++s) ASSERT_TRUE(a.Step(&sa).ok() && b.Step(&sb).ok());
  EXPECT_EQ(sa.loss, sb.loss);
  EXPECT_TRUE(a.parameters().out_w == b.parameters().out_w);
}

// data_seed: another initialisation on the same sequences (view 11's run B of a seed comparison).
TEST(Trainer, TheDataSeedKeepsTheSequencesWhileTheSeedDrawsTheWeights) {
  TrainConfig a = DefaultTrainConfig(TaskKind::kCopy), b = a;
  b.seed = 2;
  b.data_seed = 1;
  EXPECT_EQ(DataSeed(a), 1u);
  EXPECT_EQ(DataSeed(b), 1u);
  EXPECT_EQ(HeldOutBatch(a, 8).ids, HeldOutBatch(b, 8).ids);
  Trainer ta, tb;
  ASSERT_TRUE(ta.Init(a).ok() && tb.Init(b).ok());
  EXPECT_FALSE(ta.parameters().wte == tb.parameters().wte) << "the weights are seed 2's";
  // The same batch: with equal weights the first step's loss would be equal; it is the batch the
  // data stream gives, so a third trainer with seed 2 and its own data differs from b in its batch.
  TrainConfig c = b;
  c.data_seed = 0;
  Trainer tc;
  ASSERT_TRUE(tc.Init(c).ok());
  EXPECT_TRUE(tb.parameters().wte == tc.parameters().wte);
  StepStats sb, sc;
  ASSERT_TRUE(tb.Step(&sb).ok() && tc.Step(&sc).ok());
  EXPECT_NE(sb.loss, sc.loss) << "same weights, other sequences";
  EXPECT_NE(HeldOutBatch(b, 8).ids, HeldOutBatch(c, 8).ids);
}

// Each position's held-out loss against the same sequences' logits, recomputed in double from
// ModelForward on HeldOutBatch (the sequences Evaluate scores); the positions' losses, weighted by
// how many were scored, average to the loss.
TEST(Trainer, LossPerPositionIsEachPositionsMeanCrossEntropy) {
  for (const TaskKind task : {TaskKind::kRecall, TaskKind::kCopy}) {
    Trainer trainer;
    ASSERT_TRUE(trainer.Init(DefaultTrainConfig(task)).ok());
    StepStats stats;
    for (int s = 0; s < 3; ++s) ASSERT_TRUE(trainer.Step(&stats).ok());
    constexpr int kSequences = 300;  // more than one evaluation chunk
    Evaluation eval;
    ASSERT_TRUE(trainer.Evaluate(kSequences, &eval).ok());
    const Batch batch = HeldOutBatch(trainer.config(), kSequences);
    Activations acts;
    ASSERT_TRUE(ModelForward(trainer.model(), trainer.parameters(), batch, &acts).ok());
    const int T = batch.seq_len;
    ASSERT_EQ(eval.position_loss.size(), static_cast<size_t>(T));
    ASSERT_EQ(eval.position_scored.size(), static_cast<size_t>(T));
    std::vector<double> sum(T, 0.0);
    std::vector<int> count(T, 0);
    for (int r = 0; r < batch.size * T; ++r) {
      if (batch.weights[r] <= 0) continue;
      double z_sum = 0;
      for (int c = 0; c < acts.logits.cols(); ++c) z_sum += std::exp(static_cast<double>(acts.logits(r, c)));
      sum[r % T] += std::log(z_sum) - acts.logits(r, batch.targets[r]);
      ++count[r % T];
    }
    double weighted = 0;
    int scored_positions = 0;
    for (int t = 0; t < T; ++t) {
      EXPECT_EQ(eval.position_scored[t], count[t]) << "position " << t;
      // float of a mean of terms ≈ 1–5: 2⁻²⁴ relative plus the logits' float rounding inside exp.
      const double want = count[t] ? sum[t] / count[t] : 0.0;
      EXPECT_NEAR(eval.position_loss[t], want, 1e-5 * std::max(1.0, want)) << "position " << t;
      weighted += static_cast<double>(eval.position_loss[t]) * eval.position_scored[t];
      scored_positions += eval.position_scored[t] > 0;
    }
    EXPECT_EQ(eval.scored, std::accumulate(count.begin(), count.end(), 0));
    EXPECT_NEAR(weighted / eval.scored, eval.loss, 1e-5 * eval.loss);
    EXPECT_GT(scored_positions, 0);
    EXPECT_LT(scored_positions, T) << "both tasks leave their first positions unscored";
  }
}

}  // namespace
}  // namespace attn::train
