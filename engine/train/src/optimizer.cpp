#include "attn/train/optimizer.h"

#include <cmath>

namespace attn::train {

Status ValidateOptimizerConfig(const OptimizerConfig& c) {
  const auto bad = [](const char* what, const char* expected, float got) {
    return Status(StatusCode::kOutOfRange,
                  std::string("optimizer: ") + what + ": expected " + expected + ", got " + std::to_string(got));
  };
  if (c.kind != OptimizerKind::kAdam && c.kind != OptimizerKind::kSgd)
    return Status(StatusCode::kUnknownOption, "optimizer: expected adam or sgd");
  if (!(std::isfinite(c.learning_rate) && c.learning_rate > 0)) return bad("learning_rate", "finite and > 0", c.learning_rate);
  if (!(c.beta1 >= 0 && c.beta1 < 1)) return bad("beta1", "in [0, 1)", c.beta1);
  if (!(c.beta2 >= 0 && c.beta2 < 1)) return bad("beta2", "in [0, 1)", c.beta2);
  if (!(std::isfinite(c.epsilon) && c.epsilon > 0)) return bad("epsilon", "finite and > 0", c.epsilon);
  if (!(c.momentum >= 0 && c.momentum < 1)) return bad("momentum", "in [0, 1)", c.momentum);
  if (!(std::isfinite(c.weight_decay) && c.weight_decay >= 0)) return bad("weight_decay", "finite and ≥ 0", c.weight_decay);
  if (!(std::isfinite(c.clip_norm) && c.clip_norm >= 0)) return bad("clip_norm", "finite and ≥ 0", c.clip_norm);
  return Status::Ok();
}

float Optimizer::Step(ModelParameters* params, const ModelParameters& grads) {
  double sum_squares = 0;
  ForEachParameter(grads, [&](const std::string&, const Matrix& g) { sum_squares += g.cast<double>().squaredNorm(); });
  const float norm = static_cast<float>(std::sqrt(sum_squares));
  const float clip = config_.clip_norm > 0 && norm > config_.clip_norm ? config_.clip_norm / norm : 1.0f;
  ++steps_;
  const float lr = config_.learning_rate;
  const float correction1 = 1.0f - std::pow(config_.beta1, static_cast<float>(steps_));
  const float correction2 = 1.0f - std::pow(config_.beta2, static_cast<float>(steps_));
  ForEachParameterPair(*params, grads, [&](const std::string& name, Matrix& theta, const Matrix& grad) {
    if (grad.size() == 0) return;  // fixed (e.g. a frozen embedding table)
    Moments& s = state_[name];
    if (s.m.size() == 0) s.m = Matrix::Zero(theta.rows(), theta.cols());
    if (config_.weight_decay > 0 && theta.rows() > 1) theta *= 1.0f - lr * config_.weight_decay;
    if (config_.kind == OptimizerKind::kSgd) {
      s.m = config_.momentum * s.m + clip * grad;
      theta -= lr * s.m;
      return;
    }
    if (s.v.size() == 0) s.v = Matrix::Zero(theta.rows(), theta.cols());
    s.m = config_.beta1 * s.m + (1 - config_.beta1) * clip * grad;
    s.v = config_.beta2 * s.v + (1 - config_.beta2) * (clip * grad).cwiseAbs2();
    theta.array() -= lr * (s.m.array() / correction1) / ((s.v.array() / correction2).sqrt() + config_.epsilon);
  });
  return norm;
}

}  // namespace attn::train
