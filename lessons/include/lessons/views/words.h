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
  // What the weights say without trained parameters: in how many rows the largest weight is on the
  // word itself (its own vector matches it best), and for the spotlighted word its own weight and
  // the other word it weighs most.
  int rows_led_by_self = 0;
  float self_weight = 0;
  int best_other = -1;  // -1 without a spotlight or with one word
  float best_other_weight = 0;
  // The example the lesson names: where "it" (the first one) looks, and its weight on "animal" (the
  // first one) and on itself; -1 when the sentence has no "it" or no "animal" (any case).
  int it_index = -1, animal_index = -1;
  float it_to_animal = 0, it_to_itself = 0;
  int it_best = -1;  // the word "it" weighs most
};

Status ComputeWords(const Sentence& sentence, const WordsState& state, WordsModel* out);

}  // namespace lessons
