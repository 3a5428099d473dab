// The spread of repeated timings, and the sentence the RNN view writes from it.
#include "lessons/timing_samples.h"

#include <cmath>

#include <gtest/gtest.h>

namespace lessons {
namespace {

TEST(TimingSamples, MedianRangeAndSpread) {
  TimingSamples t;
  EXPECT_TRUE(std::isnan(t.Median()));
  EXPECT_TRUE(std::isnan(t.Spread()));
  t.us = {3.0, 1.0, 2.0};
  EXPECT_EQ(t.Median(), 2.0);
  EXPECT_EQ(t.Min(), 1.0);
  EXPECT_EQ(t.Max(), 3.0);
  EXPECT_EQ(t.Spread(), 1.0);
  t.us = {4.0, 1.0, 2.0, 3.0};
  EXPECT_EQ(t.Median(), 2.5);
}

TEST(TimingSamples, TheSentenceSaysWhetherATrendCanBeRead) {
  TimingSamples quiet{{10.0, 10.5, 11.0}}, noisy{{39.3, 5.27, 3.24}}, one{{7.0}};
  EXPECT_EQ(DescribeTimingSpread({}, {}), "");
  EXPECT_EQ(DescribeTimingSpread({&one}, {"RNN at n = 16"}), "Each time is one measurement: no spread to show yet.");
  const std::string fine = DescribeTimingSpread({&quiet, nullptr}, {"RNN at n = 16", "x"});
  EXPECT_NE(fine.find("median of 3 repeats"), std::string::npos) << fine;
  EXPECT_NE(fine.find("within 10%"), std::string::npos) << fine;
  // The page's RNN at n = 16 on four loads measured 39.3, 5.27, 3.24 µs per token: no trend in that.
  const std::string bad = DescribeTimingSpread({&quiet, &noisy}, {"RNN at n = 16", "attention at n = 16"});
  EXPECT_EQ(bad.rfind("Too noisy to read a trend: the repeats of attention at n = 16 range from 3.24 to 39.3", 0), 0u) << bad;
}

}  // namespace
}  // namespace lessons
