// The phase change of a training run: the moment a loss curve that had been flat falls suddenly — an
// induction head forming shows as such a drop (Olsson et al., "In-context Learning and Induction
// Heads", Anthropic, 2022). The rule, stated so a reader can check it on the plot:
//   1. smooth the curve with a centred moving average of 5 points (fewer at the ends);
//   2. at every inner point i, the slope (s[i+1] − s[i−1]) / (step[i+1] − step[i−1]);
//   3. the candidate i* is the steepest fall (the most negative slope);
//   4. it is a phase change when the fall there is sudden — the points before the window
//      [i* − 2, i* + 2] (at least one stretch of them) fell at a mean slope of at most a quarter of
//      the steepest — and large — the smoothed loss falls over that window by at least a quarter of
//      its whole fall (first point − lowest point) and by at least a tenth of where it started.
// A curve that falls fastest at its start (an exponential decay, most training runs) has none.
#pragma once

#include <vector>

namespace attn::train {

struct LossPoint {
  int step = 0;
  double loss = 0;
};

// The step of i*, or −1 when the rule finds no phase change (or there are fewer than 7 points, the
// steps do not rise, or a loss is not finite).
int PhaseChangeStep(const std::vector<LossPoint>& curve);

}  // namespace attn::train
