// A seeded language model for the tests (lm_asset_test.cpp, lm_inference_test.cpp): InitializeLm's
// parameters moved off their initial values (so heads are not near-uniform and no row is zero), and
// the words "w0", "w1", … with the unknown word last.
#pragma once

#include <string>

#include "attn/seeded_random.h"
#include "attn/train/lm_inference.h"

namespace attn::train::testing {

// config.vocab words; every parameter + spread·N(0, 1) from SeededRandom(noise_seed).
inline LmModel SeededLm(const LmConfig& config, uint32_t noise_seed, float spread) {
  LmModel m;
  m.config = config;
  m.params = InitializeLm(config);
  SeededRandom rng(noise_seed);
  ForEachParameter(m.params, [&](const std::string&, Matrix& p) {
    for (Eigen::Index i = 0; i < p.size(); ++i) p.data()[i] += spread * static_cast<float>(rng.Normal());
  });
  for (int w = 0; w + 1 < config.vocab; ++w) m.vocabulary.push_back("w" + std::to_string(w));
  m.vocabulary.push_back(kLmUnknownWord);
  return m;
}

}  // namespace attn::train::testing
