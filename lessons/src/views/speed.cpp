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

// [SECTION] SpeedJob

void SpeedJob::Show(attn::KernelId kernel, int n, bool live) {
  if (shown_kernel_ != static_cast<int>(kernel) || shown_n_ != n) live_ = {};
  shown_kernel_ = static_cast<int>(kernel), shown_n_ = n, shown_live_ = live;
}

void SpeedJob::StartSweep() {
  sweep_.clear();
  curves_ = {};
  std::vector<std::pair<int, int>> points;  // (kernel, log2 n), small n first
  for (attn::KernelId id : attn::AvailableKernels())
    for (int k = kSweepLo; k <= std::min(kSweepHi, SpeedLab::MaxLog2N(id)); ++k) points.push_back({static_cast<int>(id), k});
  sweep_batches_.Start(points, kSweepBatches);
}

int SpeedJob::heads_runs() const {
  int runs = 0;
  for (int r : heads_runs_) runs += r;
  return runs;
}

bool SpeedJob::Next(Named* next) const {
  if (peak_wanted_) {  // pressed: first
    *next = {{TimingKind::kPeak, 0, 0, kPeakMs, false}, kPeak, {}};
    return true;
  }
  TimingSweep::Point point;
  if (sweep_batches_.Next(&point)) {  // a sweep goes on whatever else would time
    *next = {{TimingKind::kSpeedLayer, point.series, 1 << point.log2_n, kSweepBatchMs, false}, kSweep, point, true};
    return true;
  }
  if (shown_kernel_ < 0) return false;
  const bool settling = live_.us.size() < (shown_live_ ? 1u : 3u) && !slow() && error_.empty();
  if (!settling && !(shown_live_ && !slow())) return false;
  *next = {{TimingKind::kSpeedLayer, shown_kernel_, shown_n_, kLiveBatchMs, true}, kLive, {}};
  return true;
}

void SpeedJob::Took(const Named& named, const std::string& error, const TimingResult& result) {
  error_ = error;
  if (named.purpose == kPeak) {
    peak_wanted_ = false;
    if (error.empty()) peak_gflops_ = result.gflops;
    return;
  }
  if (named.purpose == kLive) {
    if (!error.empty() || named.batch.kernel != shown_kernel_ || named.batch.n != shown_n_) return;  // another setting's
    live_.us.push_back(result.us);
    if (live_.us.size() > kLiveSamples) live_.us.erase(live_.us.begin());
    live_output_ = result.output;
    live_in_worker_ = result.in_worker;
    return;
  }
  const TimingSweep::Point& p = named.point;
  if (!error.empty()) return sweep_batches_.Fail(p, error);  // the point cannot be timed: on to the next
  if (!sweep_batches_.Record(p, result.us) || !sweep_batches_.complete(p.series, p.log2_n)) return;
  const TimingSamples& samples = sweep_batches_.samples(p.series, p.log2_n);
  const double us = samples.Median();
  sweep_[{p.series, p.log2_n}] = SpeedTiming{us, SpeedLab::Flops(named.batch.n) / us * 1e-3, samples};
  curves_ = CurvesOfSweep(sweep_, attn::AvailableKernels(), kSweepLo, kSweepHi);
}

bool SpeedJob::OwnDue() const {
  if (shown_kernel_ < 0 || heads_failed_) return false;
  // Past its first second, it goes on only beside live timing (which a slow forward pauses).
  return !heads_warmed_ || heads_ms_.us.size() < 3 || heads_batches_timed_ < kHeadsSettleBatches || (shown_live_ && !slow());
}

void SpeedJob::StepOwn() {
  HeadsRecomputeTiming t;
  // The first 20 ms are not timed: they seed the projections and let the browser tier the wasm up
  // (timed from the first call, the median came out twice as high).
  const Status status = heads_lab_.TimeHeadsRecompute(kHeadsTokens, kHeadsCount, heads_warmed_ ? kHeadsBatchMs : kHeadsWarmUpMs, &t);
  if (!status.ok()) {
    error_ = status.ToString(), heads_failed_ = true;
    return;
  }
  if (!heads_warmed_) {
    heads_warmed_ = true;
    return;
  }
  heads_ms_.us.push_back(t.ms), heads_runs_.push_back(t.runs), ++heads_batches_timed_;
  if (heads_ms_.us.size() > kLiveSamples) heads_ms_.us.erase(heads_ms_.us.begin()), heads_runs_.erase(heads_runs_.begin());
}

}  // namespace lessons
