// View 10 (lessons/views/retrieval.h): what the store retrieves from the GloVe tables at the view's
// defaults, how a query outside the table blends, the cross-attention of the example pair against
// float64, and the view's state through the state string.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "asset.h"
#include "lessons/view_state.h"
#include "lessons/views/retrieval.h"

namespace lessons {
namespace {

class RetrievalView : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string bytes = testing::ReadAsset("word-vectors.bin");
    status_ = WordVectors::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &vectors_);
    if (status_.ok()) index_ = VocabularyIndex(vectors_);
  }
  void SetUp() override { ASSERT_TRUE(status_.ok()) << status_.ToString(); }
  static StoreModel Store(const RetrievalState& s) {
    StoreModel m;
    const Status st = ComputeStore(vectors_, index_, s, &m);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return m;
  }
  static StoreAccuracy Accuracy(const RetrievalState& s) {
    StoreAccuracy a;
    const Status st = ComputeStoreAccuracy(vectors_, index_, s, &a);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return a;
  }
  static Status status_;
  static WordVectors vectors_;
  static VocabularyIndex index_;
};
Status RetrievalView::status_;
WordVectors RetrievalView::vectors_;
VocabularyIndex RetrievalView::index_;

TEST_F(RetrievalView, AtTheDefaultsSoftRetrievalFindsTheRightValue) {
  RetrievalState s;  // capitals, scaled dot product, τ = 0.5, query "france"
  const StoreModel m = Store(s);
  EXPECT_EQ(m.query_key, 0);
  EXPECT_EQ(m.store.keys[static_cast<size_t>(m.retrieval.hard)], "france");
  ASSERT_FALSE(m.nearest_soft.empty());
  EXPECT_EQ(index_.word(static_cast<size_t>(m.nearest_soft[0].index)), "paris");
  EXPECT_EQ(index_.word(static_cast<size_t>(m.nearest_hard[0].index)), "paris");
  EXPECT_GT(m.top_weight, 0.5f);  // soft: most of the weight, not all of it
  EXPECT_LT(m.top_weight, 0.95f);
  // The numbers the state's comment and the report quote.
  const StoreAccuracy a = Accuracy(s);
  EXPECT_EQ(a.size, 24);
  EXPECT_EQ(a.soft_right, 24);
  EXPECT_EQ(a.hard_right, 24);
  s.table = 1;
  s.query = "cat";
  const StoreAccuracy p = Accuracy(s);
  EXPECT_EQ(p.size, 20);
  EXPECT_EQ(p.soft_right, 19);
  EXPECT_EQ(p.hard_right, 20);
  EXPECT_EQ(p.nearest_soft[0], "dogs");  // cat's weight spreads to dog: the one miss
}

TEST_F(RetrievalView, EachScoreNeedsItsOwnTemperatureToRetrieve) {
  RetrievalState s;
  s.score = 3;  // cosine: scores in [−1, 1], so τ = 0.5 still blends every capital
  EXPECT_LT(Accuracy(s).soft_right, 12);
  s.temperature = 0.1f;
  EXPECT_EQ(Accuracy(s).soft_right, 24);
  s.score = 0;  // the plain dot product of 100-d GloVe vectors (|x| ≈ 6) is sharp already at τ = 1
  s.temperature = 1.0f;
  EXPECT_EQ(Accuracy(s).soft_right, 24);
  // At the τ the panel sets when a score is picked (5 dot, 0.5 scaled dot, 0.1 cosine): mostly right.
  const int dot_scaled_cosine[] = {0, 1, 3};
  const float suggested[] = {5.0f, 0.5f, 0.1f};
  const int capitals[] = {24, 24, 24}, plurals[] = {19, 19, 20};
  for (int k = 0; k < 3; ++k) {
    s.score = dot_scaled_cosine[k];
    s.temperature = suggested[k];
    s.table = 0;
    EXPECT_EQ(Accuracy(s).soft_right, capitals[k]) << k;
    s.table = 1;
    EXPECT_EQ(Accuracy(s).soft_right, plurals[k]) << k;
  }
}

TEST_F(RetrievalView, AQueryOutsideTheTableBlendsAndTheTemperatureMakesItHard) {
  RetrievalState s;
  s.query = " Italy ";
  const StoreModel soft = Store(s);
  EXPECT_EQ(soft.query, "italy");
  EXPECT_EQ(soft.query_key, -1);
  EXPECT_LT(soft.top_weight, 0.3f);  // no key matches: the weight is spread
  EXPECT_GT(soft.d_query_norm, 0.0f);
  s.temperature = RetrievalState::kTemperature.min;
  const StoreModel hard = Store(s);
  EXPECT_GT(hard.top_weight, 0.999f);
  EXPECT_EQ(hard.retrieval.hard, soft.retrieval.hard);  // argmax does not depend on τ
  EXPECT_LT(hard.d_query_norm, 1e-3f * soft.d_query_norm);
  for (int a = 0; a < hard.retrieval.soft.cols(); ++a)
    EXPECT_NEAR(hard.retrieval.soft(0, a), hard.retrieval.hard_value(0, a), 1e-3f);
}

TEST_F(RetrievalView, UnusableQueriesAreNamed) {
  RetrievalState s;
  StoreModel m;
  s.query = "  ";
  EXPECT_EQ(ComputeStore(vectors_, index_, s, &m).code(), StatusCode::kEmptyInput);
  s.query = "kitten";
  const Status st = ComputeStore(vectors_, index_, s, &m);
  EXPECT_EQ(st.code(), StatusCode::kUnknownOption);
  EXPECT_NE(st.message().find("\"kitten\""), std::string::npos) << st.message();
  s.query = "paris";
  s.table = 99;  // clamped, as a link's would be
  EXPECT_TRUE(ComputeStore(vectors_, index_, s, &m).ok());
}

