// Reference loops for the layers of layers.h; readable first, never optimised.
#include "lessons/layers.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/reference.h"
#include "attn/validate.h"

namespace lessons {
namespace {

// kShapeMismatch unless `m` is exactly (rows, cols).
Status ExpectShape(const std::string& name, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() == rows && m.cols() == cols) return Status::Ok();
  return Status(StatusCode::kShapeMismatch, name + ": expected " + attn::validate::Shape(rows, cols) +
                                                ", got " + attn::validate::Shape(m.rows(), m.cols()));
}

Status CheckInput(const Matrix& x) {
  ATTN_RETURN_IF_ERROR(attn::validate::NonEmpty("x", x));
  return attn::validate::AllFinite("x", x);
}

Status CheckWeight(const std::string& name, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  ATTN_RETURN_IF_ERROR(ExpectShape(name, m, rows, cols));
  return attn::validate::AllFinite(name.c_str(), m);
}

Status CheckConv(const Conv1dParams& p, Eigen::Index c_in) {
  if (p.taps.empty()) {
    return Status(StatusCode::kEmptyInput, "conv taps: expected a kernel size K >= 1, got 0 taps");
  }
  const Eigen::Index c_out = p.taps[0].cols();
  if (c_out == 0) return Status(StatusCode::kEmptyInput, "conv taps[0]: expected c_out >= 1");
  for (size_t t = 0; t < p.taps.size(); ++t) {
    ATTN_RETURN_IF_ERROR(
        CheckWeight("conv taps[" + std::to_string(t) + "]", p.taps[t], c_in, c_out));
  }
  return CheckWeight("conv bias", p.bias, 1, c_out);
}

// f(a): tanh or the identity.
float Activate(RnnActivation f, float a) { return f == RnnActivation::kTanh ? std::tanh(a) : a; }
// f'(a) from h = f(a): 1 − h² for tanh, 1 for the identity.
float ActivationSlope(RnnActivation f, float h) { return f == RnnActivation::kTanh ? 1.0f - h * h : 1.0f; }

// The checks every RNN entry point shares; *d_h and *h0 (zeros when params.h0 is empty) on success.
Status CheckRnn(const ElmanRnnParams& params, const Matrix& x, Eigen::Index* d_h, Matrix* h0) {
  ATTN_RETURN_IF_ERROR(CheckInput(x));
  *d_h = params.w_xh.cols();
  if (*d_h == 0) return Status(StatusCode::kEmptyInput, "w_xh: expected d_h >= 1 columns");
  ATTN_RETURN_IF_ERROR(CheckWeight("w_xh", params.w_xh, x.cols(), *d_h));
  ATTN_RETURN_IF_ERROR(CheckWeight("w_hh", params.w_hh, *d_h, *d_h));
  ATTN_RETURN_IF_ERROR(CheckWeight("bias", params.bias, 1, *d_h));
  if (params.activation != RnnActivation::kTanh && params.activation != RnnActivation::kIdentity) {
    return Status(StatusCode::kUnknownOption, "activation: expected tanh or identity, got " +
                                                  std::to_string(static_cast<int>(params.activation)));
  }
  *h0 = params.h0.size() == 0 ? Matrix::Zero(1, *d_h) : params.h0;
  return CheckWeight("h0", *h0, 1, *d_h);
}

// kNonFinite when row t of the hidden states overflowed.
Status StepFinite(const Matrix& hidden, Eigen::Index t) {
  if (hidden.row(t).allFinite()) return Status::Ok();
  return Status(StatusCode::kNonFinite, "hidden: step " + std::to_string(t) +
                                            " overflowed float32 (a state grew past 3.4e38)");
}

// Adds a bias row to every row of `m`.
void AddBiasRows(const Matrix& bias, Matrix* m) {
  for (Eigen::Index i = 0; i < m->rows(); ++i)
    for (Eigen::Index c = 0; c < m->cols(); ++c) (*m)(i, c) += bias(0, c);
}

// Applies tanh to every element.
void TanhInPlace(Matrix* m) {
  for (Eigen::Index i = 0; i < m->size(); ++i) m->data()[i] = std::tanh(m->data()[i]);
}

// H = L(X) for the configured layer; fills pre_activations only for the RNN.
Status RunSequenceLayer(const SequenceAttentionConfig& config, const Matrix& x,
                        SequenceAttentionResult* r) {
  switch (config.layer) {
    case SequenceLayerKind::kRnn: {
      ElmanRnnResult rnn;
      ATTN_RETURN_IF_ERROR(ElmanRnn(config.rnn, x, &rnn));
      r->pre_activations = std::move(rnn.pre_activations);
      r->hidden = std::move(rnn.hidden);
      return Status::Ok();
    }
    case SequenceLayerKind::kConv1d: return Conv1d(config.conv, x, &r->hidden);
    case SequenceLayerKind::kFullyConnected: return FullyConnected(config.dense, x, &r->hidden);
  }
  return Status(StatusCode::kUnknownOption, "layer: expected rnn, conv1d or fully_connected, got " +
                                                std::to_string(static_cast<int>(config.layer)));
}

}  // namespace

