// The retrieval helpers (lessons/retrieval.h): Retrieve against a float64 computation written out here,
// SoftRetrievalGradients against the float64 chain rule and central finite differences, the
// vocabulary's nearest words against brute force, the tables against the asset, and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "asset.h"
#include "lessons/retrieval.h"
#include "attn/text.h"

namespace lessons {
namespace {

constexpr double kEps = std::numeric_limits<float>::epsilon();

// What the store computes for one query, in float64 from the same float inputs: the scores s_j, the
// weights w = softmax(s/τ), r = Σ w_j v_j, and g_j = ∂s_j/∂q.
struct Reference {
  std::vector<double> s, w, r;
  std::vector<std::vector<double>> g;  // m × d_k
  double s_abs_max = 0;
};

Reference ReferenceRetrieval(const attn::AttentionConfig& c, const MatrixD& q, const MatrixD& k, const MatrixD& v,
                             const attn::AttentionParameters& p) {
  const int m = static_cast<int>(k.rows()), d = static_cast<int>(k.cols());
  Reference out;
  out.s.resize(m);
  out.g.assign(m, std::vector<double>(d, 0.0));
  for (int j = 0; j < m; ++j) {
    double dot = 0;
    for (int t = 0; t < d; ++t) dot += q(0, t) * k(j, t);
    switch (c.score) {
      case attn::ScoreFunction::kDot:
      case attn::ScoreFunction::kScaledDot: {
        const double scale = c.score == attn::ScoreFunction::kDot ? 1.0 : 1.0 / std::sqrt(static_cast<double>(d));
        out.s[j] = scale * dot;
        for (int t = 0; t < d; ++t) out.g[j][t] = scale * k(j, t);
        break;
      }
      case attn::ScoreFunction::kCosine: {
        const double nq = q.norm(), nk = k.row(j).norm();
        out.s[j] = dot / (nq * nk);
        for (int t = 0; t < d; ++t) out.g[j][t] = k(j, t) / (nq * nk) - out.s[j] * q(0, t) / (nq * nq);
        break;
      }
      case attn::ScoreFunction::kAdditive: {  // wᵀ tanh(q W_q + k W_k)
        const MatrixD wq = p.additive_wq[0].cast<double>(), wk = p.additive_wk[0].cast<double>(), w = p.additive_v[0].cast<double>();
        const MatrixD h = (q * wq + k.row(j) * wk).array().tanh().matrix();
        out.s[j] = (h.array() * w.array()).sum();
        const MatrixD inner = (w.array() * (1.0 - h.array().square())).matrix();  // (1, d_a)
        const MatrixD gj = wq * inner.transpose();                                  // (d_k, 1)
        for (int t = 0; t < d; ++t) out.g[j][t] = gj(t, 0);
        break;
      }
      default:
        ADD_FAILURE() << "score not covered";
    }
    out.s_abs_max = std::max(out.s_abs_max, std::abs(out.s[j]));
  }
  double top = -1e300;
  for (double x : out.s) top = std::max(top, x / c.temperature);
  double z = 0;
  out.w.resize(m);
  for (int j = 0; j < m; ++j) z += out.w[j] = std::exp(out.s[j] / c.temperature - top);
  for (double& x : out.w) x /= z;
  out.r.assign(v.cols(), 0.0);
  for (int j = 0; j < m; ++j)
    for (int a = 0; a < v.cols(); ++a) out.r[a] += out.w[j] * v(j, a);
  return out;
}

KeyValueStore SeededStore(int m, int d, const char* salt) {
  KeyValueStore s;
  s.k.resize(m, d);
  s.v.resize(m, d);
  for (int j = 0; j < m; ++j) {
    s.keys.push_back(std::string(salt) + "k" + std::to_string(j));
    s.values.push_back(std::string(salt) + "v" + std::to_string(j));
    s.k.row(j) = attn::HashEmbedding(s.keys.back(), d);
    s.v.row(j) = attn::HashEmbedding(s.values.back(), d);
  }
  return s;
}

attn::AttentionConfig Config(attn::ScoreFunction score, float temperature) {
  attn::AttentionConfig c;
  c.score = score;
  c.temperature = temperature;
  c.kernel = attn::FastestKernel();
  c.seed = 7;
  return c;
}

const attn::ScoreFunction kScores[] = {attn::ScoreFunction::kDot, attn::ScoreFunction::kScaledDot,
                                       attn::ScoreFunction::kAdditive, attn::ScoreFunction::kCosine};

TEST(RetrievalHelpers, RetrieveMatchesFloat64ForEveryScoreAndTemperature) {
  const int m = 9, d = 16;
  const KeyValueStore store = SeededStore(m, d, "a");
  // The query: a key plus a little of another, so every weight is neither 0 nor 1 at τ = 4.
  const Matrix query = store.k.row(3) + 0.3f * store.k.row(5);
  for (attn::ScoreFunction score : kScores)
    for (float tau : {0.05f, 1.0f, 4.0f}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(score)) + " τ=" + std::to_string(tau));
      const attn::AttentionConfig c = Config(score, tau);
      Retrieval r;
      ASSERT_TRUE(Retrieve(c, query, store, &r).ok());
      const Reference ref = ReferenceRetrieval(c, query.cast<double>(), store.k.cast<double>(), store.v.cast<double>(),
                                               r.forward.parameters);
      // Float error bounds: a d-term dot product (or the additive's d_a-wide sum of tanh) is off by at
      // most γ_d Σ|terms| ≤ (d+2)·eps·Σ|q||k| (plus norms for cosine); softmax carries a score error Δ
      // into weights off by at most 2Δ/τ (plus its own few eps); r adds m·eps·Σ w|v|.
      double sum_abs = 0;
      for (int j = 0; j < m; ++j) sum_abs = std::max(sum_abs, static_cast<double>((query.cwiseAbs().array() * store.k.row(j).cwiseAbs().array()).sum()));
      if (score == attn::ScoreFunction::kScaledDot) sum_abs /= std::sqrt(static_cast<double>(d));
      if (score == attn::ScoreFunction::kCosine || score == attn::ScoreFunction::kAdditive) sum_abs = 4.0 + ref.s_abs_max;
      const double score_tol = (d + 8) * kEps * (sum_abs + ref.s_abs_max);
      const double weight_tol = 2.0 * score_tol / tau + 8 * kEps;
      const double v_max = store.v.cwiseAbs().maxCoeff();
      const double r_tol = m * weight_tol * v_max + (m + 2) * kEps * v_max;
      const attn::HeadIntermediates& h = r.forward.heads[0];
      for (int j = 0; j < m; ++j) {
        EXPECT_NEAR(h.scores(0, j), ref.s[j], score_tol) << j;
        EXPECT_NEAR(h.weights(0, j), ref.w[j], weight_tol) << j;
      }
      for (int a = 0; a < d; ++a) EXPECT_NEAR(r.soft(0, a), ref.r[a], r_tol) << a;
      int best = 0;
      for (int j = 1; j < m; ++j)
        if (ref.s[j] > ref.s[best]) best = j;
      EXPECT_EQ(r.hard, best);
      EXPECT_EQ(r.hard_value, store.v.row(best));
    }
}

