#include "widgets/heatmap_grid.h"

#include <algorithm>
#include <cmath>

#include "gfx/heatmap_store.h"
#include "lessons/csv.h"
#include "widgets/export_menu.h"

namespace attnlab {

int DrawHeatmapGrid(const std::vector<GridTile>& tiles, int selected, float target_size, Published& published) {
  const int count = static_cast<int>(tiles.size());
  if (count == 0) return -1;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float spacing = style.ItemSpacing.x * 2.0f;
  const float avail = std::max(60.0f, ImGui::GetContentRegionAvail().x);
  const int per_row = std::clamp(static_cast<int>((avail + spacing) / (target_size + spacing)), 1, count);
  // Tiles grow to fill the row, up to half again their target size.
  const float size = std::min((avail - spacing * (per_row - 1)) / per_row, target_size * 1.5f);
  const float title_h = ImGui::GetTextLineHeightWithSpacing();
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  int clicked = -1, hovered_row = -1;
  std::vector<ImVec2> tile_corners(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) {
    const GridTile& t = tiles[k];
    const int rows = static_cast<int>(t.m->rows()), cols = static_cast<int>(t.m->cols());
    if (rows == 0 || cols == 0) continue;
    const ImVec2 corner(origin.x + (k % per_row) * (size + spacing), origin.y + (k / per_row) * (size + title_h + spacing));
    list->PushClipRect(corner, ImVec2(corner.x + size, corner.y + title_h), true);  // long titles never overlap
    list->AddText(corner, t.color, t.title.c_str());
    list->PopClipRect();
    const ImVec2 p0(corner.x, corner.y + title_h), p1(p0.x + size, p0.y + size);
    tile_corners[static_cast<size_t>(k)] = p0;
    gfx::HeatmapFor(ImGui::GetID(t.name.c_str()), *t.m, t.masked_by, t.version).Draw(list, p0, p1, t.style);
    list->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p1.x + 2, p1.y + 2), t.color, 0.0f, 0, k == selected ? 4.0f : 1.0f);
    ImGui::SetCursorScreenPos(p0);
    ImGui::InvisibleButton(t.name.c_str(), ImVec2(size, size));
    OpenExportMenuOnRightClick(t.name);  // a tile has no room for a ⋯ button: right click or long press
    if (ImGui::IsItemClicked()) clicked = k;
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
      const ImVec2 mouse = ImGui::GetIO().MousePos;
      const int j = std::clamp(static_cast<int>((mouse.x - p0.x) / (size / cols)), 0, cols - 1);
      const int i = std::clamp(static_cast<int>((mouse.y - p0.y) / (size / rows)), 0, rows - 1);
      published.Hover({t.name, i, j, (*t.m)(i, j)});
      hovered_row = i;
      auto name = [&](int k) { return t.labels && k < static_cast<int>(t.labels->size()) ? (*t.labels)[k] : std::to_string(k); };
      ImGui::SetTooltip("%s: w[%s, %s] = %.4g\nclick to enlarge", t.title.c_str(), name(i).c_str(), name(j).c_str(), (*t.m)(i, j));
    }
    DrawExportMenu(t.name, {corner.x - 2, corner.y, size + 4, title_h + size + 2}, [&] {
      const std::vector<std::string> labels = t.labels ? *t.labels : std::vector<std::string>{};
      return lessons::MatrixToCsv(*t.m, labels, labels);
    }, published, /*button=*/false);
    published.Matrix(t.name, *t.m);
    published.Rect(t.name, {p0.x, p0.y, size, size});
  }
  // The row under the pointer (a word as the query), outlined in every tile with the cell of its
  // largest weight: where each head sends that word, all at once. Drawn after every tile so the
  // tiles before the hovered one show it in the same frame.
  if (hovered_row >= 0) {
    for (int k = 0; k < count; ++k) {
      const GridTile& t = tiles[k];
      const int rows = static_cast<int>(t.m->rows()), cols = static_cast<int>(t.m->cols());
      if (hovered_row >= rows || cols == 0) continue;
      const ImVec2 p0 = tile_corners[static_cast<size_t>(k)];
      const float cell_w = size / cols, cell_h = size / rows, y = p0.y + hovered_row * cell_h;
      const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
      list->AddRect(ImVec2(p0.x - 1, y - 1), ImVec2(p0.x + size + 1, y + cell_h + 1), ink, 0.0f, 0, 1.5f);
      Eigen::Index key = 0;
      t.m->row(hovered_row).maxCoeff(&key);
      const float x = p0.x + static_cast<float>(key) * cell_w;
      list->AddRect(ImVec2(x, y), ImVec2(x + cell_w, y + cell_h), t.color, 0.0f, 0, 2.5f);
      published.Rect(t.name + ".row", {p0.x, y, size, cell_h});
      published.Rect(t.name + ".sends", {x, y, cell_w, cell_h});
    }
  }
  const int grid_rows = (count + per_row - 1) / per_row;
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(avail, grid_rows * (size + title_h + spacing)));
  return clicked;
}

}  // namespace attnlab
