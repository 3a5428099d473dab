// View 3: query, key, value. Q = XWq, K = XWk, V = XWv; Y = softmax(QKᵀ/√d_k) V; one (query, key)
// pair followed from qᵢ and kⱼ to its weight and its share of the output.
#pragma once

#include "lessons/views/qkv.h"
#include "panels/panel.h"

namespace attnlab {

class QkvPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kQkv; }
  const char* title() const override { return "3 Q,K,V"; }
  void Draw(PanelContext& ctx) override;
  bool reads_trained_heads(const lessons::ViewState& state) const override { return state.qkv.trained; }
  const char* takeaway() const override {
    return "Wq, Wk and Wv decide what is compared and what is passed on; the scores are no longer symmetric.";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void Update(PanelContext& ctx);
  void DrawLayer(PanelContext& ctx);
  void DrawPair(PanelContext& ctx);

  Memo<lessons::QkvModel> memo_;
};

}  // namespace attnlab
