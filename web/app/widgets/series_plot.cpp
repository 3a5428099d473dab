#include "widgets/series_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab {
namespace {

// Axis mapping, linear or log10; values outside a log axis' domain clamp to its bottom.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double T(double v) const { return log ? std::log10(std::max(v, 1e-30)) : v; }
  float Map(double v, float p0, float p1) const {
    const double t = (T(v) - T(lo)) / std::max(T(hi) - T(lo), 1e-30);
    return static_cast<float>(p0 + (p1 - p0) * std::clamp(t, -0.05, 1.05));
  }
};

// Round tick values ("nice numbers"): about `count` of them between lo and hi, or every `fixed`.
std::vector<double> Ticks(const Axis& a, int count, double fixed = 0.0) {
  std::vector<double> ticks;
  if (a.log) {
    for (double e = std::floor(std::log10(a.lo)); e <= std::ceil(std::log10(a.hi)); ++e) {
      const double v = std::pow(10.0, e);
      if (v >= a.lo * 0.999 && v <= a.hi * 1.001) ticks.push_back(v);
    }
    return ticks;
  }
  const double raw = (a.hi - a.lo) / std::max(count, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-30))));
  const double step = fixed > 0 ? fixed : raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi + step * 1e-6; v += step) ticks.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

Axis Range(const std::vector<const attn::Matrix*>& ms, bool log) {
  Axis a;
  a.log = log;
  a.lo = INFINITY;
  a.hi = -INFINITY;
  for (const attn::Matrix* m : ms) {
    for (Eigen::Index i = 0; i < m->size(); ++i) {
      const double v = m->data()[i];
      if (!std::isfinite(v) || (log && v <= 0)) continue;
      a.lo = std::min(a.lo, v);
      a.hi = std::max(a.hi, v);
    }
  }
  if (!std::isfinite(a.lo)) a.lo = log ? 1e-8 : 0, a.hi = 1;
  if (a.hi <= a.lo) a.hi = log ? a.lo * 10 : a.lo + 1;
  if (!log) {
    const double pad = 0.04 * (a.hi - a.lo);
    a.lo -= pad;
    a.hi += pad;
  }
  return a;
}

}  // namespace