TEST(RetrievalHelpers, GradientsMatchTheFloat64ChainRuleAndFiniteDifferences) {
  const int m = 7, d = 12;
  const KeyValueStore store = SeededStore(m, d, "g");
  const Matrix query = 0.6f * store.k.row(2) + 0.4f * store.k.row(4);
  for (attn::ScoreFunction score : kScores)
    for (float tau : {0.3f, 1.0f, 3.0f}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(score)) + " τ=" + std::to_string(tau));
      attn::AttentionConfig c = Config(score, tau);
      Retrieval r;
      ASSERT_TRUE(Retrieve(c, query, store, &r).ok());
      RetrievalGradients g;
      ASSERT_TRUE(SoftRetrievalGradients(c, query, store, r, &g).ok());
      ASSERT_EQ(g.d_query.rows(), d);
      ASSERT_EQ(g.d_query.cols(), d);
      const MatrixD qd = query.cast<double>(), kd = store.k.cast<double>(), vd = store.v.cast<double>();
      const Reference ref = ReferenceRetrieval(c, qd, kd, vd, r.forward.parameters);
      // The chain rule in float64: ∂r_a/∂(s_j/τ) = w_j (v_ja − r_a), so
      //   ∂r_a/∂q_b = (1/τ) Σ_j w_j (v_ja − r_a) g_jb    and    ∂r_a/∂τ = −(1/τ²) Σ_j w_j (v_ja − r_a) s_j.
      for (int a = 0; a < d; ++a) {
        double dtau = 0, dtau_abs = 0;
        for (int j = 0; j < m; ++j) {
          dtau += -ref.w[j] * (vd(j, a) - ref.r[a]) * ref.s[j] / (tau * tau);
          dtau_abs += ref.w[j] * std::abs(vd(j, a) - ref.r[a]) * (std::abs(ref.s[j]) + ref.s_abs_max) / (tau * tau);
        }
        // Central differences of the float64 retrieval in τ (step h: truncation h²·|r'''| and
        // rounding 1e-16/h are both far below the float tolerance).
        const double hstep = 1e-5 * tau;
        attn::AttentionConfig cp = c, cm = c;
        cp.temperature = static_cast<float>(tau + hstep);
        cm.temperature = static_cast<float>(tau - hstep);
        const double fd_tau = (ReferenceRetrieval(cp, qd, kd, vd, r.forward.parameters).r[a] -
                               ReferenceRetrieval(cm, qd, kd, vd, r.forward.parameters).r[a]) /
                              (static_cast<double>(cp.temperature) - cm.temperature);
        EXPECT_NEAR(dtau, fd_tau, 1e-6 * (1.0 + std::abs(dtau)));  // the float64 formula is the derivative
        // The engine's float gradient: each term carries the relative error of its weight (the scores'
        // error over τ, m exponentials) and of its d-long dot products.
        const double rel = (d + m + 8) * kEps * (1.0 + 2.0 * ref.s_abs_max / tau);
        EXPECT_NEAR(g.d_temperature(0, a), dtau, 4 * rel * dtau_abs + 16 * kEps) << a;
        for (int b = 0; b < d; ++b) {
          double dq = 0, dq_abs = 0;
          for (int j = 0; j < m; ++j) {
            dq += ref.w[j] * (vd(j, a) - ref.r[a]) * ref.g[j][b] / tau;
            dq_abs += ref.w[j] * std::abs(vd(j, a) - ref.r[a]) * std::abs(ref.g[j][b]) / tau;
          }
          MatrixD qp = qd, qm = qd;
          const double hq = 1e-6;
          qp(0, b) += hq;
          qm(0, b) -= hq;
          const double fd = (ReferenceRetrieval(c, qp, kd, vd, r.forward.parameters).r[a] -
                             ReferenceRetrieval(c, qm, kd, vd, r.forward.parameters).r[a]) / (2 * hq);
          EXPECT_NEAR(dq, fd, 1e-6 * (1.0 + std::abs(dq))) << a << "," << b;
          EXPECT_NEAR(g.d_query(a, b), dq, 4 * rel * (dq_abs + ref.s_abs_max * dq_abs) + 16 * kEps) << a << "," << b;
        }
      }
    }
}

