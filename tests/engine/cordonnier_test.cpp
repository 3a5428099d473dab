// Multi-head self-attention can express any 1-D convolution (Cordonnier, Loukas & Jaggi, 2020).
// K heads: head h scores keys by the quadratic relative position −α(δ − Δ_h)², Δ_h = h − ⌊K/2⌋,
// so as α grows it attends only to the token at offset Δ_h. Giving head h the conv's tap for that
// offset as its value projection and summing the heads in the output projection rebuilds the
// convolution. Zero-padding the sequence by ⌊K/2⌋ tokens on each side gives the edge tokens the
// same zeros the convolution sees.
#include <gtest/gtest.h>

#include <cstdio>

#include "attn/attention.h"
#include "attn/layers.h"
#include "support/random.h"
#include "support/random_conv.h"

namespace attn {
namespace {

using testing::RandomConv1d;
using testing::RandomMatrix;

struct ConvAsAttention {
  Matrix output;                // (n, c_out), padding rows cropped
  std::vector<Matrix> weights;  // K × (n + 2P, n + 2P), per head
};

// The conv of `conv` (odd kernel size K) on x: (n, c_in) computed by K-head attention.
Status AttentionConv(const Conv1dParams& conv, const Matrix& x, float alpha, ConvAsAttention* out) {
  const int K = static_cast<int>(conv.taps.size());
  const int pad = K / 2;
  const Eigen::Index n = x.rows(), c_in = x.cols(), c_out = conv.bias.cols();

  AttentionConfig config;
  config.num_heads = K;
  config.head_dim = 1;  // content scores are switched off below; any width would do
  config.value_head_dim = static_cast<int>(c_out);
  config.project_inputs = true;
  config.project_output = true;
  config.use_bias = true;
  config.output_dim = static_cast<int>(c_out);
  config.position = PositionEncoding::kQuadraticRelative;

  AttentionParameters p;
  p.wq = Matrix::Zero(c_in, K);  // q = 0: scores are the position bias alone
  p.wk = Matrix::Zero(c_in, K);
  p.bq = Matrix::Zero(1, K);
  p.bk = Matrix::Zero(1, K);
  p.wv.resize(c_in, K * c_out);
  p.bv = Matrix::Zero(1, K * c_out);
  p.wo.resize(K * c_out, c_out);
  p.relative_center.resize(1, K);
  p.relative_sharpness = Matrix::Constant(1, K, alpha);
  for (int h = 0; h < K; ++h) {
    p.relative_center(0, h) = static_cast<float>(h - pad);               // Δ_h
    p.wv.middleCols(h * c_out, c_out) = conv.taps[h];                    // the tap at offset Δ_h
    p.wo.middleRows(h * c_out, c_out) = Matrix::Identity(c_out, c_out);  // sum of the heads
  }
  p.bo = conv.bias;

  AttentionInputs in;
  in.query = Matrix::Zero(n + 2 * pad, c_in);
  in.query.middleRows(pad, n) = x;
  AttentionResult r;
  ATTN_RETURN_IF_ERROR(Forward(config, in, p, &r));
  out->output = r.output.middleRows(pad, n);
  out->weights.clear();
  for (const auto& head : r.heads) out->weights.push_back(head.weights);
  return Status::Ok();
}

// max |attention − conv| over every output element.
float MaxError(const Conv1dParams& conv, const Matrix& x, float alpha) {
  Matrix expected;
  EXPECT_TRUE(Conv1d(conv, x, &expected).ok());
  ConvAsAttention got;
  const Status status = AttentionConv(conv, x, alpha, &got);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return INFINITY;
  return (got.output - expected).cwiseAbs().maxCoeff();
}

TEST(Cordonnier, AttentionReproducesConvolutionAtHighSharpness) {
  for (int K : {3, 5, 7}) {
    const Conv1dParams conv = RandomConv1d(K, 3, 2, 10 * K);
    const Matrix x = RandomMatrix(9, 3, K);
    const float error = MaxError(conv, x, 50.0f);
    EXPECT_LT(error, 1e-5f) << "K = " << K;
    std::printf("K = %d, alpha = 50: max |attention - conv| = %.3g\n", K, error);
  }
}

TEST(Cordonnier, EachHeadLooksAtItsOffset) {
  const int K = 5, pad = K / 2;
  const Conv1dParams conv = RandomConv1d(K, 2, 2, 7);
  ConvAsAttention got;
  ASSERT_TRUE(AttentionConv(conv, RandomMatrix(6, 2, 8), 50.0f, &got).ok());
  for (int h = 0; h < K; ++h) {
    for (int i = pad; i < 6 + pad; ++i) {  // unpadded query rows
      EXPECT_GT(got.weights[h](i, i + h - pad), 1.0f - 1e-6f) << "head " << h << " row " << i;
    }
  }
}

TEST(Cordonnier, ErrorFallsAsSharpnessGrows) {
  for (int K : {3, 5, 7}) {
    const Conv1dParams conv = RandomConv1d(K, 3, 2, 20 * K);
    const Matrix x = RandomMatrix(9, 3, 3 * K);
    float previous = MaxError(conv, x, 0.25f);
    EXPECT_GT(previous, 1e-2f) << "blurry heads should be far from the convolution";
    std::printf("K = %d: alpha 0.25 -> %.3g", K, previous);
    for (float alpha : {0.5f, 1.0f, 2.0f, 4.0f, 8.0f}) {
      const float error = MaxError(conv, x, alpha);
      EXPECT_LT(error, previous) << "K = " << K << ", alpha = " << alpha;
      std::printf(", %g -> %.3g", alpha, error);
      previous = error;
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace attn
