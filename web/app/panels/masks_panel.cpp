// View 6. What the reader sees: the scores with the blocked cells hatched, the weights (0 where
// blocked, hatched too), the outputs; controls for causal, the window and padding.
#include "panels/masks_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "imgui.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/matrix_view.h"
#include "widgets/prose.h"

namespace attnlab {
void MasksPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "A mask says which keys a query may look at. A blocked score is set to −∞ before softmax, so its "
      "weight is exactly 0 and the other weights of the row still sum to 1. Causal: a word sees only itself "
      "and the words before it (no peeking ahead, as when generating text). Window: a word sees only the "
      "words within a few positions, like a convolution's receptive field. Padding: filler tokens that "
      "nobody may attend to. Hatched cells are blocked.",
      "switch causal off and on, narrow the window to 1 on each side, or tap a word below to pad it and "
      "watch its column go hatched.");
  DrawControls(ctx);
  if (ctx.sentence_version == 0) return;
  const lessons::MasksState& s = ctx.state.masks;
  memo_.Update(SentenceKey(ctx, s), [&](lessons::MasksModel* m) { return lessons::ComputeMasks(ctx.sentence, s, m); });
  DrawStatusLine(memo_.error());
  ctx.published.Scalar("masks.error", memo_.error().empty() ? 0 : 1);  // the tests see the status line
  if (!memo_.has_model()) return;
  DrawMaps(ctx);
}

void MasksPanel::DrawControls(PanelContext& ctx) {
  lessons::MasksState& s = ctx.state.masks;
  const int n = std::max(1, static_cast<int>(ctx.sentence.tokens.size()));
  CheckboxField(s.kCausal, &s.causal);
  DrawNote("Window: how many words before and after itself each word may see.");  // wraps on a phone
  const float w = std::min(220.0f, ImGui::GetContentRegionAvail().x * 0.55f);
  auto window_slider = [&](const lessons::IntField& field, int* value) {
    ImGui::SetNextItemWidth(w);
    SliderField(field, value, n - 1, *value < 0 ? "all words" : *value == 1 ? "%d word" : "%d words");
  };
  window_slider(s.kWindowLeft, &s.window_left);
  SameLineIfFits(w + 110.0f);
  window_slider(s.kWindowRight, &s.window_right);
  DrawPaddingToggles(ctx);
}

void MasksPanel::DrawPaddingToggles(PanelContext& ctx) {
  lessons::MasksState& s = ctx.state.masks;
  const std::vector<std::string>& tokens = ctx.sentence.tokens;
  DrawNote("Padding (tap a word):");
  for (int k = 0; k < static_cast<int>(tokens.size()); ++k) {
    ImGui::SameLine();
    const bool padded = lessons::IsPadded(s.padding, k);
    const std::string label = (padded ? "[pad] " : "") + tokens[k];
    const float bw = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetContentRegionAvail().x < bw) ImGui::NewLine();  // wrap on a narrow screen
    ImGui::PushID(k);
    if (padded) ImGui::PushStyleColor(ImGuiCol_Button, CurrentTheme().padded_button);
    if (ImGui::Button(label.c_str())) lessons::TogglePadding(&s.padding, k);
    if (padded) ImGui::PopStyleColor();
    ImGui::PopID();
    ctx.published.Rect("masks.pad" + std::to_string(k), LastItemRect());
  }
}

void MasksPanel::DrawMaps(PanelContext& ctx) {
  const lessons::Sentence& in = ctx.sentence;
  const lessons::MasksModel& model = memo_.model();
  const int version = memo_.version();
  const attn::HeadIntermediates& h = model.result.heads[0];
  const MatrixLabels tokens{&in.tokens, &in.known};
  const int blind = model.blind_rows;
  ctx.published.Scalar("masks.blind_rows", blind);
  auto draw_scores = [&] {
    ImGui::SeparatorText("Scores sᵢⱼ = xᵢ·xⱼ/√d, −∞ where blocked");
    MatrixViewOptions o = TokenGridOptions("s", DivergingStyle(h.scores), tokens);
    DrawMatrix("masks.scores", h.scores, version, o, ctx.published);
  };
  auto draw_weights = [&] {
    ImGui::SeparatorText("Weights softmax(s), 0 where blocked");
    MatrixViewOptions o = TokenGridOptions("w", WeightsStyle(h.weights), tokens);
    o.masked_by = &h.scores;
    o.describe = [&](int i, int j) { ImGui::Text("score %.4g", h.scores(i, j)); };
    DrawMatrix("masks.W", h.weights, version, o, ctx.published);
    ctx.summary = std::string("Masks") + (ctx.state.masks.causal ? ", causal: " : ": ") +
                  lessons::DescribeWeightsRow(h.weights, static_cast<int>(h.weights.rows()) - 1, in.tokens, 3);
    if (blind > 0)
      Prose("%d word%s may look at no word at all: the whole row is blocked, so its weights are all 0 "
                         "and its output is 0 (not NaN).", blind, blind == 1 ? "" : "s");
  };
  auto draw_output = [&] {
    ImGui::SeparatorText("Outputs Y = WX");
    MatrixViewOptions o = TokenRowsOptions("y", DivergingStyle(model.result.output), tokens);
    DrawMatrix("masks.Y", model.result.output, version, o, ctx.published);
  };
  if (ImGui::GetContentRegionAvail().x >= 900.0f && ImGui::BeginTable("masks", 2)) {
    ImGui::TableNextColumn();
    draw_weights();
    ImGui::TableNextColumn();
    draw_scores();
    ImGui::EndTable();
  } else {
    draw_weights();
    draw_scores();
  }
  draw_output();
}

}  // namespace attnlab
