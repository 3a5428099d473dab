// The benchmark layer (lessons/bench_layer.h): what `npm run bench` and the speed view time.
#include "lessons/bench_layer.h"

#include <gtest/gtest.h>

namespace lessons {
namespace {

TEST(BenchLayer, IsTheBenchmarksLayer) {
  const BenchLayer layer;
  EXPECT_EQ(layer.d_model, 256);
  EXPECT_EQ(layer.heads, 4);
  const attn::AttentionConfig config = layer.Config(attn::KernelId::kEigen);
  EXPECT_TRUE(config.project_inputs && config.project_output && config.use_bias);
  EXPECT_EQ(config.num_heads, 4);
  EXPECT_EQ(config.seed, 7u);
  EXPECT_EQ(layer.Flops(1024), 2.0 * 1024 * 256 * 256 * 4 + 4.0 * 1024 * 1024 * 256);
}

TEST(BenchLayer, ParametersAndInputRunThroughForwardOutput) {
  const BenchLayer layer{16, 2, 7};
  attn::AttentionParameters params;
  ASSERT_TRUE(layer.Parameters(&params).ok());
  EXPECT_EQ(params.wq.rows(), 16);
  EXPECT_EQ(params.bo.cols(), 16);
  attn::AttentionInputs inputs;
  inputs.query = layer.Input(5);
  EXPECT_EQ(inputs.query, layer.Input(5));  // seeded
  EXPECT_LE(inputs.query.cwiseAbs().maxCoeff(), 1.0f);
  Matrix y;
  ASSERT_TRUE(attn::ForwardOutput(layer.Config(attn::FastestKernel()), inputs, params, &y).ok());
  EXPECT_EQ(y.rows(), 5);
  EXPECT_EQ(y.cols(), 16);
}

}  // namespace
}  // namespace lessons