int Conv1dLeftPadding(int kernel_size) { return (kernel_size - 1) / 2; }

Status Conv1d(const Conv1dParams& params, const Matrix& x, Matrix* y) {
  ATTN_RETURN_IF_ERROR(CheckInput(x));
  ATTN_RETURN_IF_ERROR(CheckConv(params, x.cols()));
  const Eigen::Index n = x.rows(), c_in = x.cols(), c_out = params.bias.cols();
  const int kernel_size = static_cast<int>(params.taps.size());
  const int left = Conv1dLeftPadding(kernel_size);
  Matrix out(n, c_out);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index o = 0; o < c_out; ++o) {
      float sum = params.bias(0, o);
      for (int t = 0; t < kernel_size; ++t) {
        const Eigen::Index j = i + t - left;
        if (j < 0 || j >= n) continue;  // zero padding contributes nothing
        for (Eigen::Index c = 0; c < c_in; ++c) sum += x(j, c) * params.taps[t](c, o);
      }
      out(i, o) = sum;
    }
  }
  *y = std::move(out);
  return Status::Ok();
}

Status Conv1dStack(const std::vector<Conv1dParams>& layers, const Matrix& x,
                   std::vector<Matrix>* outputs) {
  if (layers.empty()) return Status(StatusCode::kEmptyInput, "layers: expected at least one layer");
  std::vector<Matrix> result;
  const Matrix* input = &x;
  for (size_t l = 0; l < layers.size(); ++l) {
    Matrix y;
    const Status status = Conv1d(layers[l], *input, &y);
    if (!status.ok()) {
      return Status(status.code(), "layer " + std::to_string(l) + ": " + status.message());
    }
    result.push_back(std::move(y));
    input = &result.back();
  }
  *outputs = std::move(result);
  return Status::Ok();
}

int ReceptiveFieldSize(int num_layers, int kernel_size) {
  if (num_layers < 0 || kernel_size < 1) return 0;
  return 1 + num_layers * (kernel_size - 1);
}

Status ReceptiveField(int num_layers, int kernel_size, int sequence_length, int output_index,
                      IndexRange* range) {
  if (num_layers < 0 || kernel_size < 1 || sequence_length < 1) {
    return Status(StatusCode::kOutOfRange,
                  "receptive field: expected layers >= 0, kernel >= 1, length >= 1, got " +
                      std::to_string(num_layers) + ", " + std::to_string(kernel_size) + ", " +
                      std::to_string(sequence_length));
  }
  if (output_index < 0 || output_index >= sequence_length) {
    return Status(StatusCode::kOutOfRange, "output_index: expected 0.." +
                                               std::to_string(sequence_length - 1) + ", got " +
                                               std::to_string(output_index));
  }
  const int left = Conv1dLeftPadding(kernel_size), right = kernel_size - 1 - left;
  range->first = std::max(0, output_index - num_layers * left);
  range->last = std::min(sequence_length - 1, output_index + num_layers * right);
  return Status::Ok();
}

Status ElmanRnn(const ElmanRnnParams& params, const Matrix& x, ElmanRnnResult* out) {
  Eigen::Index d_h = 0;
  Matrix h0;
  ATTN_RETURN_IF_ERROR(CheckRnn(params, x, &d_h, &h0));
  const Eigen::Index n = x.rows();
  ElmanRnnResult r;
  r.pre_activations.resize(n, d_h);
  r.hidden.resize(n, d_h);
  for (Eigen::Index t = 0; t < n; ++t) {
    for (Eigen::Index o = 0; o < d_h; ++o) {
      float a = params.bias(0, o);
      for (Eigen::Index c = 0; c < x.cols(); ++c) a += x(t, c) * params.w_xh(c, o);
      for (Eigen::Index c = 0; c < d_h; ++c) {
        a += (t == 0 ? h0(0, c) : r.hidden(t - 1, c)) * params.w_hh(c, o);
      }
      r.pre_activations(t, o) = a;
      r.hidden(t, o) = Activate(params.activation, a);
    }
    ATTN_RETURN_IF_ERROR(StepFinite(r.hidden, t));
  }
  *out = std::move(r);
  return Status::Ok();
}

