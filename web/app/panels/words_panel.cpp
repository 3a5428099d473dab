// View 1. What the reader sees: X, the raw scores XXᵀ, the weights, the outputs; one token
// followed step by step; the same weights as lines.
#include "panels/words_panel.h"

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "theme.h"
#include "widgets/bar_chart.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/grid.h"
#include "widgets/scroll_into_view.h"
#include "widgets/lines_view.h"
#include "widgets/matrix_view.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

// The two word × word maps stay this wide, so that on a desktop the weights are on the first
// screen with the scores above them.
constexpr float kSquareMapWidth = 360.0f;

}  // namespace

void WordsPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "This explorer follows one sentence through self-attention, view by view: the weights, order, "
      "projections, relevance functions, heads, masks, convolutions, smoothing and speed. "
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
  ctx.published.Rect("words.temperature", LastItemRect());
  SameLineIfFits(ImGui::CalcTextSize(s.kLines.label).x + ImGui::GetFrameHeight() * 1.5f);
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
  const int n = static_cast<int>(in.tokens.size()), d = static_cast<int>(in.x.cols());
  const int i = s.spotlight;  // highlighted in every map: its row, and its column as a key
  char title[128];

  // The pipeline in reading order, side by side on a desktop: 1 X → 2 scores → 3 weights → 4 outputs.
  if (!BeginGrid("words.maps", 4, 270.0f)) return;
  ImGui::TableNextColumn();
  ImGui::SeparatorText("1  Word vectors X");
  std::snprintf(title, sizeof(title), "%d words × %d numbers", n, d);
  DrawNote("%s", title);
  MatrixViewOptions ox = TokenRowsOptions("x", DivergingStyle(in.x), tokens);
  ox.highlight_row = i;
  DrawMatrix("words.X", in.x, ctx.sentence_version, ox, ctx.published);

  ImGui::TableNextColumn();
  ImGui::SeparatorText("2  Scores XXᵀ  →");
  DrawNote("every vector · every vector");
  MatrixViewOptions os = TokenGridOptions("xᵢ·xⱼ", DivergingStyle(h.raw_scores), tokens);
  os.highlight_row = os.highlight_col = i;
  os.max_width = kSquareMapWidth;
  os.describe = [&](int r, int c) { ImGui::Text("scaled ÷ √d: %.4g", h.scaled_scores(r, c)); };
  DrawMatrix("words.raw", h.raw_scores, version, os, ctx.published);

  ImGui::TableNextColumn();
  ImGui::SeparatorText("3  Weights W  →");
  DrawNote("softmax(XXᵀ/(√d τ)), rows sum to 1");
  if (s.lines) {
    DrawLines("words.lines", in.tokens, {{&h.weights, CurrentTheme().highlight}}, 520.0f, ctx.published);
    DrawNote("Hover a word on the left to see only where it looks.");
  } else {
    MatrixViewOptions ow = TokenGridOptions("w", WeightsStyle(h.weights), tokens);
    ow.highlight_row = ow.highlight_col = i;
    ow.max_width = kSquareMapWidth;
    ow.describe = [&](int r, int c) {
      ImGui::Text("raw score %.4g, scaled %.4g", h.raw_scores(r, c), h.scaled_scores(r, c));
      ImGui::TextDisabled("click to follow \"%s\" step by step", in.tokens[r].c_str());
    };
    ow.on_click = [&](int r, int) {
      s.spotlight = r;
      s.step = 0;
      RequestScrollToSection("words.spotlight");
    };
    DrawMatrix("words.W", h.weights, version, ow, ctx.published);
    ctx.summary = "Words: " + lessons::DescribeWeightsRow(h.weights, std::max(s.spotlight, 0), in.tokens, 3);
  }

  ImGui::TableNextColumn();
  ImGui::SeparatorText("4  Outputs Y = WX  →");
  DrawNote("each row: a weighted average of X's rows");
  MatrixViewOptions oy = TokenRowsOptions("y", DivergingStyle(model.result.output), tokens);
  oy.highlight_row = i;
  DrawMatrix("words.Y", model.result.output, version, oy, ctx.published);
  EndGrid();

  // The lesson of this view, in numbers the reader can check on the maps above.
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().explanation_text);
  const bool mostly_self = 2 * model.rows_led_by_self > n;
  Prose("In %d of the %d rows of W the largest weight is on the word itself%s. Lower τ and each row's weight "
        "gathers on its largest entry%s.",
        model.rows_led_by_self, n,
        mostly_self ? ": with no trained parameters, a word's own vector tends to match it best" : "",
        mostly_self ? ": in most rows, the word itself" : "");
  if (i >= 0 && model.best_other >= 0)
    Prose("\"%s\" (%d) keeps %.3f for itself; the other word it weighs most is \"%s\" (%d), at %.3f.",
                       in.tokens[i].c_str(), i + 1, model.self_weight, in.tokens[model.best_other].c_str(),
                       model.best_other + 1, model.best_other_weight);
  // The classic example, said only with its numbers when the sentence has it.
  if (model.it_index >= 0 && model.animal_index >= 0)
    Prose("\"it\" (%d) gives \"animal\" (%d) %.3f of its weight%s; nothing in raw vectors says what \"it\" refers to. "
          "For that, the comparison itself has to be learned: projections Wq, Wk, Wv (view 3), fitted to text.",
          model.it_index + 1, model.animal_index + 1, model.it_to_animal,
          model.it_best == model.animal_index ? ", its largest, by chance of the raw vectors" : ", not its largest");
  else
    Prose("Raw vectors only say which words are alike, not which word a pronoun refers to. For that, the "
          "comparison itself has to be learned: projections Wq, Wk, Wv (view 3), fitted to text.");
  ImGui::PopStyleColor();
  ctx.published.Scalar("words.rows_led_by_self", model.rows_led_by_self);
}

