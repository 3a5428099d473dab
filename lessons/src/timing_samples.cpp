#include "lessons/timing_samples.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace lessons {

double TimingSamples::Median() const {
  if (us.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  const size_t m = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[m] : 0.5 * (sorted[m - 1] + sorted[m]);
}

double TimingSamples::Min() const {
  return us.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::min_element(us.begin(), us.end());
}

double TimingSamples::Max() const {
  return us.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::max_element(us.begin(), us.end());
}

double TimingSamples::Spread() const {
  const double median = Median();
  return std::isfinite(median) && median > 0 ? (Max() - Min()) / median : std::numeric_limits<double>::quiet_NaN();
}

std::string DescribeTimingSpread(const std::vector<const TimingSamples*>& points, const std::vector<std::string>& labels,
                                 const std::string& again) {
  int widest = -1;
  size_t repeats = 0;
  for (size_t k = 0; k < points.size(); ++k) {
    if (!points[k] || points[k]->empty()) continue;
    repeats = std::max(repeats, points[k]->us.size());
    if (widest < 0 || points[k]->Spread() > points[widest]->Spread()) widest = static_cast<int>(k);
  }
  if (widest < 0) return "";
  const TimingSamples& w = *points[widest];
  char text[400];
  if (repeats < 2) {
    std::snprintf(text, sizeof(text), "Each time is one measurement: no spread to show yet.");
  } else if (w.Spread() > kNoisySpread) {
    std::snprintf(text, sizeof(text),
                  "Too noisy to read a trend: the repeats of %s range from %.3g to %.3g µs (%.0f%% of their median). "
                  "Press \"%s\" on a quieter machine.",
                  labels[widest].c_str(), w.Min(), w.Max(), 100.0 * w.Spread(), again.c_str());
  } else {
    std::snprintf(text, sizeof(text),
                  "Each time is the median of %zu repeats; they agree within %.0f%% (the widest range: %s, %.3g to %.3g µs), "
                  "so differences larger than that are the algorithms', not the machine's.",
                  repeats, 100.0 * w.Spread(), labels[widest].c_str(), w.Min(), w.Max());
  }
  return text;
}

}  // namespace lessons