Status ElmanRnnBackward(const ElmanRnnParams& params, const Matrix& x, const ElmanRnnResult& forward,
                        const Matrix& d_hidden, ElmanRnnGradients* out) {
  Eigen::Index d_h = 0;
  Matrix h0;
  ATTN_RETURN_IF_ERROR(CheckRnn(params, x, &d_h, &h0));
  const Eigen::Index n = x.rows(), d_in = x.cols();
  ATTN_RETURN_IF_ERROR(CheckWeight("forward.pre_activations", forward.pre_activations, n, d_h));
  ATTN_RETURN_IF_ERROR(CheckWeight("forward.hidden", forward.hidden, n, d_h));
  ATTN_RETURN_IF_ERROR(CheckWeight("d_hidden", d_hidden, n, d_h));

  ElmanRnnGradients g;
  g.d_x = Matrix::Zero(n, d_in);
  g.d_w_xh = Matrix::Zero(d_in, d_h);
  g.d_w_hh = Matrix::Zero(d_h, d_h);
  g.d_bias = Matrix::Zero(1, d_h);
  g.d_h0 = Matrix::Zero(1, d_h);
  Matrix from_next = Matrix::Zero(1, d_h);  // δ_{t+1} W_hhᵀ: what step t+1 sends back to h_t
  Matrix delta(1, d_h);                     // δ_t = dL/da_t
  for (Eigen::Index t = n - 1; t >= 0; --t) {
    for (Eigen::Index o = 0; o < d_h; ++o) {
      const float g_t = d_hidden(t, o) + from_next(0, o);
      delta(0, o) = g_t * ActivationSlope(params.activation, forward.hidden(t, o));
    }
    for (Eigen::Index o = 0; o < d_h; ++o) {
      g.d_bias(0, o) += delta(0, o);
      for (Eigen::Index c = 0; c < d_in; ++c) g.d_w_xh(c, o) += x(t, c) * delta(0, o);
      for (Eigen::Index c = 0; c < d_h; ++c) {
        g.d_w_hh(c, o) += (t == 0 ? h0(0, c) : forward.hidden(t - 1, c)) * delta(0, o);
      }
    }
    for (Eigen::Index c = 0; c < d_in; ++c) {
      float s = 0;
      for (Eigen::Index o = 0; o < d_h; ++o) s += delta(0, o) * params.w_xh(c, o);
      g.d_x(t, c) = s;
    }
    for (Eigen::Index c = 0; c < d_h; ++c) {
      float s = 0;
      for (Eigen::Index o = 0; o < d_h; ++o) s += delta(0, o) * params.w_hh(c, o);
      from_next(0, c) = s;
    }
  }
  g.d_h0 = from_next;
  for (const auto& [name, m] : {std::pair<const char*, const Matrix*>{"d_x", &g.d_x}, {"d_w_xh", &g.d_w_xh},
                                {"d_w_hh", &g.d_w_hh}, {"d_bias", &g.d_bias}, {"d_h0", &g.d_h0}}) {
    if (!m->allFinite()) {
      return Status(StatusCode::kNonFinite, std::string(name) + ": overflowed float32 (the gradient grew past 3.4e38)");
    }
  }
  *out = std::move(g);
  return Status::Ok();
}

Status ElmanRnnFast(const ElmanRnnParams& params, const Matrix& x, Matrix* hidden) {
  Eigen::Index d_h = 0;
  Matrix h0;
  ATTN_RETURN_IF_ERROR(CheckRnn(params, x, &d_h, &h0));
  const Eigen::Index n = x.rows();
  Matrix h = x * params.w_xh;  // (n, d_h): every step's input term at once
  h.rowwise() += params.bias.row(0);
  Eigen::Matrix<float, 1, Eigen::Dynamic> previous = h0.row(0), a(d_h);
  for (Eigen::Index t = 0; t < n; ++t) {
    a.noalias() = previous * params.w_hh;  // the only sequential part: one (1, d_h)·(d_h, d_h) per step
    a += h.row(t);
    if (params.activation == RnnActivation::kTanh) a = a.array().tanh();
    h.row(t) = a;
    previous = a;
    ATTN_RETURN_IF_ERROR(StepFinite(h, t));
  }
  *hidden = std::move(h);
  return Status::Ok();
}

