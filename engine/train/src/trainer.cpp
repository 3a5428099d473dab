#include "attn/train/trainer.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "attn/limits.h"

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

// a·b and a + b saturated at INT64_MAX (every argument ≥ 0): sizes from a config cannot overflow.
int64_t Mul(int64_t a, int64_t b) { return b != 0 && a > INT64_MAX / b ? INT64_MAX : a * b; }
int64_t Add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

// "1.3 GB"
std::string Gigabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

// Floats, counted from the shapes model.h documents (R = S·T rows of S sequences, d = d_model, h
// heads of width d_k, C classes, V vocabulary, L layers): every term an upper bound of what the
// code keeps, then ×1.25 and 4 MiB for the allocator's rounding, the vectors and the batches' ints.
int64_t TrainingBytes(const TrainConfig& config) {
  const ModelConfig& m = config.model;
  const int64_t d = m.d_model, T = m.seq_len, C = m.classes, V = m.vocab, L = m.layers;
  const bool transformer = m.kind == ModelKind::kTransformer;
  const int64_t h = transformer ? m.heads : 0, dk = transformer ? HeadDim(m) : 0, hd = Mul(h, dk);
  const int64_t hidden = m.mlp ? 4 * d : 0;
  // Parameters: wte, wpe, per layer the attention's 4 weight matrices and biases (or a convolution),
  // LayerNorms, the MLP, the read-out.
  int64_t layer = transformer ? Add(Mul(4 * d, hd), Add(Mul(3, hd), 5 * d)) : Mul(Mul(m.kernel_size, d), d) + d;
  layer = Add(layer, Add(Mul(2 * d, hidden), hidden + d));
  const int64_t params = Add(Add(Mul(V + T, d), Mul(L, layer)), Add(Mul(d, C), C + 2 * d));
  // The parameters, the optimizer's two moments, a step's gradients and ZerosLike's start: 5 sets.
  int64_t floats = Mul(5, params);

  // One batch of S sequences forward: the stream's (R, d) copies (x0, x, final_in, lnf and per
  // layer x_in, ln1, x_mid, ln2), the MLP's (R, 4d) twice per layer, logits and probabilities.
  const int64_t S = std::max({config.batch_size, kEvaluationChunk, kMaxAttendSequences});
  const int64_t R = Mul(S, T);
  const int64_t stream = Mul(R, Add(Mul(4 + 4 * L, d), Add(Mul(2 * L, hidden), 2 * C + 2 + 4 * L)));
  // Per sequence and layer, Forward's result as the model keeps it: query/key/value in, output
  // (T, d) each, the concatenation (T, h d_k), each head's q, k, v (T, d_k) and 5 (T, T) matrices.
  const int64_t per_sequence = Add(Mul(T, 4 * d + 4 * hd), Mul(5 * h, T * T));
  const int64_t attention = Mul(Mul(S, L), per_sequence);
  // Beside them, one sequence's engine call at a time: Forward's or Backward's own intermediates and
  // completed parameters, the gradients of the 4 weights (as many again while they are added up).
  const int64_t call = Add(Mul(3, per_sequence), Mul(3, Mul(4 * d, hd)));
  // The backward pass's (R, d) and (R, 4d) temporaries and d_logits; Attend's copies of the weights.
  const int64_t backward = Mul(R, Add(6 * d, Add(2 * hidden, C)));
  const int64_t attend = Mul(Mul(kMaxAttendSequences, L), Add(Mul(h, T * T), T * d));
  floats = Add(floats, Add(Add(stream, attention), Add(call, std::max(backward, attend))));
  // A fixed training set: ids, targets, weights per position.
  const int64_t ints = Mul(Mul(config.train_set_size, T), 3);
  const int64_t bytes = Add(Mul(floats, 4), Mul(ints, 4));
  return Add(Add(bytes, bytes / 4), int64_t{4} << 20);
}

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
  const int64_t bytes = TrainingBytes(c);
  if (bytes > Limits::max_call_bytes)
    return Status(StatusCode::kResourceExhausted,
                  "d_model " + std::to_string(c.model.d_model) + ", heads " + std::to_string(c.model.heads) + ", layers " +
                      std::to_string(c.model.layers) + ", batch_size " + std::to_string(c.batch_size) +
                      (c.train_set_size ? ", train_set_size " + std::to_string(c.train_set_size) : std::string()) +
                      ": training needs an estimated " +
                      Gigabytes(bytes) + ", over the limit of " + Gigabytes(Limits::max_call_bytes) +
                      " (a smaller d_model or batch_size)");
  *resolved = c;
  return Status::Ok();
}

