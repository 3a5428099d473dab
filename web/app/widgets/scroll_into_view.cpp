#include "widgets/scroll_into_view.h"

#include <cmath>
#include <string>

#include "imgui.h"

namespace attnlab {
namespace {

std::string g_requested;  // the section a click asked for, until it is drawn
float g_target = -1.0f;   // scroll Y being moved to; < 0: none
int g_frames_left = 0;    // the content may grow over the next frames (ImGui sizes it a frame late)
bool g_reduced_motion = false;

}  // namespace

void RequestScrollToSection(const char* section) { g_requested = section; }
void SetReducedMotion(bool reduced) { g_reduced_motion = reduced; }

void MarkSection(const char* section) {
  if (g_requested != section) return;
  g_requested.clear();
  const float top = ImGui::GetCursorScreenPos().y;
  const float window_top = ImGui::GetWindowPos().y, window_h = ImGui::GetWindowHeight();
  // Already on screen with room to show something of it: leave the page where it is.
  if (top >= window_top && top <= window_top + window_h * 0.6f) return;
  const float margin = ImGui::GetTextLineHeight() * 3.0f;  // keep a little of what was clicked above it
  g_target = std::fmax(0.0f, ImGui::GetScrollY() + (top - window_top) - margin);
  g_frames_left = 40;
}

bool StepScroll() {
  if (g_target < 0.0f) return false;
  // The section just opened may not be in ScrollMaxY yet: aim at the target, as far as it goes.
  const float target = std::fmin(g_target, ImGui::GetScrollMaxY());
  const float now = ImGui::GetScrollY(), step = (target - now) * (g_reduced_motion ? 1.0f : 0.35f);
  if (--g_frames_left <= 0 || (std::fabs(target - now) < 1.5f && target >= g_target)) {
    ImGui::SetScrollY(target);
    g_target = -1.0f;
    return false;
  }
  ImGui::SetScrollY(now + step);
  return true;
}

}  // namespace attnlab
