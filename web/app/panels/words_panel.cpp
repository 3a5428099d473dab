// View 1. What the reader sees: X, the raw scores XXᵀ, the weights, the outputs; one token
// followed step by step; the same weights as lines.
#include "panels/words_panel.h"

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "theme.h"
#include "widgets/bar_chart.h"
#include "widgets/field_widgets.h"
#include "widgets/lines_view.h"
#include "widgets/matrix_view.h"

namespace attnlab {

void WordsPanel::Draw(PanelContext& ctx) {
  DrawExplanation(
      "Attention is re-weighting: each output yᵢ = Σⱼ wᵢⱼ xⱼ is a weighted average of the word vectors, "
      "with weights wᵢⱼ ≥ 0 that sum to 1. With no trained parameters the weights come from the words "
      "themselves: the dot product xᵢ · xⱼ = |xᵢ||xⱼ| cos θ is large when two vectors point the same way, "
      "and softmax turns each row of scores into weights. In matrix form: Y = softmax(XXᵀ / (√d τ)) X.",
      "pick a preset, click a row of the weights to follow one word step by step, or lower the "
      "temperature τ to make each word take mostly from its closest match.");
  lessons::WordsState& s = ctx.state.words;
  const float half = std::max(140.0f, ImGui::GetContentRegionAvail().x * 0.5f - 8.0f);
  ImGui::SetNextItemWidth(half);
  SliderField(s.kTemperature, &s.temperature);
  ImGui::SameLine();
  CheckboxField(s.kLines, &s.lines);
  DrawMaps(ctx);
  DrawSpotlight(ctx);
}

void WordsPanel::DrawMaps(PanelContext& ctx) {
  lessons::WordsState& s = ctx.state.words;
  const lessons::Sentence& in = ctx.sentence;
  if (ctx.sentence_version == 0) return;
  s.spotlight = std::min(s.spotlight, static_cast<int>(in.tokens.size()) - 1);
  memo_.Update(SentenceKey(ctx, s), [&](lessons::WordsModel* m) { return lessons::ComputeWords(in, s, m); });
  DrawStatusLine(memo_.error());
  if (!memo_.has_model()) return;
  const lessons::WordsModel& model = memo_.model();
  const int version = memo_.version();
  const attn::HeadIntermediates& h = model.result.heads[0];
  MatrixLabels tokens{&in.tokens, &in.known};

  auto draw_x = [&] {
    ImGui::SeparatorText("Word vectors X");
    DrawMatrix("words.X", in.x, ctx.sentence_version, TokenRowsOptions("x", DivergingStyle(in.x), tokens), ctx.published);
  };
  auto draw_raw = [&] {
    ImGui::SeparatorText("Raw scores XXᵀ (xᵢ · xⱼ)");
    MatrixViewOptions o = TokenGridOptions("xᵢ·xⱼ", DivergingStyle(h.raw_scores), tokens);
    o.describe = [&](int i, int j) { ImGui::Text("scaled ÷ √d: %.6g", h.scaled_scores(i, j)); };
    DrawMatrix("words.raw", h.raw_scores, version, o, ctx.published);
  };
  auto draw_weights = [&] {
    ImGui::SeparatorText("Weights W = softmax(XXᵀ / (√d τ))");
    if (s.lines) {
      DrawLines("words.lines", in.tokens, {{&h.weights, CurrentTheme().highlight}}, 520.0f, ctx.published);
      ImGui::TextDisabled("Hover a word on the left to see only where it looks.");
      return;
    }
    MatrixViewOptions o = TokenGridOptions("w", SequentialStyle(h.weights), tokens);
    o.describe = [&](int i, int j) {
      ImGui::Text("raw score %.6g, scaled %.6g", h.raw_scores(i, j), h.scaled_scores(i, j));
      ImGui::TextDisabled("click to follow %s", in.tokens[i].c_str());
    };
    o.on_click = [&](int i, int) { s.spotlight = i; s.step = 0; };
    DrawMatrix("words.W", h.weights, version, o, ctx.published);
  };
  auto draw_output = [&] {
    ImGui::SeparatorText("Outputs Y = WX");
    DrawMatrix("words.Y", model.result.output, version, TokenRowsOptions("y", DivergingStyle(model.result.output), tokens),
               ctx.published);
  };
  DrawSideBySide(
      "words",
      [&] {
        draw_x();
        draw_output();
      },
      [&] {
        draw_weights();
        draw_raw();
      });
}

void WordsPanel::DrawSpotlight(PanelContext& ctx) {
  lessons::WordsState& s = ctx.state.words;
  const lessons::Sentence& in = ctx.sentence;
  if (!memo_.has_model()) return;
  ImGui::SeparatorText("Spotlight one word");
  const int n = static_cast<int>(in.tokens.size());
  ImGui::SetNextItemWidth(std::min(240.0f, ImGui::GetContentRegionAvail().x));
  const char* preview = s.spotlight >= 0 ? in.tokens[s.spotlight].c_str() : "choose a word";
  if (ImGui::BeginCombo("word", preview)) {
    for (int i = 0; i < n; ++i) {
      ImGui::PushID(i);
      if (ImGui::Selectable(in.tokens[i].c_str(), i == s.spotlight)) {
        s.spotlight = i;
        s.step = 0;
      }
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  if (s.spotlight < 0) {
    ImGui::TextDisabled("Choose a word (or click a row of the weights) to see how its output is made.");
    return;
  }
  // The spotlight may have changed just now: the model follows before anything is drawn from it.
  memo_.Update(SentenceKey(ctx, s), [&](lessons::WordsModel* m) { return lessons::ComputeWords(in, s, m); });
  const lessons::WordsModel& model = memo_.model();
  if (model.terms.rows() == 0) return;  // the last run failed: its error is shown above
  const attn::HeadIntermediates& h = model.result.heads[0];
  const int version = memo_.version();
  const int i = s.spotlight;
  static const char* const kSteps[] = {"1 scores", "2 softmax", "3 weighted vectors", "4 output"};
  for (int k = 0; k < 4; ++k) {
    if (k) ImGui::SameLine();
    if (ImGui::RadioButton(kSteps[k], s.step == k)) s.step = k;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(s.step >= 3);
  if (ImGui::Button("next step >")) ++s.step;
  ImGui::EndDisabled();
  const std::string& word = in.tokens[i];
  switch (s.step) {
    case 0:
      ImGui::TextWrapped("Step 1: \"%s\" scores every word (itself included): sᵢⱼ = xᵢ · xⱼ / √d.", word.c_str());
      DrawBars("words.spot.scores", in.tokens, h.scaled_scores, i, 560.0f, ctx.published);
      break;
    case 1:
      ImGui::TextWrapped("Step 2: softmax(sᵢⱼ / τ) turns the scores into weights: positive, summing to 1.");
      DrawBars("words.spot.weights", in.tokens, h.weights, i, 560.0f, ctx.published);
      break;
    case 2: {
      ImGui::TextWrapped("Step 3: each word's vector, multiplied by its weight wᵢⱼ xⱼ.");
      // The same colours as X: small weights fade the rows.
      DrawMatrix("words.spot.terms", model.terms, version,
                 TokenRowsOptions("wᵢⱼxⱼ", DivergingStyle(in.x), MatrixLabels{&in.tokens, &in.known}), ctx.published);
      break;
    }
    default: {
      ImGui::TextWrapped("Step 4: the output of \"%s\" is the sum of those rows, yᵢ = Σⱼ wᵢⱼ xⱼ: row %d of Y.",
                         word.c_str(), i);
      const std::vector<std::string> label = {word};
      DrawMatrix("words.spot.y", model.output_row, version,
                 TokenRowsOptions("y", DivergingStyle(in.x), MatrixLabels{&label, nullptr}), ctx.published);
      break;
    }
  }
}

}  // namespace attnlab
