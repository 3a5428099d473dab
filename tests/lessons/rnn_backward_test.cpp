// Backpropagation through time (ElmanRnnBackward), the fast forward and the spectral radius
// (layers.h): against a float64 reference written here, and against central finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lessons/layers.h"
#include "support/expect_close.h"
#include "support/random.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

using testing::AllClose;
using testing::RandomMatrix;

constexpr double kEps = std::numeric_limits<float>::epsilon();  // 2^-23: float32's unit roundoff is half of it

struct Size {
  int n, d_in, d_h;
};
// Widths on both sides of 8 and 16 (the SIMD widths Eigen may use), one step and many.
const std::vector<Size> kSizes = {{1, 3, 7}, {2, 8, 8}, {9, 7, 9}, {12, 16, 15}, {17, 17, 16}, {5, 9, 17}};

ElmanRnnParams RandomRnn(int d_in, int d_h, uint32_t seed, RnnActivation f) {
  // Entries in ±1/√fan_in: pre-activations O(1), so tanh is neither linear nor saturated.
  const float in = 1.0f / std::sqrt(static_cast<float>(d_in)), hh = 1.0f / std::sqrt(static_cast<float>(d_h));
  ElmanRnnParams p{RandomMatrix(d_in, d_h, seed, -in, in), RandomMatrix(d_h, d_h, seed + 1, -hh, hh),
                   RandomMatrix(1, d_h, seed + 2, -0.1f, 0.1f), RandomMatrix(1, d_h, seed + 3, -0.5f, 0.5f)};
  p.activation = f;
  return p;
}

// ---- float64 reference: the same recurrence in double, the gradients by the chain rule written as
// matrix products (not the loops of layers.cpp).
struct ReferenceGradients {
  MatrixD d_x, d_w_xh, d_w_hh, d_bias, d_h0;
};

MatrixD ReferenceForward(const ElmanRnnParams& p, const MatrixD& x, const MatrixD& w_xh, const MatrixD& w_hh,
                         const MatrixD& b, const MatrixD& h0, MatrixD* hidden) {
  const Eigen::Index n = x.rows(), d_h = w_xh.cols();
  hidden->resize(n, d_h);
  MatrixD previous = h0;
  for (Eigen::Index t = 0; t < n; ++t) {
    MatrixD a = x.row(t) * w_xh + previous * w_hh + b;
    if (p.activation == RnnActivation::kTanh) a = a.array().tanh().matrix();
    hidden->row(t) = a;
    previous = a;
  }
  return *hidden;
}

ReferenceGradients ReferenceBackward(const ElmanRnnParams& p, const Matrix& x32, const Matrix& d_hidden32) {
  const MatrixD x = x32.cast<double>(), w_xh = p.w_xh.cast<double>(), w_hh = p.w_hh.cast<double>();
  const MatrixD b = p.bias.cast<double>(), h0 = p.h0.cast<double>(), dh = d_hidden32.cast<double>();
  MatrixD h;
  ReferenceForward(p, x, w_xh, w_hh, b, h0, &h);
  const Eigen::Index n = x.rows(), d_h = w_xh.cols();
  // δ (n, d_h): all steps' dL/da, filled from the end; then every gradient is one product.
  MatrixD delta = MatrixD::Zero(n, d_h);
  MatrixD carried = MatrixD::Zero(1, d_h);
  for (Eigen::Index t = n - 1; t >= 0; --t) {
    const MatrixD g = dh.row(t) + carried;
    const MatrixD slope = p.activation == RnnActivation::kTanh
                              ? MatrixD((1.0 - h.row(t).array().square()).matrix())
                              : MatrixD::Ones(1, d_h);
    delta.row(t) = g.cwiseProduct(slope);
    carried = delta.row(t) * w_hh.transpose();
  }
  MatrixD previous(n, d_h);  // h_{t-1}
  previous.row(0) = h0;
  if (n > 1) previous.bottomRows(n - 1) = h.topRows(n - 1);
  ReferenceGradients r;
  r.d_x = delta * w_xh.transpose();
  r.d_w_xh = x.transpose() * delta;
  r.d_w_hh = previous.transpose() * delta;
  r.d_bias = delta.colwise().sum();
  r.d_h0 = carried;
  return r;
}

