#include "widgets/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lessons/csv.h"
#include "theme.h"
#include "widgets/export_menu.h"

namespace attnlab {
namespace {

// n numbers in a row: a whole vector, or one row of a row-major matrix.
struct Values {
  const float* data = nullptr;
  int size = 0;
  float operator[](int i) const { return data[i]; }
};

Values Of(const attn::Matrix& m, int row = -1) {
  if (row >= 0) return row < m.rows() ? Values{m.data() + row * m.cols(), static_cast<int>(m.cols())} : Values{};
  return {m.data(), static_cast<int>(m.size())};
}

// How an axis' range follows its data.
enum class Fit { kPadded, kExact, kRounded };

// An axis: the range [lo, hi] in values, linear or log10, and its tick step (0: from the count).
// Values outside the range, and zero or negative ones on a log axis, clamp just past its ends.
struct Axis {
  double lo = 0, hi = 1, step = 0;
  bool log = false;
  double T(double v) const { return log ? std::log10(std::max(v, 1e-30)) : v; }
  float Map(double v, float p0, float p1) const {
    const double t = (T(v) - T(lo)) / std::max(T(hi) - T(lo), 1e-30);
    return static_cast<float>(p0 + (p1 - p0) * std::clamp(t, -0.05, 1.05));
  }
};

// The nice number (1, 2 or 5 times a power of ten) nearest to `raw`.
double NiceStep(double raw) {
  const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-30))));
  const double r = raw / mag;
  return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

Axis FitAxis(const std::vector<Values>& data, bool log, Fit fit, int count) {
  Axis a;
  a.log = log;
  a.lo = INFINITY;
  a.hi = -INFINITY;
  for (const Values& v : data) {
    for (int i = 0; i < v.size; ++i) {
      const double x = v[i];
      if (!std::isfinite(x) || (log && x <= 0)) continue;
      a.lo = std::min(a.lo, x);
      a.hi = std::max(a.hi, x);
    }
  }
  if (!std::isfinite(a.lo)) a.lo = log ? 1e-8 : 0, a.hi = 1;
  if (fit == Fit::kRounded) {
    if (log) {  // whole decades, at least one
      const double e = std::floor(std::log10(a.lo));
      a.hi = std::pow(10.0, std::max(std::ceil(std::log10(a.hi)), e + 1));
      a.lo = std::pow(10.0, e);
      return a;
    }
    a.lo = std::min(a.lo, 0.0);  // from zero, up to a whole tick
    a.hi = std::max(a.hi, 0.0);
    a.step = NiceStep(std::max((a.hi - a.lo) / std::max(count, 1), 1e-6));
    a.lo = std::floor(a.lo / a.step + 1e-9) * a.step;
    a.hi = std::max(a.lo + a.step, std::ceil(a.hi / a.step - 1e-9) * a.step);
    return a;
  }
  if (a.hi <= a.lo) a.hi = log ? a.lo * 10 : a.lo + 1;
  if (fit == Fit::kPadded && !log) {
    const double pad = 0.04 * (a.hi - a.lo);
    a.lo -= pad;
    a.hi += pad;
  }
  return a;
}

