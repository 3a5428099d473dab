// Timing as a job (lessons/timing_job.h): where a batch runs (here, or in a "worker" — a unit
// computed by RunJobUnit, as job_worker.mjs does), the warm-up each place gets first, a unit given
// back by a worker that died, a hidden view naming nothing; the unit's numbers and bad ones; the same
// output bits here and apart; views 9 and 14 as TimingJobs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "attn/kernels.h"
#include "lessons/timing_job.h"
#include "lessons/views/rnn.h"
#include "lessons/views/speed.h"

namespace lessons {
namespace {

// The rules of TimingJob alone: a fixed list of batches, each timed once, in order.
class ListJob : public TimingJob {
 public:
  explicit ListJob(std::vector<TimingBatch> batches, bool background = false)
      : batches_(std::move(batches)), background_(background) {}
  struct Took {
    TimingBatch batch;
    std::string error;
    TimingResult result;
  };
  std::vector<Took> took;
  float progress() const override { return static_cast<float>(took.size()) / static_cast<float>(batches_.size()); }

 protected:
  bool Next(Named* next) const override {
    if (took.size() >= batches_.size()) return false;
    next->batch = batches_[took.size()];
    next->background = background_;
    return true;
  }
  void Took(const Named& named, const std::string& error, const TimingResult& result) override {
    took.push_back({named.batch, error, result});
  }

