#include "lessons/timing_sweep.h"

#include <algorithm>

namespace lessons {

void TimingSweep::Start(const std::vector<std::pair<int, int>>& points, int repeats) {
  ++generation_;
  started_ = true;
  repeats_ = std::max(1, repeats);
  order_.clear();
  for (int round = 0; round < repeats_; ++round) order_.insert(order_.end(), points.begin(), points.end());
  next_ = 0;
  samples_.clear();
  failed_.clear();
  for (const auto& p : points) samples_[p];
  error_.clear();
}

bool TimingSweep::Next(Point* point) const {
  if (done() || !started_) return false;
  point->series = order_[next_].first;
  point->log2_n = order_[next_].second;
  point->generation = generation_;
  return true;
}

bool TimingSweep::Record(const Point& point, double us) {
  Point expected;
  if (point.generation != generation_ || !Next(&expected) || expected.series != point.series ||
      expected.log2_n != point.log2_n)
    return false;
  samples_[{point.series, point.log2_n}].us.push_back(us);
  ++next_;
  // A failed point's later batches are skipped.
  while (next_ < static_cast<int>(order_.size()) && failed_.count(order_[next_])) ++next_;
  return true;
}

void TimingSweep::Fail(const Point& point, const std::string& error) {
  if (point.generation != generation_) return;
  error_ = error;
  failed_[{point.series, point.log2_n}] = true;
  while (next_ < static_cast<int>(order_.size()) && failed_.count(order_[next_])) ++next_;
}

const TimingSamples& TimingSweep::samples(int series, int log2_n) const {
  static const TimingSamples kNone;
  const auto it = samples_.find({series, log2_n});
  return it == samples_.end() ? kNone : it->second;
}

bool TimingSweep::complete(int series, int log2_n) const {
  return static_cast<int>(samples(series, log2_n).us.size()) >= repeats_;
}

}  // namespace lessons