// Tick values: every decade on a log axis (every k-th when there are more than 8), else multiples of
// `fixed`, of the axis' own step, or of a nice step giving about `count` intervals.
std::vector<double> Ticks(const Axis& a, int count, double fixed = 0.0) {
  std::vector<double> ticks;
  if (a.log) {
    const double e0 = std::ceil(std::log10(a.lo) - 1e-3), e1 = std::floor(std::log10(a.hi) + 1e-3);
    const double every = std::max(1.0, std::ceil((e1 - e0) / 8.0));
    for (double e = e0; e <= e1; e += every) ticks.push_back(std::pow(10.0, e));
    return ticks;
  }
  const double step = fixed > 0 ? fixed : a.step > 0 ? a.step : NiceStep((a.hi - a.lo) / std::max(count, 1));
  for (double v = std::ceil(a.lo / step - 1e-9) * step; v <= a.hi + step * 1e-6; v += step)
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

std::string Format(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// The legend: an optional title, then a swatch and a label per series (none for a series without a
// label: a second line of the one before, e.g. its spread), wrapped to `width`. Returns the top of
// its last line.
float DrawLegend(ImDrawList* list, ImVec2 at, float width, const char* title, const std::vector<PlotSeries>& series) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  float x = at.x, y = at.y;
  if (title && *title) {
    list->AddText(at, text, title);
    x += ImGui::CalcTextSize(title).x + style.ItemSpacing.x;
  }
  for (const PlotSeries& s : series) {  // an entry: swatch, label and the gap after it
    if (!s.label || !*s.label) continue;
    const float w = line * 1.4f + ImGui::CalcTextSize(s.label).x + style.ItemSpacing.x * 2;
    if (x + w > at.x + width && x > at.x) x = at.x, y += line * 1.3f;
    list->AddRectFilled(ImVec2(x, y + line * 0.35f), ImVec2(x + line, y + line * 0.65f), s.color);
    list->AddText(ImVec2(x + line * 1.3f, y), text, s.label);
    x += w;
  }
  return y;
}

}  // namespace

