// View 11 trained in a worker: the page's lab, Reset from the same state and fed the worker's slices
// (WriteLearnDelta → ReadLearnDelta → LearnLab::Apply, or RunLearnSlice as the worker
// runs it), draws exactly what a lab trained on the page draws — curves, snapshots, maps and roles
// (past kMaxSnapshots both thin theirs with the one LearnLab::Keep, a snapshot a slice: 6,700 steps
// would take 13 s to show it); a delta that does not fit is refused naming why, and corrupt bytes are
// a parse error, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "lessons/learn_wire.h"
#include "lessons/views/learn.h"

namespace lessons {
namespace {

void ExpectSameLab(const LearnLab& a, const LearnLab& b) {
  ASSERT_EQ(a.steps(), b.steps());
  EXPECT_TRUE(a.Curves(200) == b.Curves(200));
  ASSERT_EQ(a.snapshots().size(), b.snapshots().size());
  for (size_t i = 0; i < a.snapshots().size(); ++i) {
    const LearnSnapshot &x = a.snapshots()[i], &y = b.snapshots()[i];
    EXPECT_EQ(x.step, y.step) << i;
    EXPECT_TRUE(x.weights == y.weights) << i;
    EXPECT_TRUE(x.inputs == y.inputs) << i;
    const auto px = KeptMatrices(x.parameters), py = KeptMatrices(y.parameters);
    ASSERT_EQ(px.size(), py.size());
    for (size_t m = 0; m < px.size(); ++m) EXPECT_TRUE(*px[m] == *py[m]) << i << " matrix " << m;
    EXPECT_EQ(x.predictions, y.predictions) << i;
    ASSERT_EQ(x.roles.size(), y.roles.size());
    for (size_t r = 0; r < x.roles.size(); ++r) {
      EXPECT_EQ(x.roles[r].text, y.roles[r].text);
      EXPECT_EQ(x.roles[r].shares, y.roles[r].shares);
    }
    EXPECT_EQ(x.held_out_accuracy, y.held_out_accuracy) << i;
    EXPECT_EQ(x.held_out_loss, y.held_out_loss) << i;
    EXPECT_EQ(x.position_loss, y.position_loss) << i;
    EXPECT_EQ(x.position_scored, y.position_scored) << i;
    ASSERT_EQ(x.circuits.heads.size(), y.circuits.heads.size()) << i;
    for (size_t h = 0; h < x.circuits.heads.size(); ++h) {
      const auto &p = x.circuits.heads[h], &q = y.circuits.heads[h];
      EXPECT_EQ(p.layer, q.layer);
      EXPECT_EQ(p.head, q.head);
      EXPECT_TRUE(p.qk == q.qk && p.qk_positions == q.qk_positions && p.ov == q.ov) << i << " head " << h;
      EXPECT_EQ(p.copying, q.copying);
    }
    ASSERT_EQ(x.circuits.compositions.size(), y.circuits.compositions.size()) << i;
    for (size_t c = 0; c < x.circuits.compositions.size(); ++c) {
      const auto &p = x.circuits.compositions[c], &q = y.circuits.compositions[c];
      EXPECT_EQ(std::tie(p.from_layer, p.from_head, p.to_layer, p.to_head, p.q, p.k, p.v),
                std::tie(q.from_layer, q.from_head, q.to_layer, q.to_head, q.q, q.k, q.v));
    }
  }
}

TEST(LearnWire, AMirrorFedTheSlicesDrawsWhatTheTrainedLabDraws) {
  LearnState s;
  s.layers = 2;
  s.seed = 7;
  LearnLab trained, mirror;
  ASSERT_TRUE(trained.Reset(s).ok());
  ASSERT_TRUE(mirror.Reset(s).ok());
  EXPECT_FALSE(mirror.mirror());
  while (trained.steps() < 80) {
    const int from = mirror.steps();
    ASSERT_TRUE(trained.Train(2.0, 80).ok());
    LearnDelta delta;
    ASSERT_TRUE(ReadLearnDelta(WriteLearnDelta(trained, from), &delta).ok());
    EXPECT_LE(delta.snapshots.size(), 1u) << "a snapshot ends a slice";
    ASSERT_TRUE(mirror.Apply(delta).ok());
  }
  EXPECT_TRUE(mirror.mirror());
  EXPECT_EQ(mirror.steps_per_second(), trained.steps_per_second());
  ExpectSameLab(trained, mirror);

  // A delta from another step, or corrupt bytes, is refused.
  LearnDelta d;
  ASSERT_TRUE(ReadLearnDelta(WriteLearnDelta(trained, 10), &d).ok());
  EXPECT_EQ(mirror.Apply(d).message(), "learn delta: from_step: expected 80, got 10");
  const std::string bytes = WriteLearnDelta(trained, 0);
  for (size_t cut : {size_t{0}, size_t{3}, size_t{9}, bytes.size() / 2, bytes.size() - 1}) {
    const Status st = ReadLearnDelta(bytes.substr(0, cut), &d);
    EXPECT_EQ(st.code(), StatusCode::kParseError) << cut;
    EXPECT_EQ(st.message().rfind("learn message: ", 0), 0u) << st.message();
  }
  std::string bad = bytes;
  bad[0] ^= 1;
  EXPECT_EQ(ReadLearnDelta(bad, &d).message().rfind("learn message: magic: expected a delta", 0), 0u);
  EXPECT_EQ(ReadLearnDelta(bytes + "x", &d).message(), "learn message: delta: expected the end, got 1 more bytes (at byte " +
                                                           std::to_string(bytes.size()) + ")");
  // Another model's snapshot (one layer, not two) does not fit.
  LearnState one = s;
  one.layers = 1;
  LearnLab other;
  ASSERT_TRUE(other.Reset(one).ok());
  ASSERT_TRUE(other.Train(1e9, 25).ok());
  LearnLab fresh;
  ASSERT_TRUE(fresh.Reset(s).ok());
  ASSERT_TRUE(ReadLearnDelta(WriteLearnDelta(other, 0), &d).ok());
  EXPECT_EQ(fresh.Apply(d).message(), "learn delta: the snapshot at step 25 does not fit the lab's model");
}

// What a worker runs: its lab kept between slices, caught up from the seed when it is new (or was
// reset), and a unit that makes no sense refused.
TEST(LearnWire, RunLearnSliceTrainsOnAcrossSlicesAndCatchesUp) {
  LearnState s;
  s.task = 1;
  const std::string settings = LearnSettingsKey(s);
  LearnLab trained, mirror;
  ASSERT_TRUE(trained.Reset(s).ok());
  ASSERT_TRUE(mirror.Reset(s).ok());
  ASSERT_TRUE(trained.Train(1e9, 40).ok());
  while (trained.steps() < 40) ASSERT_TRUE(trained.Train(1e9, 40).ok());
  JobUnit unit;
  unit.kind = JobUnitKind::kLearnSlice;
  unit.text = settings;
  std::string bytes;
  while (mirror.steps() < 40) {
    unit.settings = {mirror.steps(), 40, 0};  // one step a slice
    ASSERT_TRUE(RunLearnSlice(unit, &bytes).ok());
    LearnDelta delta;
    ASSERT_TRUE(ReadLearnDelta(bytes, &delta).ok());
    ASSERT_TRUE(mirror.Apply(delta).ok());
  }
  ExpectSameLab(trained, mirror);
  // Another lab's settings: the worker starts over; a page at step 30 makes it catch up first.
  LearnState other = s;
  other.seed = 3;
  unit.text = LearnSettingsKey(other);
  unit.settings = {0, 5, 0};
  ASSERT_TRUE(RunLearnSlice(unit, &bytes).ok());
  unit.text = settings;
  unit.settings = {30, 40, 1000000};
  EXPECT_EQ(RunLearnSlice(unit, &bytes).message(),
            "learn slice: expected 0 ≤ from_step ≤ until ≤ 20000 and a budget of 0–10000 ms, got 30, 40, 1000000");
  unit.settings = {30, 40, 10000};
  ASSERT_TRUE(RunLearnSlice(unit, &bytes).ok());
  LearnDelta delta;
  ASSERT_TRUE(ReadLearnDelta(bytes, &delta).ok());
  EXPECT_EQ(delta.from_step, 30);
  ASSERT_EQ(delta.losses.size(), 10u);
  EXPECT_EQ(delta.losses.back(), trained.Curves(40)(39, 1)) << "step 40's loss, as on the page";
  unit.settings = {1};
  EXPECT_EQ(RunLearnSlice(unit, &bytes).message(), "learn slice: settings: expected 3 (from_step, until, budget_ms), got 1");
}

// Runs A and B taking turns in one worker (view 11 comparing two runs): the worker keeps both labs,
// so each slice goes on from its own run's last step and each mirror equals its run trained alone.
TEST(LearnWire, TwoRunsTakingTurnsInOneWorkerEachTrainOn) {
  LearnState a;
  a.task = 0;
  LearnState b = a;
  b.seed = 2;
  LearnLab alone_a, alone_b, mirror_a, mirror_b;
  for (LearnLab* lab : {&alone_a, &alone_b, &mirror_a, &mirror_b})
    ASSERT_TRUE(lab->Reset(lab == &alone_b || lab == &mirror_b ? b : a).ok());
  while (alone_a.steps() < 30) ASSERT_TRUE(alone_a.Train(1e9, 30).ok());
  while (alone_b.steps() < 30) ASSERT_TRUE(alone_b.Train(1e9, 30).ok());
  JobUnit unit;
  unit.kind = JobUnitKind::kLearnSlice;
  std::string bytes;
  int catch_ups = 0;
  while (mirror_a.steps() < 30 || mirror_b.steps() < 30) {
    for (LearnLab* mirror : {&mirror_a, &mirror_b}) {
      if (mirror->steps() >= 30) continue;
      unit.text = LearnSettingsKey(mirror == &mirror_a ? a : b);
      unit.settings = {mirror->steps(), 30, 0};  // one step a slice
      ASSERT_TRUE(RunLearnSlice(unit, &bytes).ok());
      LearnDelta delta;
      ASSERT_TRUE(ReadLearnDelta(bytes, &delta).ok());
      catch_ups += delta.losses.size() != 1;
      ASSERT_TRUE(mirror->Apply(delta).ok());
    }
  }
  EXPECT_EQ(catch_ups, 0) << "a slice of the other run never restarts this one";
  ExpectSameLab(alone_a, mirror_a);
  ExpectSameLab(alone_b, mirror_b);
  EXPECT_NE(alone_a.last_loss(), alone_b.last_loss()) << "the seeds differ";
}

}  // namespace
}  // namespace lessons