TEST(RetrievalHelpers, SoftRetrievalLosesItsGradientAsItBecomesHard) {
  const KeyValueStore store = SeededStore(6, 10, "h");
  const Matrix query = store.k.row(1);
  std::vector<float> norms;
  for (float tau : {1.0f, 0.1f, 0.03f, 0.01f}) {
    const attn::AttentionConfig c = Config(attn::ScoreFunction::kScaledDot, tau);
    Retrieval r;
    RetrievalGradients g;
    ASSERT_TRUE(Retrieve(c, query, store, &r).ok());
    ASSERT_TRUE(SoftRetrievalGradients(c, query, store, r, &g).ok());
    norms.push_back(g.d_query.norm());
  }
  // Past the softest setting, sharper weights mean a flatter answer: ‖∂r/∂q‖ falls with τ ...
  EXPECT_GT(norms[0], norms[1]);
  EXPECT_GT(norms[1], norms[2]);
  EXPECT_GT(norms[2], norms[3]);
  EXPECT_LT(norms[3], 1e-6f);  // ... and at τ = 0.01 the soft answer is the hard one: it no longer moves
}

TEST(RetrievalHelpers, BadShapesAndOptionsGiveStatuses) {
  const KeyValueStore store = SeededStore(4, 8, "e");
  Retrieval r;
  EXPECT_EQ(Retrieve(Config(attn::ScoreFunction::kDot, 1), Matrix::Ones(1, 7), store, &r).code(), StatusCode::kShapeMismatch);
  EXPECT_EQ(Retrieve(Config(attn::ScoreFunction::kDot, 1), Matrix::Ones(2, 8), store, &r).code(), StatusCode::kShapeMismatch);
  EXPECT_EQ(Retrieve(Config(attn::ScoreFunction::kDot, 0), Matrix::Ones(1, 8), store, &r).code(), StatusCode::kOutOfRange);
  KeyValueStore odd = store;
  odd.v.conservativeResize(3, 8);
  const Status s = Retrieve(Config(attn::ScoreFunction::kDot, 1), Matrix::Ones(1, 8), odd, &r);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("4 keys and 3 values"), std::string::npos) << s.message();
  Matrix nan = Matrix::Ones(1, 8);
  nan(0, 2) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Retrieve(Config(attn::ScoreFunction::kDot, 1), nan, store, &r).code(), StatusCode::kNonFinite);
  VocabularyIndex empty;
  std::vector<std::vector<VocabularyIndex::Neighbour>> near;
  EXPECT_EQ(empty.Nearest(Matrix::Ones(1, 8), 3, &near).code(), StatusCode::kEmptyInput);
}

