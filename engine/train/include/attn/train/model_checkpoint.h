// The Learn view's model (model.h's transformer, trained on a toy task by `attnlab train` and the
// page's view 11) as safetensors + config.json, for PyTorch to load (docs/pytorch.md) and attnlab to
// read back. Bytes in, bytes out: no file is opened here (the CLI and the page do the I/O).
//
// [SECTION] Namings (L blocks N = 0 … L−1, d = n_embd, h heads of width d_k, hd = h·d_k, V, C, T)
// Every weight is stored (in, out), used as x·W + b: the engine's layout and GPT-2's Conv1D, so
// PyTorch multiplies `x @ W` with no transpose. F32, row-major.
//   wte.weight (V, d)                       token embedding
//   wpe.weight (T, d)                       positions "learned" only
//   h.N.ln_1.{weight, bias} (d)             layer_norm only (pre-LN before the attention)
//   h.N.attn.{q, k, v}.weight (d, hd)       head j: columns [j·d_k, (j+1)·d_k)
//   h.N.attn.{q, k, v}.bias (hd)
//   h.N.attn.c_proj.{weight (hd, d), bias (d)}
//   h.N.ln_2.{weight, bias} (d)             layer_norm and mlp
//   h.N.mlp.c_fc.{weight (d, 4d), bias (4d)}     mlp only (ReLU between)
//   h.N.mlp.c_proj.{weight (4d, d), bias (d)}    mlp only
//   ln_f.{weight, bias} (d)                 layer_norm only (before the read-out)
//   head.weight (d, C), head.bias (C)       the read-out: logits over the task's classes
// __metadata__: {"format": "pt", "attnlab.model": "learn"}.
//
// [SECTION] The forward these reproduce (model.h), per sequence of T' ≤ T tokens
//   x = wte[ids] (+ wpe[0:T'] | + sinusoidal PE(p)_{2i} = sin(p / 10000^{2i/d}), _{2i+1} = cos(…))
//   per block: a = LN_1(x) (or x); q, k, v = a W + b, split into h heads of d_k;
//              rope: each head's q and k rotated by pairs (2i, 2i+1), angle p / 10000^{2i/d_k};
//              softmax(q kᵀ / √d_k, causal mask: key ≤ query) v, heads concatenated, · c_proj;
//              x += that; mlp: x += ReLU(LN_2(x) W_fc + b_fc) W_proj + b_proj
//   logits = LN_f(x) (or x) · head.weight + head.bias   (T', C); prediction = argmax
//   LayerNorm: (x − mean) / √(biased variance + layer_norm_epsilon) · weight + bias
//
// [SECTION] config.json: every setting that forward needs
//   model_type "attnlab-learn", task (tasks.h's name), vocab_size V, n_classes C, n_positions T,
//   n_embd d, n_layer L, n_head h, head_dim d_k, positions ("none", "learned", "sinusoidal",
//   "rope"), position_base 10000, layer_norm (bool), norm_placement "pre", layer_norm_epsilon 1e-5,
//   mlp (bool), mlp_hidden 4d, activation_function "relu", causal (bool), attention_scale
//   "1/sqrt(head_dim)", tokens [V strings] (input ids as the page prints them), class_tokens
//   [C strings] (classes as tokens).
#pragma once

#include <string>

#include "attn/status.h"
#include "attn/train/model.h"
#include "attn/train/tasks.h"

namespace attn::train {

// The transformer of `config` (valid, vocab/classes/seq_len those of `task`: ConfigForTask) with
// `params` (InitializeModel's shapes) as safetensors bytes and config.json text. Refuses a CNN
// (kUnknownOption: view 8's, not the Learn view's model) and parameters of other shapes
// (kShapeMismatch "checkpoint: h.0.attn.q.weight: expected shape [32, 32], got [32, 16]").
// The page calls it with a Trainer's config().task, model() and parameters().
Status WriteModelCheckpoint(TaskKind task, const ModelConfig& config, const ModelParameters& params,
                            std::string* safetensors, std::string* config_json);

// The inverse: WriteModelCheckpoint's two files (or PyTorch's re-save under the same names, F32,
// F16 or BF16) back into a task, a model config (seed 1, train_embedding true) and its parameters.
// Every tensor of the naming must be present with its shape, and no other; the config's sizes must
// be the task's. Outputs untouched on error.
Status ReadModelCheckpoint(const std::string& safetensors, const std::string& config_json, TaskKind* task,
                           ModelConfig* config, ModelParameters* params);

}  // namespace attn::train
