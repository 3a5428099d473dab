// The layer `npm run bench` and the speed view time: one multi-head self-attention forward, fp32,
// batch 1, d_model 256, 4 heads, the projections Wq, Wk, Wv, Wo with biases seeded from 7. Defined
// here once: bench/attnlab_bench.cpp times it, and bench/run.mjs reads its size and FLOPs from
// `attnlab_bench layer`.
#pragma once

#include <cstdint>

#include "attn/attention.h"
#include "lessons/common.h"

namespace lessons {

struct BenchLayer {
  int d_model = 256;  // input and output width
  int heads = 4;      // of d_model / heads each
  uint32_t seed = 7;  // of Wq, Wk, Wv, Wo and their biases

  // Projections in and out with biases, `heads` heads, on `kernel`.
  attn::AttentionConfig Config(attn::KernelId kernel) const;
  // Every parameter of Config, seeded (to do once, outside any timing).
  Status Parameters(attn::AttentionParameters* out) const;
  // An input x: (n, d_model), uniform in [−1, 1), seeded with input_seed (attn::SeededRandom).
  Matrix Input(int n, uint32_t input_seed = 1) const;
  // FLOPs of one forward over n tokens, a multiply-add counting 2: 2·n·d²·4 for the four
  // projections plus 4·n²·d for QKᵀ and the weighted sum over all heads (softmax not counted).
  double Flops(int n) const;
  // "2·n·d²·4 + 4·n²·d", for reports.
  static const char* FlopsFormula();
};

}  // namespace lessons