void WordsPanel::DrawSpotlight(PanelContext& ctx) {
  lessons::WordsState& s = ctx.state.words;
  const lessons::Sentence& in = ctx.sentence;
  if (!memo_.has_model()) return;
  MarkSection("words.spotlight");
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
        RequestScrollToSection("words.spotlight");
      }
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  if (s.spotlight < 0) {
    DrawNote("Choose a word (or click a row of the weights) to see how its output is made.");
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
  for (int k = 0; k < 4; ++k) {  // side by side where they fit, wrapped on a phone
    if (k) SameLineIfFits(RadioButtonWidth(kSteps[k]));
    if (ImGui::RadioButton(kSteps[k], s.step == k)) s.step = k;
  }
  SameLineIfFits(ButtonWidth("next step >"));
  ImGui::BeginDisabled(s.step >= 3);
  if (ImGui::Button("next step >")) ++s.step;
  ImGui::EndDisabled();
  const std::string& word = in.tokens[i];
  switch (s.step) {
    case 0:
      Prose("Step 1: \"%s\" scores every word (itself included): sᵢⱼ = xᵢ · xⱼ / √d.", word.c_str());
      DrawBars("words.spot.scores", in.tokens, h.scaled_scores, i, 560.0f, ctx.published);
      break;
    case 1:
      Prose("Step 2: softmax(sᵢⱼ / τ) turns the scores into weights: positive, summing to 1.");
      DrawBars("words.spot.weights", in.tokens, h.weights, i, 560.0f, ctx.published, BarAxis{0.0f, 1.0f});
      break;
    case 2: {
      Prose("Step 3: each word's vector, multiplied by its weight: wᵢⱼ xⱼ. Coloured on this map's own "
                         "scale, so the words with large weights stand out and the others fade.");
      DrawMatrix("words.spot.terms", model.terms, version,
                 TokenRowsOptions("wᵢⱼxⱼ", DivergingStyle(model.terms), MatrixLabels{&in.tokens, &in.known}), ctx.published);
      break;
    }
    default: {
      Prose("Step 4: the output of \"%s\" is the sum of those rows, yᵢ = Σⱼ wᵢⱼ xⱼ: row %d of Y.",
                         word.c_str(), i + 1);
      const std::vector<std::string> label = {word};
      DrawMatrix("words.spot.y", model.output_row, version,
                 TokenRowsOptions("y", DivergingStyle(model.output_row), MatrixLabels{&label, nullptr}), ctx.published);
      break;
    }
  }
}

}  // namespace attnlab
