#include "lessons/signals.h"

#include <cmath>
#include <random>
#include <string>

namespace lessons {
namespace {

// Uniform in [0, 1) from 24 bits of mt19937 (std distributions differ between libraries).
float Uniform(std::mt19937& gen) { return static_cast<float>(gen() >> 8) * (1.0f / 16777216.0f); }

Matrix UniformMatrix(int rows, int cols, std::mt19937& gen) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = 2.0f * Uniform(gen) - 1.0f;
  return m;
}

}  // namespace

Matrix SeededSequence(int n, int channels, uint32_t seed) {
  std::mt19937 gen(seed);
  Matrix x = Matrix::Zero(std::max(n, 0), std::max(channels, 0));
  for (int c = 0; c < channels; ++c) {
    for (int k = 0; k < 3; ++k) {
      const float period = 4.0f + 16.0f * Uniform(gen);  // steps per cycle
      const float phase = 6.2831853f * Uniform(gen);
      const float amplitude = 0.25f + 0.2f * Uniform(gen);
      for (int i = 0; i < n; ++i) x(i, c) += amplitude * std::sin(6.2831853f * i / period + phase);
    }
    for (int i = 0; i < n; ++i) x(i, c) += 0.1f * (2.0f * Uniform(gen) - 1.0f);
  }
  return x;
}

Conv1dParams SeededConv1d(int kernel_size, int c_in, int c_out, uint32_t seed) {
  std::mt19937 gen(seed);
  Conv1dParams p;
  for (int t = 0; t < kernel_size; ++t) p.taps.push_back(UniformMatrix(c_in, c_out, gen));
  p.bias = UniformMatrix(1, c_out, gen);
  return p;
}

Status AddSeededNoise(const Matrix& series, float sigma, uint32_t seed, Matrix* out) {
  if (!std::isfinite(sigma) || sigma < 0.0f)
    return Status(StatusCode::kOutOfRange, "sigma: expected finite and >= 0, got " + std::to_string(sigma));
  std::mt19937 gen(seed);
  Matrix noisy = series;
  for (Eigen::Index i = 0; i < noisy.size(); ++i) {
    const float u1 = 1.0f - Uniform(gen);  // in (0, 1]: log stays finite
    const float u2 = Uniform(gen);
    noisy.data()[i] += sigma * std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);
  }
  *out = std::move(noisy);
  return Status::Ok();
}

Status AddSeededRelativeNoise(const Matrix& series, float fraction, uint32_t seed, Matrix* out) {
  Matrix noise;
  ATTN_RETURN_IF_ERROR(AddSeededNoise(Matrix::Zero(series.rows(), series.cols()), fraction, seed, &noise));
  *out = series.array() * (1.0f + noise.array());
  return Status::Ok();
}

}  // namespace lessons
