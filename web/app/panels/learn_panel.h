// View 11: train a small transformer in the page and watch its heads form. Training runs in time
// slices inside the frame (a few milliseconds each), so the page keeps drawing while it learns.
#pragma once

#include <string>

#include "lessons/views/learn.h"
#include "panels/panel.h"

namespace attnlab {

class LearnPanel : public Panel {
 public:
  // Training per frame: steps run until this much of the frame is used (at least one step).
  static constexpr double kSliceMs = 8.0;

  lessons::ViewId id() const override { return lessons::ViewId::kLearn; }
  const char* title() const override { return "11 Learn"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "Wq, Wk and Wv start random and near-uniform; training on a task shapes each head into a measurable rule (look one step back, fetch the value after a matching key).";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void RunTraining(PanelContext& ctx);
  void DrawCurves(PanelContext& ctx);
  void DrawHeads(PanelContext& ctx);

  lessons::LearnLab lab_;
  std::string settings_;   // FieldsKey of the state the lab was reset for (without the step target)
  std::string error_;
  bool running_ = false;   // Train pressed: runs until Pause (the state's step target follows it)
  int snapshot_ = -1;      // the snapshot drawn; -1: the latest
  int resets_ = 0;         // tiles of a new run get new texture versions
  int curves_step_ = -1;   // lab_.steps() when curves_ was made
  attn::Matrix curves_;    // (bins, 3): step, loss, accuracy
  attn::Matrix curve_steps_, curve_loss_, curve_accuracy_;  // its columns, for the plot
  attn::Matrix held_out_accuracy_;  // (bins, 1) the latest snapshot's held-out accuracy at each point
};

}  // namespace attnlab
