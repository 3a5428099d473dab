// View 8: smoothing a noisy price series. Attention re-weighting with features of value and time
// against a moving average (a convolution with a box kernel), both over the real prices.
#pragma once

#include "lessons/smoothing.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class PricesPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kPrices; }
  const char* title() const override { return "8 Prices"; }
  void Draw(PanelContext& ctx) override;
  bool uses_sentence() const override { return false; }

 private:
  void Recompute(PanelContext& ctx);
  void SetFocus(int focus);

  lessons::PricesState computed_for_{};
  int computed_version_ = 0;
  bool changed_ = false;
  std::string error_;
  const lessons::PriceSeries* series_ = nullptr;  // into ctx.prices->table, stable once loaded
  attn::Matrix clean_;     // (n, 1) the real prices
  attn::Matrix noisy_;     // (n, 1) with seeded noise
  attn::Matrix average_;   // (n, 1) moving average of noisy_
  lessons::SmootherResult smoother_;  // weights (n, n) and smoothed (n, 1)
  int focus_ = -2;
  attn::Matrix focus_weights_;  // (1, n) row `focus_` of the weights
  gfx::Heatmap weights_map_;
};

}  // namespace attnlab
