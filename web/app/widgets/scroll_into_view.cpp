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
bool g_host_scrolls = false;
float g_host_top = -1.0f, g_host_height = 0.0f;  // a section the host page should scroll to

}  // namespace

void RequestScrollToSection(const char* section) { g_requested = section; }
void SetReducedMotion(bool reduced) { g_reduced_motion = reduced; }
void SetHostScrollsSections(bool host_scrolls) { g_host_scrolls = host_scrolls; }

bool TakeHostScrollRequest(float* top, float* height) {
  if (g_host_top < 0.0f) return false;
  *top = g_host_top;
  *height = g_host_height;
  g_host_top = -1.0f;
  return true;
}

void MarkSection(const char* section) {
  if (g_requested != section) return;
  g_requested.clear();
  const float top = ImGui::GetCursorScreenPos().y;
  if (g_host_scrolls) {
    // An embed is as tall as its content and never scrolls: the host page does it, if needed.
    g_host_top = top - ImGui::GetWindowPos().y;
    g_host_height = ImGui::GetTextLineHeight() * 12.0f;
    return;
  }
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
