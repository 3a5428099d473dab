// View 5: multi-head attention. h heads, each with its own Wq, Wk, Wv of width d_k = d/h; their
// outputs concatenated and multiplied by Wᵒ. Fewer key/value heads than query heads: grouped-query.
#pragma once

#include <array>

#include "attn/attention.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class HeadsPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kHeads; }
  const char* title() const override { return "5 Heads"; }
  void Draw(PanelContext& ctx) override;

 private:
  void Recompute(PanelContext& ctx);
  void DrawControls(PanelContext& ctx);
  void DrawHeadGrid(PanelContext& ctx);
  void DrawSelectedHead(PanelContext& ctx);
  void DrawCombination(PanelContext& ctx);

  int computed_version_ = 0;
  lessons::HeadsState computed_;  // the inputs of the last engine run, good or not
  lessons::HeadsState shown_;     // the inputs of result_
  bool changed_ = false;           // every texture needs a new upload this frame
  int uploaded_selected_ = -2;     // the head the large map holds
  std::string error_;
  attn::AttentionResult result_;
  std::array<gfx::Heatmap, 16> head_maps_;
  gfx::Heatmap selected_map_, concat_map_, wo_map_, output_map_;
};

}  // namespace attnlab
