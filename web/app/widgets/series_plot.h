// A line plot of one or more series over a shared x axis, with numbered axes and a legend, drawn
// with ImDrawList. Hovering (or tapping) picks the nearest point; an optional row of weights is
// drawn as bars along the bottom (whom the hovered point attends to). Publishes each series.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attn/matrix.h"
#include "imgui.h"
#include "published.h"

namespace attnlab {

struct PlotSeries {
  std::string key;         // published as "<plot>.<key>"
  const char* label;       // legend text
  const attn::Matrix* y;   // (n, 1); must outlive the frame
  ImU32 color;
  float thickness = 1.5f;
  bool dots = false;       // a dot per point instead of a line
};

struct SeriesPlotOptions {
  const attn::Matrix* x = nullptr;  // (n, 1) x values; null: the index 0..n-1
  bool log_x = false, log_y = false;
  float height = 260.0f;
  float max_width = 1e9f;
  const char* x_label = "";
  const char* y_label = "";
  double x_step = 0.0;  // spacing of x ticks; 0: chosen from the width
  // Text for an x tick at value v (default "%g").
  std::function<std::string(double)> x_tick;
  // Text for the hovered point's tooltip.
  std::function<void(int)> describe;
  // Given the hovered point (or -1), a (1, n) row of weights in [0, 1] to draw as bars along the
  // bottom, or null. Asked before drawing, so the bars follow the pointer in the same frame.
  std::function<const attn::Matrix*(int)> weights_for;
  int marked = -1;                        // a point drawn with a ring (the focus)
  float marker_x = 0.0f;                  // a vertical line at this x when draw_marker_x
  bool draw_marker_x = false;
};

struct SeriesPlotResult {
  LayoutRect rect;   // the plotting area
  int hovered = -1;  // nearest point index under the pointer
  bool clicked = false;
};

SeriesPlotResult DrawSeriesPlot(const std::string& name, const std::vector<PlotSeries>& series,
                                const SeriesPlotOptions& options, Published& published);

}  // namespace attnlab
