// View 9: an RNN beside self-attention on the shared sentence — path length, gradients over
// distance, sequential steps against parallel work (timed here), and attention over hidden states.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lessons/timing_samples.h"
#include "lessons/views/rnn.h"
#include "panels/panel.h"

namespace attnlab {

class RnnPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kRnn; }
  const char* title() const override { return "9 RNN"; }
  void Draw(PanelContext& ctx) override;
  lessons::Job* job() override { return &timing_; }
  const char* takeaway() const override {
    return "An RNN passes information one step at a time, so it needs n steps and its gradients fade or grow with "
           "distance; attention links any two words in one step, at the price of n² work.";
  }

 private:
  void DrawControls(PanelContext& ctx, int n);
  void DrawPaths(PanelContext& ctx);
  void DrawGradients(PanelContext& ctx);
  void DrawSpeed(PanelContext& ctx);
  void DrawCombination(PanelContext& ctx);

  Memo<lessons::RnnModel> model_;
  Memo<lessons::RnnCombinationModel> combination_;

  // Timing: the sweep over (layer 0 RNN / 1 attention, log2 n), a job the app steps (here, one batch
  // per frame, or in a Web Worker when a batch is long); the plots' x and FLOPs per token.
  lessons::RnnTimingJob timing_;
  attn::Matrix log2_n_, flops_per_token_[2];  // (m, 1) each
};

}  // namespace attnlab
