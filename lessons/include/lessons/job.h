// Long work a view starts from its state (issue 29): training, the data-size grid. A panel starts,
// pauses and draws its job; the app advances it every frame, whether or not its view is shown
// (web/app/job_scheduler.h): Step(budget_ms) here on the page's thread, and — for a job whose work
// comes in independent units — units handed to Web Workers that run RunJobUnit, the same C++.
// Every job gives the same result however its work is sliced or spread (tests/lessons/job_test.cpp).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "lessons/common.h"
#include "lessons/view_state.h"

namespace lessons {

// The slicing rule of every job, written once: at least one piece of work; no piece begun that the
// last piece's time says would end past the budget.
//   TimeSlice slice(budget_ms);
//   while (work_left && slice.Next()) DoOnePiece();
class TimeSlice {
 public:
  explicit TimeSlice(double budget_ms);
  // True when another piece should begin; it also ends the timing of the piece before.
  bool Next();
  double elapsed_ms() const;
  double last_piece_ms() const { return last_piece_ms_; }

 private:
  using Clock = std::chrono::steady_clock;
  double budget_ms_;
  Clock::time_point start_, piece_start_;
  double last_piece_ms_ = 0;
  int pieces_ = 0;
};

// A unit of a job that can run apart (in a Web Worker): what to compute, from the job's settings alone.
enum class JobUnitKind {
  kDataSizeRun = 1,  // one run of view 8's grid: settings = DataSizeState {seeds, steps, largest}; index = the run
  kLearnSlice = 2,   // a slice of view 11's training: text = the LearnState's fields without the step,
                     // settings = {from_step, until, budget_ms}; answer: a LearnDelta's bytes
  kTimingBatch = 3,  // a timing batch of view 9 or 14 (lessons/timing_job.h's TimingUnit)
};
constexpr int kJobUnitKinds = 3;
struct JobUnit {
  JobUnitKind kind = JobUnitKind::kDataSizeRun;
  std::vector<int> settings;  // the numbers the unit is computed from
  std::string text;           // and the text (a state's fields), where it needs one
  int index = 0;              // which unit of the job
  int generation = 0;         // the job's generation when it was handed out (a unit of an older one is dropped)
  // The unit needs the state a worker kept from the job's earlier units (a training run's model, a
  // layer's warm-up): it goes to the same worker each time.
  bool sticky() const { return kind != JobUnitKind::kDataSizeRun; }
};
// A unit's outcome: the error ("" when it went well), its value (a run's held-out accuracy) or bytes.
struct JobAnswer {
  std::string error;
  double value = 0;
  std::string bytes;
};

// Computes a unit: what a worker runs (page_js.cpp's runJob), with the code the job runs here. Bad
// settings or index: an error naming them. A learn slice keeps its lab between calls (per module:
// per worker), so a worker trains on from where its last slice ended.
Status RunJobUnit(const JobUnit& unit, JobAnswer* answer);

class Job {
 public:
  virtual ~Job() = default;
  // True while it has work to do and was not paused: the app steps it.
  virtual bool running() const = 0;
  // Advances on this thread for about budget_ms (TimeSlice). A failure stops the job (running()
  // false) and is what its panel shows.
  virtual Status Step(double budget_ms) = 0;
  // Work done / all of it, in [0, 1].
  virtual float progress() const = 0;
  // What the link follows of the job, written into the state after each frame's step (Learn: the
  // step reached while training on).
  virtual void WriteState(ViewState* /*state*/) const {}
  // Whether the job's view is on screen this frame (the app says so before stepping): work only worth
  // doing while it is seen — timing — waits while it is not.
  virtual void SetShown(bool /*shown*/) {}

  // Units that run apart, for a job whose work comes in them: the next unit nobody has begun (false:
  // none left), and its outcome (an error stops the job) — or the unit given back unfinished (its
  // worker died: it runs here, or in another worker, later).
  virtual bool Claim(JobUnit* /*unit*/) { return false; }
  virtual void Finish(const JobUnit& /*unit*/, const JobAnswer& /*answer*/) {}
  virtual void Release(const JobUnit& /*unit*/) {}
};

}  // namespace lessons
