#include "attn/train/phase_change.h"

#include <algorithm>
#include <cmath>

namespace attn::train {

int PhaseChangeStep(const std::vector<LossPoint>& curve) {
  const int n = static_cast<int>(curve.size());
  if (n < 7) return -1;
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(curve[i].loss)) return -1;
    if (i > 0 && curve[i].step <= curve[i - 1].step) return -1;
  }
  std::vector<double> s(n);
  for (int i = 0; i < n; ++i) {  // centred moving average of 5 points, fewer at the ends
    const int lo = std::max(0, i - 2), hi = std::min(n - 1, i + 2);
    double sum = 0;
    for (int j = lo; j <= hi; ++j) sum += curve[j].loss;
    s[i] = sum / (hi - lo + 1);
  }
  const auto slope = [&](int a, int b) { return (s[b] - s[a]) / (curve[b].step - curve[a].step); };
  int steepest = 1;
  for (int i = 2; i < n - 1; ++i)
    if (slope(i - 1, i + 1) < slope(steepest - 1, steepest + 1)) steepest = i;
  const double fall = s[0] - *std::min_element(s.begin(), s.end());
  const double steepest_slope = slope(steepest - 1, steepest + 1);
  if (!(fall > 0) || !(steepest_slope < 0)) return -1;
  // Before the fall's window there is a stretch to compare with, and it fell at most a quarter as
  // fast (both slopes negative, or that stretch flat or rising).
  const bool sudden = steepest - 2 >= 1 && slope(0, steepest - 2) >= 0.25 * steepest_slope;
  const double window_fall = s[steepest - 2 >= 0 ? steepest - 2 : 0] - s[std::min(n - 1, steepest + 2)];
  const bool large = window_fall >= 0.25 * fall && window_fall >= 0.1 * s[0];
  return sudden && large ? curve[steepest].step : -1;
}

}  // namespace attn::train
