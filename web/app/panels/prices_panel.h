// View 13: smoothing a noisy price series. Attention re-weighting with features of value and time
// against a moving average (a convolution with a box kernel), both over the real prices.
#pragma once

#include "lessons/views/prices.h"
#include "panels/panel.h"

namespace attnlab {

class PricesPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kPrices; }
  const char* title() const override { return "13 Prices"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "Attention smooths by similarity of value and time, a moving average by position alone; the error against the real price says which did better here.";
  }
  bool uses_sentence() const override { return false; }
  bool reads_prices() const override { return true; }

 private:
  void DrawControls(PanelContext& ctx);
  // Row `focus` of the weights (whom that month attends to), for the plot's bars.
  void SetFocus(int focus);

  Memo<lessons::PricesModel> memo_;
  int focus_ = -2, focus_version_ = 0;
  attn::Matrix focus_weights_;  // (1, n) row `focus_` of the weights; empty without a focus
};

}  // namespace attnlab
