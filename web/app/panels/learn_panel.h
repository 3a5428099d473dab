// View 11: train a small transformer in the page and watch its heads form. Training is a job
// (lessons::LearnJob) the app steps in slices of every frame, so the page keeps drawing while it
// learns, and it goes on while another view is shown.
#pragma once

#include <string>

#include "lessons/views/learn.h"
#include "panels/panel.h"

namespace attnlab {

class LearnPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kLearn; }
  const char* title() const override { return "11 Learn"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  lessons::Job* job() override { return &job_; }
  const char* takeaway() const override {
    return "Wq, Wk and Wv start random and near-uniform; training on a task shapes each head into a measurable rule (look one step back, fetch the value after a matching key).";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void DrawCurves(PanelContext& ctx);
  void DrawHeads(PanelContext& ctx);

  lessons::LearnJob job_;
  std::string settings_;   // FieldsKey of the state the lab was reset for (without the step target)
  int snapshot_ = -1;      // the snapshot drawn; -1: the latest
  int resets_ = 0;         // tiles of a new run get new texture versions
  int curves_step_ = -1;   // lab_.steps() when curves_ was made
  attn::Matrix curves_;    // (bins, 3): step, loss, accuracy
  attn::Matrix curve_steps_, curve_loss_, curve_accuracy_;  // its columns, for the plot
  attn::Matrix held_out_accuracy_;  // (bins, 1) the latest snapshot's held-out accuracy at each point
};

}  // namespace attnlab
