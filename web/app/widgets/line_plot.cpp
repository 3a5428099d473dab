#include "widgets/line_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab {
namespace {

// The axis range [lo, hi] in axis units (log10 of the value on a log axis) and its tick step.
struct Axis {
  float lo = 0, hi = 1, step = 1;
  bool log = false;
  float Unit(float v) const {
    if (!log) return v;
    return v > 0 ? std::log10(v) : lo;  // zero or negative: at the bottom of a log axis
  }
};

Axis FitAxis(const attn::Matrix& y, bool log) {
  Axis a;
  a.log = log;
  float lo = INFINITY, hi = -INFINITY;
  for (Eigen::Index k = 0; k < y.size(); ++k) {
    const float v = y.data()[k];
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    lo = std::min(lo, log ? std::log10(v) : v);
    hi = std::max(hi, log ? std::log10(v) : v);
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (log) {
    a.lo = std::floor(lo);
    a.hi = std::max(std::ceil(hi), a.lo + 1);
    a.step = std::ceil((a.hi - a.lo) / 6.0f);  // at most about six decades labelled
    return a;
  }
  a.lo = std::min(0.0f, lo);
  const float raw = std::max((hi - a.lo) / 4.0f, 1e-6f);
  const float magnitude = std::pow(10.0f, std::floor(std::log10(raw)));
  a.step = magnitude * (raw <= magnitude ? 1 : raw <= 2 * magnitude ? 2 : raw <= 5 * magnitude ? 5 : 10);
  a.hi = std::max(a.step, std::ceil(hi / a.step) * a.step);
  return a;
}

void TickLabel(char* buf, size_t size, float tick, bool log) {
  if (log) {
    std::snprintf(buf, size, "1e%d", static_cast<int>(std::lround(tick)));
  } else {
    std::snprintf(buf, size, "%g", tick);
  }
}

}  // namespace

LayoutRect DrawLinePlot(const std::string& name, const attn::Matrix& x, const attn::Matrix& y,
                        const std::vector<PlotSeries>& series, const LinePlotOptions& o, Published& published) {
  const int points = static_cast<int>(x.cols());
  if (points < 2 || y.cols() != points || y.rows() == 0) return {};
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight();
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 grid_col = IM_COL32(255, 255, 255, 40);

  // Title line: the y axis' name, then the legend.
  ImGui::TextUnformatted(o.y_label);
  for (size_t s = 0; s < series.size(); ++s) {
    const float w = line + style.ItemSpacing.x + ImGui::CalcTextSize(series[s].label).x;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    list->AddRectFilled(ImVec2(p.x, p.y + line * 0.4f), ImVec2(p.x + line, p.y + line * 0.6f), series[s].color);
    ImGui::Dummy(ImVec2(line, line));
    ImGui::SameLine(0, style.ItemSpacing.x * 0.5f);
    ImGui::TextUnformatted(series[s].label);
  }

  const Axis ay = FitAxis(y, o.log_y);
  char buf[32];
  float tick_w = 0;
  for (float t = ay.lo; t <= ay.hi + 1e-4f * ay.step; t += ay.step) {
    TickLabel(buf, sizeof(buf), t, o.log_y);
    tick_w = std::max(tick_w, ImGui::CalcTextSize(buf).x);
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::min(ImGui::GetContentRegionAvail().x, o.max_width);
  const ImVec2 p0(origin.x + tick_w + style.ItemSpacing.x, origin.y + line * 0.5f);
  const ImVec2 p1(origin.x + width - line, p0.y + o.height);
  const float x_lo = x(0, 0), x_hi = x(0, points - 1);
  auto px = [&](float v) { return p0.x + (v - x_lo) / (x_hi - x_lo) * (p1.x - p0.x); };
  auto py = [&](float v) { return p1.y - (ay.Unit(v) - ay.lo) / (ay.hi - ay.lo) * (p1.y - p0.y); };

  // Axes, horizontal grid lines and their numbers.
  list->AddRect(p0, p1, IM_COL32(255, 255, 255, 90));
  for (float t = ay.lo; t <= ay.hi + 1e-4f * ay.step; t += ay.step) {
    const float yy = p1.y - (t - ay.lo) / (ay.hi - ay.lo) * (p1.y - p0.y);
    list->AddLine(ImVec2(p0.x, yy), ImVec2(p1.x, yy), grid_col);
    TickLabel(buf, sizeof(buf), t, o.log_y);
    list->AddText(ImVec2(p0.x - style.ItemSpacing.x - ImGui::CalcTextSize(buf).x, yy - line * 0.5f), text_col, buf);
  }
  // x ticks at every point, numbers as many as fit without overlapping.
  float label_w = 0;
  for (int p = 0; p < points; ++p) {
    std::snprintf(buf, sizeof(buf), o.x_powers_of_two ? "%.0f" : "%g", o.x_powers_of_two ? std::exp2(x(0, p)) : x(0, p));
    label_w = std::max(label_w, ImGui::CalcTextSize(buf).x);
  }
  const float spacing = (p1.x - p0.x) / static_cast<float>(points - 1);
  const int every = std::max(1, static_cast<int>(std::ceil((label_w + style.ItemSpacing.x) / spacing)));
  for (int p = 0; p < points; ++p) {
    const float xx = px(x(0, p));
    list->AddLine(ImVec2(xx, p1.y), ImVec2(xx, p1.y + 4.0f), IM_COL32(255, 255, 255, 120));
    if ((points - 1 - p) % every) continue;  // counted from the end: the last point is always numbered
    std::snprintf(buf, sizeof(buf), o.x_powers_of_two ? "%.0f" : "%g", o.x_powers_of_two ? std::exp2(x(0, p)) : x(0, p));
    list->AddText(ImVec2(xx - ImGui::CalcTextSize(buf).x * 0.5f, p1.y + 4.0f), text_col, buf);
  }
  const ImVec2 x_label_size = ImGui::CalcTextSize(o.x_label);
  list->AddText(ImVec2((p0.x + p1.x - x_label_size.x) * 0.5f, p1.y + 4.0f + line), text_col, o.x_label);

  // The curves, with a dot at each computed point.
  list->PushClipRect(ImVec2(p0.x - 4, p0.y - 4), ImVec2(p1.x + 4, p1.y + 4), true);
  for (int s = 0; s < static_cast<int>(y.rows()); ++s) {
    const ImU32 color = s < static_cast<int>(series.size()) ? series[s].color : text_col;
    std::vector<ImVec2> pts;
    for (int p = 0; p < points; ++p) pts.emplace_back(px(x(0, p)), py(y(s, p)));
    list->AddPolyline(pts.data(), points, color, 0, 2.0f);
    for (const ImVec2& q : pts) list->AddCircleFilled(q, 3.0f, color);
  }
  list->PopClipRect();

  // Hover (or tap): the nearest point's exact values.
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton(name.c_str(), ImVec2(p1.x - p0.x, p1.y - p0.y));
  if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
    const float mouse = ImGui::GetIO().MousePos.x;
    int nearest = 0;
    for (int p = 1; p < points; ++p)
      if (std::fabs(px(x(0, p)) - mouse) < std::fabs(px(x(0, nearest)) - mouse)) nearest = p;
    const float xx = px(x(0, nearest));
    list->AddLine(ImVec2(xx, p0.y), ImVec2(xx, p1.y), IM_COL32(255, 255, 255, 160));
    published.Scalar(name + ".hover", nearest);
    ImGui::BeginTooltip();
    if (o.x_powers_of_two) {
      ImGui::Text("%s = %.0f", o.x_label, std::exp2(x(0, nearest)));
    } else {
      ImGui::Text("%s = %g", o.x_label, x(0, nearest));
    }
    for (int s = 0; s < static_cast<int>(y.rows()); ++s)
      ImGui::Text("%s: %.6g", s < static_cast<int>(series.size()) ? series[s].label : "", y(s, nearest));
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p1.y + 4.0f + 2.0f * line + style.ItemSpacing.y));
  ImGui::Dummy(ImVec2(width, 0));
  const LayoutRect rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};
  published.Matrix(name, y);
  published.Matrix(name + ".x", x);
  published.Rect(name, rect);
  return rect;
}

}  // namespace attnlab
