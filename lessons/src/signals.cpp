#include "lessons/signals.h"

#include <cmath>
#include <string>

#include "attn/seeded_random.h"

namespace lessons {

Matrix SeededSequence(int n, int channels, uint32_t seed) {
  attn::SeededRandom random(seed);
  Matrix x = Matrix::Zero(std::max(n, 0), std::max(channels, 0));
  for (int c = 0; c < channels; ++c) {
    for (int k = 0; k < 3; ++k) {
      const float period = 4.0f + 16.0f * random.Unit();  // steps per cycle
      const float phase = 6.2831853f * random.Unit();
      const float amplitude = 0.25f + 0.2f * random.Unit();
      for (int i = 0; i < n; ++i) x(i, c) += amplitude * std::sin(6.2831853f * i / period + phase);
    }
    for (int i = 0; i < n; ++i) x(i, c) += 0.1f * random.Symmetric(1.0f);
  }
  return x;
}

Conv1dParams SeededConv1d(int kernel_size, int c_in, int c_out, uint32_t seed) {
  attn::SeededRandom random(seed);
  Conv1dParams p;
  for (int t = 0; t < kernel_size; ++t) p.taps.push_back(random.SymmetricMatrix(c_in, c_out, 1.0f));
  p.bias = random.SymmetricMatrix(1, c_out, 1.0f);
  return p;
}

Status AddSeededNoise(const Matrix& series, float sigma, uint32_t seed, Matrix* out) {
  if (!std::isfinite(sigma) || sigma < 0.0f)
    return Status(StatusCode::kOutOfRange, "sigma: expected finite and >= 0, got " + std::to_string(sigma));
  attn::SeededRandom random(seed);
  Matrix noisy = series;
  for (Eigen::Index i = 0; i < noisy.size(); ++i) noisy.data()[i] += random.ScaledNormalFloat(sigma);
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
