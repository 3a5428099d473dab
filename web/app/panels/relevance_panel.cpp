// View 4. What the reader sees: the weights of one sentence under six relevance functions and
// under four normalisers, side by side; then entropy and gradient norm against d_k.
#include "panels/relevance_panel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/config_names.h"
#include "imgui.h"
#include "theme.h"
#include "widgets/bar_chart.h"
#include "widgets/field_widgets.h"
#include "widgets/grid.h"
#include "widgets/matrix_view.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

// How each relevance function and normaliser is introduced, in attn::ScoreFunction / Normalizer order.
const char* const kScoreTitles[] = {
    "dot  q·k  (Luong)",
    "scaled dot  q·k / √d_k  (Vaswani)",
    "general  qᵀW k  (Luong)",
    "additive  wᵀtanh(Wq q + Wk k)  (Bahdanau)",
    "concat  wᵀtanh(W[q; k])",
    "cosine  q·k / (|q||k|)",
};
const char* const kNormalizerTitles[] = {
    "softmax(s/τ)",
    "sparsemax: exact zeros",
    "ReLU-normalised: relu(s/τ) / Σ relu",
    "sigmoid σ(s/τ): rows need not sum to 1",
};
const char* const kNormalizerShort[] = {"softmax", "sparsemax", "ReLU-normalised", "sigmoid"};
const char* const kScoreShort[] = {"dot", "scaled dot", "general (bilinear)", "additive", "additive concat", "cosine"};

}  // namespace

void RelevancePanel::DrawControls(PanelContext& ctx) {
  lessons::RelevanceState& s = ctx.state.relevance;
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool wide = avail >= 700.0f;
  ImGui::SetNextItemWidth(std::max(120.0f, (wide ? avail * 0.5f : avail) - 130.0f));
  SliderField(s.kTemperature, &s.temperature);
  if (wide) ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(120.0f, (wide ? avail * 0.5f : avail) - 130.0f));
  SliderField(s.kSeed, &s.seed);
}

void RelevancePanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "How relevant is word j to word i? The dot product q·k (Luong) grows with the vectors' lengths; the scaled "
      "dot product q·k/√d_k (Vaswani) keeps its variance near 1 for unit-variance entries (the scores themselves still "
      "spread over a few units); general qᵀWk and additive "
      "wᵀtanh(Wq q + Wk k) (Bahdanau) learn what to compare; cosine ignores lengths. A normaliser then turns "
      "each row of scores into weights: softmax is one choice, sparsemax gives exact zeros, ReLU-normalised "
      "drops negative scores, sigmoid weighs each word on its own (no sum to 1). Here q = k = v = the word "
      "vectors; W and w are seeded, not trained.",
      "compare dot with scaled dot, switch the normaliser to sparsemax, raise τ to flatten every row, click a row "
      "of the normalisers to compare it as bars; below, hover the saturation plot at d_k = 1024.");
  DrawControls(ctx);
  if (ctx.sentence_version == 0) return;
  const lessons::RelevanceState& s = ctx.state.relevance;
  memo_.Update(SentenceKey(ctx, s), [&](lessons::RelevanceModel* m) { return lessons::ComputeRelevance(ctx.sentence, s, m); });
  DrawStatusLine(memo_.error());
  if (!memo_.has_model()) return;
  DrawScoreGrid(ctx);
  DrawNormalizerGrid(ctx);
  DrawSaturation(ctx);
}

void RelevancePanel::DrawScoreGrid(PanelContext& ctx) {
  lessons::RelevanceState& s = ctx.state.relevance;
  const MatrixLabels tokens{&ctx.sentence.tokens, &ctx.sentence.known};
  ImGui::SeparatorText("Six relevance functions, one normaliser");
  ChoiceCombo(s.kNormalizer.label, kNormalizerShort, s.kShownNormalizers, &s.normalizer);
  if (!BeginGrid("rel.scores", 3, 300.0f)) return;
  for (int k = 0; k < s.kShownScores; ++k) {
    ImGui::TableNextColumn();
    Prose("%s", kScoreTitles[k]);
    MatrixViewOptions o = TokenGridOptions("w", WeightsStyle(memo_.model().by_score[k]), tokens);
    o.max_width = 380.0f;
    DrawMatrix(std::string("rel.score.") + attn::ScoreFunctionName(static_cast<attn::ScoreFunction>(k)),
               memo_.model().by_score[k], memo_.version(), o, ctx.published);
  }
  EndGrid();
}

