// Adam and SGD (with momentum) over a model's parameters, with gradient clipping by global norm.
#pragma once

#include <string>
#include <unordered_map>

#include "attn/status.h"
#include "attn/train/model.h"

namespace attn::train {

enum class OptimizerKind { kAdam, kSgd, kCount };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kAdam;
  float learning_rate = 3e-3f;  // > 0
  float beta1 = 0.9f;           // Adam: first-moment decay, in [0, 1)
  float beta2 = 0.999f;         // Adam: second-moment decay, in [0, 1)
  float epsilon = 1e-8f;        // Adam: added to √v̂, > 0
  float momentum = 0.9f;        // SGD: in [0, 1); 0 is plain SGD
  float weight_decay = 0.0f;    // decoupled (AdamW-style) decay of the weight matrices, ≥ 0
  float clip_norm = 1.0f;       // rescale the gradients when their global L2 norm exceeds it; 0: never
};

// "optimizer: learning_rate: expected finite and > 0, got -1"
Status ValidateOptimizerConfig(const OptimizerConfig& config);

class Optimizer {
 public:
  explicit Optimizer(const OptimizerConfig& config) : config_(config) {}

  // One update of `params` from `grads` (a parameter whose gradient is empty is left alone):
  //   g ← g · min(1, clip / ‖g‖)                                  (‖·‖ over every gradient at once)
  //   Adam: m ← β₁m + (1−β₁)g,  v ← β₂v + (1−β₂)g²,  θ ← θ − lr·(m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε)
  //   SGD:  u ← μu + g,  θ ← θ − lr·u
  //   decay: θ ← θ − lr·λ·θ for matrices with more than one row (not biases, gains or vectors)
  // Returns the global norm before clipping.
  float Step(ModelParameters* params, const ModelParameters& grads);

  int steps() const { return steps_; }

  // A schedule's current rate (> 0, finite: not checked); the moments are kept.
  void set_learning_rate(float learning_rate) { config_.learning_rate = learning_rate; }
  float learning_rate() const { return config_.learning_rate; }

 private:
  struct Moments {
    Matrix m, v;  // Adam: both; SGD: m is the velocity
  };
  OptimizerConfig config_;
  int steps_ = 0;
  std::unordered_map<std::string, Moments> state_;  // by parameter name
};

}  // namespace attn::train
