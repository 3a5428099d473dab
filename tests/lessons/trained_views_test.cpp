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
  for (size_t h = 0; h < tagged.weights.size(); ++h)
    EXPECT_TRUE(m.result.heads[h].weights == tagged.weights[h]) << "head " << h + 1 << ": the drawn map is the tagger's";
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
  EXPECT_LT((m.result.heads[0].weights - tagged.weights[2]).cwiseAbs().maxCoeff(), 1e-6f);
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
