// The training models' forward and backward passes (shapes: attn/train/model.h), written once for
// float and double; the attention layer is the engine's, through EngineAttention (model_support.h).
#include "attn/train/model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/positions.h"
#include "attn/seeded_random.h"
#include "model_support.h"

namespace attn::train {
namespace {

// [SECTION] Initialisation
Matrix Uniform(uint32_t seed, uint32_t stream, Eigen::Index rows, Eigen::Index cols) {
  SeededRandom rng(seed, stream);
  return rng.SymmetricMatrix(rows, cols, 1.0f / std::sqrt(static_cast<float>(rows)));
}

}  // namespace

const char* ModelKindName(ModelKind kind) {
  return kind == ModelKind::kTransformer ? "transformer" : kind == ModelKind::kCnn ? "cnn" : "unknown";
}

Status ValidateModelConfig(const ModelConfig& c) {
  const bool cnn = c.kind == ModelKind::kCnn;
  const std::string model = ModelKindName(cnn ? ModelKind::kCnn : ModelKind::kTransformer);
  if (c.kind != ModelKind::kTransformer && !cnn)
    return Status(StatusCode::kUnknownOption, "model kind: expected transformer or cnn");
  if (c.vocab < 2 || c.vocab > 65536) return OutOfRange(model + ": vocab", c.vocab, "2–65536");
  if (c.classes < 2 || c.classes > 65536) return OutOfRange(model + ": classes", c.classes, "2–65536");
  if (c.seq_len < 1 || c.seq_len > 256) return OutOfRange(model + ": seq_len", c.seq_len, "1–256");
  if (c.d_model < 1 || c.d_model > 512) return OutOfRange(model + ": d_model", c.d_model, "1–512");
  if (cnn) {
    if (c.layers < 1 || c.layers > 4) return OutOfRange("cnn: layers", c.layers, "1–4");
    if (c.kernel_size < 1 || c.kernel_size > 15) return OutOfRange("cnn: kernel_size", c.kernel_size, "1–15");
    return Status::Ok();
  }
  if (c.layers < 1 || c.layers > 3) return OutOfRange("transformer: layers", c.layers, "1–3");
  if (c.heads < 1 || c.heads > 8) return OutOfRange("transformer: heads", c.heads, "1–8");
  if (c.head_dim < 0 || c.head_dim > 256) return OutOfRange("transformer: head_dim", c.head_dim, "0–256 (0: d_model / heads)");
  if (c.head_dim == 0 && c.d_model % c.heads)
    return Status(StatusCode::kShapeMismatch, "transformer: d_model must be a multiple of heads (got d_model " +
                                                  std::to_string(c.d_model) + ", heads " + std::to_string(c.heads) +
                                                  "), or head_dim set");
  if (c.positions == Positions::kRope && HeadDim(c) % 2)
    return Status(StatusCode::kShapeMismatch, "transformer: RoPE needs an even head width (got " +
                                                  std::to_string(HeadDim(c)) + ")");
  if (c.positions < Positions::kNone || c.positions >= Positions::kCount)
    return Status(StatusCode::kUnknownOption, "transformer: positions: expected none, learned, sinusoidal or rope");
  return Status::Ok();
}

int HeadDim(const ModelConfig& c) { return c.head_dim > 0 ? c.head_dim : c.d_model / std::max(1, c.heads); }

AttentionConfig LayerAttentionConfig(const ModelConfig& c) {
  AttentionConfig a;
  a.num_heads = c.heads;
  a.head_dim = a.value_head_dim = HeadDim(c);
  a.project_inputs = a.project_output = a.use_bias = true;
  a.causal = c.causal;
  if (!c.scaled) a.scale = 1.0f;
  if (c.sparsemax) a.normalizer = Normalizer::kSparsemax;
  a.position = c.positions == Positions::kRope ? PositionEncoding::kRope : PositionEncoding::kNone;
  a.kernel = KernelId::kEigen;
  return a;
}

ModelParameters InitializeModel(const ModelConfig& c) {
  ModelParameters p;
  const int d = c.d_model;
  // One stream per matrix (streams 0, 1, 100 + 2l, 200 + l, 300): adding a layer never changes the others.
  p.wte = SeededRandom(c.seed, 0).NormalMatrix(c.vocab, d);
  if (c.kind == ModelKind::kTransformer && c.positions == Positions::kLearned)
    p.wpe = SeededRandom(c.seed, 1).NormalMatrix(c.seq_len, d);
  const Matrix zeros = Matrix::Zero(1, d), ones = Matrix::Ones(1, d);
  if (c.kind == ModelKind::kTransformer) {
    for (int l = 0; l < c.layers; ++l) {
      BlockParametersT<float> b;
      if (c.layer_norm) b.ln1_gamma = ones, b.ln1_beta = zeros;
      AttentionConfig a = LayerAttentionConfig(c);
      a.seed = c.seed * 1000003u + static_cast<uint32_t>(l);
      InitializeParameters(a, d, d, d, &b.attention);  // the engine's seeded rule
      for (Matrix* bias : {&b.attention.bq, &b.attention.bk, &b.attention.bv, &b.attention.bo}) bias->setZero();
      if (c.mlp) {
        if (c.layer_norm) b.ln2_gamma = ones, b.ln2_beta = zeros;
        b.fc_w = Uniform(c.seed, 100 + 2 * l, d, 4 * d);
        b.fc_b = Matrix::Zero(1, 4 * d);
        b.proj_w = Uniform(c.seed, 101 + 2 * l, 4 * d, d);
        b.proj_b = zeros;
      }
      p.blocks.push_back(std::move(b));
    }
    if (c.layer_norm) p.lnf_gamma = ones, p.lnf_beta = zeros;
  } else {
    for (int l = 0; l < c.layers; ++l)
      p.convs.push_back({Uniform(c.seed, 200 + l, c.kernel_size * d, d), zeros});
  }
  p.out_w = Uniform(c.seed, 300, d, c.classes);
  p.out_b = Matrix::Zero(1, c.classes);
  return p;
}

int64_t ParameterCount(const ModelConfig& c) {
  int64_t count = 0;
  const ModelParameters p = InitializeModel(c);
  ForEachParameter(p, [&](const std::string& name, const Matrix& m) {
    if (c.train_embedding || name != "wte") count += m.size();
  });
  return count;
}

template <typename T>
ModelParametersT<T> ZerosLike(const ModelParametersT<T>& p, bool with_embedding) {
  ModelParametersT<T> z;
  z.blocks.resize(p.blocks.size());
  z.convs.resize(p.convs.size());
  ForEachParameterPair(p, z, [&](const std::string& name, const Mat<T>& from, Mat<T>& to) {
    if (with_embedding || name != "wte") to.setZero(from.rows(), from.cols());
  });
  return z;
}

ModelParametersD ToDouble(const ModelParameters& p) {
  ModelParametersD d;
  d.blocks.resize(p.blocks.size());
  d.convs.resize(p.convs.size());
  ForEachParameterPair(p, d, [](const std::string&, const Matrix& from, MatrixD& to) { to = from.cast<double>(); });
  return d;
}

Status ValidateBatch(const ModelConfig& c, const Batch& batch) {
  const size_t rows = static_cast<size_t>(batch.size) * static_cast<size_t>(batch.seq_len);
  if (batch.size < 1) return OutOfRange("batch: size", batch.size, "≥ 1");
  if (batch.seq_len < 1 || batch.seq_len > c.seq_len)
    return Status(StatusCode::kShapeMismatch, "batch: seq_len: expected 1–" + std::to_string(c.seq_len) +
                                                  " (the model's longest), got " + std::to_string(batch.seq_len));
  const auto entries = [&](const char* what, size_t got) {
    return Status(StatusCode::kShapeMismatch, std::string("batch: ") + what + ": expected " + std::to_string(rows) +
                                                  " entries (B·T), got " + std::to_string(got));
  };
  if (batch.ids.size() != rows) return entries("ids", batch.ids.size());
  if (batch.targets.size() != rows) return entries("targets", batch.targets.size());
  if (batch.weights.size() != rows) return entries("weights", batch.weights.size());
  for (size_t r = 0; r < rows; ++r) {
    if (batch.ids[r] < 0 || batch.ids[r] >= c.vocab) return OutOfRange("batch: ids[" + std::to_string(r) + "]", batch.ids[r], "in [0, vocab)");
    if (!(batch.weights[r] >= 0 && std::isfinite(batch.weights[r])))
      return Status(StatusCode::kOutOfRange, "batch: weights[" + std::to_string(r) + "]: expected finite and ≥ 0");
    if (batch.weights[r] > 0 && (batch.targets[r] < 0 || batch.targets[r] >= c.classes))
      return OutOfRange("batch: targets[" + std::to_string(r) + "]", batch.targets[r], "in [0, classes)");
  }
  return Status::Ok();
}

// [SECTION] Forward
template <typename T>
Status ModelForward(const ModelConfig& c, const ModelParametersT<T>& p, const Batch& batch, ActivationsT<T>* acts) {
  ATTN_RETURN_IF_ERROR(ValidateModelConfig(c));
  ATTN_RETURN_IF_ERROR(ValidateBatch(c, batch));
  const int seq = batch.seq_len;
  ActivationsT<T>& a = *acts;
  EmbeddingForward<T>(batch.ids, seq, p.wte, p.wpe, &a.x0);
  if (c.kind == ModelKind::kTransformer && c.positions == Positions::kSinusoidal) {
    const Mat<T> pe = SinusoidalEncoding<T>(seq, c.d_model, 0, T(10000));
    for (Eigen::Index r = 0; r < a.x0.rows(); ++r) a.x0.row(r) += pe.row(r % seq);
  }
  Mat<T> x = a.x0;  // (R, d) the stream
  if (c.kind == ModelKind::kTransformer) {
    const AttentionConfig attention = LayerAttentionConfig(c);
    a.blocks.resize(p.blocks.size());
    for (size_t l = 0; l < p.blocks.size(); ++l) {
      const BlockParametersT<T>& bp = p.blocks[l];
      BlockActivationsT<T>& ba = a.blocks[l];
      ba.x_in = x;
      if (c.layer_norm) LayerNormForward<T>(x, bp.ln1_gamma, bp.ln1_beta, &ba.ln1, &ba.ln1_mean, &ba.ln1_rstd);
      else ba.ln1 = x;
      ATTN_RETURN_IF_ERROR(AttentionSublayerForward<T>(attention, bp.attention, ba.ln1, batch.size, seq, &ba.attention, &x));
      ba.x_mid = x;
      if (!c.mlp) continue;
      if (c.layer_norm) LayerNormForward<T>(x, bp.ln2_gamma, bp.ln2_beta, &ba.ln2, &ba.ln2_mean, &ba.ln2_rstd);
      else ba.ln2 = x;
      LinearForward<T>(ba.ln2, bp.fc_w, bp.fc_b, &ba.fc);
      ReluForward<T>(ba.fc, &ba.act);
      Mat<T> proj;
      LinearForward<T>(ba.act, bp.proj_w, bp.proj_b, &proj);
      x += proj;
    }
  } else {
    a.conv_in.resize(p.convs.size());
    a.conv_pre.resize(p.convs.size());
    for (size_t l = 0; l < p.convs.size(); ++l) {
      a.conv_in[l] = x;
      Conv1dForward<T>(x, seq, c.kernel_size, c.causal, p.convs[l].w, p.convs[l].b, &a.conv_pre[l]);
      ReluForward<T>(a.conv_pre[l], &x);
    }
    if (c.pooled) {
      Mat<T> pooled;
      RunningMaxForward<T>(x, seq, &pooled, &a.pool_argmax);
      x = std::move(pooled);
    }
  }
  a.final_in = x;
  const bool final_norm = c.kind == ModelKind::kTransformer && c.layer_norm;
  if (final_norm) LayerNormForward<T>(x, p.lnf_gamma, p.lnf_beta, &a.lnf, &a.lnf_mean, &a.lnf_rstd);
  else a.lnf = x;
  LinearForward<T>(a.lnf, p.out_w, p.out_b, &a.logits);
  ATTN_RETURN_IF_ERROR(CheckFinite("logits", a.logits));
  a.loss = CrossEntropyForward<T>(a.logits, batch.targets, batch.weights, &a.probs, &a.correct, &a.scored);
  return Status::Ok();
}

// [SECTION] Backward
template <typename T>
Status ModelBackward(const ModelConfig& c, const ModelParametersT<T>& p, const Batch& batch, const ActivationsT<T>& a,
                     ModelParametersT<T>* grads) {
  ATTN_RETURN_IF_ERROR(ValidateModelConfig(c));
  ATTN_RETURN_IF_ERROR(ValidateBatch(c, batch));
  const int seq = batch.seq_len;
  ModelParametersT<T>& g = *grads;
  g = ZerosLike(p, c.train_embedding);

  Mat<T> d_logits, d_lnf, d;
  CrossEntropyBackward<T>(a.probs, batch.targets, batch.weights, &d_logits);
  LinearBackward<T>(a.lnf, p.out_w, d_logits, &d_lnf, &g.out_w, &g.out_b);
  const bool final_norm = c.kind == ModelKind::kTransformer && c.layer_norm;
  if (final_norm) LayerNormBackward<T>(a.final_in, p.lnf_gamma, a.lnf_mean, a.lnf_rstd, d_lnf, &d, &g.lnf_gamma, &g.lnf_beta);
  else d = std::move(d_lnf);

  if (c.kind == ModelKind::kTransformer) {
    const AttentionConfig attention = LayerAttentionConfig(c);
    for (size_t l = p.blocks.size(); l-- > 0;) {
      const BlockParametersT<T>& bp = p.blocks[l];
      const BlockActivationsT<T>& ba = a.blocks[l];
      BlockParametersT<T>& bg = g.blocks[l];
      if (c.mlp) {  // x_out = x_mid + proj(relu(fc(ln2(x_mid)))): d flows on and into the branch
        Mat<T> d_relu, d_fc, d_ln2, d_mid;
        LinearBackward<T>(ba.act, bp.proj_w, d, &d_relu, &bg.proj_w, &bg.proj_b);
        ReluBackward<T>(ba.fc, d_relu, &d_fc);
        LinearBackward<T>(ba.ln2, bp.fc_w, d_fc, &d_ln2, &bg.fc_w, &bg.fc_b);
        if (c.layer_norm) LayerNormBackward<T>(ba.x_mid, bp.ln2_gamma, ba.ln2_mean, ba.ln2_rstd, d_ln2, &d_mid, &bg.ln2_gamma, &bg.ln2_beta);
        else d_mid = std::move(d_ln2);
        d += d_mid;
      }
      // x_mid = x_in + attention(ln1(x_in))
      Mat<T> d_ln1;
      ATTN_RETURN_IF_ERROR(AttentionSublayerBackward<T>(attention, bp.attention, ba.ln1, batch.size, seq, ba.attention, d,
                                                        &d_ln1, &bg.attention));
      Mat<T> d_in;
      if (c.layer_norm) LayerNormBackward<T>(ba.x_in, bp.ln1_gamma, ba.ln1_mean, ba.ln1_rstd, d_ln1, &d_in, &bg.ln1_gamma, &bg.ln1_beta);
      else d_in = std::move(d_ln1);
      d += d_in;
    }
  } else {
    if (c.pooled) {
      Mat<T> d_pool;
      RunningMaxBackward<T>(a.pool_argmax, d, &d_pool);
      d = std::move(d_pool);
    }
    for (size_t l = p.convs.size(); l-- > 0;) {
      Mat<T> d_pre, d_in;
      ReluBackward<T>(a.conv_pre[l], d, &d_pre);
      Conv1dBackward<T>(a.conv_in[l], seq, c.kernel_size, c.causal, p.convs[l].w, d_pre, &d_in, &g.convs[l].w, &g.convs[l].b);
      d = std::move(d_in);
    }
  }
  EmbeddingBackward<T>(batch.ids, seq, d, &g.wte, &g.wpe);  // sinusoidal positions are constants
  ATTN_RETURN_IF_ERROR(CheckFinite("gradient of the embeddings", d));
  return Status::Ok();
}

template ModelParametersT<float> ZerosLike(const ModelParametersT<float>&, bool);
template ModelParametersT<double> ZerosLike(const ModelParametersT<double>&, bool);
template Status ModelForward(const ModelConfig&, const ModelParametersT<float>&, const Batch&, ActivationsT<float>*);
template Status ModelForward(const ModelConfig&, const ModelParametersT<double>&, const Batch&, ActivationsT<double>*);
template Status ModelBackward(const ModelConfig&, const ModelParametersT<float>&, const Batch&,
                             const ActivationsT<float>&, ModelParametersT<float>*);
template Status ModelBackward(const ModelConfig&, const ModelParametersT<double>&, const Batch&,
                              const ActivationsT<double>&, ModelParametersT<double>*);

}  // namespace attn::train
