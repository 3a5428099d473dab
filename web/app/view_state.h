// Every control of the page, and nothing else. Plain data: the URL (later) and the tests read it.
#pragma once

#include <string>

namespace attnlab {

// Where the word vectors come from.
enum class VectorSource {
  kGlove,  // the 20k-word GloVe asset (web/assets/word-vectors.bin), 100-d
  kHash,   // a deterministic N(0, 1) vector per word, of any width
};

struct ViewState {
  std::string sentence = "The animal didn't cross the street because it was too tired";
  VectorSource vectors = VectorSource::kGlove;
  int hash_dim = 16;         // width d of the hashed vectors
  float temperature = 1.0f;  // τ in softmax(x_i·x_j / (√d τ))

  bool operator==(const ViewState& o) const {
    return sentence == o.sentence && vectors == o.vectors && hash_dim == o.hash_dim && temperature == o.temperature;
  }
  bool operator!=(const ViewState& o) const { return !(*this == o); }
};

}  // namespace attnlab
