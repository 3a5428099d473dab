// View 9. What the reader sees: the sentence as two dependency graphs (an RNN's chain, attention's
// all-pairs links) with the chosen pair's path; the gradient of word i's state with respect to every
// input, for both layers, on a log axis; a table and plots of sequential steps, operations and the
// engine's measured time per token for n = 16 … 4096; then attention over an RNN's (or a CNN's, or
// a per-token layer's) hidden states, stage by stage, with each matrix's shape.
#include "panels/rnn_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "imgui.h"
#include "offload.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/grid.h"
#include "widgets/matrix_view.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

using lessons::RnnSpeedLab;
constexpr int kPoints = lessons::RnnTimingJob::kPoints;
const char* const kLayerLabels[] = {"RNN", "1-D CNN (kernel 3)", "fully connected (per token)"};
const char* const kSpeedKeys[] = {"rnn", "attn"};

// "262k", "4.2M", "1.1G", "0.1": counts that fit a phone's table and a plot's ticks.
std::string Count(double v) {
  char buf[32];
  if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.3gG", v * 1e-9);
  else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.3gM", v * 1e-6);
  else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.3gk", v * 1e-3);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Where the graph's node k of the top row (outputs) or bottom row (inputs) sits.
struct GraphGeometry {
  LayoutRect rect;
  int n = 0;
  float radius = 4;
  ImVec2 Node(int k, bool top) const {
    return ImVec2(rect.x + (k + 0.5f) * rect.w / n, top ? rect.y + radius + 1 : rect.y + rect.h - radius - 1);
  }
  LayoutRect NodeRect(int k, bool top) const {
    const ImVec2 c = Node(k, top);
    return {c.x - radius, c.y - radius, 2 * radius, 2 * radius};
  }
};

// Labels under a graph's input row: every word when they fit, else every few (numbered from 1).
void DrawWordLabels(const GraphGeometry& g, const std::vector<std::string>& tokens, int i, int j) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float cell = g.rect.w / g.n, line = ImGui::GetTextLineHeight();
  float widest = 0;
  for (const std::string& t : tokens) widest = std::max(widest, ImGui::CalcTextSize(t.c_str()).x);
  const bool words = widest <= 2 * cell - 4;  // two staggered lines
  const int every = words ? 1 : std::max(1, static_cast<int>(std::ceil(ImGui::CalcTextSize("000").x / cell)));
  for (int k = 0; k < g.n; ++k) {
    const bool chosen = k == i || k == j;
    // Every few words, and the pair always; a regular label too close to the pair's gives way.
    const bool crowding = std::abs(k - i) < every || std::abs(k - j) < every;
    if (!chosen && (k % every != 0 || (!words && crowding))) continue;
    char number[16];
    std::snprintf(number, sizeof number, "%d", k + 1);
    const char* text = words ? tokens[k].c_str() : number;
    const float w = ImGui::CalcTextSize(text).x;
    const float y = g.rect.y + g.rect.h + 2 + (words && k % 2 ? line : 0);
    list->AddText(ImVec2(g.Node(k, false).x - w / 2, y),
                  chosen ? CurrentTheme().highlight : ImGui::GetColorU32(ImGuiCol_TextDisabled), text);
  }
}

