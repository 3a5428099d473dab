// The job model (lessons/job.h): the slicing rule written once (TimeSlice), view 8's grid as a job —
// sliced here, spread over "workers" (units computed by RunJobUnit, answered in any order, one given
// back by a worker that died) and restarted — giving the same bits every way, and view 11's training
// as a job: its target, Train's continuous mode and the step the link follows.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "lessons/job.h"
#include "lessons/views/data_size.h"
#include "lessons/views/learn.h"
#include "support/optimized_build.h"

namespace lessons {
namespace {

TEST(TimeSlice, OnePieceAtLeastAndNoneBegunThatWouldEndPastTheBudget) {
  TimeSlice none(0.0);
  EXPECT_TRUE(none.Next()) << "the first piece always runs";
  EXPECT_FALSE(none.Next());
  TimeSlice some(30.0);
  int pieces = 0;
  while (some.Next()) {
    ++pieces;
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
  }
  // 4 ms pieces in 30 ms: none begun once the elapsed time plus the last piece's passes 30.
  EXPECT_GE(pieces, 1);
  EXPECT_LE(pieces, 7);
  EXPECT_LE(some.elapsed_ms() - some.last_piece_ms(), 30.0);
  EXPECT_GE(some.last_piece_ms(), 4.0);
}

// 2 sizes × 1 seed × 2 models: four runs of 100 steps.
DataSizeState Small() {
  DataSizeState s;
  s.seeds = 1;
  s.steps = 100;
  s.largest = 6;
  return s;
}

void ExpectSamePoints(const attn::train::DataSizeRunner& a, const attn::train::DataSizeRunner& b) {
  ASSERT_EQ(a.points().size(), b.points().size());
  for (size_t i = 0; i < a.points().size(); ++i) {
    EXPECT_EQ(a.points()[i].accuracy, b.points()[i].accuracy) << i;
    EXPECT_EQ(a.points()[i].mean, b.points()[i].mean) << i;
  }
}

TEST(DataSizeJob, SlicedSpreadAndRestartedGiveTheSameBits) {
  ATTN_SKIP_UNLESS_OPTIMIZED();
  DataSizeJob sliced;
  ASSERT_TRUE(sliced.Reset(Small()).ok());
  EXPECT_FALSE(sliced.running()) << "a new experiment waits for Run";
  EXPECT_TRUE(sliced.Step(1e9).ok());
  EXPECT_EQ(sliced.progress(), 0.0f) << "not running: a step does nothing";
  sliced.SetRunning(true);
  int slices = 0;
  while (sliced.running()) {
    ASSERT_TRUE(sliced.Step(0.0).ok());  // one piece (two updates) per slice
    ++slices;
  }
  EXPECT_EQ(slices, 4 * 50);
  EXPECT_EQ(sliced.progress(), 1.0f);

  // Spread: three workers take runs 0, 1, 2; the one with run 1 dies (the run comes back and runs
  // here), the others answer last first.
  DataSizeJob spread;
  ASSERT_TRUE(spread.Reset(Small()).ok());
  JobUnit unit;
  EXPECT_FALSE(spread.Claim(&unit)) << "nothing is handed out before Run";
  spread.SetRunning(true);
  std::vector<JobUnit> out(3);
  for (JobUnit& u : out) ASSERT_TRUE(spread.Claim(&u));
  EXPECT_EQ(out[2].index, 2);
  EXPECT_EQ(out[2].settings, (std::vector<int>{1, 100, 6}));
  EXPECT_EQ(spread.runs_elsewhere(), 3);
  spread.Release(out[1]);
  for (int k : {2, 0}) {
    JobAnswer answer;
    ASSERT_TRUE(RunJobUnit(out[k], &answer).ok());
    spread.Finish(out[k], answer);
  }
  EXPECT_EQ(spread.runs_elsewhere(), 0);
  while (spread.running()) ASSERT_TRUE(spread.Step(1e9).ok());  // runs 1 and 3 here
  EXPECT_EQ(spread.runner().runs_done(), 4);
  ExpectSamePoints(sliced.runner(), spread.runner());

  // Restarted half-way (new settings, then the old ones again): an answer from before is dropped,
  // and the new experiment ends where the first one did.
  DataSizeJob restarted;
  ASSERT_TRUE(restarted.Reset(Small()).ok());
  restarted.SetRunning(true);
  JobUnit stale;
  ASSERT_TRUE(restarted.Claim(&stale));
  for (int k = 0; k < 60; ++k) ASSERT_TRUE(restarted.Step(0.0).ok());
  DataSizeState other = Small();
  other.steps = 200;
  ASSERT_TRUE(restarted.Reset(other).ok());
  ASSERT_TRUE(restarted.Reset(Small()).ok());
  EXPECT_EQ(restarted.progress(), 0.0f);
  restarted.Finish(stale, JobAnswer{"", 0.25, ""});  // from the first experiment: dropped
  EXPECT_EQ(restarted.runner().runs_done(), 0);
  restarted.SetRunning(true);
  while (restarted.running()) ASSERT_TRUE(restarted.Step(1e9).ok());
  ExpectSamePoints(sliced.runner(), restarted.runner());
}

TEST(DataSizeJob, AFailedUnitStopsTheJobWithItsError) {
  DataSizeJob job;
  ASSERT_TRUE(job.Reset(Small()).ok());
  job.SetRunning(true);
  JobUnit unit;
  ASSERT_TRUE(job.Claim(&unit));
  job.Finish(unit, JobAnswer{"non_finite: transformer, N = 16, seed 1, step 7: loss is NaN", 0, ""});
  EXPECT_FALSE(job.running());
  EXPECT_EQ(job.error(), "non_finite: transformer, N = 16, seed 1, step 7: loss is NaN");
}

TEST(JobUnits, BadUnitsAreRefusedNamingWhatIsWrong) {
  JobAnswer value;
  JobUnit unit;
  unit.settings = {1, 100};
  EXPECT_EQ(RunJobUnit(unit, &value).message(), "data-size unit: settings: expected 3 (seeds, steps, largest), got 2");
  unit.settings = {1, 100, 14};
  EXPECT_EQ(RunJobUnit(unit, &value).message(), "data-size unit: largest: expected 6–13, got 14");
  unit.settings = {0, 100, 6};
  EXPECT_EQ(RunJobUnit(unit, &value).message(), "data-size unit: seeds: expected 1–5, got 0");
  unit.settings = {1, 100, 6};
  unit.index = 4;
  EXPECT_EQ(RunJobUnit(unit, &value).message(), "run: expected 0–3, got 4");
  unit.kind = static_cast<JobUnitKind>(9);
  EXPECT_EQ(RunJobUnit(unit, &value).message(), "unit kind: expected 1 (a data-size run), 2 (a learn slice) or 3 (a timing batch), got 9");
}

// (The lab under it gives the same steps however it is sliced: Learn.TheSameSeedRetrainsTheSameRun.)
TEST(LearnJob, TrainsToItsTargetOrOnAndOnAndTheLinkFollows) {
  LearnJob job;
  ASSERT_TRUE(job.Reset(LearnState()).ok());
  EXPECT_FALSE(job.running()) << "target 0 after a reset";
  job.TrainTo(3, false);
  while (job.running()) ASSERT_TRUE(job.Step(0.0).ok());
  EXPECT_EQ(job.lab().steps(), 3);
  EXPECT_EQ(job.progress(), 1.0f);
  ViewState state;
  state.learn.steps = 3;
  job.WriteState(&state);
  EXPECT_EQ(state.learn.steps, 3) << "training to a target: the state names the target, not the job";
  job.TrainTo(LearnState::kSteps.max, true);
  ASSERT_TRUE(job.continuous());
  ASSERT_TRUE(job.Step(0.0).ok());
  job.WriteState(&state);
  EXPECT_EQ(state.learn.steps, 4) << "on and on: the link follows the step reached";
  ASSERT_TRUE(job.Reset(LearnState()).ok());
  EXPECT_FALSE(job.continuous()) << "a reset stops it";
}

// In a worker: a slice out, the lab here mirrors it; Pause pressed while it trains (the target drops
// to the step shown) — the slice comes back past it, and the state follows to where it ended instead
// of asking for an earlier step (which would start the lab over).
TEST(LearnJob, ASliceThatComesBackPastAPauseIsKept) {
  LearnJob job;
  ASSERT_TRUE(job.Reset(LearnState()).ok());
  job.TrainTo(LearnState::kSteps.max, true);
  JobUnit unit;
  ASSERT_TRUE(job.Claim(&unit));
  EXPECT_FALSE(job.Claim(&unit)) << "one slice out at a time";
  EXPECT_TRUE(unit.sticky());
  EXPECT_TRUE(job.in_worker());
  unit.settings[2] = 0;  // one step, as a short slice would give
  JobAnswer answer;
  ASSERT_TRUE(RunJobUnit(unit, &answer).ok());
  job.TrainTo(0, false);  // Pause at step 0, while the slice trains
  job.Finish(unit, answer);
  EXPECT_EQ(job.lab().steps(), 1);
  EXPECT_TRUE(job.lab().mirror());
  EXPECT_FALSE(job.running());
  ViewState state;
  job.WriteState(&state);
  EXPECT_EQ(state.learn.steps, 1) << "the state follows the slice once";
  state.learn.steps = 0;
  job.WriteState(&state);
  EXPECT_EQ(state.learn.steps, 0) << "then a link may ask for an earlier step again";
  // The worker is gone: the next step here retrains from the seed.
  job.TrainTo(2, false);
  job.Release(unit);
  ASSERT_TRUE(job.Step(1e9).ok());
  EXPECT_FALSE(job.lab().mirror());
  EXPECT_GE(job.lab().steps(), 1);
}

}  // namespace
}  // namespace lessons
