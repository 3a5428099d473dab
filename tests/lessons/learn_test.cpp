// View 11's lab: the state's settings reach the trainer, training respects its step target and its
// time slice, snapshots fall where promised, the curves are the steps' means, and the state
// round-trips through a link.
#include <gtest/gtest.h>

#include "lessons/view_state.h"
#include "lessons/views/learn.h"
#include "support/optimized_build.h"

namespace lessons {
namespace {

TEST(Learn, TheStateConfiguresTheTrainer) {
  LearnState s;
  s.task = 0;
  s.layers = 3;
  s.heads = 4;
  s.positions = 3;
  s.optimizer = 1;
  s.learning_rate = 0.01f;
  s.seed = 42;
  s.mlp = true;
  const attn::train::TrainConfig c = LearnTrainConfig(s);
  EXPECT_EQ(c.task, attn::train::TaskKind::kPrevious);
  EXPECT_EQ(c.model.layers, 3);
  EXPECT_EQ(c.model.heads, 4);
  EXPECT_EQ(c.model.positions, attn::train::Positions::kRope);
  EXPECT_EQ(c.optimizer.kind, attn::train::OptimizerKind::kSgd);
  EXPECT_EQ(c.optimizer.learning_rate, 0.01f);
  EXPECT_EQ(c.seed, 42u);
  EXPECT_TRUE(c.model.mlp);
  ASSERT_EQ(LearnState::kTask.count, static_cast<int>(attn::train::TaskKind::kCount));
  for (int t = 0; t < static_cast<int>(attn::train::TaskKind::kCount); ++t) {
    EXPECT_STREQ(kLearnTaskNames[t], attn::train::TaskName(static_cast<attn::train::TaskKind>(t))) << "links name tasks as the CLI does";
    EXPECT_GT(std::string(LearnWhatToWatch(static_cast<attn::train::TaskKind>(t))).size(), 40u);
  }
}

TEST(Learn, TrainsToTheTargetWithSnapshotsFromInitialisation) {
  ATTN_SKIP_UNLESS_OPTIMIZED();
  LearnState s;
  s.task = 0;  // previous letter: learns in a few hundred steps
  LearnLab lab;
  ASSERT_TRUE(lab.Reset(s).ok());
  ASSERT_EQ(lab.snapshots().size(), 1u);
  EXPECT_EQ(lab.snapshots()[0].step, 0);
  EXPECT_LT(lab.snapshots()[0].held_out_accuracy, 0.3f);
  ASSERT_EQ(lab.snapshots()[0].weights.size(), 2u);            // layers
  ASSERT_EQ(lab.snapshots()[0].weights[0].size(), 2u);         // heads
  EXPECT_EQ(lab.snapshots()[0].weights[0][0].rows(), 16);      // the probe's length
  EXPECT_EQ(lab.probe_text().size(), 16u);
  while (lab.steps() < 260) ASSERT_TRUE(lab.Train(1e9, 260).ok());
  EXPECT_EQ(lab.steps(), 260) << "never past the target";
  std::vector<int> steps;
  for (const auto& snap : lab.snapshots()) steps.push_back(snap.step);
  EXPECT_EQ(steps, (std::vector<int>{0, 25, 50, 100, 200}));
  EXPECT_GT(lab.snapshots().back().held_out_accuracy, 0.95f);
  // A previous-token head formed, and the line that says so is the measured one.
  float best = 0;
  for (const auto& role : lab.snapshots().back().roles)
    best = std::max(best, role.shares[static_cast<int>(attn::train::KeyKind::kPrevious)]);
  EXPECT_GT(best, 0.8f);
  // The curves: 260 steps in 10 runs of 26, each the mean of its steps.
  const Matrix curves = lab.Curves(10);
  ASSERT_EQ(curves.rows(), 10);
  EXPECT_EQ(curves(0, 0), 26.0f);
  EXPECT_EQ(curves(9, 0), 260.0f);
  EXPECT_GT(curves(0, 1), curves(9, 1) * 10) << "the loss fell";
  EXPECT_LT(curves(0, 2), curves(9, 2));
  EXPECT_GT(lab.steps_per_second(), 0);
}

TEST(Learn, ASliceWithNoTimeLeftRunsOneStep) {
  LearnLab lab;
  ASSERT_TRUE(lab.Reset(LearnState()).ok());
  ASSERT_TRUE(lab.Train(0.0, 100).ok());
  EXPECT_EQ(lab.steps(), 1);
  ASSERT_TRUE(lab.Train(0.0, 1).ok());
  EXPECT_EQ(lab.steps(), 1) << "already at the target";
}

TEST(Learn, TheSameSeedRetrainsTheSameRun) {
  LearnState s;
  s.task = 1;
  LearnLab a, b;
  ASSERT_TRUE(a.Reset(s).ok());
  ASSERT_TRUE(b.Reset(s).ok());
  while (a.steps() < 30) ASSERT_TRUE(a.Train(1e9, 30).ok());
  while (b.steps() < 30) ASSERT_TRUE(b.Train(3.0, 30).ok());  // other slices, same steps
  EXPECT_EQ(a.last_loss(), b.last_loss());
  EXPECT_TRUE(a.snapshots().back().weights[1][0] == b.snapshots().back().weights[1][0]);
}

TEST(Learn, TheStateRoundTripsThroughALink) {
  ViewState s;
  s.view = ViewId::kLearn;
  s.learn.task = 3;
  s.learn.layers = 1;
  s.learn.heads = 4;
  s.learn.positions = 2;
  s.learn.optimizer = 1;
  s.learn.learning_rate = 0.02f;
  s.learn.seed = 7;
  s.learn.steps = 1500;
  s.learn.mlp = true;
  const std::string text = SerializeState(s);
  EXPECT_NE(text.find("v=learn"), std::string::npos) << text;
  EXPECT_NE(text.find("l.task=sort"), std::string::npos) << text;
  EXPECT_NE(text.find("l.pe=sinusoidal"), std::string::npos) << text;
  ViewState back;
  ASSERT_TRUE(ParseState(text, &back).ok()) << text;
  EXPECT_EQ(SerializeState(back), text);
  EXPECT_EQ(back.learn.steps, 1500);
  EXPECT_EQ(FieldsKey(back.learn), FieldsKey(s.learn));
  ViewState clamped;
  const attn::Status status = ParseState("v=learn&l.h=9&l.task=juggle", &clamped);
  EXPECT_NE(status.message().find("'l.h'"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("'juggle'"), std::string::npos) << status.message();
  EXPECT_EQ(clamped.learn.heads, 4);
  EXPECT_EQ(clamped.learn.task, LearnState().task);
}

}  // namespace
}  // namespace lessons
