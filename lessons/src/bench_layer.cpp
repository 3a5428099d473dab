#include "lessons/bench_layer.h"

#include "attn/seeded_random.h"

namespace lessons {

attn::AttentionConfig BenchLayer::Config(attn::KernelId kernel) const {
  attn::AttentionConfig config;
  config.kernel = kernel;
  config.num_heads = heads;
  config.project_inputs = config.project_output = config.use_bias = true;
  config.seed = seed;
  return config;
}

Status BenchLayer::Parameters(attn::AttentionParameters* out) const {
  // The parameters do not depend on the kernel.
  return attn::InitializeParameters(Config(attn::KernelId::kReference), d_model, d_model, d_model, out);
}

Matrix BenchLayer::Input(int n, uint32_t input_seed) const {
  return attn::SeededRandom(input_seed).UniformMatrix(n, d_model, -1.0f, 1.0f);
}

double BenchLayer::Flops(int n) const {
  const double d = d_model, len = n;
  return 2.0 * len * d * d * 4.0 + 4.0 * len * len * d;
}

const char* BenchLayer::FlopsFormula() { return "2·n·d²·4 + 4·n²·d"; }

}  // namespace lessons
