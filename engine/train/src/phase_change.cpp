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
  for (int i = 0; i < n; ++i) {  // centred moving average of 3 points, fewer at the ends
    const int lo = std::max(0, i - 1), hi = std::min(n - 1, i + 1);
    double sum = 0;
    for (int j = lo; j <= hi; ++j) sum += curve[j].loss;
    s[i] = sum / (hi - lo + 1);
  }
  const auto slope = [&](int a, int b) { return (s[b] - s[a]) / (curve[b].step - curve[a].step); };
  const double fall = s[0] - *std::min_element(s.begin(), s.end());
  if (!(fall > 0)) return -1;
  int found = -1;
  for (int i = 3; i < n - 1; ++i) {  // i − 2 ≥ 1: a stretch of two points at least before the window
    const double at = slope(i - 1, i + 1);
    if (!(at < 0) || (found >= 0 && at >= slope(found - 1, found + 1))) continue;
    // Sudden: some stretch before the window [i − 2, i + 2] — from an earlier point to point i − 2 —
    // fell at most a third as fast (or was flat, or rose).
    bool sudden = false;
    for (int a = 0; a < i - 2 && !sudden; ++a) sudden = slope(a, i - 2) >= at / 3;
    const double window_fall = s[i - 2] - s[std::min(n - 1, i + 2)];
    const bool large = window_fall >= 0.25 * fall && window_fall >= 0.1 * s[0];
    if (sudden && large) found = i;
  }
  return found >= 0 ? curve[found].step : -1;
}

}  // namespace attn::train
