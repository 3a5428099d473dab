// View 11's microscope (issue 31), below the curves: each head's prefix-matching and copying scores
// over training with the phase change marked, the held-out loss at each position of the sequence,
// and the chosen head's QK and OV circuits with the composition scores between layers. Everything
// drawn is a snapshot's (lessons/views/learn_microscope.h); nothing here computes.
#include <algorithm>
#include <string>
#include <vector>

#include "imgui.h"
#include "panels/learn_panel.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/matrix_view.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

std::string HeadLabel(int k, int heads) { return "head " + std::to_string(k / heads + 1) + "." + std::to_string(k % heads + 1); }

}  // namespace

void LearnPanel::DrawScores(PanelContext& ctx) {
  const auto& snaps = job_.a().lab().snapshots();
  const int heads = static_cast<int>(snaps.back().weights[0].size());
  const int count = static_cast<int>(prefix_.rows());
  ImGui::SeparatorText(compared() ? "Each head's scores over training (run A)" : "Each head's scores over training");
  DrawNote("Prefix matching: a head's mean weight on the token right after an earlier copy of the query's token (what an "
           "induction head looks at), on %d held-out sequences. Copying: the share of tokens that are also answers whose "
           "OV circuit (below) writes most towards that same answer.",
           lessons::LearnLab::kRoleSequences);
  if (score_steps_.cols() < 2) return;
  const bool has_prefix = prefix_.size() && prefix_.maxCoeff() >= 0;
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k) names.push_back(HeadLabel(k, heads));
  std::vector<PlotMarker> markers;
  if (phase_[0].step >= 0) markers.push_back({static_cast<float>(phase_[0].step), HeadColor(2), 2.0f});
  const float width = std::min(620.0f, ImGui::GetContentRegionAvail().x);
  const auto plot = [&](const char* name, const char* title, const attn::Matrix& scores) {
    ImGui::SeparatorText(title);
    PlotOptions o;
    o.x = &score_steps_;
    o.round_axes = true;
    o.height = 150.0f;
    o.max_width = width;
    o.x_label = "step";
    o.markers = markers;
    o.describe = [&](int i) {
      ImGui::Text("step %.0f", score_steps_(0, i));
      for (int k = 0; k < count; ++k) ImGui::Text("%s: %.3f", names[k].c_str(), scores(k, i));
    };
    std::vector<PlotSeries> series;
    for (int k = 0; k < count; ++k) {
      PlotSeries s{k == 0 ? "scores" : "", names[k].c_str(), &scores, HeadColor(k), 2.0f};
      s.row = k;
      s.point_dots = true;
      series.push_back(s);
    }
    DrawPlot(name, series, o, ctx.published);
  };
  if (has_prefix) {
    DrawSideBySide(
        "learn.scores", [&] { plot("learn.prefix", "Prefix matching", prefix_); },
        [&] { plot("learn.copying", "Copying (from the OV circuit)", copying_); });
  } else {
    plot("learn.copying", "Copying (from the OV circuit)", copying_);
    DrawNote("This task never repeats a token before the query, so no head has a prefix-matching score.");
  }
}

void LearnPanel::DrawPositionLoss(PanelContext& ctx, const lessons::LearnSnapshot& snap, const lessons::LearnSnapshot* snap_b) {
  ImGui::SeparatorText("Held-out loss at each position of the sequence");
  attn::Matrix& loss = position_loss_[0];
  loss = lessons::PositionLoss(snap);
  int scored = 0;
  for (int t : snap.position_scored) scored += t > 0;
  Prose("%s", lessons::PositionLossText(snap, snap_b).c_str());
  ctx.published.Matrix("learn.position_loss", loss);
  if (scored < 2) return;
  attn::Matrix& positions = positions_;
  positions.resize(loss.rows(), 1);
  for (Eigen::Index t = 0; t < loss.rows(); ++t) positions(t, 0) = static_cast<float>(t + 1);
  attn::Matrix& loss_b = position_loss_[1];
  loss_b = snap_b ? lessons::PositionLoss(*snap_b) : attn::Matrix();
  PlotOptions o;
  o.x = &positions;
  o.round_axes = true;
  o.height = 150.0f;
  o.max_width = std::min(620.0f, ImGui::GetContentRegionAvail().x);
  o.x_label = "position";
  o.x_step = 1.0;
  o.describe = [&](int i) {
    ImGui::Text("position %d: loss %.3f", i + 1, loss(i, 0));
    if (snap_b) ImGui::Text("run B: %.3f", loss_b(i, 0));
  };
  std::vector<PlotSeries> series = {{"a", snap_b ? "run A" : "held-out loss", &loss, HeadColor(2), 2.0f}};
  series.back().point_dots = true;
  if (snap_b) {
    series.push_back({"b", "run B", &loss_b, HeadColor(3), 2.0f});
    series.back().point_dots = true;
  }
  DrawPlot("learn.positions", series, o, ctx.published);
}

