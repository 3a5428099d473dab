// The phase change of a training run: the moment a loss curve that had been flat falls suddenly — an
// induction head forming shows as such a drop (Olsson et al., "In-context Learning and Induction
// Heads", Anthropic, 2022). The rule, stated so a reader can check it on the plot:
//   1. smooth the curve with a centred moving average of 3 points (fewer at the ends);
//   2. at every inner point i, the slope (s[i+1] − s[i−1]) / (step[i+1] − step[i−1]);
//   3. a point i is a candidate when the curve falls there suddenly — some stretch before the
//      window [i − 2, i + 2], from an earlier point to point i − 2, fell at a mean slope of at most
//      a third of i's (or was flat, or rose) — and by much: the smoothed loss falls over
//      the window by at least a quarter of its whole fall (first point − lowest point) and by at
//      least a tenth of where it started;
//   4. the phase change is the candidate that falls steepest.
// A curve that falls fastest at its start and slower after (an exponential decay, most training runs)
// has none; the fast first fall of a run that later has a phase change (learning which answers are
// common, before the plateau) is no candidate, as nothing flat comes before it.
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
