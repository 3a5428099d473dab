// Views 3 and 5 with the heads trained on the Brown corpus: the drawn weights are the tagger's own
// layer-1 weights (the engine's forward on the sentence's GloVe vectors with the asset's
// parameters), the roles and tags are measured on the typed sentence, and without the asset or the
// GloVe vectors the views say why and fall back to seeded heads.
#include <gtest/gtest.h>

#include "lessons/trained_heads.h"
#include "lessons/views/heads.h"
#include "lessons/views/qkv.h"
#include "lessons/word_vectors.h"
#include "lessons/asset.h"
#include "lessons/view_kernel.h"
#include "support/float_bounds.h"

namespace lessons {
namespace {

struct Assets {
  WordVectors vectors;
  TrainedHeads heads;
};

const Assets& Loaded() {
  static const Assets* assets = [] {
    auto* a = new Assets;
    const std::string wv = testing::ReadAsset("word-vectors.bin"), th = testing::ReadAsset("heads-trained-brown.bin");
    EXPECT_TRUE(WordVectors::Parse(reinterpret_cast<const uint8_t*>(wv.data()), wv.size(), &a->vectors).ok());
    EXPECT_TRUE(ParseTrainedHeads(reinterpret_cast<const uint8_t*>(th.data()), th.size(), &a->heads).ok());
    return a;
  }();
  return *assets;
}

// The tagger's layer 1 run as it was trained, on Eigen: its weights are the tagger's own, bit for bit.
attn::AttentionResult TaggersLayer(const Matrix& x) {
  attn::AttentionConfig config;
  attn::AttentionParameters params;
  TrainedLayer(Loaded().heads, &config, &params);
  EXPECT_EQ(config.kernel, attn::KernelId::kEigen);
  attn::AttentionInputs inputs;
  inputs.query = x;
  attn::AttentionResult r;
  EXPECT_TRUE(attn::Forward(config, inputs, params, &r).ok());
  return r;
}

// `drawn` (on the views' kernel) and `layer` (the tagger's, on Eigen) are the same head of the same
// layer up to float32 rounding (tests/support/float_bounds.h):
//   - each map is the softmax of its own q kᵀ/(√d_k τ) within the bound of the score GEMM and softmax;
//   - their q (and k) are x Wq_h + bq_h each within the projection's bound B of the exact value, then
//     the same RoPE code: a rotation of the pair (a, b), so they differ by at most
//     2B_a + 2B_b + 2γ₂(|a| + |b|) (|cos|, |sin| ≤ 1; two roundings on each side).
void ExpectSameHeadWithinRounding(const attn::HeadIntermediates& drawn, const attn::HeadIntermediates& layer, const Matrix& x,
                                  int head, float temperature) {
  using attn::testing::Bounded;
  const attn::AttentionParameters& p = Loaded().heads.params.blocks[0].attention;
  const int d_k = static_cast<int>(drawn.q.cols());
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
  for (const attn::HeadIntermediates* h : {&drawn, &layer}) {
    const Bounded scores = attn::testing::Product(attn::testing::Exact(h->q), attn::testing::Exact(h->k), true);
    EXPECT_TRUE(attn::testing::Within(h->weights, attn::testing::SoftmaxRows(scores, scale, temperature)))
        << (h == &drawn ? "drawn" : "tagger's") << " head " << head + 1;
  }
  // Not vacuous: a score GEMM one column short (a dropped tail) falls outside the bound.
  const Bounded short_scores = attn::testing::Product(attn::testing::Exact(drawn.q.leftCols(d_k - 1)), attn::testing::Exact(drawn.k.leftCols(d_k - 1)), true);
  EXPECT_FALSE(attn::testing::Within(drawn.weights, attn::testing::SoftmaxRows(short_scores, scale, temperature)));
  const auto expect_rotated_close = [&](const Matrix& w, const Matrix& b, const Matrix& got, const Matrix& want, const char* what) {
    const Bounded bias = attn::testing::Exact(b.middleCols(head * d_k, d_k));
    const Bounded projected = attn::testing::Product(attn::testing::Exact(x), attn::testing::Exact(w.middleCols(head * d_k, d_k)), false, &bias);
    int bad = 0;
    for (Eigen::Index i = 0; i < got.rows(); ++i)
      for (Eigen::Index c = 0; c + 1 < d_k; c += 2) {
        const double a = std::abs(projected.value(i, c)) + projected.bound(i, c), bb = std::abs(projected.value(i, c + 1)) + projected.bound(i, c + 1);
        const double bound = 2 * projected.bound(i, c) + 2 * projected.bound(i, c + 1) + 2 * attn::testing::Gamma(2) * (a + bb);
        bad += std::abs(got(i, c) - want(i, c)) > bound;
        bad += std::abs(got(i, c + 1) - want(i, c + 1)) > bound;
      }
    EXPECT_EQ(bad, 0) << what << " of head " << head + 1 << ": entries outside the projection's float32 bound";
  };
  expect_rotated_close(p.wq, p.bq, drawn.q, layer.q, "q");
  expect_rotated_close(p.wk, p.bk, drawn.k, layer.k, "k");
}

Sentence Glove(const std::string& text) {
  SentenceState state;
  state.text = text;
  Sentence s;
  EXPECT_TRUE(ComputeSentence(state, &Loaded().vectors, &s).ok());
  return s;
}

TEST(TrainedViews, HeadsAreTheTaggersOwnWeightsWithRolesOnTheSentence) {
  const Sentence s = Glove("The old man put the heavy box on the table");
  HeadsState state;  // trained by default
  HeadsModel m;
  ASSERT_TRUE(ComputeHeads(s, state, &Loaded().heads, "", &m).ok());
  ASSERT_TRUE(m.trained) << m.untrained_reason;
  TaggedSentence tagged;
  ASSERT_TRUE(TagSentence(Loaded().heads, s.x, &tagged).ok());
  ASSERT_EQ(m.result.heads.size(), tagged.weights.size());
  const attn::AttentionResult layer = TaggersLayer(s.x);
  for (size_t h = 0; h < tagged.weights.size(); ++h) {
    EXPECT_TRUE(layer.heads[h].weights == tagged.weights[h]) << "head " << h + 1 << ": the layer is the tagger's";
    ExpectSameHeadWithinRounding(m.result.heads[h], layer.heads[h], s.x, static_cast<int>(h), 1.0f);  // drawn on the views' kernel
  }
  ASSERT_EQ(m.tags.size(), s.tokens.size());
  EXPECT_EQ(m.tags[0], "DET");   // the
  EXPECT_EQ(m.tags[2], "NOUN");  // man
  ASSERT_EQ(m.roles.size(), 4u);
  EXPECT_EQ(m.roles[0].rfind("head 1", 0), 0u) << m.roles[0];
  ASSERT_EQ(m.corpus_roles.size(), 4u);
  EXPECT_EQ(m.held_out.rfind("tags 96.", 0), 0u) << m.held_out;
  EXPECT_NE(m.held_out.find("of 119,231 held-out words"), std::string::npos) << m.held_out;
  // Head 3 looks at the previous word on the corpus; on this sentence too, measured.
  EXPECT_NE(m.corpus_roles[2].find("previous word"), std::string::npos) << m.corpus_roles[2];
  float previous = 0;
  for (int i = 1; i < static_cast<int>(s.tokens.size()); ++i) previous += tagged.weights[2](i, i - 1);
  EXPECT_GT(previous / (s.tokens.size() - 1), 0.3f) << "far above uniform (1/10)";
  // τ sharpens the drawn maps, not the tags or roles.
  state.temperature = 0.5f;
  HeadsModel sharp;
  ASSERT_TRUE(ComputeHeads(s, state, &Loaded().heads, "", &sharp).ok());
  EXPECT_GT(sharp.result.heads[2].weights.maxCoeff(), m.result.heads[2].weights.maxCoeff());
  EXPECT_EQ(sharp.roles, m.roles);
}

TEST(TrainedViews, QkvShowsOneTrainedHeadExactly) {
  const Sentence s = Glove("She read the letter twice");
  QkvState state;
  state.trained_head = 2;
  QkvModel m;
  ASSERT_TRUE(ComputeQkv(s, state, &Loaded().heads, "", &m).ok());
  ASSERT_TRUE(m.trained) << m.untrained_reason;
  EXPECT_EQ(m.result.heads[0].q.cols(), 16);
  TaggedSentence tagged;
  ASSERT_TRUE(TagSentence(Loaded().heads, s.x, &tagged).ok());
  // One head alone, sliced out of the layer: the same weights as inside the four-head layer.
  const attn::AttentionResult layer = TaggersLayer(s.x);
  EXPECT_TRUE(layer.heads[2].weights == tagged.weights[2]);
  ExpectSameHeadWithinRounding(m.result.heads[0], layer.heads[2], s.x, 2, 1.0f);
  EXPECT_EQ(m.role.rfind("head 3", 0), 0u) << m.role;
  state.trained_head = 99;  // clamped to the last head
  ASSERT_TRUE(ComputeQkv(s, state, &Loaded().heads, "", &m).ok());
  EXPECT_EQ(m.trained_head, 3);
}

TEST(TrainedViews, WithoutTheAssetOrGloveTheViewsSayWhyAndShowSeededHeads) {
  const Sentence glove = Glove("The cat sat");
  HeadsModel m;
  ASSERT_TRUE(ComputeHeads(glove, HeadsState(), nullptr, "", &m).ok());
  EXPECT_FALSE(m.trained);
  EXPECT_NE(m.untrained_reason.find("loading"), std::string::npos);
  ASSERT_TRUE(ComputeHeads(glove, HeadsState(), nullptr, "HTTP 404", &m).ok());
  EXPECT_NE(m.untrained_reason.find("HTTP 404"), std::string::npos);
  SentenceState hashed_state;
  hashed_state.text = "The cat sat";
  hashed_state.vectors = VectorSource::kHash;
  Sentence hashed;
  ASSERT_TRUE(ComputeSentence(hashed_state, nullptr, &hashed).ok());
  QkvModel q;
  ASSERT_TRUE(ComputeQkv(hashed, QkvState(), &Loaded().heads, "", &q).ok());
  EXPECT_FALSE(q.trained);
  EXPECT_NE(q.untrained_reason.find("GloVe"), std::string::npos);
  HeadsState off;
  off.trained = false;
  ASSERT_TRUE(ComputeHeads(glove, off, &Loaded().heads, "", &m).ok());
  EXPECT_FALSE(m.trained);
  EXPECT_EQ(m.untrained_reason, "") << "seeded by choice: nothing to explain";
}

}  // namespace
}  // namespace lessons
