// View 7: a CNN's receptive field vs self-attention's, then "self-attention contains convolution":
// K heads with the quadratic relative score rebuild a Conv1d as α grows (Cordonnier et al. 2020).
#pragma once

#include "lessons/views/cnn.h"
#include "panels/panel.h"

namespace attnlab {

class CnnPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kCnn; }
  const char* title() const override { return "7 CNN"; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "A convolution is attention with a fixed window and fixed weights; K heads with relative positions can compute one exactly.";
  }
  bool uses_sentence() const override { return false; }

 private:
  void DrawControls(PanelContext& ctx);
  void DrawReceptiveField(PanelContext& ctx);
  void DrawConvolution(PanelContext& ctx);

  Memo<lessons::CnnFieldModel> field_;
  Memo<lessons::CnnConvModel> conv_;
};

}  // namespace attnlab