// One dependency graph: `chain` the RNN (x_t → h_t, h_{t−1} → h_t), else attention (every x_k → every
// y_m). The pair's path is highlighted; a click on the top row chooses i, on the bottom row j.
void DrawGraph(PanelContext& ctx, const char* name, bool chain, const lessons::RnnModel& m,
               const std::vector<std::string>& tokens) {
  lessons::RnnState& s = ctx.state.rnn;
  const int n = m.n, i = m.target, j = m.source;
  const float line = ImGui::GetTextLineHeight();
  const float side = ImGui::CalcTextSize("h ").x;  // the rows' names on the left: h (or y) over x
  const float width = std::min(ImGui::GetContentRegionAvail().x - side, 36.0f * n + 20.0f);
  GraphGeometry g;
  g.n = n;
  g.radius = std::clamp(width / n * 0.28f, 1.5f, 7.0f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  g.rect = {origin.x + side, origin.y, width, 86.0f};
  ImDrawList* list = ImGui::GetWindowDrawList();
  const Theme& theme = CurrentTheme();
  const ImU32 faint = theme.highlight_faint, strong = theme.highlight;
  const int lo = std::min(i, j), hi = std::max(i, j);
  auto on_path = [&](int k) { return chain ? k >= lo && k <= hi : false; };
  if (chain) {
    for (int k = 0; k < n; ++k) {
      list->AddLine(g.Node(k, false), g.Node(k, true), faint, 1.0f);
      if (k > 0) list->AddLine(g.Node(k - 1, true), g.Node(k, true), faint, 1.0f);
    }
    // The path: x_j up to h_j, then along the chain to h_i.
    list->AddLine(g.Node(j, false), g.Node(j, true), strong, 3.0f);
    if (lo < hi) list->AddLine(g.Node(lo, true), g.Node(hi, true), strong, 3.0f);
  } else {
    const bool all = n <= 40;  // beyond that the n² lines would be a grey block: those into y_i only
    for (int q = 0; q < n; ++q)
      for (int k = 0; k < n; ++k)
        if (all || q == i) list->AddLine(g.Node(k, false), g.Node(q, true), faint, 1.0f);
    list->AddLine(g.Node(j, false), g.Node(i, true), strong, 3.0f);
  }
  for (int k = 0; k < n; ++k) {
    for (bool top : {true, false}) {
      const bool lit = (top && (k == i || on_path(k))) || (!top && k == j);
      if (lit) list->AddCircleFilled(g.Node(k, top), g.radius, strong);
      else list->AddCircleFilled(g.Node(k, top), g.radius, theme.inactive_node);
    }
  }
  DrawWordLabels(g, tokens, i, j);
  const ImU32 quiet = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  list->AddText(ImVec2(origin.x, g.Node(0, true).y - line / 2), quiet, chain ? "h" : "y");
  list->AddText(ImVec2(origin.x, g.Node(0, false).y - line / 2), quiet, "x");
  ImGui::SetCursorScreenPos(ImVec2(g.rect.x, g.rect.y));
  ImGui::InvisibleButton(name, ImVec2(g.rect.w, g.rect.h));
  if (ImGui::IsItemClicked()) {
    const ImVec2 p = ImGui::GetIO().MousePos;
    const int k = std::clamp(static_cast<int>((p.x - g.rect.x) / (g.rect.w / n)), 0, n - 1);
    if (p.y < g.rect.y + g.rect.h / 2) s.target = k;
    else s.source = k;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("top row: choose word i\nbottom row: choose word j");
  }
  const std::string prefix = std::string(name);
  ctx.published.Rect(prefix, g.rect);
  ctx.published.Rect(prefix + ".i", g.NodeRect(i, true));
  ctx.published.Rect(prefix + ".j", g.NodeRect(j, false));
  ImGui::SetCursorScreenPos(ImVec2(origin.x, g.rect.y + g.rect.h));
  ImGui::Dummy(ImVec2(side + g.rect.w, 2 * line + 6));  // the labels' two lines belong to the graph
}

}  // namespace

void RnnPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "An RNN reads the sentence one word at a time: its hidden state hₜ = tanh(xₜW_xh + hₜ₋₁W_hh) carries "
      "everything earlier words said, step by step. Attention connects every pair of words directly. Below, "
      "both layers run on the sentence's word vectors (GloVe: d_in = 100) with seeded, untrained weights of the same "
      "width d_h: how many steps separate two words, how strongly word i's output still depends on word j "
      "(the gradient, from each layer's backward pass), how the work is laid out, and attention used on top "
      "of an RNN.",
      "click a word in either graph to choose the pair; drag ρ below 1 and above it and watch the RNN's "
      "gradient fall or grow with distance while attention's stays level; tick linear to see pure powers ρᵏ.");
  if (ctx.sentence_version == 0) return;
  const lessons::Sentence& in = ctx.sentence;
  lessons::RnnState& s = ctx.state.rnn;
  const int n = static_cast<int>(in.tokens.size());
  DrawControls(ctx, n);
  // Each model is keyed by the fields it reads: choosing the layer L does not redo the 2·d_h
  // backward passes of the gradients, and choosing the pair does not redo attention over H.
  lessons::RnnState gradients_key = s;
  gradients_key.layer = lessons::RnnState().layer;
  model_.Update(SentenceKey(ctx, gradients_key), [&](lessons::RnnModel* m) { return lessons::ComputeRnn(in, s, m); });
  DrawStatusLine(model_.error());
  if (!model_.has_model()) return;
  DrawPaths(ctx);
  DrawGradients(ctx);
  DrawSpeed(ctx);
  DrawCombination(ctx);
}

