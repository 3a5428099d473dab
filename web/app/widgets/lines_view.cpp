#include "widgets/lines_view.h"

#include <algorithm>

namespace attnlab {

LayoutRect DrawLines(const std::string& name, const std::vector<std::string>& tokens,
                     const std::vector<WeightLayer>& layers, float max_width, Published& published) {
  const int n = static_cast<int>(tokens.size());
  if (n == 0) return {};
  const float line = ImGui::GetTextLineHeight();
  const float row_h = line * 1.35f;
  float label_w = 0;
  for (const auto& t : tokens) label_w = std::max(label_w, ImGui::CalcTextSize(t.c_str()).x);
  const float width = std::min(ImGui::GetContentRegionAvail().x, max_width);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float left_x = origin.x + label_w, right_x = origin.x + width - label_w;
  const float height = n * row_h;
  ImGui::InvisibleButton(name.c_str(), ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered() || ImGui::IsItemActive();
  int focus = -1;
  if (hovered) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    focus = std::clamp(static_cast<int>((mouse.y - origin.y) / row_h), 0, n - 1);
  }
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  for (const WeightLayer& layer : layers) {
    const attn::Matrix& w = *layer.weights;
    for (int i = 0; i < n; ++i) {
      if (focus >= 0 && i != focus) continue;
      for (int j = 0; j < n && j < w.cols(); ++j) {
        const float alpha = std::clamp(w(i, j), 0.0f, 1.0f);
        if (alpha < 0.01f) continue;  // invisible anyway; keeps the draw list small
        const ImU32 c = (layer.color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha * 255.0f) << IM_COL32_A_SHIFT);
        list->AddLine(ImVec2(left_x + gap, origin.y + (i + 0.5f) * row_h), ImVec2(right_x - gap, origin.y + (j + 0.5f) * row_h),
                      c, 1.0f + 3.0f * alpha);
      }
    }
  }
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text), dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (int i = 0; i < n; ++i) {
    const ImVec2 size = ImGui::CalcTextSize(tokens[i].c_str());
    const float y = origin.y + (i + 0.5f) * row_h - size.y * 0.5f;
    list->AddText(ImVec2(left_x - size.x, y), focus < 0 || focus == i ? text_col : dim_col, tokens[i].c_str());
    list->AddText(ImVec2(right_x, y), text_col, tokens[i].c_str());
  }
  const LayoutRect rect{origin.x, origin.y, width, height};
  published.Rect(name, rect);
  published.Scalar(name + ".focus", focus);
  return rect;
}

}  // namespace attnlab