void LearnPanel::DrawCircuits(PanelContext& ctx, const lessons::LearnSnapshot& snap) {
  lessons::LearnState& s = ctx.state.learn;
  const lessons::LearnLab& lab = job_.a().lab();
  const attn::train::ModelConfig& model = lab.trainer().model();
  const int heads = model.heads, count = static_cast<int>(snap.circuits.heads.size());
  if (count == 0) return;
  ImGui::SeparatorText(compared() ? "Circuits: a head read off its weights (run A)" : "Circuits: a head read off its weights");
  DrawNote("Before any sequence is seen: the QK circuit scores each query token against each key token through the "
           "head's Wq and Wk alone (each token's embedding straight into this layer); the OV circuit is what attending to "
           "a token writes towards each answer, through Wv, Wo and the read-out.");
  s.circuit_head = std::clamp(s.circuit_head, 0, count - 1);
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k) names.push_back(HeadLabel(k, heads));
  std::vector<const char*> name_ptrs;
  for (const std::string& n : names) name_ptrs.push_back(n.c_str());
  ImGui::SetNextItemWidth(140.0f);
  ChoiceCombo("##circuit_head", name_ptrs.data(), count, &s.circuit_head);
  ctx.published.Rect("learn.circuit_head", LastItemRect());
  ImGui::SameLine();
  ImGui::TextDisabled("at step %d", snap.step);
  const attn::train::HeadCircuits& c = snap.circuits.heads[static_cast<size_t>(s.circuit_head)];
  const int version = (resets_ * 16 + s.circuit_head) * 100000 + snap.step + 1;  // steps < 100000, heads < 16
  // Wide enough for a label over each of up to 26 columns: half the row beside each other, the
  // whole row on a phone.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float size = avail >= 700.0f ? std::min(560.0f, avail / 2 - 30.0f) : std::min(500.0f, avail);
  DrawSideBySide(
      "learn.circuits",
      [&] {
        ImGui::TextUnformatted("QK: query token (row) × key token (column)");
        MatrixViewOptions o = TokenGridOptions("score", DivergingStyle(c.qk), MatrixLabels{&labels_.tokens, nullptr});
        o.max_width = size;
        DrawMatrix("learn.qk", c.qk, version, o, ctx.published);
      },
      [&] {
        ImGui::TextUnformatted("OV: token attended to (row) × answer written (column)");
        MatrixViewOptions o = TokenGridOptions("logit", DivergingStyle(c.ov), MatrixLabels{&labels_.tokens, nullptr});
        o.cols = MatrixLabels{&labels_.classes, nullptr};
        o.square = false;
        o.max_width = size;
        DrawMatrix("learn.ov", c.ov, version, o, ctx.published);
      },
      700.0f);
  Prose("%s", lessons::CopyingText(snap, s.circuit_head, lab.task(), model).c_str());
  if (c.qk_positions.size()) {
    ImGui::TextUnformatted("QK of the positions: query position (row) × key position (column)");
    MatrixViewOptions o = TokenGridOptions("score", DivergingStyle(c.qk_positions), MatrixLabels{&labels_.positions, nullptr});
    o.max_width = size;
    DrawMatrix("learn.qk_positions", c.qk_positions, version, o, ctx.published);
  }
  ctx.published.Scalar("learn.circuit.copying", static_cast<float>(c.copying));
  // What the tests recompute the circuits from: the snapshot's parameters besides the attention's.
  const attn::train::ModelParameters& p = snap.parameters;
  for (const auto& [key, m] : {std::pair{"wte", &p.wte}, {"wpe", &p.wpe}, {"lnf_gamma", &p.lnf_gamma}, {"out_w", &p.out_w}})
    ctx.published.Matrix(std::string("learn.") + key, *m);
  for (size_t l = 0; l < p.blocks.size(); ++l) {
    ctx.published.Matrix("learn.L" + std::to_string(l + 1) + ".ln1_gamma", p.blocks[l].ln1_gamma);
    ctx.published.Matrix("learn.L" + std::to_string(l + 1) + ".ln1_beta", p.blocks[l].ln1_beta);
  }

  if (snap.circuits.compositions.empty()) return;
  ImGui::SeparatorText("Composition: how much a later head reads what an earlier one writes");
  DrawNote("Row: the earlier head, column: the later one. K: the earlier head's output forms the later head's keys (an "
           "induction head reading a previous-token head); Q: its queries; V: its values. 0: unrelated, 1: fully.");
  const lessons::LearnSnapshot& first = lab.snapshots().front();
  Prose("%s", lessons::StrongestCompositionText(snap.circuits, first.circuits).c_str());
  const float table = std::min(200.0f, (ImGui::GetContentRegionAvail().x - 40.0f) / 3.0f);
  int drawn = 0;
  for (const char which : {'k', 'q', 'v'}) {
    attn::Matrix& m = composition_[drawn];
    m = lessons::CompositionTable(snap.circuits, heads, which);
    if (drawn++) SameLineIfFits(table + 20.0f);
    ImGui::BeginGroup();
    ImGui::Text("%c-composition", which - 'a' + 'A');
    MatrixViewOptions o = TokenGridOptions(std::string(1, static_cast<char>(which - 'a' + 'A')) + "-composition",
                                           gfx::HeatmapStyle{gfx::Colormap::kViridis, 0.0f, 1.0f, 0.04f}, MatrixLabels{&names, nullptr});
    o.max_width = table;
    o.legend = which == 'k';
    DrawMatrix(std::string("learn.composition.") + which, m, version, o, ctx.published);
    ImGui::EndGroup();
  }
}

}  // namespace attnlab
