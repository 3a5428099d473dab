// View 2: order has no influence. Shuffling the words shuffles the outputs the same way, until a
// positional encoding is added.
#pragma once

#include <string>
#include <vector>

#include "lessons/views/sentence.h"

namespace lessons {

struct OrderModel {
  std::vector<int> order;                    // shuffled row i is original row order[i]
  std::vector<std::string> shuffled_tokens;  // the words in that order
  std::vector<bool> shuffled_known;
  Matrix output;           // (n, d) Y of the sentence in its order
  Matrix shuffled_output;  // (n, d) Y of the shuffled sentence
  Matrix permuted_output;  // (n, d) rows of output in the shuffled order
  Matrix encoding;         // (n, d) the positions added to X; empty without an encoding
  float difference = 0;    // max |shuffled_output − permuted_output|
  // Float sums taken in another order may differ in the last bits: differences up to this are
  // rounding (1e-5 of the largest output), above it they are real.
  float rounding = 0;
  bool equal = true;  // difference <= rounding: order had no influence
};

Status ComputeOrder(const Sentence& sentence, const OrderState& state, OrderModel* out);

}  // namespace lessons