class GloveStore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string bytes = testing::ReadAsset("word-vectors.bin");
    status_ = WordVectors::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &vectors_);
    if (status_.ok()) index_ = VocabularyIndex(vectors_);
  }
  static Status status_;
  static WordVectors vectors_;
  static VocabularyIndex index_;
};
Status GloveStore::status_;
WordVectors GloveStore::vectors_;
VocabularyIndex GloveStore::index_;

TEST_F(GloveStore, EveryTableIsMadeOfGloveWordsWithDistinctKeys) {
  ASSERT_TRUE(status_.ok()) << status_.ToString();
  for (const KeyValueTable& t : KeyValueTables()) {
    KeyValueStore s;
    ASSERT_TRUE(BuildKeyValueStore(vectors_, t, &s).ok()) << t.name;
    EXPECT_GE(s.keys.size(), 20u) << t.name;
    EXPECT_EQ(s.k.rows(), static_cast<Eigen::Index>(s.keys.size()));
    for (size_t i = 0; i < s.keys.size(); ++i)
      for (size_t j = i + 1; j < s.keys.size(); ++j) EXPECT_NE(s.keys[i], s.keys[j]) << t.name;
    for (int o = 0; o < t.outside_count; ++o) {
      EXPECT_GE(vectors_.Find(t.outside_queries[o]), 0) << t.outside_queries[o];
      EXPECT_EQ(std::count(s.keys.begin(), s.keys.end(), t.outside_queries[o]), 0) << t.outside_queries[o];
    }
  }
  static const char* const kBad[] = {"france", "paris", "kitten", "cat"};
  KeyValueStore s;
  const Status bad = BuildKeyValueStore(vectors_, KeyValueTable{"bad", kBad, 2, nullptr, 0}, &s);
  EXPECT_EQ(bad.code(), StatusCode::kUnknownOption);
  EXPECT_NE(bad.message().find("\"kitten\""), std::string::npos) << bad.message();
}

TEST_F(GloveStore, NearestWordsAreTheBruteForceCosineNeighbours) {
  ASSERT_TRUE(status_.ok()) << status_.ToString();
  Matrix probes(3, vectors_.dim());
  probes.row(0) = vectors_.Vector(vectors_.Find("paris"));
  probes.row(1) = 0.5f * (vectors_.Vector(vectors_.Find("madrid")) + vectors_.Vector(vectors_.Find("rome")));
  probes.row(2).setZero();
  std::vector<std::vector<VocabularyIndex::Neighbour>> near;
  ASSERT_TRUE(index_.Nearest(probes, 3, &near).ok());
  EXPECT_EQ(index_.word(near[0][0].index), "paris");
  EXPECT_NEAR(near[0][0].cosine, 1.0f, 4e-6f);  // a 100-long float dot product of unit vectors
  EXPECT_TRUE(near[2].empty());                 // a zero vector has no direction
  for (int p = 0; p < 2; ++p) {  // brute force in float64 over every word
    std::vector<std::pair<double, int>> all;
    const MatrixD x = probes.row(p).cast<double>();
    for (size_t i = 0; i < vectors_.size(); ++i) {
      const MatrixD w = vectors_.Vector(i).cast<double>();
      all.push_back({-(w.row(0).dot(x.row(0))) / (w.norm() * x.norm()), static_cast<int>(i)});
    }
    std::sort(all.begin(), all.end());
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(near[p][k].index, all[k].second) << p << " " << k;
      EXPECT_NEAR(near[p][k].cosine, -all[k].first, 4e-6);
    }
  }
  EXPECT_EQ(index_.Nearest(Matrix::Ones(1, 5), 3, &near).code(), StatusCode::kShapeMismatch);
}

}  // namespace
}  // namespace lessons
