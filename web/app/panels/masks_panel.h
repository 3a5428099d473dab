// View 6: masks and windows. Causal (no peeking ahead), a window of keys around each query, and
// padding keys that nobody attends to. Blocked scores are −inf, their weights 0, drawn hatched.
#pragma once

#include "attn/attention.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class MasksPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kMasks; }
  const char* title() const override { return "6 Masks"; }
  void Draw(PanelContext& ctx) override;

 private:
  void Recompute(PanelContext& ctx);
  void DrawControls(PanelContext& ctx);
  void DrawPaddingToggles(PanelContext& ctx);
  void DrawMaps(PanelContext& ctx);

  int computed_version_ = 0;
  lessons::MasksState computed_;
  bool changed_ = false;  // textures need a new upload this frame
  std::string error_;
  attn::AttentionResult result_;
  gfx::Heatmap scores_map_, weights_map_, output_map_;
};

}  // namespace attnlab
