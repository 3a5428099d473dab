// The one plot widget: curves (or dots) over a shared x axis, drawn with ImDrawList, with numbered
// axes (linear or log10), a legend, and hover or tap on the nearest point. Optional extras: a row of
// weights drawn as bars along the bottom (whom the hovered point attends to), a ringed point, a
// vertical marker lines. Publishes its rectangle, the hovered point and each keyed series.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attn/matrix.h"
#include "imgui.h"
#include "published.h"

namespace attnlab {

struct PlotSeries {
  std::string key;        // published as "<plot>.<key>" (the whole matrix y); empty: not published
  const char* label;      // legend text; "" (or null): no entry, e.g. the upper edge of a spread
  const attn::Matrix* y;  // the values, alive until the next frame: a (n, 1) or (1, n) vector ...
  ImU32 color;
  float thickness = 1.5f;  // line width, or the dots' radius
  bool dots = false;       // a dot per point instead of a line
  int row = -1;            // ... or, when >= 0, row `row` of y (one curve of an (S, n) table)
  bool point_dots = false;  // the line, plus a dot of radius thickness + 1 at every point
};

// A vertical line across the plot at x (a chosen value, an event such as a phase change).
struct PlotMarker {
  float x = 0;
  ImU32 color = 0;  // 0: the theme's plot marker colour
  float thickness = 1.0f;
};

struct PlotOptions {
  const attn::Matrix* x = nullptr;  // n x values (a row or a column); null: the index 0..n-1
  bool log_x = false, log_y = false;
  // Axes that end on round values, for curves of a few computed points: x runs exactly from the first
  // point to the last; y from 0 (a log axis: from a whole decade) up to a whole tick. Otherwise both
  // axes fit the data with a 4% margin on a linear axis.
  bool round_axes = false;
  int y_ticks = 5;          // about this many intervals between y ticks on a linear axis
  double x_step = 0.0;      // spacing of x ticks; 0: chosen from the width
  bool x_powers_of_two = false;  // x holds log2 of the quantity: ticks read 2^x
  // Tick text for a value (default "%g"; on x with x_powers_of_two, 2^x).
  std::function<std::string(double)> x_tick, y_tick;
  float height = 260.0f;
  float max_width = 1e9f;
  const char* x_label = "";
  const char* y_label = "";
  // The look. Default: a filled panel with grid lines at every tick, dimmed numbers, the legend on
  // its own lines above the y label. Open: drawn over the window with horizontal grid lines and tick
  // marks along x, the y label leading the legend, x label centred below.
  bool open = false;
  bool hover_line = false;  // a vertical line through the hovered point
  // The hovered point's tooltip (none when empty).
  std::function<void(int)> describe;
  // Given the hovered point (or -1), a (1, n) row of weights in [0, 1] to draw as bars along the
  // bottom, or null. Asked before drawing, so the bars follow the pointer in the same frame.
  std::function<const attn::Matrix*(int)> weights_for;
  int marked = -1;          // a point drawn with a ring (the focus)
  std::vector<PlotMarker> markers;  // published as "<plot>.markers": each line's screen x
};

struct PlotResult {
  LayoutRect rect;   // the plotting area
  int hovered = -1;  // nearest point index under the pointer (mouse, or a finger holding the plot)
  bool clicked = false;
};

// Publishes the plotting area's rectangle under `name`, the hovered index as `name.hovered` and each
// series with a key as `name.<key>`.
PlotResult DrawPlot(const std::string& name, const std::vector<PlotSeries>& series, const PlotOptions& options,
                    Published& published);

}  // namespace attnlab
