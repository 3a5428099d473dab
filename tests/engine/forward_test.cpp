// Every option of the attention layer, alone and combined: the float32 engine (both kernels)
// against the float64 reference, on random shapes from 1 token up.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "support/attention_cases.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::CloseToReference;
using testing::MaxAbsError;
using testing::RandomMatrix;
using testing::RunReferenceDouble;

const int kSizes[] = {1, 3, 4, 5, 7, 8, 9, 16, 17, 35};

// Bool matrix with about `fraction` of the entries true.
BoolMatrix RandomBool(int rows, int cols, uint32_t seed, float fraction) {
  const Matrix u = RandomMatrix(rows, cols, seed, 0.0f, 1.0f);
  return (u.array() < fraction).matrix();
}

// One option set, applied to a query of n tokens and width d.
struct Scenario {
  const char* name;
  std::function<void(int n, int d, uint32_t seed, AttentionConfig*, AttentionInputs*)> setup;
};

// Projections with explicit head widths, so any d works.
void UseProjections(AttentionConfig* c, int heads, int kv_heads, int head_dim) {
  c->project_inputs = true;
  c->project_output = true;
  c->use_bias = true;
  c->num_heads = heads;
  c->num_kv_heads = kv_heads;
  c->head_dim = head_dim;
  c->seed = 7;
}

std::vector<Scenario> Scenarios() {
  using C = AttentionConfig;
  using I = AttentionInputs;
  return {
      {"parameter_free", [](int, int, uint32_t, C*, I*) {}},
      {"dot", [](int, int, uint32_t, C* c, I*) { c->score = ScoreFunction::kDot; }},
      {"given_scale", [](int, int, uint32_t, C* c, I*) { c->scale = 0.3f; }},
      {"bilinear", [](int, int, uint32_t, C* c, I*) { c->score = ScoreFunction::kBilinear; }},
      {"additive", [](int, int, uint32_t, C* c, I*) { c->score = ScoreFunction::kAdditive; c->additive_dim = 6; }},
      {"additive_concat", [](int, int, uint32_t, C* c, I*) { c->score = ScoreFunction::kAdditiveConcat; }},
      {"cosine", [](int, int, uint32_t, C* c, I*) { c->score = ScoreFunction::kCosine; c->cosine_temperature = 0.2f; }},
      {"sparsemax", [](int, int, uint32_t, C* c, I*) { c->normalizer = Normalizer::kSparsemax; }},
      {"relu_normalized", [](int, int, uint32_t, C* c, I*) { c->normalizer = Normalizer::kReluNormalized; }},
      {"sigmoid", [](int, int, uint32_t, C* c, I*) { c->normalizer = Normalizer::kSigmoid; c->temperature = 0.5f; }},
      {"no_normalizer", [](int, int, uint32_t, C* c, I*) { c->normalizer = Normalizer::kNone; }},
      {"causal", [](int, int, uint32_t, C* c, I*) { c->causal = true; }},
      {"window", [](int, int, uint32_t, C* c, I*) { c->window_left = 2; c->window_right = 1; }},
      {"bool_masks_and_padding",
       [](int n, int, uint32_t seed, C*, I* in) {
         in->bool_mask = {RandomBool(n, n, seed + 1, 0.3f)};
         in->bool_mask_meaning = BoolMaskMeaning::kTrueMeansBlock;
         in->key_padding = RandomBool(1, n, seed + 2, 0.2f);
       }},
      {"float_mask", [](int n, int, uint32_t seed, C*, I* in) { in->float_mask = {RandomMatrix(n, n, seed + 3, -2, 2)}; }},
      {"softcap_before_mask",
       [](int n, int, uint32_t seed, C* c, I* in) {
         c->softcap = 0.8f;
         in->float_mask = {RandomMatrix(n, n, seed + 4, -1, 1)};
       }},
      {"softcap_after_mask",
       [](int n, int, uint32_t seed, C* c, I* in) {
         c->softcap = 0.8f;
         c->softcap_order = SoftcapOrder::kAfterMask;
         in->float_mask = {RandomMatrix(n, n, seed + 5, -1, 1)};
         c->causal = true;
       }},
      {"heads_with_projections", [](int, int, uint32_t, C* c, I*) { UseProjections(c, 2, 0, 3); }},
      {"grouped_query", [](int, int, uint32_t, C* c, I*) { UseProjections(c, 4, 2, 4); c->value_head_dim = 3; }},
      {"multi_query", [](int, int, uint32_t, C* c, I*) { UseProjections(c, 3, 1, 2); c->output_dim = 5; }},
      {"cross_attention",
       [](int n, int d, uint32_t seed, C* c, I* in) {
         UseProjections(c, 2, 0, 3);
         in->key = RandomMatrix(n + 2, d + 1, seed + 6, -2, 2);
         in->value = RandomMatrix(n + 2, d + 3, seed + 7, -2, 2);
       }},
      {"kv_cache",
       [](int, int, uint32_t seed, C* c, I* in) {
         UseProjections(c, 2, 1, 4);
         c->value_head_dim = 2;
         c->causal = true;
         in->past_key = {RandomMatrix(3, 4, seed + 8, -1, 1)};
         in->past_value = {RandomMatrix(3, 2, seed + 9, -1, 1)};
       }},
      {"sinusoidal", [](int, int, uint32_t, C* c, I*) { c->position = PositionEncoding::kSinusoidal; }},
      {"learned_positions",
       [](int, int, uint32_t, C* c, I*) {
         c->position = PositionEncoding::kLearned;
         c->max_positions = 40;
       }},
      {"alibi", [](int, int, uint32_t, C* c, I*) { UseProjections(c, 3, 0, 2); c->position = PositionEncoding::kAlibi; }},
      {"rope", [](int, int, uint32_t, C* c, I*) { UseProjections(c, 2, 0, 4); c->position = PositionEncoding::kRope; }},
      {"quadratic_relative",
       [](int, int, uint32_t, C* c, I*) { UseProjections(c, 3, 0, 2); c->position = PositionEncoding::kQuadraticRelative; }},
      {"everything_softmax",
       [](int n, int, uint32_t seed, C* c, I* in) {
         UseProjections(c, 4, 2, 4);
         c->position = PositionEncoding::kRope;
         c->causal = true;
         c->window_left = 3;
         c->softcap = 2.0f;
         c->temperature = 0.8f;
         in->past_key = {RandomMatrix(2, 4, seed + 10), RandomMatrix(2, 4, seed + 11)};
         in->past_value = {RandomMatrix(2, 4, seed + 12), RandomMatrix(2, 4, seed + 13)};
         in->float_mask = {RandomMatrix(n, n + 2, seed + 14, -0.5f, 0.5f)};
       }},
      {"everything_sparsemax_cross",
       [](int n, int d, uint32_t seed, C* c, I* in) {
         UseProjections(c, 2, 1, 3);
         c->normalizer = Normalizer::kSparsemax;
         c->score = ScoreFunction::kBilinear;
         c->position = PositionEncoding::kQuadraticRelative;
         c->window_right = 2;
         in->key = RandomMatrix(n + 1, d, seed + 15, -2, 2);
         in->key_padding = RandomBool(1, n + 1, seed + 16, 0.2f);
       }},
  };
}

