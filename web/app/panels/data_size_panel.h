// View 8: does attention need more data than a CNN? Both learn one task from N training sequences,
// for N from 16 up, several seeds each, run live (lessons::DataSizeJob: its runs in the page's Web
// Workers, or in slices of the frame) with a progress bar; the curves of held-out accuracy against N
// (log axis) show who wins where.
#pragma once

#include <string>

#include "lessons/views/data_size.h"
#include "panels/panel.h"

namespace attnlab {

class DataSizePanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kDataSize; }
  const char* title() const override { return "8 Data size"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  lessons::Job* job() override { return &job_; }
  const char* takeaway() const override {
    return "A CNN's built-in locality wins with little data; attention, free to look anywhere, has more to learn and wins once there is enough.";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void DrawCurves(PanelContext& ctx);

  lessons::DataSizeJob job_;
  std::string settings_;  // FieldsKey of the state the job was made for
  bool started_ = false;      // Run was pressed for these settings
  bool restart_ = false;      // "Run again": run as soon as the runner is made anew
  int finished_runs_ = -1;  // curves_ are remade when a run finishes
  lessons::DataSizeCurves curves_;
  std::string description_;
};

}  // namespace attnlab
