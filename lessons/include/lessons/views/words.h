// View 1: words -> vectors -> attention with no trained weights: Y = softmax(XXᵀ/(√d τ)) X, and one
// word followed step by step.
#pragma once

#include "attn/attention.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct WordsModel {
  attn::AttentionResult result;  // one head, Q = K = V = X, scaled dot product, softmax
  Matrix terms;                  // (n, d) wᵢⱼ xⱼ for the spotlighted word i; empty without one
  Matrix output_row;             // (1, d) its output, row i of Y; empty without one
};

Status ComputeWords(const Sentence& sentence, const WordsState& state, WordsModel* out);

}  // namespace lessons
