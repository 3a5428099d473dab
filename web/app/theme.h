// Every colour the page draws with, in one table; panels and widgets ask for a role, never a value.
// ImGui's own colours (text, frames, window) come from its style, set with the same theme.
#pragma once

#include "imgui.h"

namespace attnlab {

struct Theme {
  ImU32 highlight;         // the followed word, pair or point; the receptive field
  ImU32 highlight_faint;   // lines of the receptive field, bars behind a plot
  ImU32 hover_outline;     // the cell under the pointer
  ImU32 unknown_word;      // labels of words outside the vocabulary
  ImU32 inactive_node;     // dots outside the receptive field
  ImU32 hatch_fill, hatch_line;  // masked cells drawn by hand
  ImU32 bar_positive, bar_negative, bar_zero_line;
  ImU32 plot_background, plot_grid, plot_frame, plot_marker;
  ImU32 plot_grid_open, plot_frame_open, plot_tick, plot_hover_line;  // plots without a background
  ImU32 weight_bars;       // whom the hovered point attends to, as bars along a plot's bottom
  ImU32 series[4];         // plot series: reference, data, baseline, attention
  ImU32 compared[2];       // two curves compared (without and with a change)
  ImU32 heads[16];         // one per head, far apart in hue
  ImVec4 error_text;
  ImVec4 explanation_text;
  ImVec4 try_this_text;
  ImVec4 good_text;        // a claim that holds ("difference 0")
  ImVec4 warning_text;     // a claim that does not
  ImVec4 padded_button;
};

// The theme in use: dark (the default) or light.
const Theme& CurrentTheme();
bool LightTheme();
// Switches the table and sets ImGui's style colours to match it (once ImGui exists; may be called
// before).
void ApplyTheme(bool light);

inline ImU32 HeadColor(int h) { return CurrentTheme().heads[h % 16]; }

}  // namespace attnlab
