// View 3: query, key, value. Q = XWq, K = XWk, V = XWv; Y = softmax(QKᵀ/√d_k) V; one (query, key)
// pair followed from qᵢ and kⱼ to its weight and its share of the output.
#pragma once

#include "attn/attention.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class QkvPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kQkv; }
  const char* title() const override { return "3 Q,K,V"; }
  void Draw(PanelContext& ctx) override;

 private:
  void DrawControls(PanelContext& ctx);
  void Recompute(PanelContext& ctx);
  void DrawLayer(PanelContext& ctx);
  void DrawPair(PanelContext& ctx);

  // What the last layer was computed from; the pair is tracked separately.
  int computed_version_ = 0;
  lessons::QkvState computed_;
  int computed_query_ = -1, computed_key_ = -1;
  bool changed_ = false;  // textures need a new upload this frame
  std::string error_;
  attn::AttentionResult result_;
  attn::Matrix pair_q_, pair_k_, pair_product_;  // (1, d_k): qᵢ, kⱼ, qᵢ∘kⱼ
  attn::Matrix pair_terms_, pair_output_;         // (n, d_v): wᵢⱼ vⱼ; (1, d_v): yᵢ
  gfx::Heatmap wq_map_, wk_map_, wv_map_, q_map_, k_map_, v_map_, scores_map_, weights_map_, output_map_;
  gfx::Heatmap pair_q_map_, pair_k_map_, pair_product_map_, pair_terms_map_, pair_output_map_;
};

}  // namespace attnlab
