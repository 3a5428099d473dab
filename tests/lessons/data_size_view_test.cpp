// View 8's side of the data-size experiment: the state's sizes, the curves (NaN until a seed
// finishes), the sentence from the numbers, the default experiment's claim, and the link.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

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

// The claim of view 8's default experiment, with the runner and the configuration the page uses
// (lessons::DataSizeConfigFor of the default state: N = 16 … 1024, 3 seeds, 400 steps, 256 held-out
// sequences): the CNN ahead with 16 sequences, the transformer with 1024, crossing at 256, and the
// sentence saying so. The page runs the same experiment from its Run button; its browser test runs a
// small one, and npm run bench times this one in the page (target 60 s).
TEST(DataSizeView, TheDefaultExperimentCrossesAt256) {
  ATTN_SKIP_UNLESS_OPTIMIZED();
  const attn::train::DataSizeConfig c = DataSizeConfigFor(DataSizeState());
  ASSERT_EQ(c.sizes, (std::vector<int>{16, 64, 256, 1024}));
  ASSERT_EQ(c.seeds, 3);
  attn::train::DataSizeRunner runner;
  ASSERT_TRUE(runner.Init(c).ok());
  while (!runner.done()) ASSERT_TRUE(runner.Next(c.steps).ok());
  std::string curves;  // printed with any failure
  for (const attn::train::DataSizePoint& p : runner.points()) {
    curves += std::string(attn::train::ModelKindName(p.model)) + " N = " + std::to_string(p.size) + ": mean " +
              std::to_string(p.mean) + " [" + std::to_string(p.min) + ", " + std::to_string(p.max) + "]\n";
  }
  SCOPED_TRACE(curves);
  using attn::train::ModelKind;
  const attn::train::DataSizePoint& t16 = runner.point(ModelKind::kTransformer, 0);
  const attn::train::DataSizePoint& c16 = runner.point(ModelKind::kCnn, 0);
  const attn::train::DataSizePoint& t1024 = runner.point(ModelKind::kTransformer, 3);
  const attn::train::DataSizePoint& c1024 = runner.point(ModelKind::kCnn, 3);
  ASSERT_EQ(t16.accuracy.size(), 3u);
  EXPECT_GT(c16.mean - t16.mean, 0.2f) << "the CNN ahead at N = 16";
  EXPECT_GT(t1024.mean - c1024.mean, 0.2f) << "the transformer ahead at N = 1024";
  EXPECT_EQ(attn::train::Crossover(runner.points()), 256);
  EXPECT_EQ(DescribeDataSize(runner).rfind("With 16 training sequences the CNN is ahead", 0), 0u) << DescribeDataSize(runner);
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
