// The timing sweep of views 9 and 14 (lessons/timing_sweep.h), its rule tested once: round by round
// over the points in their order, a point's median once all its repeats are in, a failed point
// dropped from the rest of the sweep, and answers from an earlier sweep ignored.
#include "lessons/timing_sweep.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace lessons {
namespace {

TEST(TimingSweep, RoundByRoundMediansFailuresAndStaleAnswers) {
  TimingSweep sweep;
  TimingSweep::Point p;
  EXPECT_FALSE(sweep.Next(&p)) << "not started";
  EXPECT_FALSE(sweep.done());
  sweep.Start({{0, 4}, {1, 4}, {0, 5}}, 3);
  std::vector<std::pair<int, int>> order;
  double us = 10;
  TimingSweep::Point first;
  ASSERT_TRUE(sweep.Next(&first));
  while (sweep.Next(&p)) {
    order.push_back({p.series, p.log2_n});
    if (order.size() == 2) {
      // The second batch fails: its point gives no more batches, and the error is kept.
      sweep.Fail(p, "resource_exhausted: n = 16");
      continue;
    }
    EXPECT_FALSE(sweep.complete(p.series, p.log2_n));
    ASSERT_TRUE(sweep.Record(p, us));
    us *= 2;
  }
  EXPECT_TRUE(sweep.done());
  EXPECT_EQ(order, (std::vector<std::pair<int, int>>{{0, 4}, {1, 4}, {0, 5}, {0, 4}, {0, 5}, {0, 4}, {0, 5}}));
  EXPECT_EQ(sweep.error(), "resource_exhausted: n = 16");
  EXPECT_TRUE(sweep.complete(0, 4));
  EXPECT_EQ(sweep.samples(0, 4).us, (std::vector<double>{10, 40, 160}));
  EXPECT_EQ(sweep.samples(0, 4).Median(), 40);
  EXPECT_TRUE(sweep.samples(1, 4).empty());
  EXPECT_FALSE(sweep.complete(1, 4));
  EXPECT_TRUE(sweep.samples(7, 7).empty()) << "not in the sweep";

  // Again: a new generation; the answer to a batch of the first sweep is ignored, so is one for a
  // point other than the one named next.
  sweep.Start({{0, 4}}, 1);
  EXPECT_FALSE(sweep.Record(first, 1.0));
  TimingSweep::Point other{1, 4, sweep.generation()};
  EXPECT_FALSE(sweep.Record(other, 1.0));
  ASSERT_TRUE(sweep.Next(&p));
  EXPECT_TRUE(sweep.Record(p, 5.0));
  EXPECT_TRUE(sweep.done());
  EXPECT_EQ(sweep.error(), "");
  EXPECT_EQ(sweep.samples(0, 4).Median(), 5.0);
}

}  // namespace
}  // namespace lessons