SeriesPlotResult DrawSeriesPlot(const std::string& name, const std::vector<PlotSeries>& series,
                                const SeriesPlotOptions& o, Published& published) {
  SeriesPlotResult result;
  if (series.empty() || series[0].y->rows() == 0) return result;
  const int n = static_cast<int>(series[0].y->rows());
  const float line = ImGui::GetTextLineHeight();
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::min(ImGui::GetContentRegionAvail().x, o.max_width);

  attn::Matrix index;  // the default x: 0..n-1
  if (!o.x) index = attn::Matrix(Eigen::VectorXf::LinSpaced(n, 0, static_cast<float>(n - 1)));
  const attn::Matrix& xs = o.x ? *o.x : index;
  std::vector<const attn::Matrix*> ys;
  for (const PlotSeries& s : series) ys.push_back(s.y);
  const Axis ax = Range({&xs}, o.log_x), ay = Range(ys, o.log_y);

  // Legend on its own wrapped line above the plot.
  float lx = origin.x, ly = origin.y;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (const PlotSeries& s : series) {
    const float w = line * 1.4f + ImGui::CalcTextSize(s.label).x + style.ItemSpacing.x * 2;
    if (lx + w > origin.x + width && lx > origin.x) lx = origin.x, ly += line * 1.3f;
    list->AddRectFilled(ImVec2(lx, ly + line * 0.35f), ImVec2(lx + line, ly + line * 0.65f), s.color);
    list->AddText(ImVec2(lx + line * 1.3f, ly), text, s.label);
    lx += w;
  }
  ly += line * 1.6f;
  list->AddText(ImVec2(origin.x, ly), dim, o.y_label);
  ly += line * 1.2f;

  char buf[64];
  float tick_w = 0;
  const std::vector<double> yt = Ticks(ay, 5), xt = Ticks(ax, std::max(2, static_cast<int>(width / 90)), o.x_step);
  for (double v : yt) {
    std::snprintf(buf, sizeof(buf), "%g", v);
    tick_w = std::max(tick_w, ImGui::CalcTextSize(buf).x);
  }
  const ImVec2 p0(origin.x + tick_w + style.ItemSpacing.x, ly + line * 0.5f);
  const ImVec2 p1(origin.x + width - line, p0.y + o.height);
  list->AddRectFilled(p0, p1, IM_COL32(24, 26, 32, 255));
  for (double v : yt) {
    const float y = ay.Map(v, p1.y, p0.y);
    list->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), IM_COL32(70, 74, 84, 255));
    std::snprintf(buf, sizeof(buf), "%g", v);
    list->AddText(ImVec2(p0.x - style.ItemSpacing.x - ImGui::CalcTextSize(buf).x, y - line * 0.5f), dim, buf);
  }
  float last_right = -1e9f;
  for (double v : xt) {
    const float x = ax.Map(v, p0.x, p1.x);
    list->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), IM_COL32(70, 74, 84, 255));
    const std::string label = o.x_tick ? o.x_tick(v) : (std::snprintf(buf, sizeof(buf), "%g", v), std::string(buf));
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    const float left = std::clamp(x - w * 0.5f, p0.x - tick_w, p1.x + line - w);
    if (left < last_right + 6.0f) continue;  // never overlap tick labels on a narrow screen
    list->AddText(ImVec2(left, p1.y + 2), dim, label.c_str());
    last_right = left + w;
  }
  const float x_label_w = ImGui::CalcTextSize(o.x_label).x;
  list->AddText(ImVec2(p1.x - x_label_w, p1.y + line * 1.2f), dim, o.x_label);

  auto px = [&](int i) { return ax.Map(xs(i, 0), p0.x, p1.x); };
  // The nearest point under the pointer, found before drawing so the bars below can follow it.
  if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1)) {
    const float mx = ImGui::GetIO().MousePos.x;
    float best = 1e30f;
    for (int i = 0; i < n; ++i)
      if (std::abs(px(i) - mx) < best) best = std::abs(px(i) - mx), result.hovered = i;
  }
  const attn::Matrix* weights = o.weights_for ? o.weights_for(result.hovered) : nullptr;
  list->PushClipRect(p0, p1, true);
  if (weights && weights->cols() == n) {  // whom the focus attends to: bars from the bottom
    const float bar_w = std::max(1.0f, (p1.x - p0.x) / n * 0.8f);
    for (int j = 0; j < n; ++j) {
      const float h = std::clamp((*weights)(0, j), 0.0f, 1.0f) * (p1.y - p0.y);
      list->AddRectFilled(ImVec2(px(j) - bar_w * 0.5f, p1.y - h), ImVec2(px(j) + bar_w * 0.5f, p1.y),
                          IM_COL32(255, 196, 61, 110));
    }
  }
  if (o.draw_marker_x) {
    const float x = ax.Map(o.marker_x, p0.x, p1.x);
    list->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), IM_COL32(255, 255, 255, 140), 1.0f);
  }
  for (const PlotSeries& s : series) {
    const attn::Matrix& y = *s.y;
    for (int i = 0; i < n && i < y.rows(); ++i) {
      const ImVec2 a(px(i), ay.Map(y(i, 0), p1.y, p0.y));
      if (s.dots) {
        list->AddCircleFilled(a, s.thickness, s.color);
      } else if (i > 0) {
        list->AddLine(ImVec2(px(i - 1), ay.Map(y(i - 1, 0), p1.y, p0.y)), a, s.color, s.thickness);
      }
    }
    published.Matrix(name + "." + s.key, y);
  }
  if (o.marked >= 0 && o.marked < n)
    for (const PlotSeries& s : series)
      list->AddCircle(ImVec2(px(o.marked), ay.Map((*s.y)(o.marked, 0), p1.y, p0.y)), 4.0f, s.color, 0, 2.0f);
  list->PopClipRect();
  list->AddRect(p0, p1, IM_COL32(110, 115, 128, 255));

  // The plot is one item: hover/tap picks the nearest point; a touch drag over it still scrolls.
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton(name.c_str(), ImVec2(p1.x - p0.x, p1.y - p0.y));
  result.rect = LayoutRect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};
  if (ImGui::IsItemHovered() && result.hovered >= 0) {
    result.clicked = ImGui::IsItemClicked();
    if (o.describe && result.hovered >= 0) {
      ImGui::BeginTooltip();
      o.describe(result.hovered);
      ImGui::EndTooltip();
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p1.y + line * 2.4f));
  ImGui::Dummy(ImVec2(width, 0));
  published.Rect(name, result.rect);
  published.Scalar(name + ".hovered", result.hovered);
  return result;
}

}  // namespace attnlab