PlotResult DrawPlot(const std::string& name, const std::vector<PlotSeries>& series, const PlotOptions& o,
                    Published& published) {
  const Theme& theme = CurrentTheme();
  PlotResult result;
  if (series.empty() || !series[0].y) return result;
  std::vector<Values> ys;
  for (const PlotSeries& s : series) ys.push_back(s.y ? Of(*s.y, s.row) : Values{});
  const int n = ys[0].size;
  if (n == 0 || (o.x && o.x->size() != n)) return result;
  attn::Matrix index;  // the default x: 0..n-1
  if (!o.x) index = Eigen::RowVectorXf::LinSpaced(n, 0, static_cast<float>(n - 1));
  const Values xs = Of(o.x ? *o.x : index);

  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight();
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 numbers = o.open ? text : dim;
  const ImU32 grid = o.open ? theme.plot_grid_open : theme.plot_grid;
  const ImU32 frame = o.open ? theme.plot_frame_open : theme.plot_frame;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::min(ImGui::GetContentRegionAvail().x, o.max_width);

  // Legend, then (in the panel look) the y axis' name on a line of its own.
  // (the legend leaves room at the right of its first line for the ⋯ button)
  float top = DrawLegend(list, origin, width - ImGui::GetFrameHeight() * 1.4f, o.open ? o.y_label : nullptr, series);
  if (o.open) {
    top += line + style.ItemSpacing.y;
  } else {
    top += line * 1.6f;
    list->AddText(ImVec2(origin.x, top), dim, o.y_label);
    top += line * 1.2f;
  }

  const Axis ax = FitAxis({xs}, o.log_x, o.round_axes ? Fit::kExact : Fit::kPadded, 0);
  const Axis ay = FitAxis(ys, o.log_y, o.round_axes ? Fit::kRounded : Fit::kPadded, o.y_ticks);
  auto x_text = [&](double v) {
    return o.x_tick ? o.x_tick(v) : o.x_powers_of_two ? Format("%.0f", std::exp2(v)) : Format("%g", v);
  };
  auto y_text = [&](double v) { return o.y_tick ? o.y_tick(v) : Format("%g", v); };
  const std::vector<double> yt = Ticks(ay, o.y_ticks);
  const std::vector<double> xt = Ticks(ax, std::max(2, static_cast<int>(width / 90)), o.x_step);
  float tick_w = 0;
  for (double v : yt) tick_w = std::max(tick_w, ImGui::CalcTextSize(y_text(v).c_str()).x);
  const ImVec2 p0(origin.x + tick_w + style.ItemSpacing.x, top + line * 0.5f);
  const ImVec2 p1(std::max(p0.x + 1.0f, origin.x + width - line), p0.y + std::max(o.height, 1.0f));
  auto px = [&](int i) { return ax.Map(xs[i], p0.x, p1.x); };
  auto py = [&](double v) { return ay.Map(v, p1.y, p0.y); };

  // The plot is one item: hover or tap picks the nearest point, found before drawing so the bars can
  // follow it; a touch drag over it still scrolls.
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton(name.c_str(), ImVec2(p1.x - p0.x, p1.y - p0.y));
  OpenExportMenuOnRightClick(name);
  if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
    const float mx = ImGui::GetIO().MousePos.x;
    float best = INFINITY;
    for (int i = 0; i < n; ++i)
      if (std::abs(px(i) - mx) < best) best = std::abs(px(i) - mx), result.hovered = i;
  }
  result.clicked = result.hovered >= 0 && ImGui::IsItemClicked();
  result.rect = LayoutRect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};

  // Frame, grid lines and numbers.
  if (o.open) {
    list->AddRect(p0, p1, frame);
  } else {
    list->AddRectFilled(p0, p1, theme.plot_background);
  }
  for (double v : yt) {
    const float y = py(v);
    list->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), grid);
    const std::string label = y_text(v);
    list->AddText(ImVec2(p0.x - style.ItemSpacing.x - ImGui::CalcTextSize(label.c_str()).x, y - line * 0.5f), numbers,
                  label.c_str());
  }
  // x ticks: a grid line (panel) or a tick mark below the axis (open); numbers as many as fit, counted
  // from the last tick, which is always numbered.
  float label_w = 0, spacing = INFINITY;
  for (size_t k = 0; k < xt.size(); ++k) {
    label_w = std::max(label_w, ImGui::CalcTextSize(x_text(xt[k]).c_str()).x);
    if (k > 0) spacing = std::min(spacing, ax.Map(xt[k], p0.x, p1.x) - ax.Map(xt[k - 1], p0.x, p1.x));
  }
  const int every = std::isfinite(spacing) && spacing > 0
                        ? std::max(1, static_cast<int>(std::ceil((label_w + style.ItemSpacing.x) / spacing)))
                        : 1;
  const float label_y = o.open ? p1.y + 4.0f : p1.y + 2.0f;
  for (size_t k = 0; k < xt.size(); ++k) {
    const float x = ax.Map(xt[k], p0.x, p1.x);
    if (o.open) {
      list->AddLine(ImVec2(x, p1.y), ImVec2(x, p1.y + 4.0f), theme.plot_tick);
    } else {
      list->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), grid);
    }
    if ((xt.size() - 1 - k) % every) continue;
    const std::string label = x_text(xt[k]);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    const float left = std::max(p0.x - tick_w, std::min(x - w * 0.5f, p1.x + line - w));  // inside the widget
    list->AddText(ImVec2(left, label_y), numbers, label.c_str());
  }
  const float x_label_w = ImGui::CalcTextSize(o.x_label).x;
  if (o.open) {
    list->AddText(ImVec2((p0.x + p1.x - x_label_w) * 0.5f, label_y + line), text, o.x_label);
  } else {
    list->AddText(ImVec2(p1.x - x_label_w, p1.y + line * 1.2f), dim, o.x_label);
  }

  // Inside the plot (the open look lets dots on its edges show whole): bars, marker, curves, rings.
  const float margin = o.open ? 4.0f : 0.0f;
  list->PushClipRect(ImVec2(p0.x - margin, p0.y - margin), ImVec2(p1.x + margin, p1.y + margin), true);
  const attn::Matrix* weights = o.weights_for ? o.weights_for(result.hovered) : nullptr;
  if (weights && weights->cols() == n) {  // whom the focus attends to: bars from the bottom
    const float bar_w = std::max(1.0f, (p1.x - p0.x) / n * 0.8f);
    for (int j = 0; j < n; ++j) {
      const float h = std::clamp((*weights)(0, j), 0.0f, 1.0f) * (p1.y - p0.y);
      list->AddRectFilled(ImVec2(px(j) - bar_w * 0.5f, p1.y - h), ImVec2(px(j) + bar_w * 0.5f, p1.y),
                          theme.weight_bars);
    }
  }
  if (!o.markers.empty()) {
    attn::Matrix screen_x(1, static_cast<Eigen::Index>(o.markers.size()));
    for (size_t i = 0; i < o.markers.size(); ++i) {
      const PlotMarker& m = o.markers[i];
      const float x = ax.Map(m.x, p0.x, p1.x);
      list->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), m.color ? m.color : theme.plot_marker, m.thickness);
      screen_x(0, static_cast<Eigen::Index>(i)) = x;
    }
    published.MatrixCopy(name + ".markers", std::move(screen_x));
  }
  std::vector<ImVec2> points;
  for (size_t s = 0; s < series.size(); ++s) {
    const PlotSeries& c = series[s];
    const int m = std::min(n, ys[s].size);
    points.clear();
    // Points without a value (NaN: not measured) leave a gap.
    const auto has = [&](int i) { return std::isfinite(ys[s][i]) && (!o.log_y || ys[s][i] > 0); };
    for (int i = 0; i < m; ++i) points.emplace_back(px(i), has(i) ? py(ys[s][i]) : 0.0f);
    // Separate segments, not one polyline: a polyline's mitred joins overshoot sharp peaks.
    if (!c.dots)
      for (int i = 1; i < m; ++i)
        if (has(i - 1) && has(i)) list->AddLine(points[i - 1], points[i], c.color, c.thickness);
    if (c.dots || c.point_dots)
      for (int i = 0; i < m; ++i)
        if (has(i)) list->AddCircleFilled(points[i], c.dots ? c.thickness : c.thickness + 1.0f, c.color);
    if (!c.key.empty() && c.y) published.Matrix(name + "." + c.key, *c.y);
  }
  if (o.marked >= 0 && o.marked < n)
    for (size_t s = 0; s < series.size(); ++s)
      if (o.marked < ys[s].size)
        list->AddCircle(ImVec2(px(o.marked), py(ys[s][o.marked])), 4.0f, series[s].color, 0, 2.0f);
  list->PopClipRect();
  if (o.hover_line && result.hovered >= 0)
    list->AddLine(ImVec2(px(result.hovered), p0.y), ImVec2(px(result.hovered), p1.y), theme.plot_hover_line);
  if (!o.open) list->AddRect(p0, p1, frame);

  if (o.describe && result.hovered >= 0) {
    ImGui::BeginTooltip();
    o.describe(result.hovered);
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(
      ImVec2(origin.x, o.open ? label_y + 2.0f * line + style.ItemSpacing.y : p1.y + line * 2.4f));
  ImGui::Dummy(ImVec2(width, 0));
  // The ⋯ menu at the top right, over the legend's line: the plot as a PNG, its series as CSV.
  const LayoutRect figure{origin.x, origin.y, width, ImGui::GetItemRectMax().y - origin.y};
  const ImVec2 after = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(origin.x + width - ImGui::GetFrameHeight() * 1.2f, origin.y));
  DrawExportMenu(name, figure, [&] {
    std::vector<std::string> names = {o.x_label && *o.x_label ? o.x_label : "x"};
    std::vector<std::vector<double>> columns = {std::vector<double>(xs.size)};
    for (int i = 0; i < xs.size; ++i) columns[0][i] = o.x_powers_of_two ? std::exp2(xs[i]) : xs[i];
    for (size_t k = 0; k < series.size(); ++k) {
      names.push_back(series[k].label ? series[k].label : "y");
      columns.emplace_back(static_cast<size_t>(ys[k].size));
      for (int i = 0; i < ys[k].size; ++i) columns.back()[i] = ys[k][i];
    }
    return lessons::ColumnsToCsv(names, columns);
  }, published);
  ImGui::SetCursorScreenPos(after);
  published.Rect(name + ".figure", figure);
  published.Rect(name, result.rect);
  published.Scalar(name + ".hovered", result.hovered);
  return result;
}

}  // namespace attnlab
