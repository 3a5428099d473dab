#include "lessons/views/rnn.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "attn/grad.h"
#include "attn/kernels.h"
#include "attn/seeded_random.h"
#include "attn/validate.h"
#include "lessons/view_kernel.h"

namespace lessons {
namespace {

// Seeds of the view's parameters: one stream each, so adding one never changes the others.
enum Stream : uint32_t { kWxh = 1, kWhh, kConv, kDense, kNextW, kTimedInput };

Matrix SeededSymmetric(Eigen::Index rows, Eigen::Index cols, float limit, uint32_t seed, Stream stream) {
  return attn::SeededRandom(seed, stream).SymmetricMatrix(rows, cols, limit);
}

// W_xh uniform in ±1/√d_in (the engine's initialisation of a projection), W_hh N(0, 1) scaled to ρ.
Status SeededRnn(int d_in, int d_h, float rho, bool linear, uint32_t seed, ElmanRnnParams* out,
                 double* seeded_radius) {
  ElmanRnnParams p;
  p.w_xh = SeededSymmetric(d_in, d_h, 1.0f / std::sqrt(static_cast<float>(d_in)), seed, kWxh);
  const Matrix w_hh = attn::SeededRandom(seed, kWhh).NormalMatrix(d_h, d_h);
  ATTN_RETURN_IF_ERROR(ScaleToSpectralRadius(w_hh, rho, &p.w_hh, seeded_radius));
  p.bias = Matrix::Zero(1, d_h);
  p.activation = linear ? RnnActivation::kIdentity : RnnActivation::kTanh;
  *out = std::move(p);
  return Status::Ok();
}

// Adds the squared entries of each row of d_x to squares (n, 1): one pass's share of ‖J_j‖_F².
void AddRowSquares(const Matrix& d_x, MatrixD* squares) {
  for (Eigen::Index j = 0; j < d_x.rows(); ++j) (*squares)(j, 0) += d_x.row(j).cast<double>().squaredNorm();
}

Status CheckRow(int i, Eigen::Index n) {
  if (i >= 0 && i < n) return Status::Ok();
  return Status(StatusCode::kOutOfRange,
                "i: expected 0.." + std::to_string(n - 1) + ", got " + std::to_string(i));
}

// Runs `forward` for at least min_ms (once at least) and returns µs per run. The clock is read once
// per batch and the batches double: at n = 16 one forward takes microseconds, and reading the
// browser's clock each time would be part of what is timed.
template <typename Forward>
Status TimeRuns(double min_ms, Forward&& forward, double* us) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  long runs = 0;
  double ms = 0;
  for (long batch = 1; ms < min_ms || runs == 0; batch *= 2) {
    for (long r = 0; r < batch; ++r) ATTN_RETURN_IF_ERROR(forward());
    runs += batch;
    ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  *us = 1000.0 * ms / static_cast<double>(runs);
  return Status::Ok();
}

}  // namespace

Status RnnJacobianNorms(const ElmanRnnParams& params, const Matrix& x, const ElmanRnnResult& forward, int i,
                        Matrix* norms) {
  ATTN_RETURN_IF_ERROR(CheckRow(i, x.rows()));
  const Eigen::Index d_h = params.w_xh.cols();
  MatrixD squares = MatrixD::Zero(x.rows(), 1);
  for (Eigen::Index k = 0; k < d_h; ++k) {  // row k of ∂h_i/∂x_j for every j at once
    Matrix d_hidden = Matrix::Zero(x.rows(), d_h);
    d_hidden(i, k) = 1;
    ElmanRnnGradients g;
    ATTN_RETURN_IF_ERROR(ElmanRnnBackward(params, x, forward, d_hidden, &g));
    AddRowSquares(g.d_x, &squares);
  }
  *norms = squares.cwiseSqrt().cast<float>();
  return Status::Ok();
}

Status AttentionJacobianNorms(const attn::AttentionConfig& config, const Matrix& x,
                              const attn::AttentionResult& forward, int i, Matrix* norms) {
  ATTN_RETURN_IF_ERROR(CheckRow(i, x.rows()));
  attn::AttentionInputs inputs;
  inputs.query = x;
  const Eigen::Index d_out = forward.output.cols();
  MatrixD squares = MatrixD::Zero(x.rows(), 1);
  for (Eigen::Index k = 0; k < d_out; ++k) {
    Matrix d_output = Matrix::Zero(x.rows(), d_out);
    d_output(i, k) = 1;
    attn::AttentionGradients g;
    ATTN_RETURN_IF_ERROR(attn::Backward(config, inputs, forward.parameters, forward, d_output, &g));
    AddRowSquares(g.d_query, &squares);  // self-attention: the query, key and value paths together
  }
  *norms = squares.cwiseSqrt().cast<float>();
  return Status::Ok();
}

Status ComputeRnn(const Sentence& sentence, const RnnState& state, RnnModel* out) {
  const Matrix& x = sentence.x;
  ATTN_RETURN_IF_ERROR(attn::validate::NonEmpty("sentence", x));
  RnnModel m;
  m.n = static_cast<int>(x.rows());
  m.target = state.target < 0 ? m.n - 1 : std::min(state.target, m.n - 1);
  m.source = std::min(state.source, m.n - 1);
  m.rnn_path = std::abs(m.target - m.source);
  const int d_in = static_cast<int>(x.cols()), d_h = state.hidden;
  const uint32_t seed = static_cast<uint32_t>(state.seed);

  ATTN_RETURN_IF_ERROR(SeededRnn(d_in, d_h, state.radius, state.linear, seed, &m.rnn, &m.seeded_radius));
  ATTN_RETURN_IF_ERROR(SpectralRadius(m.rnn.w_hh, &m.radius));
  ElmanRnnResult rnn;
  Status rnn_status = ElmanRnn(m.rnn, x, &rnn);
  if (rnn_status.ok()) rnn_status = RnnJacobianNorms(m.rnn, x, rnn, m.target, &m.rnn_gradient);
  if (rnn_status.code() == StatusCode::kNonFinite) {  // a linear RNN past float32: said, not hidden
    m.rnn_error = rnn_status.message();
    m.rnn_gradient = Matrix::Constant(m.n, 1, std::numeric_limits<float>::quiet_NaN());
  } else {
    ATTN_RETURN_IF_ERROR(rnn_status);
    m.hidden = rnn.hidden;
  }

  attn::AttentionConfig& config = m.attention_config;
  config.kernel = ViewKernel();
  config.project_inputs = true;
  config.head_dim = config.value_head_dim = d_h;
  config.seed = seed;
  attn::AttentionResult forward;
  ATTN_RETURN_IF_ERROR(attn::SelfAttention(config, x, &forward));
  ATTN_RETURN_IF_ERROR(AttentionJacobianNorms(config, x, forward, m.target, &m.attention_gradient));
  m.attention = forward.parameters;
  m.attention_output = forward.output;
  m.attention_weights = forward.heads[0].weights;

  const int i = m.target, j = m.source;
  m.rnn_at_source = m.rnn_gradient(j, 0);
  m.attention_at_source = m.attention_gradient(j, 0);
  m.rnn_ratio = m.rnn_gradient(i, 0) > 0 ? m.rnn_gradient(j, 0) / m.rnn_gradient(i, 0) : 0.0f;
  m.attention_ratio = m.attention_gradient(i, 0) > 0 ? m.attention_gradient(j, 0) / m.attention_gradient(i, 0) : 0.0f;
  if (!std::isfinite(m.rnn_ratio)) m.rnn_ratio = std::numeric_limits<float>::quiet_NaN();
  *out = std::move(m);
  return Status::Ok();
}

Status ComputeRnnCombination(const Sentence& sentence, const RnnState& state, RnnCombinationModel* out) {
  const Matrix& x = sentence.x;
  ATTN_RETURN_IF_ERROR(attn::validate::NonEmpty("sentence", x));
  ATTN_RETURN_IF_ERROR(attn::validate::KnownOption("layer", state.layer, 3));
  const int d_in = static_cast<int>(x.cols()), d_h = state.hidden, d_z = 2 * d_h;
  const uint32_t seed = static_cast<uint32_t>(state.seed);
  constexpr int kKernel = 3;
  // A layer of `kind` from c_in to d_h channels, seeded by its role (first or next).
  auto make = [&](SequenceLayerKind kind, int c_in, bool first, SequenceAttentionConfig* c) -> Status {
    c->layer = kind;
    const float limit = 1.0f / std::sqrt(static_cast<float>(c_in));
    switch (kind) {
      case SequenceLayerKind::kRnn:  // the first is ComputeRnn's RNN; the next its own seeds, the same ρ
        return SeededRnn(c_in, d_h, state.radius, state.linear, first ? seed : seed * 31u + 7u, &c->rnn, nullptr);
      case SequenceLayerKind::kConv1d: {
        const float conv_limit = 1.0f / std::sqrt(static_cast<float>(kKernel * c_in));
        const Matrix taps = SeededSymmetric(kKernel * c_in, d_h, conv_limit, seed, first ? kConv : kNextW);
        c->conv.taps.clear();
        for (int t = 0; t < kKernel; ++t) c->conv.taps.push_back(taps.middleRows(t * c_in, c_in));
        c->conv.bias = Matrix::Zero(1, d_h);
        return Status::Ok();
      }
      case SequenceLayerKind::kFullyConnected:
        c->dense.weight = SeededSymmetric(c_in, d_h, limit, seed, first ? kDense : kNextW);
        c->dense.bias = Matrix::Zero(1, d_h);
        return Status::Ok();
    }
    return Status(StatusCode::kUnknownOption, "layer: expected rnn, conv1d or fully_connected");
  };
  RnnCombinationModel m;
  m.layer = static_cast<SequenceLayerKind>(state.layer);
  SequenceAttentionConfig first, next;
  ATTN_RETURN_IF_ERROR(make(m.layer, d_in, true, &first));
  ATTN_RETURN_IF_ERROR(SequenceAttention(first, x, &m.stages));
  ATTN_RETURN_IF_ERROR(make(m.layer, d_z, false, &next));
  switch (m.layer) {
    case SequenceLayerKind::kRnn: {
      ElmanRnnResult r;
      ATTN_RETURN_IF_ERROR(ElmanRnn(next.rnn, m.stages.combined, &r));
      m.next = std::move(r.hidden);
      m.next_w = next.rnn.w_xh;
      m.next_w_hh = next.rnn.w_hh;
      break;
    }
    case SequenceLayerKind::kConv1d:
      ATTN_RETURN_IF_ERROR(Conv1d(next.conv, m.stages.combined, &m.next));
      m.next_w.resize(kKernel * d_z, d_h);
      for (int t = 0; t < kKernel; ++t) m.next_w.middleRows(t * d_z, d_z) = next.conv.taps[t];
      break;
    case SequenceLayerKind::kFullyConnected:
      ATTN_RETURN_IF_ERROR(FullyConnected(next.dense, m.stages.combined, &m.next));
      m.next_w = next.dense.weight;
      break;
  }
  *out = std::move(m);
  return Status::Ok();
}

double RnnSpeedLab::RnnFlops(int n) {
  const double d = kWidth;
  return static_cast<double>(n) * (2.0 * d * d + 2.0 * d * d);
}

double RnnSpeedLab::AttentionFlops(int n) {
  const double d = kWidth, len = n;
  return 2.0 * len * d * d * 4.0 + 4.0 * len * len * d;
}

attn::AttentionConfig RnnSpeedLab::AttentionLayer() {
  attn::AttentionConfig config;
  config.kernel = ViewKernel();
  config.project_inputs = config.project_output = true;
  config.seed = 3;
  return config;
}

const Matrix& RnnSpeedLab::Input(int n) {
  Matrix& x = inputs_[n];
  if (x.rows() != n) x = attn::SeededRandom(1, kTimedInput).UniformMatrix(n, kWidth, -1.0f, 1.0f);
  return x;
}

Status RnnSpeedLab::TimeRnn(int n, double min_ms, double* us) {
  if (rnn_.w_xh.size() == 0) ATTN_RETURN_IF_ERROR(SeededRnn(kWidth, kWidth, 0.9f, false, 3, &rnn_, nullptr));
  const Matrix& x = Input(n);
  return TimeRuns(min_ms, [&] { return ElmanRnnFast(rnn_, x, &output_); }, us);
}

Status RnnSpeedLab::TimeAttention(int n, double min_ms, double* us) {
  const attn::AttentionConfig config = AttentionLayer();
  if (attention_.wq.size() == 0) ATTN_RETURN_IF_ERROR(attn::InitializeParameters(config, kWidth, kWidth, kWidth, &attention_));
  attn::AttentionInputs inputs;
  inputs.query = Input(n);
  return TimeRuns(min_ms, [&] { return attn::ForwardOutput(config, inputs, attention_, &output_); }, us);
}

// [SECTION] RnnTimingJob

void RnnTimingJob::Start() {
  std::vector<std::pair<int, int>> points;
  for (int p = 0; p < kPoints; ++p) {
    points.push_back({0, RnnSpeedLab::kMinLog2N + p});
    points.push_back({1, RnnSpeedLab::kMinLog2N + p});
  }
  for (Matrix& us : us_per_token_) us = Matrix::Constant(kPoints, 1, std::numeric_limits<float>::quiet_NaN());
  sweep_.Start(points, kRepeats);  // small n first, both layers, round by round
}

bool RnnTimingJob::Next(Named* next) const {
  TimingSweep::Point point;
  if (!sweep_.Next(&point)) return false;
  *next = {{point.series == 0 ? TimingKind::kRnn : TimingKind::kRnnAttention, 0, 1 << point.log2_n, kBatchMs, false}, 0, point,
           true};
  return true;
}

void RnnTimingJob::Took(const Named& named, const std::string& error, const TimingResult& result) {
  const TimingSweep::Point& p = named.point;
  if (!error.empty()) return sweep_.Fail(p, error);
  if (!sweep_.Record(p, result.us)) return;  // from before "Time again"
  us_per_token_[p.series](p.log2_n - RnnSpeedLab::kMinLog2N, 0) =
      static_cast<float>(sweep_.samples(p.series, p.log2_n).Median() / (1 << p.log2_n));
}

}  // namespace lessons
