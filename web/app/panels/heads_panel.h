// View 5: multi-head attention. h heads, each with its own Wq, Wk, Wv of width d_k = d/h; their
// outputs concatenated and multiplied by Wᵒ. Fewer key/value heads than query heads: grouped-query.
#pragma once

#include "lessons/views/heads.h"
#include "panels/panel.h"

namespace attnlab {

class HeadsPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kHeads; }
  const char* title() const override { return "5 Heads"; }
  void Draw(PanelContext& ctx) override;
  bool reads_trained_heads(const lessons::ViewState& state) const override { return state.heads.trained; }
  const char* takeaway() const override {
    return "Heads are attentions side by side with their own projections; untrained, their weights are close to uniform.";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void DrawHeadGrid(PanelContext& ctx);
  void DrawSelectedHead(PanelContext& ctx);
  // Trained heads: the tagger's tags and each head's measured role, on the sentence and the corpus.
  void DrawTrainedRoles(PanelContext& ctx);
  void DrawCombination(PanelContext& ctx);

  Memo<lessons::HeadsModel> memo_;
  lessons::SeededHeads seeded_;  // the seeded projections, reused while h, h_kv and the seed stay
};

}  // namespace attnlab
