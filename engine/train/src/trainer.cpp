#include "attn/train/trainer.h"

#include <string>

namespace attn::train {
namespace {

// Streams of the seed: the parameters use 0…, the data these (far apart, so they never meet).
constexpr uint32_t kTrainStream = 1u << 20;
constexpr uint32_t kHeldOutStream = (1u << 20) + 1;

// Sequence i of `set`, copied into row s of `batch`.
void CopySequence(const Batch& set, int i, Batch* batch, int s) {
  const size_t seq = set.seq_len, from = i * seq, to = s * seq;
  std::copy_n(set.ids.begin() + from, seq, batch->ids.begin() + to);
  std::copy_n(set.targets.begin() + from, seq, batch->targets.begin() + to);
  std::copy_n(set.weights.begin() + from, seq, batch->weights.begin() + to);
}

}  // namespace

TrainConfig DefaultTrainConfig(TaskKind task) {
  TrainConfig c;
  c.task = task;
  c.model = ConfigForTask(task, ModelConfig());
  c.model.mlp = false;  // attention only: the tasks need no more, and it trains twice as fast
  return c;
}

Status ResolveTrainConfig(const TrainConfig& config, TrainConfig* resolved) {
  TrainConfig c = config;
  ATTN_RETURN_IF_ERROR(ParseTask(TaskName(c.task), &c.task));  // rejects an out-of-range kind
  c.model = ConfigForTask(c.task, c.model);
  c.model.seed = c.seed;
  ATTN_RETURN_IF_ERROR(ValidateModelConfig(c.model));
  ATTN_RETURN_IF_ERROR(ValidateOptimizerConfig(c.optimizer));
  if (c.batch_size < 1 || c.batch_size > 1024)
    return Status(StatusCode::kOutOfRange, "batch_size: expected 1–1024, got " + std::to_string(c.batch_size));
  if (c.train_set_size < 0 || c.train_set_size > (1 << 20))
    return Status(StatusCode::kOutOfRange, "train_set_size: expected 0–1048576, got " + std::to_string(c.train_set_size));
  *resolved = c;
  return Status::Ok();
}

Status Trainer::Init(const TrainConfig& config) {
  TrainConfig c;
  ATTN_RETURN_IF_ERROR(ResolveTrainConfig(config, &c));
  config_ = c;
  params_ = InitializeModel(c.model);
  optimizer_ = Optimizer(c.optimizer);
  data_rng_ = SeededRandom(c.seed, kTrainStream);
  train_set_ = c.train_set_size > 0 ? SampleBatch(c.task, &data_rng_, c.train_set_size) : Batch();
  return Status::Ok();
}

Batch Trainer::NextBatch() {
  if (config_.train_set_size == 0) return SampleBatch(config_.task, &data_rng_, config_.batch_size);
  Batch b = train_set_;
  b.size = config_.batch_size;
  const size_t rows = static_cast<size_t>(b.size) * b.seq_len;
  b.ids.resize(rows), b.targets.resize(rows), b.weights.resize(rows);
  for (int s = 0; s < b.size; ++s)
    CopySequence(train_set_, static_cast<int>(data_rng_.Below(config_.train_set_size)), &b, s);
  return b;
}

Status Trainer::Step(StepStats* stats) {
  if (params_.out_w.size() == 0) return Status(StatusCode::kEmptyInput, "trainer: Init was not called");
  const Batch batch = NextBatch();
  Activations acts;
  ATTN_RETURN_IF_ERROR(ModelForward(config_.model, params_, batch, &acts));
  ModelParameters grads;
  ATTN_RETURN_IF_ERROR(ModelBackward(config_.model, params_, batch, acts, &grads));
  const float norm = optimizer_.Step(&params_, grads);
  stats->step = optimizer_.steps();
  stats->loss = acts.loss;
  stats->accuracy = acts.scored ? static_cast<float>(acts.correct) / acts.scored : 0.0f;
  stats->grad_norm = norm;
  return Status::Ok();
}

Status Trainer::Evaluate(int sequences, Evaluation* out) const {
  if (params_.out_w.size() == 0) return Status(StatusCode::kEmptyInput, "trainer: Init was not called");
  if (sequences < 1 || sequences > 65536)
    return Status(StatusCode::kOutOfRange, "sequences: expected 1–65536, got " + std::to_string(sequences));
  SeededRandom rng(config_.seed, kHeldOutStream);
  const Batch batch = SampleBatch(config_.task, &rng, sequences);
  Activations acts;
  ATTN_RETURN_IF_ERROR(ModelForward(config_.model, params_, batch, &acts));
  out->loss = acts.loss;
  out->accuracy = acts.scored ? static_cast<float>(acts.correct) / acts.scored : 0.0f;
  out->scored = acts.scored;
  return Status::Ok();
}

Status Trainer::Attend(const Batch& batch, std::vector<std::vector<std::vector<Matrix>>>* weights,
                       std::vector<int>* predictions, std::vector<std::vector<Matrix>>* layer_inputs) const {
  if (params_.out_w.size() == 0) return Status(StatusCode::kEmptyInput, "trainer: Init was not called");
  Activations acts;
  ATTN_RETURN_IF_ERROR(ModelForward(config_.model, params_, batch, &acts));
  weights->assign(batch.size, {});
  if (layer_inputs) layer_inputs->assign(batch.size, {});
  for (int b = 0; b < batch.size; ++b) {
    for (const auto& block : acts.blocks) {
      if (layer_inputs) (*layer_inputs)[b].push_back(block.ln1.middleRows(b * batch.seq_len, batch.seq_len));
      std::vector<Matrix> heads;
      for (const auto& h : block.attention[b].heads) heads.push_back(h.weights);
      (*weights)[b].push_back(std::move(heads));
    }
  }
  predictions->resize(acts.logits.rows());
  for (Eigen::Index r = 0; r < acts.logits.rows(); ++r) {
    Eigen::Index best = 0;
    acts.logits.row(r).maxCoeff(&best);
    (*predictions)[r] = static_cast<int>(best);
  }
  return Status::Ok();
}

}  // namespace attn::train
