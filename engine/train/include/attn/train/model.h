// The models attnlab trains: a small decoder-style transformer (token embedding, positions, L
// attention blocks of the engine's attention layer with optional LayerNorm and MLP, a linear
// read-out) and a 1-D CNN for the comparison, with softmax cross-entropy on the positions a task
// scores. Forward and backward over a whole batch, in float (to train) or double (gradient checks).
//
// Shapes: B sequences of T tokens, R = B·T rows stacked; V vocabulary, C classes, d = d_model,
// h heads of width d_k (d/h unless head_dim says otherwise), P = seq_len learned positions (a batch uses the first T).
//   x0     = wte[ids] (+ wpe or sinusoidal PE)                         (R, d)
//   block  : a = LN1(x); x += Attention(a) per sequence (engine layer)  (R, d)
//            m = LN2(x); x += ReLU(m W_fc + b_fc) W_proj + b_proj      (R, d), hidden (R, 4d)
//   cnn    : x = ReLU(Conv1d_k(x)) per layer (causal or centred)       (R, d)
//            pooled: x_t = max_{s ≤ t} x_s (what the sequence so far holds, anywhere in it)
//   logits = LNf(x) W_out + b_out                                       (R, C)
//   loss   = Σ_r w_r CE(logits_r, target_r) / Σ_r w_r
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/status.h"
#include "attn/train/layers.h"

