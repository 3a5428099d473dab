// A small line plot drawn with ImGui's draw list: numbered axes, a legend, and the exact values
// of the point under the pointer (mouse or finger). Publishes what it plots for the tests.
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "imgui.h"
#include "published.h"

namespace attnlab {

struct PlotSeries {
  const char* label;
  ImU32 color;
};

struct LinePlotOptions {
  const char* x_label = "x";
  const char* y_label = "y";
  // Tick labels along x are 2^x (the x values are log2 of something).
  bool x_powers_of_two = false;
  // y on a log10 axis (decades); values <= 0 are drawn at the bottom.
  bool log_y = false;
  float height = 220.0f;
  float max_width = 560.0f;
};

// x: (1, P); y: (S, P), series s in row s, styled by series[s]. Publishes y under `name`, x under
// `name.x`, the plot area's rectangle under `name`, and the hovered point's index as `name.hover`.
LayoutRect DrawLinePlot(const std::string& name, const attn::Matrix& x, const attn::Matrix& y,
                        const std::vector<PlotSeries>& series, const LinePlotOptions& options, Published& published);

}  // namespace attnlab
