// A trained transformer's heads read off its weights, before any sequence is seen: the QK and OV
// circuits and the composition scores of Elhage et al., "A Mathematical Framework for Transformer
// Circuits" (Anthropic, 2021), for attnlab's models (model.h: pre-LN blocks, biases, learned,
// sinusoidal, rotary or no positions).
//
// Definitions (row vectors, as everywhere in attnlab; head h's columns of W_Q, W_K, W_V are
// h·d_k … h·d_k + d_k − 1, its rows of W_O the same):
//   a_l(x)   the input block l's attention reads from a residual vector x: LN1_l(x) (γ, β and the
//            division by x's own spread included: exact for one vector) or x without LayerNorm.
//   QK circuit (V, V): QK[t][s] = (a_l(e_t) W_Q + b_Q)_h · (a_l(e_s) W_K + b_K)_h / √d_k (× 1 when the
//            model's scores are unscaled), e_t = wte[t]:
//            the score the head gives key token s from query token t on the direct path (the
//            embedding alone reaching block l; with rotary positions, at equal positions, where the
//            rotation cancels). The position part (P, P): the same with e_p = the position table's
//            row p (learned or sinusoidal positions; empty otherwise).
//   OV circuit (V, C): OV[s][c] = ((a_l(e_s) W_V + b_V)_h W_O,h) diag(γ_f) W_out [:, c]: what attending
//            to token s alone writes towards output class c (the final LayerNorm's γ folded into the
//            read-out as TransformerLens's fold_ln does; its division by the stream's spread, a
//            per-position scale, and the constant biases b_O, β_f, b_out left out).
//   copying  the share of tokens s that are also a class (class_of_token[s] ≥ 0) whose OV row is
//            largest at that class: 1 for a head that writes the token it reads (a copier), about
//            1/C by chance. (Elhage et al. read copying off the OV circuit's eigenvalues, which needs
//            a square circuit; attnlab's tasks output fewer classes than tokens, so the diagonal form.)
//   composition (Elhage et al. §"Composition"): with W_OV = W_V,h W_O,h (d, d) of an earlier head
//            and W_QK = diag(γ) W_Q,h (diag(γ) W_K,h)ᵀ, W_OV' = diag(γ) W_V,h W_O,h of a later one
//            (γ its block's LN1 scale, 1 without LayerNorm):
//              Q = ‖W_OV W_QK‖_F / (‖W_OV‖_F ‖W_QK‖_F)   (the earlier head's output forms the query)
//              K = ‖W_QK W_OVᵀ‖_F / (‖W_QK‖_F ‖W_OV‖_F)  (… the key: how an induction head reads a
//                                                           previous-token head)
//              V = ‖W_OV W_OV'‖_F / (‖W_OV‖_F ‖W_OV'‖_F)  (… the value)
//            each in [0, 1] (‖AB‖_F ≤ ‖A‖_F ‖B‖_F); 0 when either matrix is 0.
#pragma once

#include <vector>

#include "attn/status.h"
#include "attn/train/model.h"
#include "attn/train/tasks.h"

namespace attn::train {

struct HeadCircuits {
  int layer = 0, head = 0;  // 1-based, as the page prints them
  Matrix qk;                // (V, V) query token × key token
  Matrix qk_positions;      // (seq_len, seq_len) query position × key position; empty without a table
  Matrix ov;                // (V, C) source token × output class
  double copying = 0;       // in [0, 1]; NaN when no token is a class
};

struct HeadComposition {
  int from_layer = 0, from_head = 0;  // the earlier head (1-based)
  int to_layer = 0, to_head = 0;      // the later one
  double q = 0, k = 0, v = 0;
};

struct Circuits {
  std::vector<HeadCircuits> heads;              // layer by layer, head by head
  std::vector<HeadComposition> compositions;    // every earlier × later head pair (none with 1 layer)
};

// The class each token stands for (−1 when none), by their texts (TokenText, ClassText): the digit
// tokens of copy/reverse/sort/plusminus are their digit classes; previous and recall output tokens.
std::vector<int> ClassOfToken(TaskKind task, int vocab, int classes);

// Every head's circuits and every pair's composition scores of a transformer `config` with `params`.
// class_of_token: (vocab) entries in [−1, classes). Errors name the field: a CNN, parameters of
// other shapes, a class map of another length.
Status ComputeCircuits(const ModelConfig& config, const ModelParameters& params, const std::vector<int>& class_of_token,
                       Circuits* out);

}  // namespace attn::train
