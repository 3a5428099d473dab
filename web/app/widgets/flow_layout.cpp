#include "widgets/flow_layout.h"

#include "imgui.h"

namespace attnlab {

void SameLineIfFits(float next_width) {
  // After an item the cursor is already on the next line, so measure from the item's right edge.
  const float right = ImGui::GetWindowPos().x + ImGui::GetContentRegionMax().x;  // the table column's edge inside a table
  const float gap = ImGui::GetStyle().ItemSpacing.x * 3.0f;
  if (right - ImGui::GetItemRectMax().x >= next_width + gap) ImGui::SameLine(0.0f, gap);
}

}  // namespace attnlab
