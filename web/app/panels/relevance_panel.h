// View 4: relevance functions and normalisers side by side on the same sentence, and the
// saturation plot that shows why the dot product is divided by √d_k.
#pragma once

#include <array>

#include "attn/attention.h"
#include "lessons/saturation.h"
#include "gfx/heatmap.h"
#include "panels/panel.h"

namespace attnlab {

class RelevancePanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kRelevance; }
  const char* title() const override { return "4 Relevance"; }
  void Draw(PanelContext& ctx) override;

 private:
  static constexpr int kScores = 6;       // every attn::ScoreFunction
  static constexpr int kNormalizers = 4;  // softmax, sparsemax, ReLU-normalised, sigmoid

  void DrawControls(PanelContext& ctx);
  void Recompute(PanelContext& ctx);
  void DrawScoreGrid(PanelContext& ctx);
  void DrawNormalizerGrid(PanelContext& ctx);
  void DrawRowBars(PanelContext& ctx);
  void DrawSaturation(PanelContext& ctx);

  int computed_version_ = 0;
  lessons::RelevanceState computed_;
  bool changed_ = false;  // textures need a new upload this frame
  std::string error_;
  std::array<attn::Matrix, kScores> score_weights_;           // (n, n) per relevance function
  std::array<attn::Matrix, kNormalizers> normalizer_weights_;  // (n, n) per normaliser
  std::array<gfx::Heatmap, kScores> score_maps_;
  std::array<gfx::Heatmap, kNormalizers> normalizer_maps_;

  // The saturation sweep: computed once, the first time the view is drawn.
  bool swept_ = false;
  std::string sweep_error_;
  lessons::SaturationCurves sweep_;
  double sweep_ms_ = 0;
};

}  // namespace attnlab