class ForwardTest : public ::testing::TestWithParam<KernelId> {};

// Compares every intermediate of `got` with the double reference; records the largest errors.
void ExpectMatchesReference(const AttentionResult& got, const AttentionResultD& want,
                            std::map<std::string, double>* worst) {
  auto check = [&](const char* what, const auto& g, const auto& w) {
    EXPECT_TRUE(CloseToReference(g, w)) << what;
    (*worst)[what] = std::max((*worst)[what], MaxAbsError(g, w));
  };
  ASSERT_EQ(got.heads.size(), want.heads.size());
  for (size_t h = 0; h < want.heads.size(); ++h) {
    SCOPED_TRACE(::testing::Message() << "head " << h);
    const auto& g = got.heads[h];
    const auto& w = want.heads[h];
    check("q", g.q, w.q);
    check("k", g.k, w.k);
    check("v", g.v, w.v);
    check("raw_scores", g.raw_scores, w.raw_scores);
    check("scaled_scores", g.scaled_scores, w.scaled_scores);
    check("capped_scores", g.capped_scores, w.capped_scores);
    check("scores", g.scores, w.scores);
    check("weights", g.weights, w.weights);
    check("head_output", g.output, w.output);
  }
  check("concat", got.concat, want.concat);
  check("output", got.output, want.output);
  for (size_t g = 0; g < want.present_key.size(); ++g) check("present_key", got.present_key[g], want.present_key[g]);
}

TEST_P(ForwardTest, EveryOptionMatchesFloat64ReferenceOnRandomShapes) {
  std::map<std::string, double> worst;
  uint32_t seed = 100;
  int runs = 0;
  for (const Scenario& scenario : Scenarios()) {
    const bool full_grid = std::string(scenario.name) == "parameter_free";
    for (int n : kSizes) {
      for (int d : kSizes) {
        if (!full_grid && d != 1 && d != 5 && d != 8 && d != 17) continue;
        AttentionConfig config;
        AttentionInputs in;
        in.query = RandomMatrix(n, d, seed++, -2.0f, 2.0f);
        scenario.setup(n, d, seed++, &config, &in);
        config.kernel = GetParam();
        SCOPED_TRACE(::testing::Message() << scenario.name << " n=" << n << " d=" << d);
        AttentionResult got;
        const Status status = Forward(config, in, &got);
        ASSERT_TRUE(status.ok()) << status.ToString();
        ExpectMatchesReference(got, RunReferenceDouble(config, in), &worst);
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 900);
  std::cout << "[ max |float32 - float64| over " << runs << " runs, kernel " << KernelName(GetParam()) << " ]\n";
  for (const auto& [what, err] : worst) std::cout << "  " << what << ": " << err << "\n";
}

TEST_P(ForwardTest, SelfAttentionIsForwardWithDefaults) {
  const Matrix x = RandomMatrix(6, 4, 3);
  AttentionConfig config;
  config.kernel = GetParam();
  AttentionInputs in;
  in.query = x;
  AttentionResult a, b;
  ASSERT_TRUE(SelfAttention(config, x, &a).ok());
  ASSERT_TRUE(Forward(config, in, &b).ok());
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(a.heads[0].weights, b.heads[0].weights);
  // Parameter-free: Q = K = V = X.
  EXPECT_EQ(a.heads[0].q, x);
  EXPECT_EQ(a.heads[0].v, x);
}

INSTANTIATE_TEST_SUITE_P(AllKernels, ForwardTest, ::testing::ValuesIn(AvailableKernels()),
                         [](const ::testing::TestParamInfo<KernelId>& info) {
                           return std::string(KernelName(info.param));
                         });

}  // namespace
}  // namespace attn
