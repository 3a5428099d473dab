#include "widgets/flow_layout.h"

#include "imgui.h"

namespace attnlab {

void SameLineIfFits(float next_width) {
  // After an item the cursor is already on the next line, so measure from the item's right edge.
  const float right = ImGui::GetWindowPos().x + ImGui::GetContentRegionMax().x;  // the table column's edge inside a table
  const float gap = ImGui::GetStyle().ItemSpacing.x * 3.0f;
  if (right - ImGui::GetItemRectMax().x >= next_width + gap) ImGui::SameLine(0.0f, gap);
}

std::string FitButtonLabel(const std::string& text, float width) {
  const float room = width - ImGui::GetStyle().FramePadding.x * 2.0f;
  if (ImGui::CalcTextSize(text.c_str()).x <= room) return text;
  // Drop whole words from the end until the rest and the ellipsis fit (at least one word stays).
  for (size_t end = text.rfind(' '); end != std::string::npos && end > 0; end = text.rfind(' ', end - 1)) {
    const std::string shorter = text.substr(0, end) + "…";
    if (ImGui::CalcTextSize(shorter.c_str()).x <= room) return shorter;
  }
  return text.substr(0, text.find(' ')) + "…";
}

float RadioButtonWidth(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

float ButtonWidth(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2.0f;
}

LayoutRect LastItemRect() {
  const ImVec2 min = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
  return LayoutRect{min.x, min.y, size.x, size.y};
}

}  // namespace attnlab
