// Repeated timings of one measurement, as the RNN view's table shows them: the median, and the
// range of the repeats, which says how far to trust it (a browser's timer and the other programs on
// the reader's machine move single measurements by tens of percent).
#pragma once

#include <string>
#include <vector>

namespace lessons {

struct TimingSamples {
  std::vector<double> us;  // each repeat, µs per call

  bool empty() const { return us.empty(); }
  double Median() const;  // NaN without samples
  double Min() const;
  double Max() const;
  // (max − min) / median: how much the repeats disagree (0 with one repeat, NaN without).
  double Spread() const;
};

// Above this spread a point's median is too noisy to compare with its neighbours: a trend read off
// such a table may be the machine, not the algorithm.
constexpr double kNoisySpread = 0.5;

// One sentence on a table of timings: the widest spread and where, and whether the trend can be read.
// `labels[k]` names point k ("RNN at n = 64"); points without samples are skipped; "" when none has any.
// `again` names the control that measures again ("Time again"), which a noisy table's sentence suggests.
std::string DescribeTimingSpread(const std::vector<const TimingSamples*>& points, const std::vector<std::string>& labels,
                                 const std::string& again = "Time again");

}  // namespace lessons