Status SpectralRadius(const Matrix& w, double* radius) {
  ATTN_RETURN_IF_ERROR(attn::validate::NonEmpty("w", w));
  ATTN_RETURN_IF_ERROR(ExpectShape("w", w, w.rows(), w.rows()));
  ATTN_RETURN_IF_ERROR(attn::validate::AllFinite("w", w));
  // Gelfand's formula, ρ(W) = lim ‖Wᵏ‖^(1/k), at k = 2⁶⁰ by squaring 60 times in double, each power
  // rescaled to norm 1 with its logarithm kept: L ← 2L + log s. Holds for complex and repeated
  // eigenvalues alike. The limit's error is log(C)/k (C: ‖Wᵏ‖/ρᵏ, bounded by the conditioning of the
  // eigenbasis and k^(d−1) for a Jordan block: < 1e-12 here); each step's rounding adds d·ε to log s,
  // divided by 2^(60−i) on the way: ≈ 60·d·ε in all. Eigen's EigenSolver gives the same to 1e-12 but
  // costs 20 KB of the page's wasm.
  // Plain loops: d is small (the view's d_h ≤ 64) and an Eigen double product would add 11 KB.
  constexpr int kSquarings = 60;
  const Eigen::Index d = w.rows();
  std::vector<double> a(w.data(), w.data() + d * d), square(d * d);
  double log_norm = 0;  // log ‖W^(2^i)‖
  for (int i = 0; i <= kSquarings; ++i) {
    if (i > 0) {
      for (Eigen::Index r = 0; r < d; ++r)
        for (Eigen::Index c = 0; c < d; ++c) {
          double sum = 0;
          for (Eigen::Index k = 0; k < d; ++k) sum += a[r * d + k] * a[k * d + c];
          square[r * d + c] = sum;
        }
      a.swap(square);
    }
    double s = 0;
    for (double v : a) s += v * v;
    s = std::sqrt(s);
    if (!(s > 0)) {  // nilpotent: some power is exactly zero, every eigenvalue is 0
      *radius = 0;
      return Status::Ok();
    }
    for (double& v : a) v /= s;
    log_norm = (i == 0 ? 0 : 2 * log_norm) + std::log(s);
  }
  *radius = std::exp(std::ldexp(log_norm, -kSquarings));
  return Status::Ok();
}

Status ScaleToSpectralRadius(const Matrix& w, float rho, Matrix* out, double* w_radius) {
  if (!std::isfinite(rho) || rho < 0) {
    return Status(StatusCode::kOutOfRange, "rho: expected a finite value >= 0, got " + attn::validate::Number(rho));
  }
  double radius = 0;
  ATTN_RETURN_IF_ERROR(SpectralRadius(w, &radius));
  if (w_radius) *w_radius = radius;
  if (!(radius > 0)) {
    return Status(StatusCode::kOutOfRange, "w: expected a spectral radius > 0 to scale, got 0");
  }
  *out = (w.cast<double>() * (rho / radius)).cast<float>();
  return Status::Ok();
}

Status FullyConnected(const FullyConnectedParams& params, const Matrix& x, Matrix* h) {
  ATTN_RETURN_IF_ERROR(CheckInput(x));
  const Eigen::Index d_out = params.weight.cols();
  if (d_out == 0) return Status(StatusCode::kEmptyInput, "weight: expected d_out >= 1 columns");
  ATTN_RETURN_IF_ERROR(CheckWeight("weight", params.weight, x.cols(), d_out));
  ATTN_RETURN_IF_ERROR(CheckWeight("bias", params.bias, 1, d_out));
  Matrix out;
  attn::reference::MatMul(x, params.weight, &out);
  AddBiasRows(params.bias, &out);
  TanhInPlace(&out);
  *h = std::move(out);
  return Status::Ok();
}

const char* SequenceLayerName(SequenceLayerKind kind) {
  switch (kind) {
    case SequenceLayerKind::kRnn: return "rnn";
    case SequenceLayerKind::kConv1d: return "conv1d";
    case SequenceLayerKind::kFullyConnected: return "fully_connected";
  }
  return "unknown";
}

Status SequenceAttention(const SequenceAttentionConfig& config, const Matrix& x,
                         SequenceAttentionResult* out) {
  if (config.scale != 0.0f) ATTN_RETURN_IF_ERROR(attn::validate::Positive("scale", config.scale));
  SequenceAttentionResult r;
  ATTN_RETURN_IF_ERROR(RunSequenceLayer(config, x, &r));

  const Eigen::Index n = r.hidden.rows(), d_h = r.hidden.cols();
  const float scale =
      config.scale != 0.0f ? config.scale : 1.0f / std::sqrt(static_cast<float>(d_h));
  attn::reference::MatMulTransposedB(r.hidden, r.hidden, &r.scores);  // h_i · h_j
  r.scores *= scale;
  attn::reference::SoftmaxRows(r.scores, 1.0f, &r.weights);
  attn::reference::MatMul(r.weights, r.hidden, &r.context);  // c_i = Σ_j a_ij h_j
  r.combined.resize(n, 2 * d_h);
  r.combined << r.hidden, r.context;
  *out = std::move(r);
  return Status::Ok();
}

}  // namespace lessons
