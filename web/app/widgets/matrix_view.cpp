#include "widgets/matrix_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "imgui.h"
#include "imgui_internal.h"  // ImHashStr: the IDs of the shared legend textures
#include "lessons/csv.h"
#include "widgets/export_menu.h"
#include "gfx/heatmap_store.h"
#include "theme.h"
#include "widgets/flow_layout.h"

namespace attnlab {
namespace {

std::string Label(const MatrixLabels& labels, int index) {
  // Unnamed rows and columns are numbered for readers: from 1.
  if (!labels.names || index >= static_cast<int>(labels.names->size())) return std::to_string(index + 1);
  const std::string& name = (*labels.names)[index];
  const bool unknown = labels.known && index < static_cast<int>(labels.known->size()) && !(*labels.known)[index];
  return unknown ? name + "?" : name;
}

bool Unknown(const MatrixLabels& labels, int index) {
  return labels.known && index < static_cast<int>(labels.known->size()) && !(*labels.known)[index];
}

// The 0..1 ramp the legends draw. Kept in the heatmap store like every other texture, so it is
// uploaded again after a WebGL context loss (a function-local texture stayed dead: blank legends).
gfx::Heatmap& LegendRamp() {
  static const attn::Matrix values = [] {
    attn::Matrix m(1, 64);
    for (int i = 0; i < 64; ++i) m(0, i) = static_cast<float>(i) / 63.0f;
    return m;
  }();
  return gfx::HeatmapFor(ImHashStr("attnlab.legend_ramp"), values, nullptr, 1);
}

// One −inf cell: the shader's hatch, for the legend's "blocked" swatch.
gfx::Heatmap& BlockedSwatch() {
  static const attn::Matrix blocked = attn::Matrix::Constant(1, 1, -INFINITY);
  return gfx::HeatmapFor(ImHashStr("attnlab.blocked_swatch"), blocked, nullptr, 1);
}

// Text turned a quarter turn anticlockwise, reading upwards from `bottom_left`: ImGui draws text
// only horizontally, so the glyphs' vertices are rotated after they are added.
void DrawUprightText(ImDrawList* list, ImVec2 bottom_left, ImU32 color, const char* text) {
  const int first = list->VtxBuffer.Size;
  // ImGui drops glyphs outside the clip rectangle before they are turned, so the text is laid out
  // at the screen's corner, inside the full-screen rectangle, and then turned and moved into place
  // (laid out where it ends up, a label near the right edge would lose its end).
  list->PushClipRectFullScreen();
  list->AddText(ImVec2(0, 0), color, text);
  list->PopClipRect();
  for (int k = first; k < list->VtxBuffer.Size; ++k) {
    ImVec2& p = list->VtxBuffer[k].pos;
    p = ImVec2(bottom_left.x + p.y, bottom_left.y - p.x);
  }
}

bool AnyBlocked(const attn::Matrix& m, const attn::Matrix* masked_by) {
  const auto blocked = [](const attn::Matrix& a) { return (a.array() == -INFINITY).any(); };
  return blocked(m) || (masked_by && blocked(*masked_by));
}

}  // namespace

MatrixViewOptions TokenRowsOptions(const std::string& symbol, const gfx::HeatmapStyle& style, MatrixLabels rows) {
  MatrixViewOptions o;
  o.symbol = symbol;
  o.style = style;
  o.rows = rows;
  o.square = false;
  return o;
}

MatrixViewOptions TokenGridOptions(const std::string& symbol, const gfx::HeatmapStyle& style, MatrixLabels tokens) {
  MatrixViewOptions o;
  o.symbol = symbol;
  o.style = style;
  o.rows = o.cols = tokens;
  return o;
}

void DrawSideBySide(const char* id, const std::function<void()>& left, const std::function<void()>& right,
                    float min_width) {
  if (ImGui::GetContentRegionAvail().x >= min_width && ImGui::BeginTable(id, 2)) {
    ImGui::TableNextColumn();
    left();
    ImGui::TableNextColumn();
    right();
    ImGui::EndTable();
  } else {
    left();
    right();
  }
}

gfx::HeatmapStyle WeightsStyle(const attn::Matrix& m) {
  gfx::HeatmapStyle style{gfx::Colormap::kViridis, 0.0f, 1.0f, 0.04f};
  if (m.cols() > 0) style.reference = 1.0f / static_cast<float>(m.cols());
  style.stretchable = true;
  return style;
}

gfx::HeatmapStyle SharedDivergingStyle(std::initializer_list<const attn::Matrix*> ms) {
  float bound = 0;
  for (const attn::Matrix* m : ms)
    for (Eigen::Index i = 0; i < m->size(); ++i)
      if (std::isfinite(m->data()[i])) bound = std::max(bound, std::fabs(m->data()[i]));
  bound = bound > 1e-6f ? bound : 1.0f;
  return {gfx::Colormap::kDiverging, -bound, bound, 0.0f};
}

gfx::HeatmapStyle DivergingStyle(const attn::Matrix& m) { return SharedDivergingStyle({&m}); }

namespace {

// The reader's per-map "stretch contrast" toggle, kept in ImGui's storage under the map's ID.
bool* StretchToggle(const std::string& name) {
  return ImGui::GetStateStorage()->GetBoolRef(ImGui::GetID((name + "##stretch").c_str()), false);
}

}  // namespace

LayoutRect DrawMatrix(const std::string& name, const attn::Matrix& m, int version, const MatrixViewOptions& options,
                      Published& published) {
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  if (rows == 0 || cols == 0) return {};
  MatrixViewOptions o = options;
  bool* stretch = o.style.stretchable ? StretchToggle(name) : nullptr;
  if (stretch && *stretch) {
    const float top = m.maxCoeff();
    o.style.vmax = std::isfinite(top) && top > 1e-6f ? top : 1.0f;
  }
  gfx::Heatmap& map = gfx::HeatmapFor(ImGui::GetID(name.c_str()), m, o.masked_by, version);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight();

  std::vector<std::string> row_labels(rows);
  float label_w = 0;
  for (int i = 0; i < rows; ++i) {
    row_labels[i] = Label(o.rows, i);
    label_w = std::max(label_w, ImGui::CalcTextSize(row_labels[i].c_str()).x);
  }
  label_w = std::max(label_w, o.min_label_width) + style.ItemSpacing.x;
  const float avail = std::max(40.0f, std::min(ImGui::GetContentRegionAvail().x - label_w, o.max_width));
  float cell_w = std::clamp(avail / static_cast<float>(cols), 2.0f, 56.0f);
  float cell_h = o.square ? cell_w : std::max(cell_w, line * 1.15f);
  if (o.max_height > 0 && cell_h * static_cast<float>(rows) > o.max_height) {
    cell_h = std::max(1.0f, o.max_height / static_cast<float>(rows));
    if (o.square) cell_w = cell_h;
  }
  const bool column_labels = o.cols.names != nullptr;
  // Column labels that do not fit across a cell are drawn upright (reading upwards), never cut.
  std::vector<std::string> col_labels;
  float col_label_w = 0;
  for (int j = 0; column_labels && j < cols; ++j) {
    col_labels.push_back(Label(o.cols, j));
    col_label_w = std::max(col_label_w, ImGui::CalcTextSize(col_labels.back().c_str()).x);
  }
  const bool upright = column_labels && col_label_w > cell_w - 2.0f;
  const float header_h = !column_labels ? 0.0f : upright ? col_label_w + style.ItemSpacing.y : line * 1.2f;

  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 p0(origin.x + label_w, origin.y + header_h);
  const ImVec2 p1(p0.x + cell_w * cols, p0.y + cell_h * rows);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const int label_every = cell_h >= line * 0.8f ? 1 : static_cast<int>(std::ceil(line / cell_h));
  for (int i = 0; i < rows; i += label_every) {
    const ImVec2 size = ImGui::CalcTextSize(row_labels[i].c_str());
    list->AddText(ImVec2(p0.x - size.x - style.ItemSpacing.x, p0.y + cell_h * (i + 0.5f) - size.y * 0.5f),
                  Unknown(o.rows, i) ? CurrentTheme().unknown_word : text_col, row_labels[i].c_str());
  }
  const int col_label_every = cell_w >= line * 0.8f ? 1 : static_cast<int>(std::ceil(line / cell_w));
  for (int j = 0; column_labels && j < cols; j += col_label_every) {
    const char* t = col_labels[j].c_str();
    const ImU32 c = Unknown(o.cols, j) ? CurrentTheme().unknown_word : text_col;
    const float w = ImGui::CalcTextSize(t).x;
    if (upright) DrawUprightText(list, ImVec2(p0.x + cell_w * (j + 0.5f) - line * 0.5f, p0.y - style.ItemSpacing.y * 0.5f), c, t);
    else list->AddText(ImVec2(p0.x + cell_w * (j + 0.5f) - w * 0.5f, origin.y), c, t);
  }
  map.Draw(list, p0, p1, o.style);
  if (o.marked_row >= 0 && o.marked_row < rows && o.marked_col >= 0 && o.marked_col < cols)
    list->AddRect(ImVec2(p0.x + o.marked_col * cell_w, p0.y + o.marked_row * cell_h),
                  ImVec2(p0.x + (o.marked_col + 1) * cell_w, p0.y + (o.marked_row + 1) * cell_h), CurrentTheme().highlight,
                  0.0f, 0, 2.0f);
  if (o.highlight_row >= 0 && o.highlight_row < rows) {
    const ImVec2 a(p0.x - 1, p0.y + o.highlight_row * cell_h - 1), b(p1.x + 1, p0.y + (o.highlight_row + 1) * cell_h + 1);
    list->AddRect(a, b, CurrentTheme().highlight, 0.0f, 0, 2.0f);
    published.Rect(name + ".row", {a.x, a.y, b.x - a.x, b.y - a.y});
  }
  if (o.highlight_col >= 0 && o.highlight_col < cols) {
    const ImVec2 a(p0.x + o.highlight_col * cell_w - 1, p0.y - 1), b(p0.x + (o.highlight_col + 1) * cell_w + 1, p1.y + 1);
    list->AddRect(a, b, CurrentTheme().highlight, 0.0f, 0, 2.0f);
    published.Rect(name + ".col", {a.x, a.y, b.x - a.x, b.y - a.y});
  }
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton(name.c_str(), ImVec2(p1.x - p0.x, p1.y - p0.y));
  OpenExportMenuOnRightClick(name);
  if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int j = std::clamp(static_cast<int>((mouse.x - p0.x) / cell_w), 0, cols - 1);
    const int i = std::clamp(static_cast<int>((mouse.y - p0.y) / cell_h), 0, rows - 1);
    published.Hover({name, i, j, m(i, j)});
    // A click or tap counts when released on the cell without dragging: a touch drag scrolls instead.
    const ImGuiIO& io = ImGui::GetIO();
    const bool tapped = ImGui::IsItemDeactivated() && io.MouseDragMaxDistanceSqr[0] < io.MouseDragThreshold * io.MouseDragThreshold;
    if (o.on_click && tapped) o.on_click(i, j);
    list->AddRect(ImVec2(p0.x + j * cell_w, p0.y + i * cell_h), ImVec2(p0.x + (j + 1) * cell_w, p0.y + (i + 1) * cell_h),
                  CurrentTheme().hover_outline, 0.0f, 0, 2.0f);
    ImGui::BeginTooltip();
    ImGui::Text("%s[%s, %s] = %.4g", o.symbol.c_str(), Label(o.rows, i).c_str(), Label(o.cols, j).c_str(), m(i, j));
    const bool masked = std::isinf(m(i, j)) || (o.masked_by && o.masked_by->rows() == rows &&
                                                o.masked_by->cols() == cols && std::isinf((*o.masked_by)(i, j)));
    if (masked) ImGui::TextDisabled("masked: this query may not look at this key");
    if (o.describe) o.describe(i, j);
    if (Unknown(o.rows, i)) ImGui::TextDisabled("%s is not in the vocabulary: a stand-in vector", Label(o.rows, i).c_str());
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p1.y + style.ItemSpacing.y));
  if (o.legend) {
    DrawLegend(o.style, std::min(p1.x - origin.x, 260.0f), stretch && *stretch ? "stretched" : nullptr);
    if (stretch) {
      SameLineIfFits(ImGui::CalcTextSize("stretch").x + ImGui::GetFrameHeight() + 3 * ImGui::GetStyle().ItemSpacing.x);
      ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(2, 0));
      ImGui::Checkbox(("stretch##" + name).c_str(), stretch);
      ImGui::PopStyleVar();
    }
  }
  if (o.legend && AnyBlocked(m, o.masked_by)) {
    const float line = ImGui::GetTextLineHeight();
    SameLineIfFits(line * 1.4f + ImGui::CalcTextSize(" blocked").x + ImGui::GetStyle().ItemSpacing.x);
    const ImVec2 q = ImGui::GetCursorScreenPos();
    BlockedSwatch().Draw(list, q, ImVec2(q.x + line * 1.4f, q.y + line), o.style);
    ImGui::Dummy(ImVec2(line * 1.4f, line));
    ImGui::SameLine();
    ImGui::TextUnformatted("blocked");
  }
  // The figure as a picture: labels, map and legend (the ⋯ button after it is left out).
  const float right = o.legend ? std::max(p1.x, ImGui::GetItemRectMax().x) : p1.x;
  const float bottom = o.legend ? ImGui::GetItemRectMax().y : p1.y;
  const LayoutRect figure{origin.x, origin.y, right - origin.x, bottom - origin.y};
  if (o.legend) SameLineIfFits(ImGui::GetFrameHeight() * 1.5f);
  const auto names = [](const MatrixLabels& l) { return l.names ? *l.names : std::vector<std::string>{}; };
  DrawExportMenu(name, figure, [&] { return lessons::MatrixToCsv(m, names(o.rows), names(o.cols)); }, published, o.legend);
  published.Rect(name + ".figure", figure);
  const LayoutRect rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};
  published.Matrix(name, m);
  published.Rect(name, rect);
  if (column_labels) {  // room given to the column labels against their widest text: the tests check nothing is cut
    published.Scalar(name + ".col_label_room", upright ? header_h - style.ItemSpacing.y * 0.5f : cell_w - 2.0f);
    published.Scalar(name + ".col_label_width", col_label_w);
  }
  published.Scalar(name + ".vmin", o.style.vmin);
  published.Scalar(name + ".vmax", o.style.vmax);
  return rect;
}

