// The language model: a small decoder-only transformer over words (GPT-2's layout, pre-LN),
// trained by attnlab's own loop. Forward and backward over a batch, in float (to train) or double
// (gradient checks). Inference on one sentence (every head, the logit lens, ablation, the KV cache
// and generation) is lm_inference.h; the asset lm_asset.h; training lm_trainer.h.
//
// Shapes: B sequences of T ≤ seq_len tokens, R = B·T rows stacked; V words (the last id is the
// unknown word), d = d_model, h heads of width d_k = d / h, L blocks.
//   x0     = wte[ids] + wpe[t]  (learned positions; with RoPE no table, q and k are rotated)  (R, d)
//   block  : x += Attention(LN1(x)), causal, per sequence (the engine's attn::Forward)        (R, d)
//            x += GELU(LN2(x) W_fc + b_fc) W_proj + b_proj                                    (R, d), hidden (R, 4d)
//   logits = LNf(x) wteᵀ + b_out   (output tied to the input embedding)                      (R, V)
//   loss   = Σ_r w_r CE(logits_r, target_r) / Σ_r w_r      (targets: the next word)
//
// Parameters are ModelParametersT (model.h) with out_w empty (the output matrix is wte), so the
// optimizer, ForEachParameter and the gradient checks treat both models alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/train/lm_layers.h"
#include "attn/train/model.h"

namespace attn::train {

// The MLP's nonlinearity: GPT-2's tanh approximation (attnlab's own models, Hugging Face's
// "gelu_new" / "gelu_pytorch_tanh") or the exact erf form (Hugging Face's "gelu").
enum class LmActivation { kGeluTanh = 0, kGeluErf = 1 };

// The largest model ValidateLmConfig accepts: its parameters in float at most 2 GiB (GPT-2 medium,
// 355 M parameters, is 1.42 GB; GPT-2 large, 774 M, 3.1 GB, is refused before anything is allocated,
// with the size it would need). Inference adds activations of a few (n, 4d) and (n, V) matrices.
constexpr int64_t kLmMaxParameterBytes = int64_t{2} << 30;

struct LmConfig {
  int vocab = 4096;    // words, the unknown word included (its id is vocab − 1): 3–65536
  int seq_len = 64;    // context: positions 0 … seq_len − 1 (1–2048; GPT-2's is 1024)
  int d_model = 128;   // width of the residual stream (2–2048), a multiple of heads
  int layers = 4;      // blocks (1–48)
  int heads = 4;       // heads per block (1–64)
  Positions positions = Positions::kLearned;  // kLearned or kRope
  // LayerNorm's ε (GPT-2's and attnlab's 1e-5; finite, in (0, 1)): double, so a double pass gets
  // the same 1e-5 it always had and a float pass float(1e-5), bit for bit the old constant.
  double layer_norm_eps = 1e-5;
  LmActivation activation = LmActivation::kGeluTanh;
  uint32_t seed = 1;   // every parameter is seeded from it
  // The kernel of the products and attention of the training passes (LmForward / LmBackward) and of
  // inference (LmAdvance, LmGenerate: lm_inference.h). kEigen, the
  // default, gives the same bytes on every CPU of a build; a SIMD kernel (FastestKernel(): AVX-512 or
  // AVX2 where the CPU has it) is 2–4 times as fast and rounds in its own order. Must be available.
  KernelId kernel = KernelId::kEigen;
};

// "lm: layers: expected 1–48, got 0": ok when every field is in its range and the parameters fit
// kLmMaxParameterBytes (kResourceExhausted naming the bytes they would need).
Status ValidateLmConfig(const LmConfig& config);

// The number of floats LmShapes(config) holds, computed in 64 bits without allocating (fields
// already in their ranges).
int64_t LmParameterCount(const LmConfig& config);

// The same model as a ModelConfig (transformer, classes = vocab, pre-LN, MLP, causal): what
// LayerAttentionConfig and ValidateBatch read.
ModelConfig AsModelConfig(const LmConfig& config);

// Seeded parameters for a valid config, each matrix from its own stream of config.seed (GPT-2's
// rule): wte, wpe ~ N(0, 0.02²); attention as attn::InitializeParameters (uniform ±1/√d) with zero
// biases, W_o scaled by 1/√(2L) like W_proj (the residual stream's variance then grows like 1, not
// like L); W_fc, W_proj uniform ±1/√fan_in; LayerNorm γ = 1, β = 0; b_out = 0.
ModelParameters InitializeLm(const LmConfig& config);

// Every matrix InitializeLm makes, with its shape and no values (nothing is drawn: what the asset
// reader fills and what LmAdvance checks a model against).
ModelParameters LmShapes(const LmConfig& config);

// kShapeMismatch naming the first parameter of `params` whose shape is not LmShapes(config)'s
// ("lm: block2.fc_w: expected (128, 512), got (3, 3)"); float or double parameters.
template <typename T>
Status CheckLmShapes(const LmConfig& config, const ModelParametersT<T>& params);

// The forward pass's intermediates are model.h's ActivationsT: x0 the embeddings, blocks (act is
// the GELU's output), final_in, lnf, logits (R, V), probs (R, V), loss (nats), correct, scored; the
// CNN's fields stay empty.
template <typename T>
using LmActivationsT = ActivationsT<T>;
using LmActivations = LmActivationsT<float>;
using LmActivationsD = LmActivationsT<double>;

// The forward pass over `batch` (ids and targets in [0, vocab), Batch's layout); fills `acts`.
// Fails on a bad config, parameters of other shapes or a bad batch (the status names the field),
// or a value that is not finite.
template <typename T>
Status LmForward(const LmConfig& config, const ModelParametersT<T>& params, const Batch& batch,
                 LmActivationsT<T>* acts);

// The backward pass of LmForward's loss: every parameter's gradient (wte's gathers the embedding's
// and the output's). `grads` is overwritten.
template <typename T>
Status LmBackward(const LmConfig& config, const ModelParametersT<T>& params, const Batch& batch,
                  const LmActivationsT<T>& acts, ModelParametersT<T>* grads);

}  // namespace attn::train
