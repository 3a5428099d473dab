// View 6: masks and windows. Causal (no peeking ahead), a window of keys around each query, and
// padding keys that nobody attends to. Blocked scores are −inf, their weights 0, drawn hatched.
#pragma once

#include "lessons/views/masks.h"
#include "panels/panel.h"

namespace attnlab {

class MasksPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kMasks; }
  const char* title() const override { return "6 Masks"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "A mask sets blocked scores to −∞: their weights are exactly 0 and the others still sum to 1.";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void DrawPaddingToggles(PanelContext& ctx);
  void DrawMaps(PanelContext& ctx);

  Memo<lessons::MasksModel> memo_;
};

}  // namespace attnlab