void RnnPanel::DrawControls(PanelContext& ctx, int n) {
  lessons::RnnState& s = ctx.state.rnn;
  const std::vector<std::string>& tokens = ctx.sentence.tokens;
  const float w = std::clamp(ImGui::GetContentRegionAvail().x * 0.5f - 110.0f, 120.0f, 260.0f);
  int i = s.target < 0 ? n - 1 : std::min(s.target, n - 1), j = std::min(s.source, n - 1);
  char label[96];
  std::snprintf(label, sizeof label, "%d  %s", i + 1, tokens[i].c_str());
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt(s.kTarget.label, &i, 0, n - 1, label)) s.target = i;
  SameLineIfFits(w + 110.0f);
  std::snprintf(label, sizeof label, "%d  %s", j + 1, tokens[j].c_str());
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt(s.kSource.label, &j, 0, n - 1, label)) s.source = j;
  ImGui::SetNextItemWidth(w);
  SliderField(s.kRadius, &s.radius);
  ctx.published.Rect("rnn.rho", LastItemRect());
  SameLineIfFits(ImGui::CalcTextSize(s.kLinear.label).x + ImGui::GetFrameHeight() * 1.5f);
  CheckboxField(s.kLinear, &s.linear);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kHidden, &s.hidden);
  SameLineIfFits(w + 60.0f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kSeed, &s.seed);
}

void RnnPanel::DrawPaths(PanelContext& ctx) {
  const lessons::RnnModel& m = model_.model();
  const std::vector<std::string>& tokens = ctx.sentence.tokens;
  const int i = m.target, j = m.source;
  ImGui::SeparatorText("1  Path length: how many steps from word j to word i");
  DrawSideBySide("rnn.paths",
      [&] {
        Prose("RNN: xⱼ enters hⱼ, then the chain carries it: %d step%s from \"%s\" (%d) to \"%s\" (%d).",
                           m.rnn_path, m.rnn_path == 1 ? "" : "s", tokens[j].c_str(), j + 1, tokens[i].c_str(), i + 1);
        DrawGraph(ctx, "rnn.chain", true, m, tokens);
        if (j > i) {
          DrawNote("Word j comes after word i: this left-to-right RNN has not read it when it reaches i (its gradient "
                   "below is 0). A right-to-left RNN would need the same %d steps.", m.rnn_path);
        }
      },
      [&] {
        Prose("Attention: yᵢ reads every xⱼ directly: %d step from \"%s\" to \"%s\", whatever the distance.",
                           m.attention_path, tokens[j].c_str(), tokens[i].c_str());
        DrawGraph(ctx, "rnn.attn", false, m, tokens);
      },
      760.0f);
  ctx.published.Scalar("rnn.i", i);
  ctx.published.Scalar("rnn.j", j);
  ctx.published.Scalar("rnn.path.rnn", m.rnn_path);
  ctx.published.Scalar("rnn.path.attn", m.attention_path);
}