namespace attn::train {

enum class ModelKind { kTransformer, kCnn, kCount };

// "transformer", "cnn" ("unknown" out of range).
const char* ModelKindName(ModelKind kind);

// Where the transformer gets word order from.
enum class Positions {
  kNone,        // none: causal attention still tells "earlier" from "later", nothing more
  kLearned,     // a learned table wpe (T, d) added to the embeddings
  kSinusoidal,  // the fixed sinusoidal table added to the embeddings
  kRope,        // rotary: q and k rotated by position inside every attention layer
  kCount,
};

struct ModelConfig {
  ModelKind kind = ModelKind::kTransformer;
  int vocab = 16;    // input token ids in [0, vocab)
  int classes = 16;  // output classes
  int seq_len = 16;  // the longest sequence (1–256); a batch's sequences all have one length T ≤ it
  int d_model = 32;  // width of the residual stream; the CNN's channels (1–512)
  int layers = 2;    // attention blocks (1–3) or convolution layers (1–4)
  int heads = 2;     // attention heads (1–8)
  int head_dim = 0;  // width d_k = d_v of each head (1–256); 0: d_model / heads, which must then divide
  Positions positions = Positions::kLearned;
  bool layer_norm = true;  // pre-LN before the attention, the MLP and the read-out
  bool mlp = true;         // a ReLU MLP of width 4d after each attention (ReLU: tanh-GELU cost a third of a step)
  bool causal = true;      // position t sees positions ≤ t only (attention and convolution)
  // The attention's scores and normaliser: q·k/√d_k (false: q·k unscaled, as view 4 asks what the
  // scale is for) and softmax (true: sparsemax, which gives exact zeros).
  bool scaled = true;
  bool sparsemax = false;
  int kernel_size = 3;     // CNN taps (1–15)
  bool pooled = false;     // CNN: read out a running max over positions (a global view, but no order)
  bool train_embedding = true;  // false: wte is fixed input vectors (e.g. GloVe) and gets no gradient
  uint32_t seed = 1;            // every parameter is seeded from it
};

// "transformer: vocab must be at least 2 (got 1)": ok when every field is in its range.
Status ValidateModelConfig(const ModelConfig& config);

// d_k: head_dim, or d_model / heads.
int HeadDim(const ModelConfig& config);

// The engine configuration of every attention layer of `config`: h heads of width d_k, Q K V and
// output projections with biases, causal or not, RoPE when chosen. The views draw a trained model's
// heads by calling attn::Forward with it and a block's `attention` parameters.
AttentionConfig LayerAttentionConfig(const ModelConfig& config);

template <typename T>
struct BlockParametersT {
  Mat<T> ln1_gamma, ln1_beta;          // (1, d)                 when layer_norm
  AttentionParametersT<T> attention;   // wq wk wv (d, h d_k), wo (h d_k, d); bq bk bv (1, h d_k), bo (1, d)
  Mat<T> ln2_gamma, ln2_beta;          // (1, d)                 when layer_norm and mlp
  Mat<T> fc_w, fc_b;                   // (d, 4d), (1, 4d)       when mlp
  Mat<T> proj_w, proj_b;               // (4d, d), (1, d)        when mlp
};

template <typename T>
struct ConvParametersT {
  Mat<T> w;  // (k·d, d): rows j·d … j·d + d − 1 are tap j
  Mat<T> b;  // (1, d)
};

// The gradients have the same type: one matrix per parameter, same shapes.
template <typename T>
struct ModelParametersT {
  Mat<T> wte;                               // (V, d)
  Mat<T> wpe;                               // (seq_len, d) when positions == kLearned
  std::vector<BlockParametersT<T>> blocks;  // transformer: L entries
  std::vector<ConvParametersT<T>> convs;    // cnn: L entries
  Mat<T> lnf_gamma, lnf_beta;               // (1, d)  transformer with layer_norm
  Mat<T> out_w, out_b;                      // (d, C), (1, C)
};
using ModelParameters = ModelParametersT<float>;
using ModelParametersD = ModelParametersT<double>;

// Calls f(name, a_m, b_m) for every parameter `a` holds (non-empty), with the matching matrix of `b`
// (the gradients, or a copy in another precision; `b` must have as many blocks and convs), always in
// the same order. Names read "block1.attention.wq", "conv2.w", "out_w".
template <typename A, typename B, typename F>
void ForEachParameterPair(A& a, B& b, F&& f) {
  const auto visit = [&](const std::string& name, auto& x, auto& y) {
    if (x.size()) f(name, x, y);
  };
  visit("wte", a.wte, b.wte);
  visit("wpe", a.wpe, b.wpe);
  for (size_t l = 0; l < a.blocks.size(); ++l) {
    auto& x = a.blocks[l];
    auto& y = b.blocks[l];
    const std::string at = "block" + std::to_string(l + 1) + ".";
    visit(at + "ln1_gamma", x.ln1_gamma, y.ln1_gamma);
    visit(at + "ln1_beta", x.ln1_beta, y.ln1_beta);
    visit(at + "attention.wq", x.attention.wq, y.attention.wq);
    visit(at + "attention.wk", x.attention.wk, y.attention.wk);
    visit(at + "attention.wv", x.attention.wv, y.attention.wv);
    visit(at + "attention.wo", x.attention.wo, y.attention.wo);
    visit(at + "attention.bq", x.attention.bq, y.attention.bq);
    visit(at + "attention.bk", x.attention.bk, y.attention.bk);
    visit(at + "attention.bv", x.attention.bv, y.attention.bv);
    visit(at + "attention.bo", x.attention.bo, y.attention.bo);
    visit(at + "ln2_gamma", x.ln2_gamma, y.ln2_gamma);
    visit(at + "ln2_beta", x.ln2_beta, y.ln2_beta);
    visit(at + "fc_w", x.fc_w, y.fc_w);
    visit(at + "fc_b", x.fc_b, y.fc_b);
    visit(at + "proj_w", x.proj_w, y.proj_w);
    visit(at + "proj_b", x.proj_b, y.proj_b);
  }
  for (size_t l = 0; l < a.convs.size(); ++l) {
    visit("conv" + std::to_string(l + 1) + ".w", a.convs[l].w, b.convs[l].w);
    visit("conv" + std::to_string(l + 1) + ".b", a.convs[l].b, b.convs[l].b);
  }
  visit("lnf_gamma", a.lnf_gamma, b.lnf_gamma);
  visit("lnf_beta", a.lnf_beta, b.lnf_beta);
  visit("out_w", a.out_w, b.out_w);
  visit("out_b", a.out_b, b.out_b);
}

// f(name, matrix) for every parameter `p` holds.
template <typename P, typename F>
void ForEachParameter(P& p, F&& f) {
  ForEachParameterPair(p, p, [&](const std::string& name, auto& m, auto&) { f(name, m); });
}

// Seeded parameters for a valid config: each matrix from its own stream of config.seed.
// Embeddings N(0, 1); weights uniform in ±1/√fan_in (the engine's rule, attn::InitializeParameters);
// biases 0; LayerNorm γ = 1, β = 0.
ModelParameters InitializeModel(const ModelConfig& config);

// How many numbers training updates in a model of a valid `config`: every matrix InitializeModel
// makes, wte only when config.train_embedding.
int64_t ParameterCount(const ModelConfig& config);

// Zero matrices of the shapes of `p` (the gradients' starting point); wte stays empty when
// `with_embedding` is false (a fixed table has no gradient).
template <typename T>
ModelParametersT<T> ZerosLike(const ModelParametersT<T>& p, bool with_embedding = true);

// One batch of a task: B sequences of T tokens, stacked.
struct Batch {
  int size = 0;                // B
  int seq_len = 0;             // T ≤ the model's seq_len
  std::vector<int> ids;        // (B·T) input tokens
  std::vector<int> targets;    // (B·T) the class to predict at each position (any value where unscored)
  std::vector<float> weights;  // (B·T) 1 where the position is scored, 0 elsewhere
};

// "batch: ids: expected 64 entries (B·T), got 60": ok when the batch fits the config.
Status ValidateBatch(const ModelConfig& config, const Batch& batch);

template <typename T>
struct BlockActivationsT {
  Mat<T> x_in;                                   // (R, d) the residual stream entering the block
  Mat<T> ln1;                                    // (R, d) attention input (x_in without layer_norm)
  std::vector<T> ln1_mean, ln1_rstd;             // (R)
  std::vector<AttentionResultT<T>> attention;    // B entries: every head's weights, (T, T)
  Mat<T> x_mid;                                  // (R, d) after the attention's residual
  Mat<T> ln2;                                    // (R, d) MLP input
  std::vector<T> ln2_mean, ln2_rstd;             // (R)
  Mat<T> fc, act;                                // (R, 4d) before and after the activation (ReLU; GELU in the LM)
};

template <typename T>
struct ActivationsT {
  Mat<T> x0;                                 // (R, d) embeddings (+ positions)
  std::vector<BlockActivationsT<T>> blocks;  // transformer
  std::vector<Mat<T>> conv_in, conv_pre;     // cnn: layer input (R, d) and pre-ReLU output (R, d)
  Eigen::MatrixXi pool_argmax;               // (R, d) the row each running max came from
  Mat<T> final_in;                           // (R, d) the stream before the read-out
  Mat<T> lnf;                                // (R, d) read-out input
  std::vector<T> lnf_mean, lnf_rstd;         // (R)
  Mat<T> logits, probs;                      // (R, C)
  T loss = 0;                                // mean cross-entropy over the scored positions
  int correct = 0, scored = 0;               // scored positions, and those predicted right
};
using Activations = ActivationsT<float>;
using ActivationsD = ActivationsT<double>;

// The forward pass; fills `acts` (kept for the backward pass). Float runs the engine's attention
// (attn::Forward, Eigen kernel), double its readable reference. Fails only on a bad config or batch,
// or when a value stops being finite (training diverged): the status names where.
template <typename T>
Status ModelForward(const ModelConfig& config, const ModelParametersT<T>& params, const Batch& batch,
                    ActivationsT<T>* acts);

// The backward pass of the loss of ModelForward's `acts`: every parameter's gradient (wte's only
// when config.train_embedding). `grads` is overwritten.
template <typename T>
Status ModelBackward(const ModelConfig& config, const ModelParametersT<T>& params, const Batch& batch,
                     const ActivationsT<T>& acts, ModelParametersT<T>* grads);

// Exact float → double copy (and back, rounding), to run the double reference on float parameters.
ModelParametersD ToDouble(const ModelParameters& p);

}  // namespace attn::train
