// The layers of the training models, each forward beside its backward (the way llm.c writes them),
// templated on the scalar: float to train, double for the gradient checks. Rows are positions of
// the whole batch stacked: R = B·T rows, one sequence after another. Backward functions ADD into the
// parameter gradients (a parameter used twice gets both contributions) and WRITE the input gradient.
// The attention layer itself is the engine's (attn::Forward / attn::Backward); see model.cpp.
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include <type_traits>

#include "attn/kernels.h"
#include "attn/matrix.h"

namespace attn::train {

template <typename T>
using Mat = MatrixT<T>;

// [SECTION] Products: out = op(a) op(b), or out += … when accumulating (op(x) = xᵀ when asked),
// by one of the policies a layer is instantiated with. EigenProducts (the default): Eigen's
// expression, the same bytes on every CPU of a build (the Learn view's models; double for the
// gradient checks). KernelProducts: float on the engine's GEMM for `kernel` (attn::MatMul; the
// language model's training on the CPU's best ISA). PackedProducts: KernelProducts reading weights
// packed once (the language model's inference). Policies are types and the options template
// arguments so that a layer instantiated for Eigen links no engine GEMM, and only the products a
// layer uses are instantiated (each is kilobytes of the page's WebAssembly).
struct EigenProducts {};
struct KernelProducts {
  KernelId kernel = KernelId::kEigen;
};

// KernelProducts with some right-hand operands packed once (attn::PackMatrix; a model's weights for
// inference): a product whose b is one of them (the matrix it was packed from, same layout and kernel)
// reads the packed floats, to KernelProducts' bits; every other product is KernelProducts'.
struct PackedProducts {
  KernelId kernel = KernelId::kEigen;
  std::array<const PackedMatrix*, 2> packed{};  // null entries are skipped
};

template <bool kTransposeA, bool kTransposeB, bool kAccumulate, typename T>
void Product(const EigenProducts&, const Mat<T>& a, const Mat<T>& b, Mat<T>* out) {
  const auto put = [&](const auto& product) {
    if constexpr (kAccumulate) out->noalias() += product;
    else out->noalias() = product;
  };
  if constexpr (kTransposeA && kTransposeB) put(a.transpose() * b.transpose());
  else if constexpr (kTransposeA) put(a.transpose() * b);
  else if constexpr (kTransposeB) put(a * b.transpose());
  else put(a * b);
}
// The engine refuses only sizes past attn::Limits or memory it cannot get; Eigen's expression then
// computes the same product (or throws bad_alloc, as every matrix here may).
template <bool kTransposeA, bool kTransposeB, bool kAccumulate, typename T>
void Product(const KernelProducts& products, const Mat<T>& a, const Mat<T>& b, Mat<T>* out) {
  if constexpr (std::is_same_v<T, float>) {
    const MatMulOptions options{kTransposeA, kTransposeB, kAccumulate};
    if (products.kernel != KernelId::kEigen && MatMul(products.kernel, a, b, out, options).ok()) return;
  }
  Product<kTransposeA, kTransposeB, kAccumulate>(EigenProducts(), a, b, out);
}
template <bool kTransposeA, bool kTransposeB, bool kAccumulate, typename T>
void Product(const PackedProducts& products, const Mat<T>& a, const Mat<T>& b, Mat<T>* out) {
  if constexpr (std::is_same_v<T, float> && !kTransposeA && !kAccumulate) {
    for (const PackedMatrix* p : products.packed)
      if (p && p->source() == b.data() && p->transposed() == kTransposeB && p->kernel() == products.kernel &&
          p->rows() == (kTransposeB ? b.cols() : b.rows()) && p->cols() == (kTransposeB ? b.rows() : b.cols()) &&
          MatMul(a, *p, out).ok())
        return;
  }
  Product<kTransposeA, kTransposeB, kAccumulate>(KernelProducts{products.kernel}, a, b, out);
}

// [SECTION] Embedding: x_r = wte[id_r] (+ wpe[r mod T] with a learned position table)
// ids: R entries in [0, V)   wte: (V, d)   wpe: (P ≥ T, d) or empty   -> x: (R, d)
template <typename T>
void EmbeddingForward(const std::vector<int>& ids, int seq_len, const Mat<T>& wte, const Mat<T>& wpe, Mat<T>* x) {
  x->resize(static_cast<Eigen::Index>(ids.size()), wte.cols());
  for (size_t r = 0; r < ids.size(); ++r) {
    x->row(r) = wte.row(ids[r]);
    if (wpe.size()) x->row(r) += wpe.row(static_cast<Eigen::Index>(r % seq_len));
  }
}
// d_x: (R, d) -> d_wte += scattered rows (when d_wte is non-empty: a frozen table has none),
// d_wpe += rows by position (when non-empty)
template <typename T>
void EmbeddingBackward(const std::vector<int>& ids, int seq_len, const Mat<T>& d_x, Mat<T>* d_wte, Mat<T>* d_wpe) {
  for (size_t r = 0; r < ids.size(); ++r) {
    if (d_wte->size()) d_wte->row(ids[r]) += d_x.row(r);
    if (d_wpe->size()) d_wpe->row(static_cast<Eigen::Index>(r % seq_len)) += d_x.row(r);
  }
}

// [SECTION] Linear: y = x W + b (the products by `products`, see Product)
// x: (R, in)   w: (in, out)   b: (1, out)   -> y: (R, out)
template <typename T, typename Products = EigenProducts>
void LinearForward(const Mat<T>& x, const Mat<T>& w, const Mat<T>& b, Mat<T>* y, const Products& products = Products()) {
  Product<false, false, false>(products, x, w, y);
  y->rowwise() += b.row(0);
}
// d_y: (R, out) -> d_x: (R, in) (skipped when d_x is null), d_w += xᵀ d_y, d_b += Σ_r d_y
template <typename T, typename Products = EigenProducts>
void LinearBackward(const Mat<T>& x, const Mat<T>& w, const Mat<T>& d_y, Mat<T>* d_x, Mat<T>* d_w, Mat<T>* d_b,
                    const Products& products = Products()) {
  if (d_x) Product<false, true, false>(products, d_y, w, d_x);
  Product<true, false, true>(products, x, d_y, d_w);
  *d_b += d_y.colwise().sum();
}

// [SECTION] LayerNorm over each row: y = (x − μ) / √(σ² + ε) · γ + β
// x: (R, d)   gamma, beta: (1, d)   -> y: (R, d), mean: (R), rstd: (R) (kept for backward)
// ε is 1e-5 (attnlab's and GPT-2's) unless a loaded checkpoint's config says otherwise; the backward
// needs only rstd, which holds it.
template <typename T>
void LayerNormForward(const Mat<T>& x, const Mat<T>& gamma, const Mat<T>& beta, Mat<T>* y, std::vector<T>* mean,
                      std::vector<T>* rstd, T eps = T(1e-5)) {
  const Eigen::Index d = x.cols();
  y->resize(x.rows(), d);
  mean->resize(x.rows());
  rstd->resize(x.rows());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const T m = x.row(r).sum() / static_cast<T>(d);
    const T var = (x.row(r).array() - m).square().sum() / static_cast<T>(d);
    const T s = T(1) / std::sqrt(var + eps);
    (*mean)[r] = m;
    (*rstd)[r] = s;
    y->row(r) = ((x.row(r).array() - m) * s * gamma.row(0).array() + beta.row(0).array()).matrix();
  }
}
// With x̂ = (x − μ)·rstd and g = d_y ⊙ γ: d_x = rstd · (g − mean(g) − x̂ · mean(g ⊙ x̂)),
// d_γ += Σ_r d_y ⊙ x̂, d_β += Σ_r d_y.
template <typename T>
void LayerNormBackward(const Mat<T>& x, const Mat<T>& gamma, const std::vector<T>& mean, const std::vector<T>& rstd,
                       const Mat<T>& d_y, Mat<T>* d_x, Mat<T>* d_gamma, Mat<T>* d_beta) {
  const Eigen::Index d = x.cols();
  d_x->resize(x.rows(), d);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const Eigen::Array<T, 1, Eigen::Dynamic> x_hat = (x.row(r).array() - mean[r]) * rstd[r];
    const Eigen::Array<T, 1, Eigen::Dynamic> g = d_y.row(r).array() * gamma.row(0).array();
    const T g_mean = g.sum() / static_cast<T>(d);
    const T gx_mean = (g * x_hat).sum() / static_cast<T>(d);
    d_x->row(r) = ((g - g_mean - x_hat * gx_mean) * rstd[r]).matrix();
    d_gamma->row(0).array() += d_y.row(r).array() * x_hat;
    d_beta->row(0) += d_y.row(r);
  }
}

