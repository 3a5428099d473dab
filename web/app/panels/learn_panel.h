// View 11: train a small transformer in the page and watch its heads form. Training is a job
// (lessons::LearnRunsJob: run A, and run B beside it when the reader compares) the app steps in
// slices of every frame or hands to a Web Worker, so the page keeps drawing while it learns, and it
// goes on while another view is shown. learn_panel.cpp draws the controls, curves and maps;
// learn_microscope_panel.cpp the scores over training, the loss per position and the circuits.
#pragma once

#include <string>

#include "lessons/views/learn.h"
#include "lessons/views/learn_microscope.h"
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
  void DrawCompareControls(PanelContext& ctx);
  void DrawCurves(PanelContext& ctx);
  void DrawHeads(PanelContext& ctx);
  void DrawHeadMaps(PanelContext& ctx, const lessons::LearnLab& lab, const lessons::LearnSnapshot& snap, int run);
  // learn_microscope_panel.cpp
  void DrawScores(PanelContext& ctx);
  void DrawPositionLoss(PanelContext& ctx, const lessons::LearnSnapshot& snap, const lessons::LearnSnapshot* snap_b);
  void DrawCircuits(PanelContext& ctx, const lessons::LearnSnapshot& snap);
  void Refresh();  // the curves and scores, once per change of either run's steps

  bool compared() const { return job_.compared(); }

  lessons::LearnRunsJob job_;
  std::string settings_, settings_b_;  // LearnSettingsKey of the states the runs were reset for
  int snapshot_ = -1;      // the snapshot drawn; -1: the latest
  int resets_ = 0;         // tiles of a new run get new texture versions
  int curves_steps_ = -1, curves_steps_b_ = -1, curves_resets_ = -1;  // the runs' steps (and resets_) when the curves were made
  lessons::LearnCurves curves_;
  lessons::PhaseChange phase_[2];
  attn::Matrix score_steps_, prefix_, copying_;  // run A's snapshots: (1, S) steps, (heads, S) scores
  lessons::CircuitLabels labels_;
  // What the microscope draws this frame and publishes (alive until the next frame).
  attn::Matrix position_loss_[2], positions_, composition_[3];
};

}  // namespace attnlab
