#include "lessons/timing_sweep.h"

#include <algorithm>

namespace lessons {

void TimingSweep::Start(const std::vector<std::pair<int, int>>& points, int repeats) {
  ++generation_;
  started_ = true;
  repeats_ = std::max(1, repeats);
  points_ = points;
  samples_.assign(points.size(), TimingSamples{});
  failed_.assign(points.size(), 0);
  next_ = 0;
  error_.clear();
}

bool TimingSweep::Next(Point* point) const {
  if (!started_ || done()) return false;
  const auto& p = points_[next_ % points_.size()];
  *point = Point{p.first, p.second, generation_};
  return true;
}

bool TimingSweep::Record(const Point& point, double us) {
  Point expected;
  if (point.generation != generation_ || !Next(&expected) || expected.series != point.series ||
      expected.log2_n != point.log2_n)
    return false;
  samples_[next_ % points_.size()].us.push_back(us);
  ++next_;
  SkipFailed();
  return true;
}

void TimingSweep::Fail(const Point& point, const std::string& error) {
  const int i = Find(point.series, point.log2_n);
  if (point.generation != generation_ || i < 0) return;
  error_ = error;
  failed_[i] = 1;
  SkipFailed();
}

void TimingSweep::SkipFailed() {  // a failed point's later batches are skipped
  while (!done() && failed_[next_ % points_.size()]) ++next_;
}

int TimingSweep::Find(int series, int log2_n) const {
  const auto it = std::find(points_.begin(), points_.end(), std::make_pair(series, log2_n));
  return it == points_.end() ? -1 : static_cast<int>(it - points_.begin());
}

const TimingSamples& TimingSweep::samples(int series, int log2_n) const {
  static const TimingSamples kNone;
  const int i = Find(series, log2_n);
  return i < 0 ? kNone : samples_[i];
}

bool TimingSweep::complete(int series, int log2_n) const {
  return static_cast<int>(samples(series, log2_n).us.size()) >= repeats_;
}

}  // namespace lessons