// [SECTION] ReLU: y = max(x, 0)   x: (R, c) -> y: (R, c)
template <typename T>
void ReluForward(const Mat<T>& x, Mat<T>* y) {
  *y = x.cwiseMax(T(0));
}
// The derivative at exactly 0 is taken as 0.
template <typename T>
void ReluBackward(const Mat<T>& x, const Mat<T>& d_y, Mat<T>* d_x) {
  *d_x = d_y.binaryExpr(x, [](T g, T v) { return v > T(0) ? g : T(0); });
}

// [SECTION] Conv1d over each sequence of T rows, stride 1, zero padding that keeps the length:
// causal pads k − 1 rows on the left (position t sees t−k+1 … t); centred pads ⌊(k−1)/2⌋ on the left.
// y_t = Σ_{j<k} x_{t − left + j} W_j + b, as one GEMM on the unfolded rows.
// x: (B·T, c_in)   w: (k·c_in, c_out), rows j·c_in … for tap j   b: (1, c_out)   -> y: (B·T, c_out)
inline int ConvLeftPad(int k, bool causal) { return causal ? k - 1 : (k - 1) / 2; }

// Row t of a sequence, unfolded: [x_{t−left}, …, x_{t−left+k−1}] with zeros outside.   -> (B·T, k·c_in)
template <typename T>
Mat<T> Unfold(const Mat<T>& x, int seq_len, int k, bool causal) {
  const Eigen::Index c = x.cols();
  const int left = ConvLeftPad(k, causal);
  Mat<T> cols = Mat<T>::Zero(x.rows(), k * c);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const Eigen::Index t = r % seq_len, start = r - t;
    for (int j = 0; j < k; ++j) {
      const Eigen::Index s = t - left + j;
      if (s >= 0 && s < seq_len) cols.block(r, j * c, 1, c) = x.row(start + s);
    }
  }
  return cols;
}
// The adjoint of Unfold: every unfolded entry's gradient back to the row it came from.
template <typename T>
Mat<T> Fold(const Mat<T>& d_cols, int seq_len, int k, bool causal, Eigen::Index c) {
  const int left = ConvLeftPad(k, causal);
  Mat<T> d_x = Mat<T>::Zero(d_cols.rows(), c);
  for (Eigen::Index r = 0; r < d_cols.rows(); ++r) {
    const Eigen::Index t = r % seq_len, start = r - t;
    for (int j = 0; j < k; ++j) {
      const Eigen::Index s = t - left + j;
      if (s >= 0 && s < seq_len) d_x.row(start + s) += d_cols.block(r, j * c, 1, c);
    }
  }
  return d_x;
}
template <typename T>
void Conv1dForward(const Mat<T>& x, int seq_len, int k, bool causal, const Mat<T>& w, const Mat<T>& b, Mat<T>* y) {
  LinearForward<T>(Unfold(x, seq_len, k, causal), w, b, y);
}
template <typename T>
void Conv1dBackward(const Mat<T>& x, int seq_len, int k, bool causal, const Mat<T>& w, const Mat<T>& d_y, Mat<T>* d_x,
                    Mat<T>* d_w, Mat<T>* d_b) {
  Mat<T> d_cols;
  LinearBackward<T>(Unfold(x, seq_len, k, causal), w, d_y, &d_cols, d_w, d_b);
  *d_x = Fold(d_cols, seq_len, k, causal, x.cols());
}