// Float32 against float64: each gradient entry is a sum of at most n chains, each a product of at
// most n factors that are dot products of length m = max(d_in, d_h) and one slope. Every operation
// rounds by at most ε/2 relative, so one chain is off by at most about n·(m + 2)·ε/2 relative and the
// sum keeps that bound relative to Σ|terms|. The terms here do not cancel by more than a factor
// of 10 (O(1) random weights), hence 10·n·(m + 2)·ε relative to max(1, max|reference|).
double Float32Bound(const Size& s, const MatrixD& reference) {
  const double m = std::max(s.d_in, s.d_h);
  return 10.0 * s.n * (m + 2) * kEps * std::max(1.0, reference.cwiseAbs().maxCoeff());
}

TEST(ElmanRnnBackward, MatchesFloat64Reference) {
  for (RnnActivation f : {RnnActivation::kTanh, RnnActivation::kIdentity}) {
    for (const Size& s : kSizes) {
      const ElmanRnnParams p = RandomRnn(s.d_in, s.d_h, 10 + s.d_h, f);
      const Matrix x = RandomMatrix(s.n, s.d_in, 20 + s.n);
      const Matrix d_hidden = RandomMatrix(s.n, s.d_h, 30 + s.n);
      ElmanRnnResult forward;
      ElmanRnnGradients g;
      ASSERT_TRUE(ElmanRnn(p, x, &forward).ok());
      ASSERT_TRUE(ElmanRnnBackward(p, x, forward, d_hidden, &g).ok());
      const ReferenceGradients r = ReferenceBackward(p, x, d_hidden);
      const std::string where = std::string(f == RnnActivation::kTanh ? "tanh" : "linear") + " n=" +
                                std::to_string(s.n) + " d_in=" + std::to_string(s.d_in) + " d_h=" + std::to_string(s.d_h);
      EXPECT_TRUE(AllClose(g.d_x, r.d_x, 0, Float32Bound(s, r.d_x))) << "d_x " << where;
      EXPECT_TRUE(AllClose(g.d_w_xh, r.d_w_xh, 0, Float32Bound(s, r.d_w_xh))) << "d_w_xh " << where;
      EXPECT_TRUE(AllClose(g.d_w_hh, r.d_w_hh, 0, Float32Bound(s, r.d_w_hh))) << "d_w_hh " << where;
      EXPECT_TRUE(AllClose(g.d_bias, r.d_bias, 0, Float32Bound(s, r.d_bias))) << "d_bias " << where;
      EXPECT_TRUE(AllClose(g.d_h0, r.d_h0, 0, Float32Bound(s, r.d_h0))) << "d_h0 " << where;
    }
  }
}

// L = Σ d_hidden ∘ H of the engine's float32 forward, in double.
double Loss(const ElmanRnnParams& p, const Matrix& x, const Matrix& d_hidden) {
  ElmanRnnResult r;
  EXPECT_TRUE(ElmanRnn(p, x, &r).ok());
  return (r.hidden.cast<double>().array() * d_hidden.cast<double>().array()).sum();
}

// Central differences on the float32 forward itself, step h = 1e-2: the truncation error is at most
// h²/6·|L'''| (|L'''| stays below about n·d_h for these O(1) weights, so ≤ 2e-5·n·d_h), and the
// rounding error of the two float32 losses at most 2·(n·d_h terms of relative error n·(m + 2)·ε/2)
// ·max|L term| / (2h). Both summed, with a factor 2 for the unknown constants.
double FiniteDifferenceBound(const Size& s) {
  const double h = 1e-2, m = std::max(s.d_in, s.d_h), terms = static_cast<double>(s.n) * s.d_h;
  return 2.0 * (h * h / 6.0 * terms + terms * s.n * (m + 2) * kEps / (2 * h));
}

