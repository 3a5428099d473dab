#include "lessons/views/speed.h"

#include <algorithm>
#include <chrono>

namespace lessons {
namespace {

constexpr int kDModel = SpeedLab::kDModel, kHeads = SpeedLab::kHeads;

attn::AttentionConfig BenchConfig(attn::KernelId kernel) {
  attn::AttentionConfig config;
  config.kernel = kernel;
  config.num_heads = kHeads;
  config.project_inputs = config.project_output = config.use_bias = true;
  config.seed = 7;
  return config;
}

}  // namespace

int SpeedLab::MaxLog2N(attn::KernelId kernel) {
  if (Fused(kernel)) return kMaxLog2N;
  return kernel == attn::KernelId::kReference ? 8 : 10;
}

bool SpeedLab::Fused(attn::KernelId kernel) { return attn::FusedKernelCovers(BenchConfig(kernel), attn::AttentionInputs()); }

double SpeedLab::Flops(int n) {
  const double d = kDModel, len = n;
  return 2.0 * len * d * d * 4.0 + 4.0 * len * len * d;
}

double SpeedLab::IntermediateBytes(int n) { return 5.0 * kHeads * n * static_cast<double>(n) * sizeof(float); }

Status SpeedLab::TimeBatch(attn::KernelId kernel, int n, double min_ms, double* us) {
  using Clock = std::chrono::steady_clock;
  const attn::AttentionConfig config = BenchConfig(kernel);
  if (params_.wq.size() == 0) ATTN_RETURN_IF_ERROR(attn::InitializeParameters(config, kDModel, kDModel, kDModel, &params_));
  Matrix& x = inputs_[n];
  if (x.rows() != n) x = Matrix::Random(n, kDModel);  // Eigen's fixed-seed generator: the same x every time
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

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace lessons
