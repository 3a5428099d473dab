// The QK and OV circuits and the composition scores (attn/train/circuits.h) against a float64
// recomputation written out with plain loops from the definitions, on a seeded model whose
// LayerNorm scales and biases are not the initial 1 and 0; a hand-built copier and a hand-built
// non-copier; the composition scores against the (d, d) products formed whole.
#include "attn/train/circuits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attn/positions.h"
#include "attn/seeded_random.h"

namespace attn::train {
namespace {

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

ModelConfig TwoLayers(Positions positions) {
  ModelConfig c;
  c.vocab = 7;
  c.classes = 5;
  c.seq_len = 6;
  c.d_model = 8;
  c.layers = 2;
  c.heads = 2;
  c.positions = positions;
  c.seed = 11;
  return c;
}

// InitializeModel's LayerNorm γ = 1, β = 0 and zero biases would hide a missing term: seeded values instead.
ModelParameters Perturbed(const ModelConfig& c) {
  ModelParameters p = InitializeModel(c);
  SeededRandom rng(5, 1);
  const auto perturb = [&](Matrix& m, float around) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = around + rng.Symmetric(0.25f);
  };
  for (BlockParametersT<float>& b : p.blocks) {
    perturb(b.ln1_gamma, 1.0f), perturb(b.ln1_beta, 0.0f);
    perturb(b.attention.bq, 0.0f), perturb(b.attention.bk, 0.0f), perturb(b.attention.bv, 0.0f);
  }
  perturb(p.lnf_gamma, 1.0f);
  return p;
}

// a_l(x) written out: (x − mean) / √(var + 1e-5) · γ + β, row by row.
std::vector<double> LayerNormRow(const MatD& x, int r, const Matrix& gamma, const Matrix& beta) {
  const int d = static_cast<int>(x.cols());
  double mean = 0, var = 0;
  for (int i = 0; i < d; ++i) mean += x(r, i);
  mean /= d;
  for (int i = 0; i < d; ++i) var += (x(r, i) - mean) * (x(r, i) - mean);
  var /= d;
  std::vector<double> y(d);
  for (int i = 0; i < d; ++i) y[i] = (x(r, i) - mean) / std::sqrt(var + 1e-5) * gamma(0, i) + beta(0, i);
  return y;
}

// Row `r` of x (d) through head h's W·,h (d, d_k) plus its bias.
std::vector<double> Project(const std::vector<double>& a, const Matrix& w, const Matrix& b, int h, int dk) {
  std::vector<double> out(dk);
  for (int j = 0; j < dk; ++j) {
    double sum = b(0, h * dk + j);
    for (size_t i = 0; i < a.size(); ++i) sum += a[i] * w(static_cast<Eigen::Index>(i), h * dk + j);
    out[j] = sum;
  }
  return out;
}

// |got − want| ≤ 2⁻²⁴·|want| (the float the circuits are returned in) + what double loops in another
// order can differ by (far below it).
void ExpectFloatOf(double got, double want, const char* what) {
  EXPECT_LE(std::fabs(got - want), 0x1p-24 * std::fabs(want) + 1e-12) << what << ": " << got << " vs " << want;
}

void CheckAgainstLoops(const ModelConfig& c, const ModelParameters& p) {
  const std::vector<int> classes = {0, 1, 2, 3, 4, -1, 2};
  Circuits circuits;
  ASSERT_TRUE(ComputeCircuits(c, p, classes, &circuits).ok());
  const int dk = HeadDim(c), d = c.d_model;
  ASSERT_EQ(circuits.heads.size(), static_cast<size_t>(c.layers * c.heads));
  MatD table;
  if (c.positions == Positions::kLearned) table = p.wpe.cast<double>();
  if (c.positions == Positions::kSinusoidal) table = SinusoidalEncoding<double>(c.seq_len, d, 0, 10000.0);
  const MatD e = p.wte.cast<double>();
  for (const HeadCircuits& head : circuits.heads) {
    const int l = head.layer - 1, h = head.head - 1;
    const BlockParametersT<float>& b = p.blocks[l];
    const AttentionParameters& a = b.attention;
    // Rows t, s of `x` through LN1, W_Q,h and W_K,h: their scaled dot product, for every pair.
    const auto expect_qk = [&](const MatD& x, const Matrix& got, const char* what) {
      ASSERT_EQ(got.rows(), x.rows());
      ASSERT_EQ(got.cols(), x.rows());
      for (int t = 0; t < x.rows(); ++t)
        for (int s = 0; s < x.rows(); ++s) {
          const std::vector<double> q = Project(LayerNormRow(x, t, b.ln1_gamma, b.ln1_beta), a.wq, a.bq, h, dk);
          const std::vector<double> k = Project(LayerNormRow(x, s, b.ln1_gamma, b.ln1_beta), a.wk, a.bk, h, dk);
          double dot = 0;
          for (int j = 0; j < dk; ++j) dot += q[j] * k[j];
          ExpectFloatOf(got(t, s), c.scaled ? dot / std::sqrt(static_cast<double>(dk)) : dot, what);
        }
    };
    expect_qk(e, head.qk, "qk");
    if (table.size()) expect_qk(table, head.qk_positions, "qk_positions");
    else EXPECT_EQ(head.qk_positions.size(), 0);
    ASSERT_EQ(head.ov.rows(), c.vocab);
    ASSERT_EQ(head.ov.cols(), c.classes);
    int copiers = 0, candidates = 0;
    for (int s = 0; s < c.vocab; ++s) {
      const std::vector<double> v = Project(LayerNormRow(e, s, b.ln1_gamma, b.ln1_beta), a.wv, a.bv, h, dk);
      std::vector<double> written(d, 0.0);
      for (int m = 0; m < d; ++m)
        for (int j = 0; j < dk; ++j) written[m] += v[j] * a.wo(h * dk + j, m);
      int best = 0;
      std::vector<double> row(c.classes, 0.0);
      for (int cls = 0; cls < c.classes; ++cls) {
        for (int m = 0; m < d; ++m) row[cls] += written[m] * p.lnf_gamma(0, m) * p.out_w(m, cls);
        ExpectFloatOf(head.ov(s, cls), row[cls], "ov");
        if (row[cls] > row[best]) best = cls;
      }
      if (classes[s] >= 0) ++candidates, copiers += best == classes[s];
    }
    EXPECT_DOUBLE_EQ(head.copying, static_cast<double>(copiers) / candidates);
  }
  // Composition: the (d, d) matrices formed whole, their Frobenius norms summed out.
  const auto slice = [&](const Matrix& w, int h, bool rows) {
    return rows ? MatD(w.block(h * dk, 0, dk, d).cast<double>()) : MatD(w.block(0, h * dk, d, dk).cast<double>());
  };
  const auto fro = [](const MatD& m) {
    double sum = 0;
    for (Eigen::Index i = 0; i < m.size(); ++i) sum += m.data()[i] * m.data()[i];
    return std::sqrt(sum);
  };
  ASSERT_EQ(circuits.compositions.size(), static_cast<size_t>(c.heads * c.heads));  // 2 layers: one pair of layers
  for (const HeadComposition& comp : circuits.compositions) {
    const AttentionParameters& a = p.blocks[comp.from_layer - 1].attention;
    const BlockParametersT<float>& later = p.blocks[comp.to_layer - 1];
    const MatD gamma = later.ln1_gamma.row(0).transpose().cast<double>().asDiagonal();
    const MatD ov = slice(a.wv, comp.from_head - 1, false) * slice(a.wo, comp.from_head - 1, true);
    const MatD qk = gamma * slice(later.attention.wq, comp.to_head - 1, false) *
                    (gamma * slice(later.attention.wk, comp.to_head - 1, false)).transpose();
    const MatD ov_later = gamma * slice(later.attention.wv, comp.to_head - 1, false) * slice(later.attention.wo, comp.to_head - 1, true);
    EXPECT_NEAR(comp.q, fro(ov * qk) / (fro(ov) * fro(qk)), 1e-12);
    EXPECT_NEAR(comp.k, fro(qk * ov.transpose()) / (fro(qk) * fro(ov)), 1e-12);
    EXPECT_NEAR(comp.v, fro(ov * ov_later) / (fro(ov) * fro(ov_later)), 1e-12);
    EXPECT_GT(comp.k, 0.0);
    EXPECT_LE(comp.k, 1.0);
  }
}

TEST(Circuits, EqualPlainFloat64LoopsWithLearnedPositions) { CheckAgainstLoops(TwoLayers(Positions::kLearned), Perturbed(TwoLayers(Positions::kLearned))); }
TEST(Circuits, EqualPlainFloat64LoopsWithSinusoidalPositions) {
  CheckAgainstLoops(TwoLayers(Positions::kSinusoidal), Perturbed(TwoLayers(Positions::kSinusoidal)));
}
TEST(Circuits, EqualPlainFloat64LoopsWithRotaryPositions) { CheckAgainstLoops(TwoLayers(Positions::kRope), Perturbed(TwoLayers(Positions::kRope))); }

// One head, no LayerNorm: wte, W_V, W_O and the read-out the identity make OV the identity (a
// copier); a permutation in W_O makes it write another token's class (copying 0). A layer-1 head
// that writes nothing composes with nothing.
TEST(Circuits, EqualPlainFloat64LoopsWithUnscaledScores) {  // the QK circuit is the score the model uses
  ModelConfig c = TwoLayers(Positions::kLearned);
  c.scaled = false;
  CheckAgainstLoops(c, Perturbed(c));
}
TEST(Circuits, AHandBuiltCopierScoresOneANonCopierZero) {
  ModelConfig c;
  c.vocab = c.classes = c.d_model = 4;
  c.seq_len = 4;
  c.layers = 2;
  c.heads = 1;
  c.layer_norm = false;
  c.positions = Positions::kNone;
  ModelParameters p = InitializeModel(c);
  p.wte = p.out_w = Matrix::Identity(4, 4);
  for (BlockParametersT<float>& b : p.blocks) {
    b.attention.wv = b.attention.wo = Matrix::Identity(4, 4);
    b.attention.bv.setZero();
  }
  const std::vector<int> same = {0, 1, 2, 3};
  Circuits circuits;
  ASSERT_TRUE(ComputeCircuits(c, p, same, &circuits).ok());
  EXPECT_EQ(circuits.heads[0].ov, Matrix(Matrix::Identity(4, 4)));
  EXPECT_EQ(circuits.heads[0].copying, 1.0);
  p.blocks[0].attention.wo.setZero();  // token s writes the direction of s + 1
  for (int s = 0; s < 4; ++s) p.blocks[0].attention.wo(s, (s + 1) % 4) = 1.0f;
  ASSERT_TRUE(ComputeCircuits(c, p, same, &circuits).ok());
  EXPECT_EQ(circuits.heads[0].copying, 0.0);
  EXPECT_EQ(circuits.heads[1].copying, 1.0);
  EXPECT_GT(circuits.compositions[0].v, 0.0);
  p.blocks[0].attention.wo.setZero();
  ASSERT_TRUE(ComputeCircuits(c, p, same, &circuits).ok());
  EXPECT_EQ(circuits.compositions[0].q, 0.0);
  EXPECT_EQ(circuits.compositions[0].k, 0.0);
  EXPECT_EQ(circuits.compositions[0].v, 0.0);
  const std::vector<int> none = {-1, -1, -1, -1};
  ASSERT_TRUE(ComputeCircuits(c, p, none, &circuits).ok());
  EXPECT_TRUE(std::isnan(circuits.heads[0].copying)) << "no token is a class";
}

TEST(Circuits, BadInputIsNamed) {
  const ModelConfig c = TwoLayers(Positions::kLearned);
  const ModelParameters p = InitializeModel(c);
  Circuits circuits;
  EXPECT_EQ(ComputeCircuits(c, p, {0, 1}, &circuits).message(), "circuits: class_of_token: expected 7 entries, got 2");
  EXPECT_EQ(ComputeCircuits(c, p, {0, 1, 2, 3, 4, 5, 0}, &circuits).message(),
            "circuits: class_of_token: expected entries in −1 … classes − 1, got 5");
  ModelConfig cnn = c;
  cnn.kind = ModelKind::kCnn;
  EXPECT_EQ(ComputeCircuits(cnn, InitializeModel(cnn), std::vector<int>(7, -1), &circuits).message(),
            "circuits: expected a transformer, got a cnn");
  ModelParameters short_wte = p;
  short_wte.wte.conservativeResize(3, Eigen::NoChange);
  EXPECT_EQ(ComputeCircuits(c, short_wte, std::vector<int>(7, -1), &circuits).message(), "circuits: wte: expected (vocab, d_model)");
}

TEST(Circuits, TokensStandForTheClassOfTheSameText) {
  EXPECT_EQ(ClassOfToken(TaskKind::kPrevious, 4, 4), (std::vector<int>{0, 1, 2, 3}));
  const TaskShape copy = ShapeOf(TaskKind::kCopy);
  const std::vector<int> map = ClassOfToken(TaskKind::kCopy, copy.vocab, copy.classes);
  for (int s = 0; s < copy.vocab; ++s)
    EXPECT_EQ(map[s], TokenText(TaskKind::kCopy, s) == "|" ? -1 : s) << TokenText(TaskKind::kCopy, s);
}

}  // namespace
}  // namespace attn::train
