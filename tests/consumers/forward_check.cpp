// What every consumer project builds (tests/consumers/*/CMakeLists.txt): one head of
// Y = softmax(X Xᵀ / √d) X on a (3, 2) input through attn::engine, on every kernel this CPU runs,
// against the same formula computed here in double. Exit code 0 when every value is within the
// float32 error bound below.
#include <cmath>
#include <cstdio>

#include "attn/attention.h"

namespace {

constexpr int kRows = 3;  // n tokens
constexpr int kCols = 2;  // d
// Dyadic values: every product x_i·x_j and every 2-term sum is exact in float, so the only rounding
// in the scores is the scale 1/√2.
constexpr double kX[kRows][kCols] = {{1.0, 0.5}, {-1.0, 2.0}, {0.25, -0.75}};

// Y (3, 2) in double, and for each entry the bound on a float32 result's error.
//
// With u = 2⁻²⁴ and S = max |s_ij| (here 5/√2): a score s = (x_i·x_j)·(1/√2) is off by at most
// 2u|s| (the scale and the product), or 3uS where a fused kernel rounds each scaled x_i first (scores
// in log2 units: u Σ_t |x_it x_jt| / √2 ≤ uS by Cauchy–Schwarz); z = s − max_j s by u(4S + |z|) ≤ 6Su
// (or, as a shift common to the row cancels in the softmax, by s's own error and the subtraction's:
// u(3S + |z|) ≤ 5Su in the log2 form); exp (at most 2 ulp, so
// 4u, in every kernel: engine/src/kernels/simd/fast_exp.h) adds 4u; the sum of three and the
// division add 3u; so each weight is within (12S + 11)u relatively, and Y_ij = Σ_k w_ik x_kj
// within (12S + 14)u Σ_k w_ik |x_kj|. Twice that covers a fused kernel's running-max rescaling,
// one more exp per step.
void Expected(double y[kRows][kCols], double bound[kRows][kCols]) {
  const double u = std::ldexp(1.0, -24);
  double s[kRows][kRows];
  double s_max_abs = 0;
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kRows; ++j) {
      s[i][j] = (kX[i][0] * kX[j][0] + kX[i][1] * kX[j][1]) / std::sqrt(double(kCols));
      s_max_abs = std::fmax(s_max_abs, std::fabs(s[i][j]));
    }
  }
  const double relative = 2 * (12 * s_max_abs + 14) * u;
  for (int i = 0; i < kRows; ++i) {
    double row_max = s[i][0];
    for (int j = 1; j < kRows; ++j) row_max = std::fmax(row_max, s[i][j]);
    double w[kRows], sum = 0;
    for (int j = 0; j < kRows; ++j) sum += w[j] = std::exp(s[i][j] - row_max);
    for (int c = 0; c < kCols; ++c) {
      y[i][c] = 0;
      double magnitude = 0;
      for (int j = 0; j < kRows; ++j) {
        y[i][c] += w[j] / sum * kX[j][c];
        magnitude += w[j] / sum * std::fabs(kX[j][c]);
      }
      bound[i][c] = relative * magnitude;
    }
  }
}

// 0 when `got` is (3, 2) and within the bound everywhere; otherwise says where and returns 1.
int Compare(const char* what, const attn::Matrix& got) {
  if (got.rows() != kRows || got.cols() != kCols) {
    std::printf("%s: expected a (3, 2) output, got (%ld, %ld)\n", what, long(got.rows()),
                long(got.cols()));
    return 1;
  }
  double y[kRows][kCols], bound[kRows][kCols];
  Expected(y, bound);
  int failures = 0;
  for (int i = 0; i < kRows; ++i) {
    for (int c = 0; c < kCols; ++c) {
      const double error = std::fabs(double(got(i, c)) - y[i][c]);
      if (!(error <= bound[i][c])) {
        std::printf("%s: Y(%d, %d) = %.9g, expected %.9g (error %.3g > bound %.3g)\n", what, i, c,
                    double(got(i, c)), y[i][c], error, bound[i][c]);
        ++failures;
      }
    }
  }
  return failures > 0 ? 1 : 0;
}

}  // namespace

int main() {
  attn::AttentionInputs inputs;
  inputs.query = attn::Matrix(kRows, kCols);
  for (int i = 0; i < kRows; ++i)
    for (int c = 0; c < kCols; ++c) inputs.query(i, c) = float(kX[i][c]);
  attn::AttentionConfig config;  // one head, scaled dot, softmax, no projections: self-attention

  int failures = 0;
  attn::AttentionResult result;
  attn::Status status = attn::Forward(config, inputs, &result);
  if (!status.ok()) {
    std::printf("Forward: %s\n", status.ToString().c_str());
    return 1;
  }
  failures += Compare("Forward (eigen)", result.output);

  // Every kernel of the library: on x86-64 the avx2 and avx512 objects, each with its own flags.
  for (attn::KernelId kernel : attn::AvailableKernels()) {
    config.kernel = kernel;
    attn::Matrix y;
    status = attn::ForwardOutput(config, inputs, attn::AttentionParameters(), &y);
    const char* name = attn::KernelName(kernel);
    if (!status.ok()) {
      std::printf("ForwardOutput (%s): %s\n", name, status.ToString().c_str());
      ++failures;
      continue;
    }
    failures += Compare(name, y);
  }
#if defined(__x86_64__)
  // The kernels this CPU can run must be in the library (kernel_registry_x86.cpp's conditions).
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      !attn::KernelAvailable(attn::KernelId::kAvx2)) {
    std::printf("the CPU has AVX2 but the library offers no avx2 kernel\n");
    ++failures;
  }
  if (__builtin_cpu_supports("avx512f") && !attn::KernelAvailable(attn::KernelId::kAvx512)) {
    std::printf("the CPU has AVX-512 but the library offers no avx512 kernel\n");
    ++failures;
  }
#endif
  std::printf("kernels: %s; %s\n", attn::AvailableKernelNames().c_str(),
              failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
