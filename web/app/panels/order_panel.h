// View 2: order has no influence. Shuffling the words shuffles the outputs the same way, until a
// positional encoding is added.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class OrderPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kOrder; }
  const char* title() const override { return "2 Order"; }
  void Draw(PanelContext& ctx) override;

 private:
  void Recompute(PanelContext& ctx);

  int computed_version_ = 0;
  lessons::OrderState computed_;
  bool changed_ = false;
  std::string error_;
  std::vector<int> order_;                   // shuffled row i is original row order_[i]
  std::vector<std::string> shuffled_tokens_;
  std::vector<bool> shuffled_known_;
  attn::Matrix output_;           // (n, d) Y of the sentence in its order
  attn::Matrix shuffled_output_;  // (n, d) Y of the shuffled sentence
  attn::Matrix permuted_output_;  // (n, d) rows of output_ in the shuffled order
  attn::Matrix encoding_;         // (n, d) the positions added to X; empty without encoding
  float difference_ = 0;          // max |shuffled_output_ − permuted_output_|
  gfx::Heatmap output_map_, shuffled_map_, encoding_map_;
};

}  // namespace attnlab
