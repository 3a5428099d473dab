// View 7: a CNN's receptive field vs self-attention's, then "self-attention contains convolution":
// K heads with the quadratic relative score rebuild a Conv1d as α grows (Cordonnier et al. 2020).
#pragma once

#include <vector>

#include "attn/attention.h"
#include "lessons/conv_attention.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class CnnPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kCnn; }
  const char* title() const override { return "7 CNN"; }
  void Draw(PanelContext& ctx) override;
  bool uses_sentence() const override { return false; }

 private:
  void RecomputeFields(PanelContext& ctx);
  void RecomputeConv(PanelContext& ctx);
  void DrawReceptiveField(PanelContext& ctx);
  void DrawConvolution(PanelContext& ctx);

  lessons::CnnState fields_for_{}, conv_for_{};
  bool computed_fields_ = false, computed_conv_ = false, curve_for_set_ = false;
  int curve_seed_ = 0, curve_radius_ = 0;
  bool fields_changed_ = false, conv_changed_ = false;
  std::string error_;
  attn::Matrix x_;          // (n, c) the input sequence
  attn::Matrix x_t_;        // (c, n) the same, positions along x
  attn::Matrix field_;      // (L + 1, n): row m = inputs m layers below the output that it depends on
  attn::Matrix stack_t_;    // (c, n) the L-layer stack's output, positions along x
  attn::Matrix rows_;       // (2, n): self-attention and windowed-attention weights of the output
  attn::Matrix masked_;     // (1, n): 1 where the window masks the key
  attn::Matrix taps_;       // (K c_in, c_out) the convolution's taps stacked, tap 0 first
  attn::Matrix bias_;       // (1, c_out)
  attn::Matrix conv_t_;     // (c_out, n) Conv1d output
  attn::Matrix attn_t_;     // (c_out, n) K-head attention output
  attn::Matrix heads_;      // (K, n) each head's weights for the chosen output
  attn::Matrix curve_alpha_, curve_diff_;  // (m, 1) max |attention − conv| against α
  float diff_ = 0;
  gfx::Heatmap x_map_, stack_map_, rows_map_, conv_map_, attn_map_, heads_map_;
};

}  // namespace attnlab