TEST_F(RetrievalView, TheUntrainedAdditiveScoreIsSaidToBeSeeded) {
  RetrievalState s;
  s.score = 2;
  const StoreModel m = Store(s);
  EXPECT_EQ(m.config.score, attn::ScoreFunction::kAdditive);
  EXPECT_EQ(m.config.seed, 1u);
  // Seeded W_q, W_k, w know nothing of capitals: far from every key finding its own value.
  EXPECT_LT(Accuracy(s).hard_right, 12);
}

TEST_F(RetrievalView, CrossAttentionAlignsTheExamplePairAsFloat64Does) {
  SentenceState a_state;
  a_state.text = "the cat sat on the mat";
  Sentence a;
  ASSERT_TRUE(ComputeSentence(a_state, &vectors_, &a).ok());
  RetrievalState s;  // B: "my dog was sitting on the carpet"
  CrossModel m;
  ASSERT_TRUE(ComputeCross(a, a_state, &vectors_, s, &m).ok());
  const Matrix& w = m.result.heads[0].weights;
  ASSERT_EQ(w.rows(), 6);
  ASSERT_EQ(w.cols(), 7);
  // "mat" weighs "sitting" (0.18) a little over "carpet" (0.17): without training, words that occur
  // together in text are as close as words that mean the same.
  const std::vector<std::string> expected = {"the", "dog", "sitting", "on", "the", "sitting"};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(m.keys.tokens[static_cast<size_t>(m.best_key[static_cast<size_t>(i)])], expected[static_cast<size_t>(i)]) << i;
  // softmax(X_A X_Bᵀ/√d) X_B in float64 from the same vectors.
  const MatrixD xa = a.x.cast<double>(), xb = m.b.x.cast<double>();
  const MatrixD s64 = xa * xb.transpose() / std::sqrt(100.0);
  const double eps = std::numeric_limits<float>::epsilon();
  for (int i = 0; i < 6; ++i) {
    const double top = s64.row(i).maxCoeff();
    const Eigen::ArrayXd e = (s64.row(i).array() - top).exp().transpose();
    const Eigen::ArrayXd ref = e / e.sum();
    // Scores: 100-term dot products of |x| ≈ 6 vectors, off by ≤ 108·eps·Σ|x_a||x_b|/10 ≈ 108·eps·4;
    // weights by ≤ twice that.
    for (int j = 0; j < 7; ++j) EXPECT_NEAR(w(i, j), ref(j), 2 * 108 * eps * 6.0) << i << "," << j;
    const MatrixD y = ref.matrix().transpose() * xb;
    for (int c = 0; c < 100; ++c) EXPECT_NEAR(m.result.output(i, c), y(0, c), 7 * 2 * 108 * eps * 6.0 * 4.0) << i << "," << c;
  }
  s.swap = true;
  ASSERT_TRUE(ComputeCross(a, a_state, &vectors_, s, &m).ok());
  EXPECT_EQ(m.result.heads[0].weights.rows(), 7);
  EXPECT_EQ(m.result.heads[0].weights.cols(), 6);
  EXPECT_EQ(m.queries.tokens[1], "dog");
  EXPECT_EQ(m.keys.tokens[1], "cat");
  EXPECT_EQ(m.keys.tokens[static_cast<size_t>(m.best_key[1])], "cat");  // dog → cat both ways
  s.sentence_b = "   ";
  const Status empty = ComputeCross(a, a_state, &vectors_, s, &m);
  EXPECT_EQ(empty.code(), StatusCode::kEmptyInput);
  EXPECT_EQ(empty.message().rfind("Sentence B: ", 0), 0u) << empty.message();
}

TEST(RetrievalState, RoundTripsThroughTheStateString) {
  ViewState s;
  s.view = ViewId::kRetrieval;
  s.retrieval.table = 1;
  s.retrieval.query = "goose";
  s.retrieval.score = 3;
  s.retrieval.temperature = 0.125f;
  s.retrieval.sentence_b = "a kitten & a rug: 100% #cosy, naïve";
  s.retrieval.swap = true;
  s.retrieval.cross_temperature = 0.25f;
  const std::string text = SerializeState(s);
  EXPECT_NE(text.find("rt.tb=plurals"), std::string::npos) << text;
  EXPECT_NE(text.find("rt.sc=cosine"), std::string::npos) << text;
  ViewState back;
  ASSERT_TRUE(ParseState(text, &back).ok()) << text;
  EXPECT_EQ(SerializeState(back), text);
  EXPECT_EQ(back.retrieval.sentence_b, s.retrieval.sentence_b);
  EXPECT_EQ(back.retrieval.query, "goose");
  EXPECT_TRUE(back.retrieval.swap);
  EXPECT_FLOAT_EQ(back.retrieval.temperature, 0.125f);
  ViewState bad;
  const Status st = ParseState("rt.t=100&rt.b=" + std::string(600, 'x') + "&rt.sc=bilinear", &bad);
  EXPECT_FALSE(st.ok());
  EXPECT_FLOAT_EQ(bad.retrieval.temperature, RetrievalState::kTemperature.max);
  EXPECT_EQ(bad.retrieval.sentence_b, RetrievalState{}.sentence_b);
  EXPECT_EQ(bad.retrieval.score, 1);
}

}  // namespace
}  // namespace lessons