void RelevancePanel::DrawNormalizerGrid(PanelContext& ctx) {
  lessons::RelevanceState& s = ctx.state.relevance;
  const MatrixLabels tokens{&ctx.sentence.tokens, &ctx.sentence.known};
  ImGui::SeparatorText("Four normalisers, one relevance function");
  ChoiceCombo(s.kScore.label, kScoreShort, s.kShownScores, &s.score);
  if (!BeginGrid("rel.norms", s.kShownNormalizers, 300.0f)) return;
  for (int k = 0; k < s.kShownNormalizers; ++k) {
    ImGui::TableNextColumn();
    Prose("%s", kNormalizerTitles[k]);
    MatrixViewOptions o = TokenGridOptions("w", WeightsStyle(memo_.model().by_normalizer[k]), tokens);
    o.max_width = 380.0f;
    o.marked_row = s.row;
    o.marked_col = s.row;
    o.on_click = [&](int i, int) { s.row = i; };
    o.describe = [](int, int) { ImGui::TextDisabled("click to compare this row as bars"); };
    DrawMatrix(std::string("rel.norm.") + attn::NormalizerName(static_cast<attn::Normalizer>(k)),
               memo_.model().by_normalizer[k], memo_.version(), o, ctx.published);
  }
  EndGrid();
  ctx.summary = std::string("Relevance, ") + kScoreShort[s.score] + " with softmax: " +
                lessons::DescribeWeightsRow(memo_.model().by_normalizer[0], std::max(s.row, 0), ctx.sentence.tokens, 3);
  DrawRowBars(ctx);
}

void RelevancePanel::DrawRowBars(PanelContext& ctx) {
  lessons::RelevanceState& s = ctx.state.relevance;
  const std::vector<std::string>& tokens = ctx.sentence.tokens;
  s.row = std::min(s.row, static_cast<int>(tokens.size()) - 1);
  if (s.row < 0) {
    DrawNote("Click a row of these weights to compare it under the four normalisers as bars.");
    return;
  }
  Prose("The weights of \"%s\" under each normaliser:", tokens[s.row].c_str());
  ImGui::SameLine();
  if (ImGui::Button("hide")) s.row = -1;
  if (s.row < 0 || !BeginGrid("rel.rows", s.kShownNormalizers, 300.0f)) return;
  for (int k = 0; k < s.kShownNormalizers; ++k) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(kNormalizerShort[k]);
    DrawBars(std::string("rel.row.") + attn::NormalizerName(static_cast<attn::Normalizer>(k)), tokens,
             memo_.model().by_normalizer[k], s.row, 340.0f, ctx.published, BarAxis{0.0f, 1.0f});
  }
  EndGrid();
}

void RelevancePanel::DrawSaturation(PanelContext& ctx) {
  ImGui::SeparatorText("Why divide by √d_k: saturation");
  saturation_.Start();  // once; the app's job scheduler computes it, a d_k a piece
  DrawStatusLine(saturation_.error());
  if (!saturation_.done()) {
    DrawNote("Computing d_k = 2 … 1024: %.0f%% done…", 100.0 * saturation_.progress());
    return;
  }
  const lessons::SaturationModel& sat = saturation_.model();
  ctx.published.Scalar("rel.sat.ms", sat.ms);
  ctx.published.Scalar("rel.sat.tokens", sat.kTokens);
  Prose(
      "32 random queries and keys with unit-variance entries, for d_k = 2 to 1024, through the engine's forward "
      "and backward passes. q·k then has variance d_k: without the scale the scores spread out, softmax turns "
      "one-hot (entropy falls towards 0; uniform would be ln 32 ≈ 3.47) and the gradient that reaches the "
      "scores vanishes in the typical (median) row. With 1/√d_k both stay put.");
  // Each curve is a row of the sweep's (2, P) tables, with a dot at every computed d_k.
  const auto curves = [](const attn::Matrix& table) {
    std::vector<PlotSeries> series = {{"", "q·k, no scale", &table, CurrentTheme().compared[0], 2.0f},
                                      {"", "q·k / √d_k", &table, CurrentTheme().compared[1], 2.0f}};
    for (int row = 0; row < 2; ++row) series[row].row = row, series[row].point_dots = true;
    return series;
  };
  PlotOptions o;
  o.x = &sat.curves.log2_dk;
  o.open = o.round_axes = o.hover_line = true;
  o.y_ticks = 4;
  o.x_step = 1.0;  // a tick at every d_k
  o.x_powers_of_two = true;
  o.height = 220.0f;
  o.max_width = 560.0f;
  o.x_label = "d_k";
  const auto plot = [&](const std::string& name, const attn::Matrix& table) {
    o.describe = [&](int k) {
      ImGui::Text("d_k = %.0f", std::exp2(sat.curves.log2_dk(0, k)));
      ImGui::Text("q·k, no scale: %.4g", table(0, k));
      ImGui::Text("q·k / √d_k: %.4g", table(1, k));
    };
    const PlotResult r = DrawPlot(name, curves(table), o, ctx.published);
    ctx.published.Matrix(name, table);
    ctx.published.Matrix(name + ".x", sat.curves.log2_dk);
    if (r.hovered >= 0) ctx.published.Scalar(name + ".hover", r.hovered);
  };
  if (!BeginGrid("rel.sat", 2, 380.0f)) return;
  ImGui::TableNextColumn();
  o.y_label = "mean entropy of a row of weights (nats)";
  plot("rel.sat.entropy", sat.curves.entropy);
  ImGui::TableNextColumn();
  o.y_label = "|∂L/∂scores| of the median row (log scale)";
  o.log_y = true;
  o.y_tick = [](double v) { return "1e" + std::to_string(std::lround(std::log10(v))); };
  plot("rel.sat.grad", sat.curves.gradient_norm);
  EndGrid();
}

}  // namespace attnlab