// [SECTION] Running max over the positions of each sequence: y_t = max_{s ≤ t} x_s per channel
// (the CNN's global read-out: whether a feature occurred anywhere so far, not where)
// x: (B·T, c) -> y: (B·T, c), argmax: (B·T, c) the row of x each maximum came from
template <typename T>
void RunningMaxForward(const Mat<T>& x, int seq_len, Mat<T>* y, Eigen::MatrixXi* argmax) {
  y->resize(x.rows(), x.cols());
  argmax->resize(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const bool first = r % seq_len == 0;
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      const bool keep = !first && (*y)(r - 1, c) >= x(r, c);  // ties keep the earlier row
      (*y)(r, c) = keep ? (*y)(r - 1, c) : x(r, c);
      (*argmax)(r, c) = keep ? (*argmax)(r - 1, c) : static_cast<int>(r);
    }
  }
}
// Each output's gradient goes to the row that held its maximum.
template <typename T>
void RunningMaxBackward(const Eigen::MatrixXi& argmax, const Mat<T>& d_y, Mat<T>* d_x) {
  *d_x = Mat<T>::Zero(d_y.rows(), d_y.cols());
  for (Eigen::Index r = 0; r < d_y.rows(); ++r)
    for (Eigen::Index c = 0; c < d_y.cols(); ++c) (*d_x)(argmax(r, c), c) += d_y(r, c);
}

