#include "widgets/grid.h"

#include <algorithm>

#include "imgui.h"

namespace attnlab {

bool BeginGrid(const char* id, int max_columns, float min_column_width) {
  const int fit = static_cast<int>(ImGui::GetContentRegionAvail().x / min_column_width);
  const int columns = std::clamp(fit, 1, std::max(1, max_columns));
  return ImGui::BeginTable(id, columns, ImGuiTableFlags_SizingStretchSame);
}

void EndGrid() { ImGui::EndTable(); }

}  // namespace attnlab
