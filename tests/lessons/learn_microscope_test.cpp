// View 11's microscope: each snapshot's circuits and held-out losses are the trainer's at that step,
// run B is run A with exactly the one change named (and two runs differing only in seed are each
// reproducible), the phase change and the heads that moved are read off the snapshots by the stated
// rule, and every sentence is made of the numbers it names.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lessons/format.h"
#include "lessons/views/learn.h"
#include "lessons/views/learn_microscope.h"

namespace lessons {
namespace {

// A snapshot's circuits, scores and held-out numbers are what the trainer gives at that step.
TEST(LearnMicroscope, ASnapshotHoldsTheTrainersCircuitsAndHeldOutLoss) {
  LearnState s;  // recall, 2 layers × 2 heads, learned positions
  LearnLab lab;
  ASSERT_TRUE(lab.Reset(s).ok());
  while (lab.steps() < 25) ASSERT_TRUE(lab.Train(1e9, 25).ok());
  const LearnSnapshot& snap = lab.snapshots().back();
  ASSERT_EQ(snap.step, 25) << "the lab stopped on its snapshot: its trainer is the snapshot's model";
  const attn::train::Trainer& t = lab.trainer();
  attn::train::Circuits want;
  ASSERT_TRUE(attn::train::ComputeCircuits(t.model(), t.parameters(),
                                           attn::train::ClassOfToken(t.config().task, t.model().vocab, t.model().classes), &want)
                  .ok());
  ASSERT_EQ(snap.circuits.heads.size(), 4u);
  ASSERT_EQ(snap.circuits.compositions.size(), 4u);  // 2 earlier × 2 later heads
  for (size_t h = 0; h < want.heads.size(); ++h) {
    EXPECT_TRUE(snap.circuits.heads[h].qk == want.heads[h].qk) << h;
    EXPECT_TRUE(snap.circuits.heads[h].qk_positions == want.heads[h].qk_positions) << h;
    EXPECT_TRUE(snap.circuits.heads[h].ov == want.heads[h].ov) << h;
    EXPECT_EQ(Copying(snap, static_cast<int>(h)), static_cast<float>(want.heads[h].copying));
    EXPECT_EQ(PrefixMatching(snap, static_cast<int>(h)),
              snap.roles[h].shares[static_cast<int>(attn::train::KeyKind::kAfterSame)]);
    EXPECT_GE(PrefixMatching(snap, static_cast<int>(h)), 0.0f) << "recall repeats its keys";
  }
  EXPECT_EQ(snap.circuits.heads[0].qk.rows(), t.model().vocab);
  EXPECT_EQ(snap.circuits.heads[0].ov.cols(), t.model().classes);
  attn::train::Evaluation eval;
  ASSERT_TRUE(t.Evaluate(LearnLab::kHeldOut, &eval).ok());
  EXPECT_EQ(snap.held_out_loss, eval.loss);
  EXPECT_EQ(snap.held_out_accuracy, eval.accuracy);
  EXPECT_EQ(snap.position_loss, eval.position_loss);
  EXPECT_EQ(snap.position_scored, eval.position_scored);
  ASSERT_EQ(snap.position_loss.size(), lab.probe().size());
  EXPECT_EQ(snap.position_scored.back(), LearnLab::kHeldOut) << "recall scores its last position only";
  EXPECT_EQ(snap.position_scored.front(), 0);
  EXPECT_EQ(PositionLossText(snap, nullptr),
            Format("The task scores one position, %zu: its held-out loss at step 25 is %.3f.", lab.probe().size(),
                   snap.position_loss.back()));
  const Matrix by_position = PositionLoss(snap);
  EXPECT_TRUE(std::isnan(by_position(0, 0)));
  EXPECT_EQ(by_position(by_position.rows() - 1, 0), snap.position_loss.back());
  // The kept parameters are enough: the circuits recomputed from them are the snapshot's.
  attn::train::Circuits again;
  ASSERT_TRUE(attn::train::ComputeCircuits(t.model(), snap.parameters,
                                           attn::train::ClassOfToken(t.config().task, t.model().vocab, t.model().classes), &again)
                  .ok());
  EXPECT_TRUE(again.heads[3].qk == snap.circuits.heads[3].qk && again.heads[3].ov == snap.circuits.heads[3].ov);
  EXPECT_EQ(CopyingText(snap, 0, t.config().task, t.model()).rfind("Copying score of head 1.1: ", 0), 0u);
  // Unscaled scores: the QK circuit is the model's own score, √d_k times the scaled one at init.
  LearnState unscaled = s;
  unscaled.scaled = false;
  LearnLab u;
  ASSERT_TRUE(u.Reset(unscaled).ok());
  const float root_dk = std::sqrt(32.0f / 2);
  EXPECT_NEAR(u.snapshots()[0].circuits.heads[1].qk(3, 5), root_dk * lab.snapshots()[0].circuits.heads[1].qk(3, 5),
              1e-5f * std::fabs(root_dk * lab.snapshots()[0].circuits.heads[1].qk(3, 5)));
}

TEST(LearnMicroscope, RunBIsRunAWithTheOneChangeNamed) {
  LearnState a;
  a.positions = 1, a.layers = 2, a.seed = 4;
  EXPECT_EQ(FieldsKey(RunBState(a)), FieldsKey(a)) << "no comparison: B is A";
  EXPECT_EQ(RunBChange(a), "");
  struct Case {
    int compare, value;
    std::string change;
  };
  for (const Case& c : {Case{1, 0, "plain q·k instead of scores divided by √d_k"}, Case{2, 0, "sparsemax instead of softmax"},
                        Case{3, 3, "RoPE instead of learned positions"}, Case{3, 1, "sinusoidal positions instead of learned positions"},
                        Case{4, 1, "1 layer instead of 2"}, Case{4, 2, "3 layers instead of 2"}, Case{5, 9, "initial weights from seed 9 instead of 4"},
                        Case{5, 4, "initial weights from seed 5 instead of 4"}}) {
    a.compare = c.compare, a.compare_value = c.value;
    const LearnState b = RunBState(a);
    EXPECT_EQ(RunBChange(a), c.change) << c.compare << " " << c.value;
    // Exactly one setting differs: the training config differs from A's in that field alone.
    LearnState back = b;
    back.scaled = a.scaled, back.normalizer = a.normalizer, back.positions = a.positions, back.layers = a.layers, back.seed = a.seed;
    if (c.compare == 5) EXPECT_EQ(b.data_seed, a.seed) << "another initialisation on run A's sequences";
    back.data_seed = a.data_seed;
    back.compare = a.compare, back.compare_value = a.compare_value;
    EXPECT_EQ(FieldsKey(back), FieldsKey(a)) << c.change;
    EXPECT_NE(LearnSettingsKey(b), LearnSettingsKey(a)) << c.change;
    EXPECT_EQ(b.steps, a.steps);
  }
  LearnState plain = a;
  plain.compare = plain.compare_value = 0;
  EXPECT_EQ(LearnSettingsKey(a), LearnSettingsKey(plain)) << "comparing does not retrain run A";
  a.compare = 0;
  EXPECT_EQ(DefaultCompareValue(a, 3), 3);
  EXPECT_EQ(DefaultCompareValue(a, 4), 1);
  EXPECT_EQ(DefaultCompareValue(a, 5), 5);
}

// Two runs differing only in seed, as the job trains them side by side (on this thread, sharing each
// frame's budget): each is the run its seed trains alone, however the budget was shared.
TEST(LearnMicroscope, TwoRunsSideBySideAreEachReproducible) {
  LearnState a;
  a.task = 0;
  a.compare = 5, a.compare_value = 8;
  LearnRunsJob job;
  ASSERT_TRUE(job.a().Reset(a).ok());
  ASSERT_TRUE(job.b().Reset(RunBState(a)).ok());
  job.SetCompared(true);
  job.a().TrainTo(60, false);
  job.b().TrainTo(60, false);
  while (job.running()) ASSERT_TRUE(job.Step(1.0).ok());
  for (const auto& [run, seed] : {std::pair{&job.a(), 1}, {&job.b(), 8}}) {
    LearnState alone = a;
    alone.seed = seed, alone.data_seed = seed == 1 ? 0 : 1, alone.compare = 0;
    LearnLab lab;
    ASSERT_TRUE(lab.Reset(alone).ok());
    while (lab.steps() < 60) ASSERT_TRUE(lab.Train(1e9, 60).ok());
    EXPECT_EQ(run->lab().losses(), lab.losses()) << "seed " << seed;
    EXPECT_TRUE(run->lab().snapshots().back().circuits.heads[0].qk == lab.snapshots().back().circuits.heads[0].qk);
  }
  EXPECT_NE(job.a().lab().losses(), job.b().lab().losses());
  EXPECT_EQ(job.a().lab().probe(), job.b().lab().probe()) << "the same sequences: the maps side by side are of one probe";
  // Units say whose they are, and the runs take turns.
  LearnRunsJob turns;
  ASSERT_TRUE(turns.a().Reset(a).ok());
  ASSERT_TRUE(turns.b().Reset(RunBState(a)).ok());
  turns.a().TrainTo(100, false);
  turns.b().TrainTo(100, false);
  JobUnit unit;
  ASSERT_TRUE(turns.Claim(&unit));
  EXPECT_EQ(unit.index, 0) << "without a comparison, only run A";
  EXPECT_FALSE(turns.Claim(&unit)) << "one slice of a run at a time";
  turns.SetCompared(true);
  ASSERT_TRUE(turns.Claim(&unit));
  EXPECT_EQ(unit.index, 1);
  EXPECT_EQ(unit.text, LearnSettingsKey(RunBState(a)));
}

// A snapshot list with a chosen held-out loss curve and chosen scores, made from a real lab's first
// snapshot (so every shape is a model's).
std::vector<LearnSnapshot> Synthetic(const std::vector<float>& losses, int mover, float before, float after) {
  LearnLab lab;
  EXPECT_TRUE(lab.Reset(LearnState()).ok());
  std::vector<LearnSnapshot> snaps;
  for (size_t i = 0; i < losses.size(); ++i) {
    LearnSnapshot s = lab.snapshots()[0];
    s.step = static_cast<int>(i) * 100;
    s.held_out_loss = losses[i];
    s.held_out_accuracy = 1.0f - losses[i] / 3;
    for (auto& role : s.roles) role.shares[static_cast<int>(attn::train::KeyKind::kAfterSame)] = 0.1f;
    s.roles[mover].shares[static_cast<int>(attn::train::KeyKind::kAfterSame)] = losses[i] > 1.5f ? before : after;
    snaps.push_back(s);
  }
  return snaps;
}

TEST(LearnMicroscope, ThePhaseChangeIsTheSuddenFallAndNamesTheHeadThatMoved) {
  // Flat at 2.3, then a drop at steps 500–700, then flat at 0.2: the steepest smoothed fall is at 600.
  const std::vector<float> plateau = {2.30f, 2.29f, 2.29f, 2.28f, 2.28f, 1.90f, 0.90f, 0.30f, 0.22f, 0.20f, 0.20f, 0.20f};
  const auto snaps = Synthetic(plateau, 3, 0.05f, 0.85f);
  const PhaseChange change = FindPhaseChange(snaps);
  EXPECT_EQ(change.step, 600);
  EXPECT_EQ(change.from_step, 400);
  EXPECT_EQ(change.to_step, 800);
  ASSERT_EQ(change.movers.size(), 1u) << "only head 2.2's prefix matching moved by 0.2 or more";
  EXPECT_EQ(change.movers[0].layer, 2);
  EXPECT_EQ(change.movers[0].head_in_layer, 2);
  EXPECT_EQ(change.movers[0].score, HeadScore::kPrefixMatching);
  EXPECT_EQ(PhaseChangeText(change, snaps),
            "Phase change at step 600: the held-out loss fell fastest there, from 2.280 at step 400 to 0.220 at step 800. "
            "Across it head 2.2's prefix matching went from 0.05 to 0.85.");
  const Matrix curves = ScoreCurves(snaps, HeadScore::kPrefixMatching);
  ASSERT_EQ(curves.rows(), 4);
  EXPECT_EQ(curves(3, 0), 0.05f);
  EXPECT_EQ(curves(3, 11), 0.85f);
  EXPECT_EQ(SnapshotSteps(snaps)(0, 11), 1100.0f);
  EXPECT_EQ(HeldOutLoss(snaps)(0, 6), 0.90f);

  // An exponential decay falls fastest at its start: none, and the sentence says so.
  std::vector<float> decay;
  for (int i = 0; i < 12; ++i) decay.push_back(2.3f * std::exp(-0.4f * i) + 0.1f);
  const auto smooth = Synthetic(decay, 0, 0.1f, 0.1f);
  EXPECT_EQ(FindPhaseChange(smooth).step, -1);
  EXPECT_EQ(PhaseChangeText(FindPhaseChange(smooth), smooth).rfind("No phase change up to step 1100", 0), 0u);
  const auto few = Synthetic({2.3f, 2.2f, 1.0f}, 0, 0.1f, 0.1f);
  EXPECT_EQ(PhaseChangeText(FindPhaseChange(few), few), "The phase change is looked for once there are 7 snapshots (there are 3).");
}

TEST(LearnMicroscope, TheComparisonSaysWhenEachRunReachedTheTargetAndTheirLosses) {
  LearnState a;
  LearnLab lab_a, lab_b;
  ASSERT_TRUE(lab_a.Reset(a).ok());
  ASSERT_TRUE(lab_b.Reset(a).ok());
  const std::string start = CompareText(lab_a, lab_b, "RoPE instead of learned positions");
  EXPECT_EQ(start, "Run B is run A with RoPE instead of learned positions, on the same sequences. Neither run has reached "
                   "0.9 held-out accuracy yet. ");
  // Mirrors fed deltas with chosen snapshots: A reaches 0.9 at step 300, B at 500; both have 600.
  const auto feed = [](LearnLab* lab, const std::vector<float>& accuracy, const std::vector<float>& loss) {
    LearnDelta d;
    d.from_step = 0;
    d.losses.assign(600, 1.0f);
    d.accuracies.assign(600, 0.5f);
    for (size_t i = 1; i < accuracy.size(); ++i) {
      LearnSnapshot s = lab->snapshots()[0];
      s.step = static_cast<int>(i) * 100;
      s.held_out_accuracy = accuracy[i];
      s.held_out_loss = loss[i];
      d.snapshots.push_back(s);
    }
    ASSERT_TRUE(lab->Apply(d).ok());
  };
  feed(&lab_a, {0, 0.3f, 0.6f, 0.92f, 0.97f, 0.99f, 1.0f}, {3, 2, 1.5f, 0.4f, 0.2f, 0.1f, 0.05f});
  feed(&lab_b, {0, 0.2f, 0.3f, 0.5f, 0.8f, 0.91f, 0.95f}, {3, 2.5f, 2, 1.5f, 0.8f, 0.35f, 0.25f});
  EXPECT_EQ(StepToAccuracy(lab_a.snapshots(), 0.9f), 300);
  EXPECT_EQ(StepToAccuracy(lab_b.snapshots(), 0.9f), 500);
  EXPECT_EQ(CompareText(lab_a, lab_b, "seed 2 instead of 1"),
            "Run B is run A with seed 2 instead of 1, on the same sequences. Held-out accuracy reached 0.9 at step 300 in "
            "run A and at step 500 in run B (A 200 steps sooner). At step 600, the last snapshot both have, the held-out loss is "
            "0.050 in run A and 0.250 in run B.");
}

// The plots' curves: run A alone is LearnLab::Curves with each point's last snapshot's held-out
// numbers; run B on the same steps, with gaps where it has not got to yet.
TEST(LearnMicroscope, BothRunsCurvesShareOneStepAxis) {
  LearnState s;
  s.task = 0;
  LearnLab a, b;
  ASSERT_TRUE(a.Reset(s).ok());
  s.seed = 2;
  ASSERT_TRUE(b.Reset(s).ok());
  while (a.steps() < 120) ASSERT_TRUE(a.Train(1e9, 120).ok());
  while (b.steps() < 60) ASSERT_TRUE(b.Train(1e9, 60).ok());
  const LearnCurves alone = MakeLearnCurves(a, nullptr, 50);
  const Matrix want = a.Curves(50);
  EXPECT_TRUE(alone.steps == want.col(0));
  EXPECT_TRUE(alone.loss[0] == want.col(1));
  EXPECT_TRUE(alone.accuracy[0] == want.col(2));
  EXPECT_EQ(alone.loss[1].size(), 0);
  const LearnCurves both = MakeLearnCurves(a, &b, 50);
  EXPECT_TRUE(both.steps == want.col(0)) << "the longer run's bins";
  for (Eigen::Index i = 0; i < both.steps.rows(); ++i) {
    const int step = static_cast<int>(both.steps(i, 0));
    EXPECT_EQ(std::isfinite(both.loss[1](i, 0)), step <= 60) << step;
    int k = 0;
    while (k + 1 < static_cast<int>(a.snapshots().size()) && a.snapshots()[k + 1].step <= step) ++k;
    EXPECT_EQ(both.held_out_loss[0](i, 0), a.snapshots()[k].held_out_loss) << step;
  }
  // Point 1 covers steps (steps[0], steps[1]]: run B's mean over them, summed in double as Curves does.
  double sum = 0;
  const int begin = static_cast<int>(both.steps(0, 0)), end = static_cast<int>(both.steps(1, 0));
  for (int t = begin; t < end; ++t) sum += b.losses()[t];
  EXPECT_EQ(both.loss[1](1, 0), static_cast<float>(sum / (end - begin)));
}

TEST(LearnMicroscope, CompositionTablesAndLabels) {
  LearnLab lab;
  ASSERT_TRUE(lab.Reset(LearnState()).ok());
  const attn::train::Circuits& c = lab.snapshots()[0].circuits;
  const Matrix k = CompositionTable(c, 2, 'k');
  ASSERT_EQ(k.rows(), 4);
  for (const auto& pair : c.compositions) {
    const int from = (pair.from_layer - 1) * 2 + pair.from_head - 1, to = (pair.to_layer - 1) * 2 + pair.to_head - 1;
    EXPECT_EQ(k(from, to), static_cast<float>(pair.k));
    EXPECT_EQ(CompositionTable(c, 2, 'q')(from, to), static_cast<float>(pair.q));
    EXPECT_EQ(CompositionTable(c, 2, 'v')(from, to), static_cast<float>(pair.v));
  }
  EXPECT_EQ(k(2, 0), 0.0f) << "a later head does not compose into an earlier one";
  const std::string text = StrongestCompositionText(c, c);
  EXPECT_EQ(text.rfind("The strongest K-composition is head 1.", 0), 0u) << text;
  const CircuitLabels labels = LearnCircuitLabels(lab.task(), lab.trainer().model());
  EXPECT_EQ(static_cast<int>(labels.tokens.size()), lab.trainer().model().vocab);
  EXPECT_EQ(static_cast<int>(labels.classes.size()), lab.trainer().model().classes);
  EXPECT_EQ(labels.positions.front(), "1");
  LearnState one;
  one.layers = 1;
  ASSERT_TRUE(lab.Reset(one).ok());
  EXPECT_EQ(StrongestCompositionText(lab.snapshots()[0].circuits, lab.snapshots()[0].circuits), "");
}

}  // namespace
}  // namespace lessons
