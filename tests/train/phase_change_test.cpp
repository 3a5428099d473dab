// The phase-change rule (attn/train/phase_change.h) on synthetic loss curves whose answer is known:
// a plateau then a sudden drop (found at the drop, with and without noise), an exponential decay and
// a flat curve (none), and curves the rule refuses.
#include "attn/train/phase_change.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attn/seeded_random.h"

namespace attn::train {
namespace {

// Loss every 100 steps to 4000: `f(step)`.
template <typename F>
std::vector<LossPoint> Curve(F f) {
  std::vector<LossPoint> c;
  for (int step = 100; step <= 4000; step += 100) c.push_back({step, f(step)});
  return c;
}

// 2.3 (chance over 10 classes) until the drop, then 0.1: a logistic step of width `width` steps at `at`.
double Drop(int step, int at, double width) { return 0.1 + 2.2 / (1.0 + std::exp((step - at) / width)); }

TEST(PhaseChange, APlateauThenASuddenDropIsFoundAtTheDrop) {
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return Drop(s, 2000, 60); })), 2000);
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return Drop(s, 1200, 100); })), 1200);
  // The training loss falls a little while it waits: still sudden.
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return Drop(s, 2500, 80) - 0.00005 * s; })), 2500);
  // Noise of ±0.05 on every point moves it by at most a point.
  SeededRandom rng(3, 0);
  const int found = PhaseChangeStep(Curve([&](int s) { return Drop(s, 2000, 60) + rng.Symmetric(0.05f); }));
  EXPECT_GE(found, 1900);
  EXPECT_LE(found, 2100);
}

// What a recall run looks like on the Learn view's snapshot steps (0, 25, 50, 100, then every 100):
// a fast first fall to the plateau (the common answers learnt), the plateau, then the induction
// drop. The first fall is steeper per step, but nothing flat comes before it: the drop is found.
TEST(PhaseChange, AFastFirstFallThenAPlateauThenTheDropIsFoundAtTheDrop) {
  std::vector<LossPoint> c;
  for (int step : {0, 25, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100})
    c.push_back({step, 2.3 + 0.8 * std::exp(-step / 20.0) - 2.2 + 2.2 / (1.0 + std::exp((step - 600) / 60.0))});
  // Within a point of the drop's middle (600): the 5-point smoothing spreads a drop narrower than
  // the points' spacing over the points before it.
  const int found = PhaseChangeStep(c);
  EXPECT_GE(found, 500);
  EXPECT_LE(found, 600);
  // The same first fall with no drop after it: none.
  for (LossPoint& p : c) p.loss = 2.3 + 0.8 * std::exp(-p.step / 20.0);
  EXPECT_EQ(PhaseChangeStep(c), -1);
}

TEST(PhaseChange, ADecayFromTheStartOrAFlatCurveHasNone) {
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return 2.3 * std::exp(-s / 800.0) + 0.1; })), -1);
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return 2.3 * std::exp(-s / 150.0) + 0.1; })), -1);
  EXPECT_EQ(PhaseChangeStep(Curve([](int) { return 1.0; })), -1);
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return 2.3 - 0.0005 * s; })), -1) << "a straight line: never sudden";
  // A blip of 0.05 at the end of a flat curve at 1.0: sudden, but not a tenth of where the loss started.
  EXPECT_EQ(PhaseChangeStep(Curve([](int s) { return s == 4000 ? 0.95 : 1.0; })), -1);
}

TEST(PhaseChange, CurvesTheRuleCannotReadHaveNone) {
  EXPECT_EQ(PhaseChangeStep({}), -1);
  std::vector<LossPoint> six = Curve([](int s) { return Drop(s, 300, 50); });
  six.resize(6);
  EXPECT_EQ(PhaseChangeStep(six), -1) << "fewer than 7 points";
  std::vector<LossPoint> nan = Curve([](int s) { return Drop(s, 2000, 60); });
  nan[5].loss = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(PhaseChangeStep(nan), -1);
  std::vector<LossPoint> backwards = Curve([](int s) { return Drop(s, 2000, 60); });
  backwards[7].step = backwards[6].step;
  EXPECT_EQ(PhaseChangeStep(backwards), -1);
}

}  // namespace
}  // namespace attn::train
