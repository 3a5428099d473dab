#include "lessons/views/speed.h"

#include "lessons/bench_layer.h"
#include "attn/text.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace lessons {
namespace {

const BenchLayer kLayer;  // the layer of `npm run bench`

}  // namespace

int SpeedLab::MaxLog2N(attn::KernelId kernel) {
  if (Fused(kernel)) return kMaxLog2N;
  return kernel == attn::KernelId::kReference ? 8 : 10;
}

bool SpeedLab::Fused(attn::KernelId kernel) {
  return attn::FusedKernelCovers(kLayer.Config(kernel), attn::AttentionInputs());
}

double SpeedLab::MeasurePeakGflops(double seconds) { return attn::MeasurePeakGflops(attn::FastestKernel(), seconds); }

double SpeedLab::Flops(int n) { return kLayer.Flops(n); }

double SpeedLab::IntermediateBytes(int n) { return 5.0 * kLayer.heads * n * static_cast<double>(n) * sizeof(float); }

Status SpeedLab::TimeBatch(attn::KernelId kernel, int n, double min_ms, double* us) {
  using Clock = std::chrono::steady_clock;
  const attn::AttentionConfig config = kLayer.Config(kernel);
  if (params_.wq.size() == 0) ATTN_RETURN_IF_ERROR(kLayer.Parameters(&params_));
  Matrix& x = inputs_[n];
  if (x.rows() != n) x = kLayer.Input(n);  // seeded: the same x every time
  attn::AttentionInputs inputs;
  inputs.query = x;
  const auto start = Clock::now();
  int runs = 0;
  double ms = 0;
  do {
    ATTN_RETURN_IF_ERROR(attn::ForwardOutput(config, inputs, params_, &output_));
    ++runs;
    ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  } while (ms < min_ms);
  *us = 1000.0 * ms / runs;
  return Status::Ok();
}

Status SpeedLab::TimeHeadsRecompute(int tokens, int heads, double min_ms, HeadsRecomputeTiming* out) {
  using Clock = std::chrono::steady_clock;
  constexpr int kGloveWidth = 100;
  if (tokens < 1 || tokens > SentenceState::kMaxTokens)
    return Status(StatusCode::kOutOfRange, "tokens: expected 1.." + std::to_string(SentenceState::kMaxTokens) + ", got " +
                                               std::to_string(tokens));
  if (static_cast<int>(heads_sentence_.tokens.size()) != tokens) {
    heads_sentence_ = Sentence();
    for (int i = 0; i < tokens; ++i) heads_sentence_.tokens.push_back("w" + std::to_string(i));
    heads_sentence_.x = attn::HashEmbeddings(heads_sentence_.tokens, kGloveWidth);
    heads_sentence_.known.assign(tokens, true);
  }
  HeadsState state;
  state.trained = false;
  state.heads = heads;
  const auto start = Clock::now();
  int runs = 0;
  double ms = 0;
  do {
    ATTN_RETURN_IF_ERROR(ComputeHeads(heads_sentence_, state, nullptr, "", &heads_model_, &heads_seeded_));
    ++runs;
    ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  } while (ms < min_ms);
  out->ms = ms / runs;
  out->runs = runs;
  return Status::Ok();
}

SpeedCurves CurvesOfSweep(const SpeedSweep& sweep, const std::vector<attn::KernelId>& kernels, int lo, int hi) {
  SpeedCurves c;
  const int m = std::max(0, hi - lo + 1);
  c.log2_n.resize(m, 1);
  for (int k = 0; k < m; ++k) c.log2_n(k, 0) = static_cast<float>(lo + k);
  for (attn::KernelId id : kernels) {
    Matrix us = Matrix::Constant(m, 1, std::numeric_limits<float>::quiet_NaN());
    for (int k = 0; k < m; ++k) {
      const auto it = sweep.find({static_cast<int>(id), lo + k});
      if (it != sweep.end()) us(k, 0) = static_cast<float>(it->second.us);
    }
    c.us.push_back(std::move(us));
  }
  // Through the largest n any kernel measured (the n² part dominates there).
  for (int k = m - 1; k >= 0 && c.n_squared.size() == 0; --k)
    for (const Matrix& us : c.us)
      if (std::isfinite(us(k, 0))) {
        c.n_squared.resize(m, 1);
        for (int j = 0; j < m; ++j) c.n_squared(j, 0) = us(k, 0) * std::exp2(2.0f * static_cast<float>(j - k));
        break;
      }
  return c;
}

}  // namespace lessons