void RnnPanel::DrawGradients(PanelContext& ctx) {
  lessons::RnnState& s = ctx.state.rnn;
  const lessons::RnnModel& m = model_.model();
  const std::vector<std::string>& tokens = ctx.sentence.tokens;
  const int i = m.target, j = m.source, n = m.n;
  ImGui::SeparatorText("2  Gradients over distance");
  Prose("How much word i's output moves when input j moves: the Frobenius norm ‖∂hᵢ/∂xⱼ‖_F of the "
                     "(%d × %d) Jacobian (the root of the sum of its squared entries), from %d backward passes "
                     "through time, one per unit of hᵢ; the same for attention's yᵢ from the engine's backward pass. "
                     "W_hh is scaled to spectral radius ρ = %.2f (its largest |eigenvalue|; %.2f as seeded).",
                     s.hidden, static_cast<int>(ctx.sentence.x.cols()), s.hidden, m.radius, m.seeded_radius);
  PlotOptions o;
  o.log_y = true;
  o.round_axes = true;  // whole decades on the log axis
  o.height = 220.0f;
  o.max_width = 640.0f;
  o.x_step = n > 30 ? 0.0 : 1.0;
  o.x_tick = [](double v) { return std::to_string(static_cast<int>(std::lround(v)) + 1); };
  o.x_label = "word j";
  o.y_label = "‖∂ outᵢ / ∂xⱼ‖_F (log)";
  o.markers = {{static_cast<float>(j)}};
  o.marked = j;
  o.describe = [&](int k) {
    ImGui::Text("j = %d \"%s\"", k + 1, tokens[k].c_str());
    if (std::isfinite(m.rnn_gradient(k, 0))) ImGui::Text("RNN ‖∂hᵢ/∂xⱼ‖ = %.4g", m.rnn_gradient(k, 0));
    ImGui::Text("attention ‖∂yᵢ/∂xⱼ‖ = %.4g", m.attention_gradient(k, 0));
    ImGui::TextDisabled("click to choose this word as j");
  };
  const char* rnn_label = s.linear ? "RNN, linear: ‖∂hᵢ/∂xⱼ‖" : "RNN (tanh): ‖∂hᵢ/∂xⱼ‖";
  const PlotResult plot = DrawPlot("rnn.grad",
      {{"rnn", rnn_label, &m.rnn_gradient, CurrentTheme().compared[0], 2.0f, false, -1, true},
       {"attn", "attention: ‖∂yᵢ/∂xⱼ‖", &m.attention_gradient, CurrentTheme().compared[1], 2.0f, false, -1, true}},
      o, ctx.published);
  if (plot.clicked && plot.hovered >= 0) s.source = plot.hovered;

  if (!m.rnn_error.empty()) {
    ProseColored(CurrentTheme().warning_text, "RNN: overflow. %s. Float32 cannot hold it: no RNN curve.",
                       m.rnn_error.c_str());
  } else {
    Prose("At j = %d \"%s\":  RNN %.3g,  attention %.3g", j + 1, tokens[j].c_str(), m.rnn_at_source,
                       m.attention_at_source);
    Prose("Relative to j = i (the word's own input):  RNN %.3g,  attention %.3g", m.rnn_ratio, m.attention_ratio);
    int zeros_before = 0;
    for (int k = 0; k <= i; ++k) zeros_before += m.rnn_gradient(k, 0) == 0 ? 1 : 0;
    if (i + 1 < n) DrawNote("The RNN's gradient is exactly 0 for j after i (the log axis leaves those words out): it has not read them yet.");
    if (zeros_before > 0) {
      DrawNote("%d earlier word%s underflowed float32 to exactly 0 (left out of the log axis).", zeros_before,
               zeros_before == 1 ? "" : "s");
    }
  }
  if (s.linear) {
    DrawNote("Linear RNN: hₜ = aₜ, no tanh. The gradient through k steps is W_hhᵀ applied k times, so it shrinks or grows "
             "like ρᵏ (after a few steps the largest eigenvalue dominates).");
  } else if (s.radius > 1.0f) {
    DrawNote("With tanh, a state that grows saturates (|hₜ| near 1, slope 1 − hₜ² near 0): compare with linear ticked to see "
             "how much of the growth tanh takes away.");
  }
  ctx.published.Scalar("rnn.radius", m.radius);
  ctx.published.Scalar("rnn.overflow", m.rnn_error.empty() ? 0 : 1);
  if (m.rnn_error.empty()) {  // after an overflow there is no RNN number to publish (nor to show)
    ctx.published.Scalar("rnn.grad.rnn.j", m.rnn_at_source);
    ctx.published.Scalar("rnn.ratio.rnn", m.rnn_ratio);
  }
  ctx.published.Scalar("rnn.grad.attn.j", m.attention_at_source);
  ctx.published.Scalar("rnn.ratio.attn", m.attention_ratio);
  ctx.published.Matrix("rnn.w_xh", m.rnn.w_xh);
  ctx.published.Matrix("rnn.w_hh", m.rnn.w_hh);
  ctx.published.Matrix("rnn.hidden", m.hidden);
  ctx.published.Matrix("rnn.wq", m.attention.wq);
  ctx.published.Matrix("rnn.wk", m.attention.wk);
  ctx.published.Matrix("rnn.wv", m.attention.wv);
  ctx.published.Matrix("rnn.y", m.attention_output);
  char summary[320], rnn_ratio[48];
  if (m.rnn_error.empty()) std::snprintf(rnn_ratio, sizeof rnn_ratio, "RNN %.3g", m.rnn_ratio);
  else std::snprintf(rnn_ratio, sizeof rnn_ratio, "RNN overflowed");
  std::snprintf(summary, sizeof summary,
                "RNN: from \"%s\" (%d) to \"%s\" (%d): %d steps through the RNN, 1 through attention; gradient relative "
                "to the word's own input: %s, attention %.3g, at spectral radius %.2f",
                tokens[j].c_str(), j + 1, tokens[i].c_str(), i + 1, m.rnn_path, rnn_ratio, m.attention_ratio, m.radius);
  ctx.summary = summary;
}

