// Every control ImGui laid out this frame (buttons, sliders, checkboxes, tabs, maps), with its label
// and rectangle, including those scrolled or cut out of view: window.attnlab.layout() lists them as
// "control.<label>", so tests check that a phone reaches each one. Collected through Dear
// ImGui's test-engine hooks (IMGUI_ENABLE_TEST_ENGINE: one call per item), which ImGui makes for
// exactly this.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "published.h"

namespace attnlab {

struct LoggedItem {
  unsigned id = 0;
  std::string label;  // the visible part of the ImGui label (before "##"); "" when it has none
  LayoutRect rect;
};

// Turns the hooks on for the current ImGui context and forgets the previous frame's items.
void BeginItemLog();
const std::vector<LoggedItem>& LoggedItems();
// Every control of the last frame by name: "control.<label>" (a second one with the same label gets
// "#2", …; one never visible yet, whose label ImGui has not given, "control.#<its ID in hex>").
// Built when asked (window.attnlab.layout()), not every frame.
std::vector<std::pair<std::string, LayoutRect>> NamedControls();

}  // namespace attnlab
