// View 1: words -> vectors -> attention with no trained weights: Y = softmax(XXᵀ/(√d τ)) X.
#pragma once

#include "attn/attention.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class WordsPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kWords; }
  const char* title() const override { return "1 Words"; }
  void Draw(PanelContext& ctx) override;

 private:
  void Recompute(PanelContext& ctx);
  void DrawSpotlight(PanelContext& ctx);

  int computed_version_ = 0;
  float computed_temperature_ = 0;
  int computed_spotlight_ = -2;
  bool changed_ = false;  // textures need a new upload this frame
  std::string error_;
  attn::AttentionResult result_;
  attn::Matrix terms_;       // (n, d): w_ij x_j for the spotlighted token
  attn::Matrix output_row_;  // (1, d): its output, row of Y
  gfx::Heatmap x_map_, raw_map_, weights_map_, output_map_, terms_map_, output_row_map_;
};

}  // namespace attnlab