Status Trainer::Init(const TrainConfig& config) {
  TrainConfig c;
  ATTN_RETURN_IF_ERROR(ResolveTrainConfig(config, &c));
  config_ = c;
  params_ = InitializeModel(c.model);
  optimizer_ = Optimizer(c.optimizer);
  data_rng_ = SeededRandom(DataSeed(c), kTrainStream);
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

Batch HeldOutBatch(const TrainConfig& config, int sequences) {
  SeededRandom rng(DataSeed(config), kHeldOutStream);
  return SampleBatch(config.task, &rng, sequences);
}

Status Trainer::Evaluate(int sequences, Evaluation* out) const {
  if (params_.out_w.size() == 0) return Status(StatusCode::kEmptyInput, "trainer: Init was not called");
  if (sequences < 1 || sequences > 65536)
    return Status(StatusCode::kOutOfRange, "sequences: expected 1–65536, got " + std::to_string(sequences));
  // kEvaluationChunk sequences at a time from one stream: the same sequences as one batch of all.
  SeededRandom rng(DataSeed(config_), kHeldOutStream);
  double loss_sum = 0;  // Σ loss·scored over the chunks: the mean over every scored position
  int correct = 0, scored = 0;
  std::vector<double> position_sum;  // (T) Σ −log p(target) at each position
  std::vector<int> position_scored;
  for (int done = 0; done < sequences; done += kEvaluationChunk) {
    const Batch batch = SampleBatch(config_.task, &rng, std::min(kEvaluationChunk, sequences - done));
    Activations acts;
    ATTN_RETURN_IF_ERROR(ModelForward(config_.model, params_, batch, &acts));
    loss_sum += static_cast<double>(acts.loss) * acts.scored;
    correct += acts.correct, scored += acts.scored;
    position_sum.resize(static_cast<size_t>(batch.seq_len), 0.0);
    position_scored.resize(static_cast<size_t>(batch.seq_len), 0);
    for (Eigen::Index r = 0; r < acts.probs.rows(); ++r) {
      if (batch.weights[static_cast<size_t>(r)] <= 0) continue;
      const size_t t = static_cast<size_t>(r % batch.seq_len);
      // As CrossEntropyForward computes it, from the logits: log Σ exp(z − max) + max − z_target.
      const Eigen::VectorXd z = acts.logits.row(r).transpose().cast<double>();
      const double max = z.maxCoeff();
      position_sum[t] += std::log((z.array() - max).exp().sum()) + max - z(batch.targets[static_cast<size_t>(r)]);
      ++position_scored[t];
    }
  }
  out->position_loss.assign(position_sum.size(), 0.0f);
  for (size_t t = 0; t < position_sum.size(); ++t)
    if (position_scored[t]) out->position_loss[t] = static_cast<float>(position_sum[t] / position_scored[t]);
  out->position_scored = std::move(position_scored);
  out->loss = scored ? static_cast<float>(loss_sum / scored) : 0.0f;
  out->accuracy = scored ? static_cast<float>(correct) / scored : 0.0f;
  out->scored = scored;
  return Status::Ok();
}

Status Trainer::Attend(const Batch& batch, std::vector<std::vector<std::vector<Matrix>>>* weights,
                       std::vector<int>* predictions, std::vector<std::vector<Matrix>>* layer_inputs) const {
  if (params_.out_w.size() == 0) return Status(StatusCode::kEmptyInput, "trainer: Init was not called");
  if (batch.size > kMaxAttendSequences)  // TrainingBytes counts this many
    return Status(StatusCode::kOutOfRange, "batch: expected at most " + std::to_string(kMaxAttendSequences) +
                                               " sequences, got " + std::to_string(batch.size));
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