// [SECTION] Softmax cross-entropy over the rows that count:
// loss = Σ_r w_r · (−log softmax(logits_r)[target_r]) / Σ_r w_r
// logits: (R, C)   targets: R entries in [0, C)   weights: R entries ≥ 0, 0 = not scored
// -> probs: (R, C) (kept for backward), returns the loss; *correct counts the scored rows whose
// largest logit is the target (first on ties), *scored the rows with a weight.
template <typename T>
T CrossEntropyForward(const Mat<T>& logits, const std::vector<int>& targets, const std::vector<float>& weights,
                      Mat<T>* probs, int* correct, int* scored) {
  probs->resize(logits.rows(), logits.cols());
  T total = 0, weight_sum = 0;
  *correct = *scored = 0;
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    const T max = logits.row(r).maxCoeff();
    probs->row(r) = (logits.row(r).array() - max).exp().matrix();
    const T sum = probs->row(r).sum();
    probs->row(r) /= sum;
    if (weights[r] <= 0) continue;
    const T w = static_cast<T>(weights[r]);
    total += w * (std::log(sum) + max - logits(r, targets[r]));
    weight_sum += w;
    Eigen::Index argmax = 0;
    logits.row(r).maxCoeff(&argmax);
    *correct += argmax == targets[r];
    *scored += 1;
  }
  return weight_sum > 0 ? total / weight_sum : T(0);
}
// d_logits_r = w_r (probs_r − onehot(target_r)) / Σ w
template <typename T>
void CrossEntropyBackward(const Mat<T>& probs, const std::vector<int>& targets, const std::vector<float>& weights,
                          Mat<T>* d_logits) {
  T weight_sum = 0;
  for (float w : weights) weight_sum += w > 0 ? static_cast<T>(w) : T(0);
  *d_logits = Mat<T>::Zero(probs.rows(), probs.cols());
  if (weight_sum <= 0) return;
  for (Eigen::Index r = 0; r < probs.rows(); ++r) {
    if (weights[r] <= 0) continue;
    const T scale = static_cast<T>(weights[r]) / weight_sum;
    d_logits->row(r) = probs.row(r) * scale;
    (*d_logits)(r, targets[r]) -= scale;
  }
}

}  // namespace attn::train
