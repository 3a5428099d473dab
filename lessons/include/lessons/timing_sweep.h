// A timing sweep, written once for the views that time the engine (9 RNN, 14 Speed): points (a
// series — a layer or a kernel — and a size n), `repeats` batches each, taken round by round — every
// point once, small n first, then again — so a busy moment of the machine shows up as the spread of
// one point instead of as a trend along n. A point's time is the median of its batches
// (TimingSamples). The sweep says which batch comes next and keeps what each gave; where a batch runs,
// its warm-up and its length are the caller's (web/app/timing_runner.h). Starting again bumps the
// generation: an answer to a batch of an earlier sweep is dropped.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lessons/timing_samples.h"

namespace lessons {

class TimingSweep {
 public:
  struct Point {
    int series = 0;
    int log2_n = 0;
    int generation = 0;  // of the sweep that named it (Next)
  };

  // A new sweep over `points` (in the order given: small n first), `repeats` ≥ 1 batches each.
  void Start(const std::vector<std::pair<int, int>>& points, int repeats);
  // The batch to time next; false when the sweep is done (or never started).
  bool Next(Point* point) const;
  // What the batch Next named gave: µs per forward. A point of an earlier sweep, or not the one
  // Next names, is ignored (false).
  bool Record(const Point& point, double us);
  // The batch could not be timed (its error): the point is dropped from the rest of the sweep, and
  // the error kept for the view to show.
  void Fail(const Point& point, const std::string& error);

  bool started() const { return started_; }
  bool done() const { return started_ && next_ >= repeats_ * static_cast<int>(points_.size()); }
  int generation() const { return generation_; }
  // Batches done (or skipped) over all of them, in [0, 1]; 0 before Start.
  float progress() const {
    const int all = repeats_ * static_cast<int>(points_.size());
    return started_ && all > 0 ? static_cast<float>(next_) / static_cast<float>(all) : 0.0f;
  }
  const std::string& error() const { return error_; }
  // The batches of a point so far (empty when none, or not in the sweep).
  const TimingSamples& samples(int series, int log2_n) const;
  // Every repeat of the point is in: its median stands.
  bool complete(int series, int log2_n) const;

 private:
  int Find(int series, int log2_n) const;  // index into points_, or −1
  void SkipFailed();

  int generation_ = 0;
  bool started_ = false;
  int repeats_ = 1;
  std::vector<std::pair<int, int>> points_;  // (series, log2 n)
  std::vector<TimingSamples> samples_;       // per point
  std::vector<char> failed_;                 // per point
  int next_ = 0;                             // the next batch: point next_ % points, round next_ / points
  std::string error_;
};

}  // namespace lessons
