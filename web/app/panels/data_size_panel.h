// View 8: does attention need more data than a CNN? Both learn one task from N training sequences,
// for N from 16 up, several seeds each, run live in time slices with a progress bar; the curves of
// held-out accuracy against N (log axis) show who wins where.
#pragma once

#include <string>

#include "lessons/views/data_size.h"
#include "panels/panel.h"

namespace attnlab {

class DataSizePanel : public Panel {
 public:
  // Training per frame. More than view 11's 8 ms: the defaults' 24 runs must end within a minute,
  // and nothing but a progress bar and a plot is drawn meanwhile.
  static constexpr double kSliceMs = 12.0;

  lessons::ViewId id() const override { return lessons::ViewId::kDataSize; }
  const char* title() const override { return "8 Data size"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "A CNN's built-in locality wins with little data; attention, free to look anywhere, has more to learn and wins once there is enough.";
  }

 private:
  void DrawControls(PanelContext& ctx);
  void Run(PanelContext& ctx);
  void DrawCurves(PanelContext& ctx);

  attn::train::DataSizeRunner runner_;
  std::string settings_;  // FieldsKey of the state the runner was made for
  std::string error_;
  bool running_ = false;
  bool started_ = false;      // Run was pressed for these settings
  bool restart_ = false;      // "Run again": run as soon as the runner is made anew
  int finished_runs_ = -1;  // curves_ are remade when a run finishes
  lessons::DataSizeCurves curves_;
  std::string description_;
};

}  // namespace attnlab