 private:
  std::vector<TimingBatch> batches_;
  bool background_;
};

// What job_worker.mjs does with a unit: RunJobUnit, the answer back.
JobAnswer RunApart(const JobUnit& unit) {
  JobAnswer answer;
  const Status status = RunJobUnit(unit, &answer);
  if (!status.ok()) answer.error = status.ToString();
  return answer;
}

const int kFastest = static_cast<int>(attn::FastestKernel());

TEST(TimingJob, AShortBatchRunsHereAfterItsWarmUpOneCallAStep) {
  ListJob job({{TimingKind::kSpeedLayer, kFastest, 64, 1.0, true}});
  ASSERT_TRUE(job.running());
  JobUnit unit;
  EXPECT_FALSE(job.Claim(&unit)) << "n = 64 is not worth a worker";
  ASSERT_TRUE(job.Step(10).ok());
  EXPECT_TRUE(job.took.empty()) << "the first call is the layer's warm-up, not timed";
  ASSERT_TRUE(job.Step(10).ok());
  ASSERT_EQ(job.took.size(), 1u);
  EXPECT_EQ(job.took[0].error, "");
  EXPECT_GT(job.took[0].result.us, 0);
  EXPECT_FALSE(job.took[0].result.in_worker);
  EXPECT_EQ(job.took[0].result.output.rows(), 64);
  EXPECT_FALSE(job.running());
}

TEST(TimingJob, ASweepsBatchGoesApartHoweverShort) {
  ListJob job({{TimingKind::kRnn, 0, 16, 1.0, false}}, /*background=*/true);
  JobUnit unit;
  ASSERT_TRUE(job.Claim(&unit)) << "the page's frames do not share a core with a sweep";
  EXPECT_EQ(unit.settings[2], 16) << "its warm-up (n ≤ 256: the same size)";
  job.Finish(unit, RunApart(unit));
  ASSERT_TRUE(job.Claim(&unit));
  job.Finish(unit, RunApart(unit));
  ASSERT_EQ(job.took.size(), 1u);
  EXPECT_TRUE(job.took[0].result.in_worker);
  EXPECT_FALSE(job.running());
}

TEST(TimingJob, ALongBatchGoesApartAfterAWarmUpThere) {
  // The second batch asks for 120 ms: whatever the measured speed, past kPageCallMs.
  ListJob job({{TimingKind::kSpeedLayer, kFastest, 1024, 1.0, false}, {TimingKind::kSpeedLayer, kFastest, 2048, 120.0, false}});
  JobUnit unit;
  ASSERT_TRUE(job.Claim(&unit)) << "n > 256 before the layer's speed is known: a worker";
  EXPECT_TRUE(unit.sticky()) << "to the worker that warmed the layer up";
  EXPECT_EQ(unit.settings, (std::vector<int>{0, kFastest, TimingJob::kWarmUpN, 1000, 0})) << "the warm-up first";
  EXPECT_FALSE(job.running()) << "nothing to do here while the unit is out";
  JobUnit second;
  EXPECT_FALSE(job.Claim(&second)) << "one batch out at a time";
  job.Finish(unit, RunApart(unit));
  EXPECT_TRUE(job.took.empty());
  ASSERT_TRUE(job.Claim(&unit));
  EXPECT_EQ(unit.settings[2], 1024);
  job.Finish(unit, RunApart(unit));
  ASSERT_EQ(job.took.size(), 1u);
  EXPECT_TRUE(job.took[0].result.in_worker);
  EXPECT_GT(job.took[0].result.us, 0);
  // The worker is warm: the next long batch goes straight out. Its worker dies: it comes back and runs here,
  // after a warm-up here.
  ASSERT_TRUE(job.Claim(&unit));
  EXPECT_EQ(unit.settings[2], 2048);
  job.Release(unit);
  EXPECT_TRUE(job.running());
  ASSERT_TRUE(job.Step(10).ok());
  EXPECT_EQ(job.took.size(), 1u) << "the warm-up here";
  ASSERT_TRUE(job.Step(10).ok());
  ASSERT_EQ(job.took.size(), 2u);
  EXPECT_EQ(job.took[1].batch.n, 2048);
  EXPECT_FALSE(job.took[1].result.in_worker);
}

TEST(TimingJob, ThePeakGoesApartWithoutAWarmUpAndAHiddenViewNamesNothing) {
  ListJob job({{TimingKind::kPeak, 0, 0, 150.0, false}});
  job.SetShown(false);
  JobUnit unit;
  EXPECT_FALSE(job.running());
  EXPECT_FALSE(job.Claim(&unit));
  job.SetShown(true);
  ASSERT_TRUE(job.Claim(&unit)) << "150 ms would hold the page: a worker";
  EXPECT_EQ(unit.settings[0], static_cast<int>(TimingKind::kPeak));
  job.SetShown(false);  // the reader looks elsewhere: the answer still comes in
  JobAnswer answer;
  answer.value = 41.5;
  job.Finish(unit, answer);
  ASSERT_EQ(job.took.size(), 1u);
  EXPECT_EQ(job.took[0].result.gflops, 41.5);
}

TEST(TimingJob, AFailedBatchIsTheViewsToShowAndTheJobGoesOn) {
  // n = 8192 on the reference kernel builds 8192² matrices: the engine refuses (the view keeps it to 256).
  ListJob job({{TimingKind::kSpeedLayer, static_cast<int>(attn::KernelId::kReference), 100000, 1.0, false},
               {TimingKind::kRnn, 0, 16, 1.0, false}});
  JobUnit unit;
  ASSERT_TRUE(job.Claim(&unit));
  job.Finish(unit, RunApart(unit));  // the warm-up at 256 is fine
  ASSERT_TRUE(job.Claim(&unit));
  const JobAnswer answer = RunApart(unit);
  EXPECT_EQ(answer.error, "out_of_range: timing unit: n: expected 1–8192, got 100000");
  job.Finish(unit, answer);
  ASSERT_EQ(job.took.size(), 1u);
  EXPECT_EQ(job.took[0].error, answer.error);
  EXPECT_TRUE(job.running()) << "on to the next batch";
}

TEST(TimingUnits, BadNumbersAreNamedAndAGoodUnitGivesRunTimingBatchsBits) {
  JobAnswer answer;
  JobUnit unit = TimingUnit({TimingKind::kSpeedLayer, kFastest, 40, 0.0, true});
  unit.settings.pop_back();
  EXPECT_EQ(RunJobUnit(unit, &answer).message(), "timing unit: settings: expected 5 (kind, kernel, n, min µs, output), got 4");
  const auto with = [&](int index, int value) {
    JobUnit u = TimingUnit({TimingKind::kSpeedLayer, kFastest, 40, 0.0, true});
    u.settings[index] = value;
    return RunJobUnit(u, &answer).message();
  };
  EXPECT_EQ(with(0, 4), "timing unit: kind: expected 0–3, got 4");
  EXPECT_EQ(with(1, -1), "timing unit: kernel: expected a kernel id, got -1");
  EXPECT_EQ(with(2, 0), "timing unit: n: expected 1–8192, got 0");
  EXPECT_EQ(with(3, 1000001), "timing unit: min µs: expected 0–1000000, got 1000001");
  EXPECT_EQ(with(4, 2), "timing unit: output: expected 0 or 1, got 2");

  const TimingBatch batch{TimingKind::kSpeedLayer, kFastest, 40, 0.0, true};  // 40: not a multiple of any tile
  ASSERT_TRUE(RunJobUnit(TimingUnit(batch), &answer).ok());
  EXPECT_GT(answer.value, 0);
  TimingResult here;
  ASSERT_TRUE(RunTimingBatch(batch, &here).ok());
  ASSERT_EQ(here.output.rows(), 40);
  // The answer's bytes are the output, bit for bit (what Finish reads back).
  ASSERT_EQ(answer.bytes.size(), 4 + 4 + here.output.size() * sizeof(float)) << "rows, cols, floats";
  EXPECT_EQ(std::memcmp(answer.bytes.data() + 8, here.output.data(), here.output.size() * sizeof(float)), 0);
}

// View 14: the live batches of the shown setting give the same output bits in a worker and here, and
// an answer for a setting no longer shown is dropped.
TEST(SpeedJob, LiveOutputIsTheSameBitsApartAndHereAndFollowsTheShownSetting) {
  const attn::KernelId fastest = attn::FastestKernel();
  SpeedJob apart, here;
  apart.Show(fastest, 512, false);
  here.Show(fastest, 512, false);
  JobUnit unit;
  ASSERT_TRUE(apart.Claim(&unit));  // the warm-up
  apart.Finish(unit, RunApart(unit));
  ASSERT_TRUE(apart.Claim(&unit));
  EXPECT_EQ(unit.settings[2], 512);
  apart.Finish(unit, RunApart(unit));
  ASSERT_EQ(apart.live().us.size(), 1u);
  EXPECT_TRUE(apart.live_in_worker());
  // Here: no worker asks (Claim is never called); the batches and view 5's recompute take turns.
  for (int step = 0; step < 20 && here.live().empty(); ++step) ASSERT_TRUE(here.Step(10).ok());
  ASSERT_EQ(here.live().us.size(), 1u);
  EXPECT_FALSE(here.live_in_worker());
  ASSERT_EQ(here.live_output().size(), apart.live_output().size());
  ASSERT_EQ(here.live_output().rows(), 512);
  EXPECT_EQ(std::memcmp(here.live_output().data(), apart.live_output().data(), here.live_output().size() * sizeof(float)), 0);

  // Another job: its batch is out when the reader moves n.
  SpeedJob moved;
  moved.Show(fastest, 512, false);
  ASSERT_TRUE(moved.Claim(&unit));  // the warm-up
  moved.Finish(unit, RunApart(unit));
  ASSERT_TRUE(moved.Claim(&unit));
  moved.Show(fastest, 1024, false);
  moved.Finish(unit, RunApart(unit));
  EXPECT_TRUE(moved.live().empty()) << "n = 512's answer is not n = 1024's";
  // n = 1024 is now predicted from n = 512's speed; where it runs depends on this machine's: it gets timed.
  for (int step = 0; step < 20 && moved.live().empty(); ++step) {
    if (moved.Claim(&unit)) moved.Finish(unit, RunApart(unit));
    else ASSERT_TRUE(moved.Step(10).ok());
  }
  EXPECT_EQ(moved.live().us.size(), 1u);
  EXPECT_EQ(moved.live_output().rows(), 1024);
}

TEST(SpeedJob, TheSweepFillsEveryPointAndThePeakIsMeasured) {
  SpeedJob job;
  job.StartSweep();
  job.MeasurePeak();
  // No worker: everything here, one call a Step (the first: the peak, 150 ms).
  int steps = 0;
  while (job.running() && steps < 5000) {
    ASSERT_TRUE(job.Step(10).ok());
    ++steps;
  }
  EXPECT_GT(job.peak_gflops(), 0);
  ASSERT_TRUE(job.sweep_batches().done());
  size_t points = 0;
  for (attn::KernelId id : attn::AvailableKernels())
    points += std::min(SpeedJob::kSweepHi, SpeedLab::MaxLog2N(id)) - SpeedJob::kSweepLo + 1;
  EXPECT_EQ(job.sweep().size(), points);
  for (const auto& [point, timing] : job.sweep()) {
    EXPECT_EQ(timing.samples.us.size(), static_cast<size_t>(SpeedJob::kSweepBatches));
    EXPECT_DOUBLE_EQ(timing.gflops, SpeedLab::Flops(1 << point.second) / timing.us * 1e-3);
  }
  EXPECT_TRUE(job.heads_ms().empty()) << "view 5's recompute waits for a setting shown";
}

TEST(SpeedJob, ViewFivesRecomputeSettlesAndStopsUnlessLive) {
  SpeedJob job;
  job.Show(attn::FastestKernel(), 16, false);
  int steps = 0;
  while (job.running() && steps < 1000) {
    ASSERT_TRUE(job.Step(10).ok());
    ++steps;
  }
  EXPECT_FALSE(job.running());
  EXPECT_EQ(job.heads_ms().us.size(), static_cast<size_t>(SpeedJob::kLiveSamples));
  EXPECT_GE(job.heads_runs(), SpeedJob::kLiveSamples);
  EXPECT_EQ(job.live().us.size(), 3u) << "three first batches of the shown setting";
  // 1 warm-up + 60 recomputes + 1 warm-up + 3 batches.
  EXPECT_EQ(steps, 1 + SpeedJob::kHeadsSettleBatches + 1 + 3);
  job.Show(attn::FastestKernel(), 16, true);
  EXPECT_TRUE(job.running()) << "live goes on";
}

// View 9: the whole sweep, every point timed kRepeats times, µs per token from the medians.
TEST(RnnTimingJob, TimesEveryPointOfBothLayers) {
  RnnTimingJob job;
  EXPECT_FALSE(job.running()) << "nothing before the view starts it";
  job.Start();
  int steps = 0;
  while (job.running() && steps < 2000) {
    JobUnit unit;
    if (job.Claim(&unit))  // the long ones in a "worker"
      job.Finish(unit, RunApart(unit));
    else
      ASSERT_TRUE(job.Step(10).ok());
    ++steps;
  }
  ASSERT_TRUE(job.sweep().done());
  EXPECT_EQ(job.sweep().error(), "");
  for (int layer = 0; layer < 2; ++layer)
    for (int p = 0; p < RnnTimingJob::kPoints; ++p) {
      const int log2_n = RnnSpeedLab::kMinLog2N + p;
      const TimingSamples& samples = job.sweep().samples(layer, log2_n);
      ASSERT_EQ(samples.us.size(), static_cast<size_t>(RnnTimingJob::kRepeats));
      EXPECT_FLOAT_EQ(job.us_per_token(layer)(p, 0), static_cast<float>(samples.Median() / (1 << log2_n)));
    }
}

}  // namespace
}  // namespace lessons
