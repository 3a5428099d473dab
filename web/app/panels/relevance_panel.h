// View 4: relevance functions and normalisers side by side on the same sentence, and the
// saturation plot that shows why the dot product is divided by √d_k.
#pragma once

#include "lessons/views/relevance.h"
#include "panels/panel.h"

namespace attnlab {

class RelevancePanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kRelevance; }
  const char* title() const override { return "4 Relevance"; }
  void Draw(PanelContext& ctx) override;
  lessons::Job* job() override { return &saturation_; }
  const char* takeaway() const override {
    return "The relevance function decides which words score high, the normaliser how scores become weights; without 1/√d_k, softmax saturates as d_k grows.";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void DrawScoreGrid(PanelContext& ctx);
  void DrawNormalizerGrid(PanelContext& ctx);
  void DrawRowBars(PanelContext& ctx);
  void DrawSaturation(PanelContext& ctx);

  Memo<lessons::RelevanceModel> memo_;
  lessons::SaturationJob saturation_;  // started the first time the view is drawn; the app steps it
};

}  // namespace attnlab
