// View 8's side of the data-size experiment: the state's sizes, the curves (NaN until a seed
// finishes), the sentence from the numbers, and the link.
#include <gtest/gtest.h>

#include <cmath>

#include "lessons/view_state.h"
#include "lessons/views/data_size.h"
#include "support/optimized_build.h"

namespace lessons {
namespace {

TEST(DataSizeView, TheStateGivesSizesSeedsAndSteps) {
  DataSizeState s;
  attn::train::DataSizeConfig c = DataSizeConfigFor(s);
  EXPECT_EQ(c.sizes, (std::vector<int>{16, 64, 256, 1024}));
  EXPECT_EQ(c.seeds, 3);
  EXPECT_EQ(c.steps, 400);
  EXPECT_EQ(c.task, attn::train::TaskKind::kPlusMinus);
  s.largest = 13;
  EXPECT_EQ(DataSizeConfigFor(s).sizes, (std::vector<int>{16, 64, 256, 1024, 4096, 8192}));
  s.largest = 6;
  EXPECT_EQ(DataSizeConfigFor(s).sizes, (std::vector<int>{16, 64}));
}

TEST(DataSizeView, CurvesFillAsRunsFinishAndTheSentenceIsTheirs) {
  ATTN_SKIP_UNLESS_OPTIMIZED();
  DataSizeState s;
  s.largest = 6;  // N = 16, 64
  s.seeds = 2;
  s.steps = 100;
  attn::train::DataSizeRunner runner;
  ASSERT_TRUE(runner.Init(DataSizeConfigFor(s)).ok());
  DataSizeCurves c = CurvesOfPoints(runner);
  ASSERT_EQ(c.log2_n.rows(), 2);
  EXPECT_EQ(c.log2_n(1, 0), 6.0f);
  EXPECT_TRUE(std::isnan(c.transformer_mean(0, 0)));
  EXPECT_EQ(DescribeDataSize(runner), "") << "nothing to say before every point has a seed";
  // Every point has its first seed, the second still runs: its means would change after being read
  // (the page said 0.998 at N = 256, then 0.980).
  const auto every_point_has_a_seed = [&] {
    for (const auto& p : runner.points())
      if (p.accuracy.empty()) return false;
    return true;
  };
  while (!every_point_has_a_seed()) ASSERT_TRUE(runner.Next(50).ok());
  ASSERT_FALSE(runner.done());
  EXPECT_EQ(DescribeDataSize(runner), "") << "nothing to say while seeds still run";
  while (!runner.done()) ASSERT_TRUE(runner.Next(50).ok());
  c = CurvesOfPoints(runner);
  for (int i = 0; i < 2; ++i) {
    const auto& t = runner.point(attn::train::ModelKind::kTransformer, i);
    const auto& k = runner.point(attn::train::ModelKind::kCnn, i);
    EXPECT_EQ(c.transformer_mean(i, 0), t.mean);
    EXPECT_EQ(c.transformer_min(i, 0), t.min);
    EXPECT_EQ(c.cnn_max(i, 0), k.max);
  }
  const std::string text = DescribeDataSize(runner);
  char expected[64];
  std::snprintf(expected, sizeof(expected), "%.2f", runner.point(attn::train::ModelKind::kCnn, 0).mean);
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  EXPECT_NE(text.find("16"), std::string::npos) << text;
}

TEST(DataSizeView, TheStateRoundTripsThroughALink) {
  ViewState s;
  s.view = ViewId::kDataSize;
  s.data_size.seeds = 5;
  s.data_size.steps = 1000;
  s.data_size.largest = 13;
  const std::string text = SerializeState(s);
  EXPECT_EQ(text, "v=datasize&ds.s=5&ds.n=1000&ds.max=13");
  ViewState back;
  ASSERT_TRUE(ParseState(text, &back).ok());
  EXPECT_EQ(FieldsKey(back.data_size), FieldsKey(s.data_size));
  ViewState clamped;
  EXPECT_FALSE(ParseState("ds.s=99", &clamped).ok());
  EXPECT_EQ(clamped.data_size.seeds, 5);
}

}  // namespace
}  // namespace lessons