void DrawLegend(const gfx::HeatmapStyle& style, float width, const char* note) {
  const float line = ImGui::GetTextLineHeight(), spacing = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  char lo[32], hi[32], ref[32] = "";
  std::snprintf(lo, sizeof(lo), "%.3g", style.vmin);
  std::snprintf(hi, sizeof(hi), "%.3g", style.vmax);
  const bool has_ref = style.reference > style.vmin && style.reference < style.vmax;
  if (has_ref) std::snprintf(ref, sizeof(ref), "1/n = %.2g", style.reference);
  const float lo_w = ImGui::CalcTextSize(lo).x, hi_w = ImGui::CalcTextSize(hi).x;
  const float ref_w = has_ref ? ImGui::CalcTextSize(ref).x + spacing : 0.0f;
  const float note_w = note ? ImGui::CalcTextSize(note).x + spacing : 0.0f;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  list->AddText(origin, text_col, lo);
  const ImVec2 b0(origin.x + lo_w + spacing, origin.y + line * 0.15f);
  const ImVec2 b1(b0.x + std::max(width - lo_w - hi_w - ref_w - note_w - 2 * spacing, 40.0f), origin.y + line * 0.85f);
  // The ramp holds 0..1 and is drawn over 0..1, so the bar's colours are exactly the map's.
  LegendRamp().Draw(list, b0, b1, gfx::HeatmapStyle{style.colormap, 0.0f, 1.0f, 0.0f});
  float x = b1.x + spacing;
  list->AddText(ImVec2(x, origin.y), text_col, hi);
  x += hi_w;
  if (has_ref) {
    // A tick at the reference value (1/n: every word weighted alike), named after the bar.
    const float tick = b0.x + (b1.x - b0.x) * (style.reference - style.vmin) / (style.vmax - style.vmin);
    list->AddLine(ImVec2(tick, b0.y - 2), ImVec2(tick, b1.y + 2), CurrentTheme().hover_outline, 2.0f);
    list->AddText(ImVec2(x + spacing, origin.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), ref);
    x += ref_w;
  }
  if (note) {
    list->AddText(ImVec2(x + spacing, origin.y), CurrentTheme().highlight, note);
    x += note_w;
  }
  ImGui::Dummy(ImVec2(x - origin.x, line));
}

}  // namespace attnlab
