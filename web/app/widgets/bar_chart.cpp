#include "widgets/bar_chart.h"

#include <string>
#include <vector>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "imgui.h"
#include "theme.h"

namespace attnlab {

LayoutRect DrawBars(const std::string& name, const std::vector<std::string>& labels, const attn::Matrix& m, int row,
                    float max_width, Published& published, BarAxis axis) {
  if (row < 0 || row >= m.rows() || m.cols() == 0) return {};
  const int n = static_cast<int>(m.cols());
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight();
  float label_w = 0, lo = 0, hi = 0;
  for (int j = 0; j < n; ++j) {
    label_w = std::max(label_w, ImGui::CalcTextSize(labels[j].c_str()).x);
    lo = std::min(lo, m(row, j));
    hi = std::max(hi, m(row, j));
  }
  if (axis.hi > axis.lo) {
    lo = std::min(lo, axis.lo);
    hi = std::max(hi, axis.hi);
  }
  // The numbers as printed, and the widest of them: the bars take what is left, so no number is cut
  // at the screen's edge ("5.021e-05" is wider than "-0.0000").
  std::vector<std::string> numbers(n);
  float number_w = 0;
  for (int j = 0; j < n; ++j) {
    char number[32];
    std::snprintf(number, sizeof(number), "%.4g", m(row, j));
    numbers[j] = number;
    number_w = std::max(number_w, ImGui::CalcTextSize(number).x);
  }
  const float width = std::max(60.0f, std::min(ImGui::GetContentRegionAvail().x, max_width) - label_w - number_w - 3 * style.ItemSpacing.x);
  const float span = std::max(hi - lo, 1e-12f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float x0 = origin.x + label_w + style.ItemSpacing.x;
  const float zero = x0 + width * (-lo / span);
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 pos_col = CurrentTheme().bar_positive, neg_col = CurrentTheme().bar_negative;
  for (int j = 0; j < n; ++j) {
    const float y = origin.y + j * line * 1.2f;
    const float v = m(row, j);
    const ImVec2 size = ImGui::CalcTextSize(labels[j].c_str());
    list->AddText(ImVec2(x0 - style.ItemSpacing.x - size.x, y), text_col, labels[j].c_str());
    const float end = zero + width * (v / span);
    list->AddRectFilled(ImVec2(std::min(zero, end), y + line * 0.15f), ImVec2(std::max(zero, end), y + line * 0.95f),
                        v >= 0 ? pos_col : neg_col);
    list->AddText(ImVec2(x0 + width + style.ItemSpacing.x, y), text_col, numbers[j].c_str());
  }
  list->AddLine(ImVec2(zero, origin.y), ImVec2(zero, origin.y + n * line * 1.2f), CurrentTheme().bar_zero_line);
  const LayoutRect rect{x0, origin.y, width, n * line * 1.2f};
  // The numbers' column too, for the tests' "everything on screen" check.
  published.Rect(name + ".numbers", {x0 + width + style.ItemSpacing.x, origin.y, number_w, rect.h});
  ImGui::Dummy(ImVec2(x0 - origin.x + width + number_w + 2 * style.ItemSpacing.x, rect.h));
  published.Matrix(name, m);
  published.Scalar(name + ".row", row);
  published.Rect(name, rect);
  return rect;
}

}  // namespace attnlab
