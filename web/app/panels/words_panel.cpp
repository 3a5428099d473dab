// View 1. What the reader sees: X, the raw scores XXᵀ, the weights, the outputs; one token
// followed step by step; the same weights as lines.
#include "panels/words_panel.h"

#include <algorithm>
#include <cstdio>

#include "lessons/explain.h"
#include "imgui.h"
#include "widgets/bar_chart.h"
#include "widgets/lines_view.h"
#include "widgets/matrix_view.h"

namespace attnlab {

void WordsPanel::Recompute(PanelContext& ctx) {
  const lessons::WordsState& s = ctx.state.words;
  const SentenceInputs& in = ctx.sentence;
  changed_ = false;
  if (in.version == 0) return;
  if (in.version != computed_version_ || s.temperature != computed_temperature_) {
    attn::AttentionConfig config;  // Q = K = V = X, scaled dot product, softmax
    config.temperature = s.temperature;
    attn::AttentionResult result;
    ++*ctx.engine_runs;
    const attn::Status status = attn::SelfAttention(config, in.x, &result);
    computed_version_ = in.version;
    computed_temperature_ = s.temperature;
    computed_spotlight_ = -2;
    if (!KeepStatus(status, &error_)) return;
    result_ = std::move(result);
    changed_ = true;
  }
  const int n = static_cast<int>(in.tokens.size());
  ctx.state.words.spotlight = std::min(s.spotlight, n - 1);
  if (s.spotlight != computed_spotlight_ || changed_) {
    computed_spotlight_ = s.spotlight;
    if (s.spotlight >= 0) {
      const attn::HeadIntermediates& h = result_.heads[0];
      if (!lessons::WeightedTerms(h.weights, h.v, s.spotlight, &terms_).ok()) terms_.resize(0, 0);
      output_row_ = result_.output.row(s.spotlight);
    }
    changed_ = true;
  }
}

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
  ImGui::SliderFloat("temperature τ", &s.temperature, 0.05f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  s.temperature = std::clamp(s.temperature, 0.05f, 5.0f);  // Ctrl+click can type any value
  ImGui::SameLine();
  ImGui::Checkbox("lines view", &s.lines);

  Recompute(ctx);
  DrawStatusLine(error_);
  if (result_.heads.empty()) return;
  const SentenceInputs& in = ctx.sentence;
  const attn::HeadIntermediates& h = result_.heads[0];
  MatrixLabels tokens{&in.tokens, &in.known};

  auto draw_x = [&] {
    ImGui::SeparatorText("Word vectors X");
    DrawMatrix("words.X", x_map_, in.x, changed_, TokenRowsOptions("x", DivergingStyle(in.x), tokens), ctx.published);
  };
  auto draw_raw = [&] {
    ImGui::SeparatorText("Raw scores XXᵀ (xᵢ · xⱼ)");
    MatrixViewOptions o;
    o.symbol = "xᵢ·xⱼ";
    o.style = DivergingStyle(h.raw_scores);
    o.rows = o.cols = tokens;
    o.describe = [&](int i, int j) { ImGui::Text("scaled ÷ √d: %.6g", h.scaled_scores(i, j)); };
    DrawMatrix("words.raw", raw_map_, h.raw_scores, changed_, o, ctx.published);
  };
  auto draw_weights = [&] {
    ImGui::SeparatorText("Weights W = softmax(XXᵀ / (√d τ))");
    if (s.lines) {
      DrawLines("words.lines", in.tokens, {{&h.weights, IM_COL32(255, 196, 61, 255)}}, 520.0f, ctx.published);
      ImGui::TextDisabled("Hover a word on the left to see only where it looks.");
      return;
    }
    MatrixViewOptions o;
    o.symbol = "w";
    o.style = SequentialStyle(h.weights);
    o.rows = o.cols = tokens;
    o.describe = [&](int i, int j) {
      ImGui::Text("raw score %.6g, scaled %.6g", h.raw_scores(i, j), h.scaled_scores(i, j));
      ImGui::TextDisabled("click to follow %s", in.tokens[i].c_str());
    };
    o.on_click = [&](int i, int) { s.spotlight = i; s.step = 0; };
    DrawMatrix("words.W", weights_map_, h.weights, changed_, o, ctx.published);
  };
  auto draw_output = [&] {
    ImGui::SeparatorText("Outputs Y = WX");
    DrawMatrix("words.Y", output_map_, result_.output, changed_,
               TokenRowsOptions("y", DivergingStyle(result_.output), tokens), ctx.published);
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
  DrawSpotlight(ctx);
}

void WordsPanel::DrawSpotlight(PanelContext& ctx) {
  lessons::WordsState& s = ctx.state.words;
  const SentenceInputs& in = ctx.sentence;
  const attn::HeadIntermediates& h = result_.heads[0];
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
  Recompute(ctx);  // the spotlight may have changed just now
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
      DrawMatrix("words.spot.terms", terms_map_, terms_, changed_,
                 TokenRowsOptions("wᵢⱼxⱼ", DivergingStyle(in.x), MatrixLabels{&in.tokens, &in.known}), ctx.published);
      break;
    }
    default: {
      ImGui::TextWrapped("Step 4: the output of \"%s\" is the sum of those rows, yᵢ = Σⱼ wᵢⱼ xⱼ: row %d of Y.",
                         word.c_str(), i);
      const std::vector<std::string> label = {word};
      DrawMatrix("words.spot.y", output_row_map_, output_row_, changed_,
                 TokenRowsOptions("y", DivergingStyle(in.x), MatrixLabels{&label, nullptr}), ctx.published);
      break;
    }
  }
}

}  // namespace attnlab
