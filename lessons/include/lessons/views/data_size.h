// View 8: a CNN against self-attention as the training set grows — attn::train's DataSizeRunner as
// a job (sliced here, its runs spread over the page's Web Workers), and its points as curves for a
// log-N plot.
#pragma once

#include <string>

#include "attn/train/data_size.h"
#include "lessons/common.h"
#include "lessons/job.h"
#include "lessons/view_state.h"

namespace lessons {

// The runner's settings for the state: the plusminus task, N = 16, 64, … up to 2^largest,
// `seeds` seeds and `steps` updates per run, each scored on 256 held-out sequences (models and
// optimizer at the runner's defaults).
attn::train::DataSizeConfig DataSizeConfigFor(const DataSizeState& state);

// The experiment as a job. Reset (new settings) waits for SetRunning(true) (Run); Step trains the
// lowest run not begun in slices; Claim hands whole runs to workers, which compute them with
// RunJobUnit (RunDataSizeUnit) and come back through Finish. The points are the same bits however
// the runs were sliced or spread.
class DataSizeJob : public Job {
 public:
  // A new experiment, not running. On error the job keeps its error and nothing runs.
  Status Reset(const DataSizeState& state);
  void SetRunning(bool running) { running_ = running; }
  bool running() const override { return running_ && error_.empty() && !runner_.done(); }
  Status Step(double budget_ms) override;
  float progress() const override { return runner_.progress(); }
  bool Claim(JobUnit* unit) override;
  void Finish(const JobUnit& unit, const JobAnswer& answer) override;
  void Release(const JobUnit& unit) override;

  const attn::train::DataSizeRunner& runner() const { return runner_; }
  const std::string& error() const { return error_; }
  // Runs in workers now (claimed, not back).
  int runs_elsewhere() const { return runner_.runs_claimed(); }
  int generation() const { return generation_; }

 private:
  void Stop(const std::string& error);
  DataSizeState state_;
  attn::train::DataSizeRunner runner_;
  bool running_ = false;
  std::string error_;
  int generation_ = 0;
};

// One run of the grid of `unit.settings` = {seeds, steps, largest} (the state's fields), by index:
// *value = its held-out accuracy, the bits DataSizeJob::Step would get.
Status RunDataSizeUnit(const JobUnit& unit, double* value);

// The points as curves over log2 N; entries of sizes no seed has finished yet are NaN.
struct DataSizeCurves {
  Matrix log2_n;                                 // (sizes, 1)
  Matrix transformer_mean, transformer_min, transformer_max;  // (sizes, 1) held-out accuracy
  Matrix cnn_mean, cnn_min, cnn_max;                          // (sizes, 1)
};
DataSizeCurves CurvesOfPoints(const attn::train::DataSizeRunner& runner);

// What the finished curves show, in one sentence from their numbers ("With 16 sequences the CNN is
// ahead, 0.50 to 0.21; from 256 on the transformer is, 1.00 to 0.69 at 4096."); "" until every
// point has a seed.
std::string DescribeDataSize(const attn::train::DataSizeRunner& runner);

}  // namespace lessons