// Checks every entry of `grad` against the central difference of the loss in the entry of `param`.
void ExpectFiniteDifferences(const char* name, const Matrix& grad, Matrix* param, const ElmanRnnParams& p,
                             Matrix* x, const Matrix& d_hidden, const Size& s) {
  const float h = 1e-2f;
  const double bound = FiniteDifferenceBound(s);
  for (Eigen::Index r = 0; r < param->rows(); ++r)
    for (Eigen::Index c = 0; c < param->cols(); ++c) {
      const float saved = (*param)(r, c);
      (*param)(r, c) = saved + h;
      const double up = Loss(p, *x, d_hidden);
      (*param)(r, c) = saved - h;
      const double down = Loss(p, *x, d_hidden);
      (*param)(r, c) = saved;
      const double numeric = (up - down) / (2.0 * h);
      ASSERT_NEAR(grad(r, c), numeric, bound) << name << "(" << r << ", " << c << ") n=" << s.n << " d_h=" << s.d_h;
    }
}

TEST(ElmanRnnBackward, MatchesCentralDifferences) {
  for (RnnActivation f : {RnnActivation::kTanh, RnnActivation::kIdentity}) {
    for (const Size& s : kSizes) {
      ElmanRnnParams p = RandomRnn(s.d_in, s.d_h, 40 + s.d_h, f);
      Matrix x = RandomMatrix(s.n, s.d_in, 50 + s.n);
      const Matrix d_hidden = RandomMatrix(s.n, s.d_h, 60 + s.n);
      ElmanRnnResult forward;
      ElmanRnnGradients g;
      ASSERT_TRUE(ElmanRnn(p, x, &forward).ok());
      ASSERT_TRUE(ElmanRnnBackward(p, x, forward, d_hidden, &g).ok());
      ExpectFiniteDifferences("d_x", g.d_x, &x, p, &x, d_hidden, s);
      ExpectFiniteDifferences("d_w_xh", g.d_w_xh, &p.w_xh, p, &x, d_hidden, s);
      ExpectFiniteDifferences("d_w_hh", g.d_w_hh, &p.w_hh, p, &x, d_hidden, s);
      ExpectFiniteDifferences("d_bias", g.d_bias, &p.bias, p, &x, d_hidden, s);
      ExpectFiniteDifferences("d_h0", g.d_h0, &p.h0, p, &x, d_hidden, s);
    }
  }
}

TEST(ElmanRnnBackward, LinearChainGivesPowersOfTheRecurrence) {
  // d_in = d_h = 1, h_t = x_t + ρ h_{t-1}: ∂h_{n-1}/∂x_j = ρ^(n-1-j) exactly (in float32 up to the
  // rounding of the powers, relative (n−1)·ε).
  for (float rho : {0.5f, 1.0f, 1.5f}) {
    ElmanRnnParams p{Matrix::Ones(1, 1), Matrix::Constant(1, 1, rho), Matrix::Zero(1, 1), Matrix()};
    p.activation = RnnActivation::kIdentity;
    const int n = 10;
    const Matrix x = RandomMatrix(n, 1, 3);
    Matrix d_hidden = Matrix::Zero(n, 1);
    d_hidden(n - 1, 0) = 1;
    ElmanRnnResult forward;
    ElmanRnnGradients g;
    ASSERT_TRUE(ElmanRnn(p, x, &forward).ok());
    ASSERT_TRUE(ElmanRnnBackward(p, x, forward, d_hidden, &g).ok());
    for (int j = 0; j < n; ++j) {
      const double expected = std::pow(static_cast<double>(rho), n - 1 - j);
      EXPECT_NEAR(g.d_x(j, 0), expected, n * kEps * expected) << "ρ = " << rho << ", j = " << j;
    }
  }
}

