// Every control of the page, and nothing else. Plain data: the URL (later) and the tests read it.
#pragma once

#include <string>

namespace attnlab {

struct ViewState {
  std::string sentence = "The animal didn't cross the street because it was too tired";
  int embedding_dim = 16;    // width d of the word vectors
  float temperature = 1.0f;  // τ in softmax(x_i·x_j / (√d τ))

  bool operator==(const ViewState& o) const {
    return sentence == o.sentence && embedding_dim == o.embedding_dim && temperature == o.temperature;
  }
  bool operator!=(const ViewState& o) const { return !(*this == o); }
};

}  // namespace attnlab
