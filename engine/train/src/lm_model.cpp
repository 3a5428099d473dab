// The language model's forward and backward passes (shapes: attn/train/lm_model.h), written once for
// float and double; the attention layer is the engine's, through EngineAttention (model_support.h).
#include "attn/train/lm_model.h"

#include <cmath>
#include <string>

#include "attn/seeded_random.h"
#include "model_support.h"

namespace attn::train {

Status ValidateLmConfig(const LmConfig& c) {
  if (c.vocab < 3 || c.vocab > 65536) return OutOfRange("lm: vocab", c.vocab, "3–65536 (the unknown word included)");
  if (c.seq_len < 1 || c.seq_len > 2048) return OutOfRange("lm: seq_len", c.seq_len, "1–2048");
  if (c.d_model < 2 || c.d_model > 2048) return OutOfRange("lm: d_model", c.d_model, "2–2048");
  if (c.layers < 1 || c.layers > 48) return OutOfRange("lm: layers", c.layers, "1–48");
  if (c.heads < 1 || c.heads > 64) return OutOfRange("lm: heads", c.heads, "1–64");
  if (c.d_model % c.heads)
    return Status(StatusCode::kShapeMismatch, "lm: d_model must be a multiple of heads (got d_model " +
                                                  std::to_string(c.d_model) + ", heads " + std::to_string(c.heads) + ")");
  if (c.positions != Positions::kLearned && c.positions != Positions::kRope)
    return Status(StatusCode::kUnknownOption, "lm: positions: expected learned or rope");
  if (c.positions == Positions::kRope && (c.d_model / c.heads) % 2)
    return Status(StatusCode::kShapeMismatch,
                  "lm: RoPE needs an even head width (got " + std::to_string(c.d_model / c.heads) + ")");
  if (!(c.layer_norm_eps > 0 && c.layer_norm_eps < 1))
    return Status(StatusCode::kOutOfRange, "lm: layer_norm_eps: expected in (0, 1), got " + std::to_string(c.layer_norm_eps));
  if (c.activation != LmActivation::kGeluTanh && c.activation != LmActivation::kGeluErf)
    return Status(StatusCode::kUnknownOption, "lm: activation: expected gelu (tanh) or gelu (erf)");
  const int64_t bytes = 4 * LmParameterCount(c);
  if (bytes > kLmMaxParameterBytes)
    return Status(StatusCode::kResourceExhausted, "lm: parameters: would need " + std::to_string(bytes) +
                                                      " bytes in float, more than the " +
                                                      std::to_string(kLmMaxParameterBytes) + " allowed");
  return CheckKernelAvailable(c.kernel);
}

int64_t LmParameterCount(const LmConfig& c) {
  const int64_t d = c.d_model, v = c.vocab, t = c.seq_len;
  // per block: 4 (d, d) + 4 biases, ln1/ln2 (4 d), fc (d·4d + 4d), proj (4d·d + d)
  const int64_t block = 4 * d * d + 4 * d + 4 * d + 8 * d * d + 4 * d + d;
  return v * d + (c.positions == Positions::kLearned ? t * d : 0) + c.layers * block + 2 * d + v;
}

ModelConfig AsModelConfig(const LmConfig& c) {
  ModelConfig m;
  m.kind = ModelKind::kTransformer;
  m.vocab = m.classes = c.vocab;
  m.seq_len = c.seq_len;
  m.d_model = c.d_model;
  m.layers = c.layers;
  m.heads = c.heads;
  m.positions = c.positions;
  m.layer_norm = m.mlp = m.causal = true;
  m.seed = c.seed;
  return m;
}

ModelParameters InitializeLm(const LmConfig& c) {
  ModelParameters p;
  const int d = c.d_model;
  const float residual_scale = 1.0f / std::sqrt(2.0f * static_cast<float>(c.layers));
  // One stream per matrix (0, 1, 100 + 2l, 101 + 2l): adding a layer never changes the others.
  p.wte = 0.02f * SeededRandom(c.seed, 0).NormalMatrix(c.vocab, d);
  if (c.positions == Positions::kLearned) p.wpe = 0.02f * SeededRandom(c.seed, 1).NormalMatrix(c.seq_len, d);
  const Matrix zeros = Matrix::Zero(1, d), ones = Matrix::Ones(1, d);
  for (int l = 0; l < c.layers; ++l) {
    BlockParametersT<float> b;
    b.ln1_gamma = b.ln2_gamma = ones;
    b.ln1_beta = b.ln2_beta = zeros;
    AttentionConfig a = LayerAttentionConfig(AsModelConfig(c));
    a.seed = c.seed * 1000003u + static_cast<uint32_t>(l);
    InitializeParameters(a, d, d, d, &b.attention);  // the engine's seeded rule
    b.attention.wo *= residual_scale;
    for (Matrix* bias : {&b.attention.bq, &b.attention.bk, &b.attention.bv, &b.attention.bo}) bias->setZero();
    b.fc_w = SeededRandom(c.seed, 100 + 2 * l).SymmetricMatrix(d, 4 * d, 1.0f / std::sqrt(static_cast<float>(d)));
    b.fc_b = Matrix::Zero(1, 4 * d);
    b.proj_w = residual_scale *
               SeededRandom(c.seed, 101 + 2 * l).SymmetricMatrix(4 * d, d, 1.0f / std::sqrt(static_cast<float>(4 * d)));
    b.proj_b = zeros;
    p.blocks.push_back(std::move(b));
  }
  p.lnf_gamma = ones;
  p.lnf_beta = zeros;
  p.out_b = Matrix::Zero(1, c.vocab);
  return p;
}

namespace {

// LmShapes's shapes without their floats: CheckLmShapes runs before every LmAdvance (a generated
// word), where building GPT-2 small's matrices to compare shapes allocated and copied ~0.5 GB.
struct Shape {
  Eigen::Index r = 0, c = 0;
  Eigen::Index rows() const { return r; }
  Eigen::Index cols() const { return c; }
  Eigen::Index size() const { return r * c; }
};
struct ShapeAttention {
  Shape wq, wk, wv, wo, bq, bk, bv, bo;
};
struct ShapeBlock {
  Shape ln1_gamma, ln1_beta;
  ShapeAttention attention;
  Shape ln2_gamma, ln2_beta, fc_w, fc_b, proj_w, proj_b;
};
struct ShapeConv {
  Shape w, b;
};
struct ShapeModel {  // ModelParametersT's fields, as ForEachParameterPair visits them
  Shape wte, wpe;
  std::vector<ShapeBlock> blocks;
  std::vector<ShapeConv> convs;
  Shape lnf_gamma, lnf_beta, out_w, out_b;
};

ShapeModel LmShapeModel(const LmConfig& c) {
  ShapeModel p;
  const Eigen::Index d = c.d_model;
  p.wte = {c.vocab, d};
  if (c.positions == Positions::kLearned) p.wpe = {c.seq_len, d};
  ShapeBlock b;
  b.ln1_gamma = b.ln1_beta = b.ln2_gamma = b.ln2_beta = b.proj_b = {1, d};
  b.attention.wq = b.attention.wk = b.attention.wv = b.attention.wo = {d, d};
  b.attention.bq = b.attention.bk = b.attention.bv = b.attention.bo = {1, d};
  b.fc_w = {d, 4 * d};
  b.fc_b = {1, 4 * d};
  b.proj_w = {4 * d, d};
  p.blocks.assign(static_cast<size_t>(c.layers), b);
  p.lnf_gamma = p.lnf_beta = {1, d};
  p.out_b = {1, c.vocab};
  return p;
}

}  // namespace

ModelParameters LmShapes(const LmConfig& c) {
  const ShapeModel shapes = LmShapeModel(c);
  ModelParameters p;
  p.blocks.resize(shapes.blocks.size());
  ForEachParameterPair(shapes, p, [](const std::string&, const Shape& s, Matrix& m) { m.resize(s.r, s.c); });
  return p;
}

template <typename T>
Status CheckLmShapes(const LmConfig& c, const ModelParametersT<T>& params) {
  ATTN_RETURN_IF_ERROR(ValidateLmConfig(c));
  const ShapeModel expected = LmShapeModel(c);
  if (expected.blocks.size() != params.blocks.size())
    return Status(StatusCode::kShapeMismatch, "lm: blocks: expected " + std::to_string(expected.blocks.size()) +
                                                  ", got " + std::to_string(params.blocks.size()));
  Status status = Status::Ok();
  ForEachParameterPair(expected, params, [&](const std::string& name, const Shape& want, const Mat<T>& got) {
    if (status.ok() && (want.rows() != got.rows() || want.cols() != got.cols()))
      status = Status(StatusCode::kShapeMismatch, "lm: " + name + ": expected (" + std::to_string(want.rows()) + ", " +
                                                      std::to_string(want.cols()) + "), got (" +
                                                      std::to_string(got.rows()) + ", " + std::to_string(got.cols()) + ")");
  });
  return status;
}

// [SECTION] Forward
template <typename T>
Status LmForward(const LmConfig& c, const ModelParametersT<T>& p, const Batch& batch, LmActivationsT<T>* acts) {
  ATTN_RETURN_IF_ERROR(ValidateLmConfig(c));
  const ModelConfig model = AsModelConfig(c);
  ATTN_RETURN_IF_ERROR(ValidateBatch(model, batch));
  ATTN_RETURN_IF_ERROR(CheckLmShapes(c, p));
  const int seq = batch.seq_len;
  const T eps = static_cast<T>(c.layer_norm_eps);
  const bool erf = c.activation == LmActivation::kGeluErf;
  LmActivationsT<T>& a = *acts;
  Mat<T> x;  // (R, d) the stream
  EmbeddingForward<T>(batch.ids, seq, p.wte, p.wpe, &a.x0);
  x = a.x0;
  AttentionConfig attention = LayerAttentionConfig(model);
  attention.kernel = c.kernel;
  a.blocks.resize(p.blocks.size());
  for (size_t l = 0; l < p.blocks.size(); ++l) {
    const BlockParametersT<T>& bp = p.blocks[l];
    BlockActivationsT<T>& ba = a.blocks[l];
    ba.x_in = x;
    LayerNormForward<T>(x, bp.ln1_gamma, bp.ln1_beta, &ba.ln1, &ba.ln1_mean, &ba.ln1_rstd, eps);
    ATTN_RETURN_IF_ERROR(AttentionSublayerForward<T>(attention, bp.attention, ba.ln1, batch.size, seq, &ba.attention, &x));
    ba.x_mid = x;
    LayerNormForward<T>(x, bp.ln2_gamma, bp.ln2_beta, &ba.ln2, &ba.ln2_mean, &ba.ln2_rstd, eps);
    Mat<T> mlp;
    GeluMlpForward<T>(ba.ln2, bp.fc_w, bp.fc_b, bp.proj_w, bp.proj_b, &ba.fc, &ba.act, &mlp, KernelProducts{c.kernel}, erf);
    x += mlp;
  }
  a.final_in = std::move(x);
  LayerNormForward<T>(a.final_in, p.lnf_gamma, p.lnf_beta, &a.lnf, &a.lnf_mean, &a.lnf_rstd, eps);
  TiedUnembedForward<T>(a.lnf, p.wte, p.out_b, &a.logits, KernelProducts{c.kernel});
  ATTN_RETURN_IF_ERROR(CheckFinite("lm: logits", a.logits));
  a.loss = CrossEntropyForward<T>(a.logits, batch.targets, batch.weights, &a.probs, &a.correct, &a.scored);
  return Status::Ok();
}

// [SECTION] Backward
template <typename T>
Status LmBackward(const LmConfig& c, const ModelParametersT<T>& p, const Batch& batch, const LmActivationsT<T>& a,
                  ModelParametersT<T>* grads) {
  ATTN_RETURN_IF_ERROR(CheckLmShapes(c, p));
  const ModelConfig model = AsModelConfig(c);
  ATTN_RETURN_IF_ERROR(ValidateBatch(model, batch));
  if (a.blocks.size() != p.blocks.size() || a.logits.rows() != static_cast<Eigen::Index>(batch.ids.size()))
    return Status(StatusCode::kShapeMismatch, "lm: activations: expected LmForward's on this batch");
  const int seq = batch.seq_len;
  ModelParametersT<T>& g = *grads;
  g = ZerosLike(p);

  Mat<T> d_logits, d_lnf, d;
  CrossEntropyBackward<T>(a.probs, batch.targets, batch.weights, &d_logits);
  TiedUnembedBackward<T>(a.lnf, p.wte, d_logits, &d_lnf, &g.wte, &g.out_b, KernelProducts{c.kernel});
  LayerNormBackward<T>(a.final_in, p.lnf_gamma, a.lnf_mean, a.lnf_rstd, d_lnf, &d, &g.lnf_gamma, &g.lnf_beta);

  AttentionConfig attention = LayerAttentionConfig(model);
  attention.kernel = c.kernel;
  for (size_t l = p.blocks.size(); l-- > 0;) {
    const BlockParametersT<T>& bp = p.blocks[l];
    const BlockActivationsT<T>& ba = a.blocks[l];
    BlockParametersT<T>& bg = g.blocks[l];
    // x_out = x_mid + mlp(ln2(x_mid)): d flows on and into the branch
    Mat<T> d_ln2, d_mid;
    GeluMlpBackward<T>(ba.ln2, bp.fc_w, bp.proj_w, ba.fc, ba.act, d, &d_ln2, &bg.fc_w, &bg.fc_b, &bg.proj_w, &bg.proj_b,
                       KernelProducts{c.kernel}, c.activation == LmActivation::kGeluErf);
    LayerNormBackward<T>(ba.x_mid, bp.ln2_gamma, ba.ln2_mean, ba.ln2_rstd, d_ln2, &d_mid, &bg.ln2_gamma, &bg.ln2_beta);
    d += d_mid;
    // x_mid = x_in + attention(ln1(x_in))
    Mat<T> d_ln1;
    ATTN_RETURN_IF_ERROR(AttentionSublayerBackward<T>(attention, bp.attention, ba.ln1, batch.size, seq, ba.attention, d,
                                                      &d_ln1, &bg.attention));
    Mat<T> d_in;
    LayerNormBackward<T>(ba.x_in, bp.ln1_gamma, ba.ln1_mean, ba.ln1_rstd, d_ln1, &d_in, &bg.ln1_gamma, &bg.ln1_beta);
    d += d_in;
  }
  EmbeddingBackward<T>(batch.ids, seq, d, &g.wte, &g.wpe);
  ATTN_RETURN_IF_ERROR(CheckFinite("lm: gradient of the embeddings", d));
  return Status::Ok();
}

template Status CheckLmShapes(const LmConfig&, const ModelParametersT<float>&);
template Status CheckLmShapes(const LmConfig&, const ModelParametersT<double>&);
template Status LmForward(const LmConfig&, const ModelParametersT<float>&, const Batch&, LmActivationsT<float>*);
template Status LmForward(const LmConfig&, const ModelParametersT<double>&, const Batch&, LmActivationsT<double>*);
template Status LmBackward(const LmConfig&, const ModelParametersT<float>&, const Batch&, const LmActivationsT<float>&,
                           ModelParametersT<float>*);
template Status LmBackward(const LmConfig&, const ModelParametersT<double>&, const Batch&,
                           const LmActivationsT<double>&, ModelParametersT<double>*);

}  // namespace attn::train
