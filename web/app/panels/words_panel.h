// View 1: words -> vectors -> attention with no trained weights: Y = softmax(XXᵀ/(√d τ)) X.
#pragma once

#include "lessons/views/words.h"
#include "panels/panel.h"

namespace attnlab {

class WordsPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kWords; }
  const char* title() const override { return "1 Words"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "Without parameters, attention is a weighted average whose weights come from dot products, and each word weighs itself most.";
  }

 private:
  void DrawMaps(PanelContext& ctx);
  void DrawSpotlight(PanelContext& ctx);

  Memo<lessons::WordsModel> memo_;
};

}  // namespace attnlab