void RnnPanel::DrawSpeed(PanelContext& ctx) {
  constexpr int lo = RnnSpeedLab::kMinLog2N, d = RnnSpeedLab::kWidth;
  ImGui::SeparatorText("3  Sequential steps against parallel work");
  Prose("Both layers at width d = %d on n random inputs. The RNN does n·(2·d·d + 2·d²) operations (a "
                     "multiply and an add count as two) in n steps, each waiting for the one before. One attention head "
                     "with Wq, Wk, Wv, Wᵒ does 2·n·d²·4 + 4·n²·d operations, all in one step: every row at once. The "
                     "times are the engine's, measured in this page on one core (the RNN: one product per step; "
                     "attention: %s), one size at a time%s.",
                     d, attn::KernelName(RnnSpeedLab::AttentionLayer().kernel),
                     offload::Available() ? ", in a Web Worker (the page's drawing does not share its core)"
                                          : ", one per frame (no Web Worker here)");
  const bool again = ImGui::Button("Time again");
  ctx.published.Rect("rnn.time", LastItemRect());
  if (!timing_.sweep().started() || again) timing_.Start();  // the app's job scheduler times it (RnnTimingJob)
  if (log2_n_.size() == 0) {
    log2_n_.resize(kPoints, 1);
    for (int k = 0; k < 2; ++k) flops_per_token_[k].resize(kPoints, 1);
    for (int p = 0; p < kPoints; ++p) {
      log2_n_(p, 0) = static_cast<float>(lo + p);
      const int len = 1 << (lo + p);
      flops_per_token_[0](p, 0) = static_cast<float>(RnnSpeedLab::RnnFlops(len) / len);
      flops_per_token_[1](p, 0) = static_cast<float>(RnnSpeedLab::AttentionFlops(len) / len);
    }
  }
  const lessons::TimingSweep& sweep = timing_.sweep();
  DrawStatusLine(sweep.error());
  const bool done = sweep.done();
  ctx.published.Scalar("rnn.sweep.done", done ? 1 : 0);

  DrawNote("Each cell: RNN / attention.");
  if (ImGui::BeginTable("rnn.speed", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("n");
    ImGui::TableSetupColumn("steps");
    ImGui::TableSetupColumn("operations");
    ImGui::TableSetupColumn("µs per token");
    ImGui::TableHeadersRow();
    for (int p = 0; p < kPoints; ++p) {
      const int len = 1 << (lo + p);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", len);
      ImGui::TableNextColumn();
      ImGui::Text("%d / %d", RnnSpeedLab::RnnSteps(len), RnnSpeedLab::AttentionSteps(len));
      ImGui::TableNextColumn();
      ImGui::Text("%s / %s", Count(RnnSpeedLab::RnnFlops(len)).c_str(), Count(RnnSpeedLab::AttentionFlops(len)).c_str());
      ImGui::TableNextColumn();
      const float r = timing_.us_per_token(0)(p, 0), a = timing_.us_per_token(1)(p, 0);
      if (std::isfinite(r) && std::isfinite(a)) {
        ImGui::TextColored(r <= a ? CurrentTheme().good_text : ImGui::GetStyleColorVec4(ImGuiCol_Text), "%.3g", r);
        ImGui::SameLine(0, 0);
        ImGui::Text(" / ");
        ImGui::SameLine(0, 0);
        ImGui::TextColored(a < r ? CurrentTheme().good_text : ImGui::GetStyleColorVec4(ImGuiCol_Text), "%.3g", a);
      } else {
        ImGui::TextDisabled("…");
      }
      for (int k = 0; k < 2; ++k) {
        const std::string suffix = std::string(kSpeedKeys[k]) + "." + std::to_string(len);
        ctx.published.Scalar("rnn.flops." + suffix, k == 0 ? RnnSpeedLab::RnnFlops(len) : RnnSpeedLab::AttentionFlops(len));
        if (std::isfinite(timing_.us_per_token(k)(p, 0))) ctx.published.Scalar("rnn.time." + suffix, timing_.us_per_token(k)(p, 0));
      }
    }
    ImGui::EndTable();
  }
  // How far the repeats agree, and whether the table's trend can be read at all.
  std::vector<const lessons::TimingSamples*> points;
  std::vector<std::string> labels;
  for (int p = 0; p < kPoints; ++p)
    for (int k = 0; k < 2; ++k) {
      const lessons::TimingSamples& samples = sweep.samples(k, lo + p);
      points.push_back(&samples);
      labels.push_back(std::string(k ? "attention" : "the RNN") + " at n = " + std::to_string(1 << (lo + p)));
      if (!samples.empty()) {
        const std::string suffix = std::string(kSpeedKeys[k]) + "." + std::to_string(1 << (lo + p));
        // Rounded to float as the table's median is (us_per_token_), so min ≤ median ≤ max holds as shown.
        ctx.published.Scalar("rnn.time.min." + suffix, static_cast<float>(samples.Min() / (1 << (lo + p))));
        ctx.published.Scalar("rnn.time.max." + suffix, static_cast<float>(samples.Max() / (1 << (lo + p))));
        ctx.published.Scalar("rnn.time.repeats." + suffix, static_cast<double>(samples.us.size()));
      }
    }
  const std::string spread = lessons::DescribeTimingSpread(points, labels);
  if (!spread.empty()) DrawNote("%s", spread.c_str());
  DrawNote("The faster of the two per token is green. Attention always does more operations: 8·d² + 4·n·d per token "
           "against the RNN's 4·d², and its share grows with n. What one core cannot show is the steps column: "
           "attention's rows do not wait for each other, so parallel hardware can compute them at once, while each of "
           "the RNN's n steps needs the one before.");

  const Theme& theme = CurrentTheme();
  PlotOptions o;
  o.x = &log2_n_;
  o.x_powers_of_two = true;
  o.x_step = 2.0;
  o.log_y = true;
  o.round_axes = true;  // whole decades
  o.y_tick = [](double v) { return Count(v); };
  o.height = 200.0f;
  o.max_width = 460.0f;
  o.x_label = "n (tokens)";
  DrawSideBySide("rnn.speed.plots",
      [&] {
        PlotOptions t = o;
        t.y_label = "µs per token (measured)";
        t.describe = [&](int p) {
          ImGui::Text("n = %d", 1 << (lo + p));
          for (int k = 0; k < 2; ++k)
            if (std::isfinite(timing_.us_per_token(k)(p, 0))) ImGui::Text("%s: %.3g µs per token", k ? "attention" : "RNN", timing_.us_per_token(k)(p, 0));
        };
        DrawPlot("rnn.speed.time", {{"rnn", "RNN", &timing_.us_per_token(0), theme.compared[0], 2.0f, false, -1, true},
                                    {"attn", "attention", &timing_.us_per_token(1), theme.compared[1], 2.0f, false, -1, true}},
                 t, ctx.published);
      },
      [&] {
        PlotOptions f = o;
        f.y_label = "operations per token";
        f.describe = [&](int p) {
          ImGui::Text("n = %d", 1 << (lo + p));
          ImGui::Text("RNN: %s per token", Count(flops_per_token_[0](p, 0)).c_str());
          ImGui::Text("attention: %s per token", Count(flops_per_token_[1](p, 0)).c_str());
        };
        DrawPlot("rnn.speed.flops", {{"rnn", "RNN", &flops_per_token_[0], theme.compared[0], 2.0f, false, -1, true},
                                     {"attn", "attention", &flops_per_token_[1], theme.compared[1], 2.0f, false, -1, true}},
                 f, ctx.published);
      },
      760.0f);
}

void RnnPanel::DrawCombination(PanelContext& ctx) {
  lessons::RnnState& s = ctx.state.rnn;
  const lessons::Sentence& in = ctx.sentence;
  ImGui::SeparatorText("4  Attention over hidden states");
  Prose("They combine: a layer L turns the words into hidden states H; each hᵢ attends over every hⱼ "
                     "with weights aᵢⱼ = softmax(hᵢ·hⱼ / √d_h); the context cᵢ = Σⱼ aᵢⱼ hⱼ is set beside hᵢ, and "
                     "[hᵢ; cᵢ] goes to the next layer, here of the same kind L.");
  ImGui::SetNextItemWidth(std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.6f));
  ChoiceCombo("layer L", kLayerLabels, 3, &s.layer);
  lessons::RnnState combination_key = s;
  combination_key.target = lessons::RnnState().target;
  combination_key.source = lessons::RnnState().source;
  combination_.Update(SentenceKey(ctx, combination_key),
                      [&](lessons::RnnCombinationModel* m) { return lessons::ComputeRnnCombination(in, s, m); });
  DrawStatusLine(combination_.error());
  if (!combination_.has_model()) return;
  const lessons::RnnCombinationModel& c = combination_.model();
  const lessons::SequenceAttentionResult& r = c.stages;
  const int version = combination_.version(), n = static_cast<int>(r.hidden.rows()), d_h = static_cast<int>(r.hidden.cols());
  const lessons::RnnModel& m = model_.model();
  const int i = std::min(m.target, n - 1), j = std::min(m.source, n - 1);
  MatrixLabels tokens{&in.tokens, &in.known};
  char title[128];
  auto heading = [&](const char* what, int rows, int cols) {
    std::snprintf(title, sizeof title, "%s   (%d × %d)", what, rows, cols);
    ImGui::SeparatorText(title);
  };
  const gfx::HeatmapStyle states = SharedDivergingStyle({&r.hidden, &r.context});
  if (!BeginGrid("rnn.stages", 3, 300.0f)) return;
  ImGui::TableNextColumn();
  heading(s.layer == 0 ? "H = RNN(X)" : s.layer == 1 ? "H = CNN(X)" : "H = tanh(XW)", n, d_h);
  MatrixViewOptions oh = TokenRowsOptions("h", states, tokens);
  oh.highlight_row = j;
  DrawMatrix("rnn.H", r.hidden, version, oh, ctx.published);
  ImGui::TableNextColumn();
  heading("Weights A = softmax(HHᵀ/√d_h)", n, n);
  MatrixViewOptions oa = TokenGridOptions("a", WeightsStyle(r.weights), tokens);
  oa.marked_row = i;
  oa.marked_col = j;
  oa.max_width = 360.0f;
  oa.on_click = [&](int row, int col) {
    s.target = row;
    s.source = col;
  };
  DrawMatrix("rnn.A", r.weights, version, oa, ctx.published);
  Prose("a(%d, %d) = %.3g: how much \"%s\" takes from \"%s\"", i + 1, j + 1, r.weights(i, j),
                     in.tokens[i].c_str(), in.tokens[j].c_str());
  DrawNote("The layers are seeded, not trained: the weights stay close to uniform, 1/n = %.3g (marked on the legend). "
           "Tick stretch to see their pattern.", 1.0 / n);
  ctx.published.Scalar("rnn.a.ij", r.weights(i, j));
  ImGui::TableNextColumn();
  heading("Context C = AH", n, d_h);
  MatrixViewOptions oc = TokenRowsOptions("c", states, tokens);
  oc.highlight_row = i;
  DrawMatrix("rnn.C", r.context, version, oc, ctx.published);
  ImGui::TableNextColumn();
  heading("[H; C] side by side", n, 2 * d_h);
  MatrixViewOptions oz = TokenRowsOptions("[h; c]", SharedDivergingStyle({&r.combined}), tokens);
  oz.highlight_row = i;
  DrawMatrix("rnn.Z", r.combined, version, oz, ctx.published);
  ImGui::TableNextColumn();
  heading(s.layer == 0 ? "Next layer: RNN([H; C])" : s.layer == 1 ? "Next layer: CNN([H; C])" : "Next layer: tanh([H; C] W)",
          n, static_cast<int>(c.next.cols()));
  MatrixViewOptions on = TokenRowsOptions("out", DivergingStyle(c.next), tokens);
  on.highlight_row = i;
  DrawMatrix("rnn.next", c.next, version, on, ctx.published);
  EndGrid();
  ctx.published.Matrix("rnn.next.w", c.next_w);
  ctx.published.Matrix("rnn.next.w_hh", c.next_w_hh);
  ctx.published.Scalar("rnn.layer", s.layer);
}

}  // namespace attnlab