TEST(ElmanRnnBackward, BadInputGivesStatus) {
  const ElmanRnnParams p = RandomRnn(3, 4, 1, RnnActivation::kTanh);
  const Matrix x = RandomMatrix(5, 3, 2);
  ElmanRnnResult forward;
  ASSERT_TRUE(ElmanRnn(p, x, &forward).ok());
  ElmanRnnGradients g;
  const Status wrong_d = ElmanRnnBackward(p, x, forward, RandomMatrix(5, 3, 1), &g);
  EXPECT_EQ(wrong_d.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(wrong_d.message().find("d_hidden: expected (5, 4), got (5, 3)"), std::string::npos) << wrong_d.message();
  ElmanRnnResult short_forward = forward;
  short_forward.hidden = forward.hidden.topRows(4);
  EXPECT_EQ(ElmanRnnBackward(p, x, short_forward, RandomMatrix(5, 4, 1), &g).code(), StatusCode::kShapeMismatch);
  Matrix nan_d = RandomMatrix(5, 4, 1);
  nan_d(1, 1) = std::nanf("");
  EXPECT_EQ(ElmanRnnBackward(p, x, forward, nan_d, &g).code(), StatusCode::kNonFinite);
  EXPECT_EQ(ElmanRnnBackward(p, Matrix(), forward, nan_d, &g).code(), StatusCode::kEmptyInput);
  ElmanRnnParams bad = p;
  bad.activation = static_cast<RnnActivation>(7);
  EXPECT_EQ(ElmanRnn(bad, x, &forward).code(), StatusCode::kUnknownOption);
  EXPECT_EQ(ElmanRnnBackward(bad, x, forward, RandomMatrix(5, 4, 1), &g).code(), StatusCode::kUnknownOption);
}

TEST(ElmanRnn, LinearOverflowIsReportedNotReturned) {
  // ρ = 2 without tanh: the state doubles each step and passes float32's 3.4e38 near step 128.
  ElmanRnnParams p{Matrix::Ones(1, 1), Matrix::Constant(1, 1, 2.0f), Matrix::Zero(1, 1), Matrix()};
  p.activation = RnnActivation::kIdentity;
  const Matrix x = Matrix::Ones(200, 1);
  ElmanRnnResult r;
  const Status s = ElmanRnn(p, x, &r);
  EXPECT_EQ(s.code(), StatusCode::kNonFinite);
  EXPECT_NE(s.message().find("hidden: step 12"), std::string::npos) << s.message();
  Matrix h;
  EXPECT_EQ(ElmanRnnFast(p, x, &h).code(), StatusCode::kNonFinite);
  // With tanh the same weights saturate instead: finite, |h| ≤ 1.
  p.activation = RnnActivation::kTanh;
  ASSERT_TRUE(ElmanRnn(p, x, &r).ok());
  EXPECT_LE(r.hidden.cwiseAbs().maxCoeff(), 1.0f);
  // The gradient can overflow while the states do not: inputs of 1e-20 keep h_t ≈ 1e-20·1.9^t
  // below 1e21, but ∂h_144/∂h0 = 1.9^145 ≈ 1e40 passes 3.4e38: finite forward, kNonFinite backward.
  p = {Matrix::Ones(1, 1), Matrix::Constant(1, 1, 1.9f), Matrix::Zero(1, 1), Matrix()};
  p.activation = RnnActivation::kIdentity;
  const Matrix tiny = Matrix::Constant(145, 1, 1e-20f);
  ASSERT_TRUE(ElmanRnn(p, tiny, &r).ok());
  Matrix d = Matrix::Zero(145, 1);
  d(144, 0) = 1;
  ElmanRnnGradients g;
  const Status backward = ElmanRnnBackward(p, tiny, r, d, &g);
  EXPECT_EQ(backward.code(), StatusCode::kNonFinite);
  EXPECT_NE(backward.message().find("overflowed"), std::string::npos) << backward.message();
}

TEST(ElmanRnnFast, MatchesTheReferenceLoop) {
  // Different summation order: each a_t differs by at most m·ε·Σ|terms| (m = d_in + d_h terms, each
  // at most max(1, max|h|)·(1/√fan_in) here, so Σ|terms| ≤ √m·max(1, max|h|)), and a step passes
  // earlier errors on multiplied by at most ρ(W_hh) = 0.9 (and f' ≤ 1): at most 1/(1 − 0.9) = 10
  // steps' worth accumulate. Bound: 10·m·ε·√m·max(1, max|h|).
  for (const Size& s : std::vector<Size>{{1, 3, 7}, {33, 8, 8}, {300, 16, 17}, {257, 64, 64}}) {
    for (RnnActivation f : {RnnActivation::kTanh, RnnActivation::kIdentity}) {
      ElmanRnnParams p = RandomRnn(s.d_in, s.d_h, 70 + s.d_h, f);
      ASSERT_TRUE(ScaleToSpectralRadius(p.w_hh, 0.9f, &p.w_hh).ok());
      const Matrix x = RandomMatrix(s.n, s.d_in, 80 + s.n);
      ElmanRnnResult reference;
      Matrix fast;
      ASSERT_TRUE(ElmanRnn(p, x, &reference).ok());
      ASSERT_TRUE(ElmanRnnFast(p, x, &fast).ok());
      const double m = s.d_in + s.d_h;
      const double bound = 10.0 * m * kEps * std::sqrt(m) * std::max(1.0f, reference.hidden.cwiseAbs().maxCoeff());
      EXPECT_TRUE(AllClose(fast, reference.hidden, 0, bound)) << "n=" << s.n << " d_h=" << s.d_h;
    }
  }
  Matrix h;
  const ElmanRnnParams p = RandomRnn(3, 4, 1, RnnActivation::kTanh);
  EXPECT_EQ(ElmanRnnFast(p, RandomMatrix(5, 2, 1), &h).code(), StatusCode::kShapeMismatch);
}

TEST(SpectralRadius, KnownMatricesAndScaling) {
  double r = 0;
  Matrix rotation(2, 2);  // eigenvalues ±2i: radius 2 although no real eigenvalue exists
  rotation << 0, -2, 2, 0;
  ASSERT_TRUE(SpectralRadius(rotation, &r).ok());
  EXPECT_NEAR(r, 2.0, 1e-12);
  Matrix triangular(3, 3);  // eigenvalues on the diagonal
  triangular << 0.5, 7, 1, 0, -3, 2, 0, 0, 1;
  ASSERT_TRUE(SpectralRadius(triangular, &r).ok());
  EXPECT_NEAR(r, 3.0, 1e-9);
  Matrix jordan(2, 2);  // one eigenvalue 2 with a Jordan block: ‖Jᵏ‖ grows as k·2ᵏ⁻¹, not 2ᵏ
  jordan << 2, 1, 0, 2;
  ASSERT_TRUE(SpectralRadius(jordan, &r).ok());
  EXPECT_NEAR(r, 2.0, 1e-12);
  Matrix nilpotent(2, 2);  // every eigenvalue 0 although the matrix is not 0
  nilpotent << 0, 1, 0, 0;
  ASSERT_TRUE(SpectralRadius(nilpotent, &r).ok());
  EXPECT_EQ(r, 0.0);
  for (int d : {1, 7, 8, 9, 16, 17, 64}) {
    const Matrix w = SeededRandom(d).NormalMatrix(d, d);
    for (float rho : {0.5f, 1.0f, 1.5f}) {
      Matrix scaled;
      ASSERT_TRUE(ScaleToSpectralRadius(w, rho, &scaled).ok());
      ASSERT_TRUE(SpectralRadius(scaled, &r).ok());
      EXPECT_NEAR(r, rho, 1e-5 * rho) << "d = " << d;  // float32 entries: relative ε·√d-ish
    }
  }
  Matrix out;
  EXPECT_EQ(ScaleToSpectralRadius(Matrix::Zero(3, 3), 1.0f, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ScaleToSpectralRadius(rotation, std::nanf(""), &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ScaleToSpectralRadius(rotation, -1.0f, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(SpectralRadius(Matrix::Ones(2, 3), &r).code(), StatusCode::kShapeMismatch);
  EXPECT_EQ(SpectralRadius(Matrix(), &r).code(), StatusCode::kEmptyInput);
}

}  // namespace
}  // namespace attn
