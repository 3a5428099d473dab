// View 6. What the reader sees: the scores with the blocked cells hatched, the weights (0 where
// blocked, hatched too), the outputs; controls for causal, the window and padding.
#include "panels/masks_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "imgui.h"
#include "widgets/flow_layout.h"
#include "widgets/matrix_view.h"

namespace attnlab {
namespace {

bool SameInputs(const lessons::MasksState& a, const lessons::MasksState& b) {
  return a.causal == b.causal && a.window_left == b.window_left && a.window_right == b.window_right &&
         a.padding == b.padding;
}

bool IsPadded(const std::string& padding, int k) { return k < static_cast<int>(padding.size()) && padding[k] == '1'; }

// Flips token k's padding flag; trailing zeros are dropped to keep the state string short.
void TogglePadding(std::string* padding, int k) {
  if (static_cast<int>(padding->size()) <= k) padding->resize(k + 1, '0');
  (*padding)[k] = (*padding)[k] == '1' ? '0' : '1';
  while (!padding->empty() && padding->back() != '1') padding->pop_back();
}

// Rows whose every score is −inf: those queries see no key at all.
int BlindRows(const attn::Matrix& scores) {
  int blind = 0;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) blind += (scores.row(i).array() == -INFINITY).all() ? 1 : 0;
  return blind;
}

}  // namespace

void MasksPanel::Recompute(PanelContext& ctx) {
  const lessons::MasksState& s = ctx.state.masks;
  const SentenceInputs& in = ctx.sentence;
  changed_ = false;
  if (!SentenceInputsChanged(in, s, SameInputs, &computed_version_, &computed_)) return;
  const int n = static_cast<int>(in.tokens.size());
  attn::AttentionConfig config;  // Q = K = V = X, scaled dot product, softmax: view 1 plus masks
  config.causal = s.causal;
  config.window_left = s.window_left;
  config.window_right = s.window_right;
  attn::AttentionInputs inputs;
  inputs.query = in.x;
  if (s.padding.find('1') != std::string::npos) {
    inputs.key_padding = attn::BoolMatrix::Constant(1, n, false);
    for (int k = 0; k < n; ++k) inputs.key_padding(0, k) = IsPadded(s.padding, k);
  }
  attn::AttentionResult result;
  ++*ctx.engine_runs;
  const attn::Status status = attn::Forward(config, inputs, &result);
  if (!KeepStatus(status, &error_)) return;
  result_ = std::move(result);
  changed_ = true;
}

void MasksPanel::Draw(PanelContext& ctx) {
  DrawExplanation(
      "A mask says which keys a query may look at. A blocked score is set to −∞ before softmax, so its "
      "weight is exactly 0 and the other weights of the row still sum to 1. Causal: a word sees only itself "
      "and the words before it (no peeking ahead, as when generating text). Window: a word sees only the "
      "words within a few positions, like a convolution's receptive field. Padding: filler tokens that "
      "nobody may attend to. Hatched cells are blocked.",
      "switch causal off and on, narrow the window to 1 on each side, or tap a word below to pad it and "
      "watch its column go hatched.");
  DrawControls(ctx);
  Recompute(ctx);
  DrawStatusLine(error_);
  ctx.published.Scalar("masks.error", error_.empty() ? 0 : 1);  // the tests see the status line
  if (result_.heads.empty()) return;
  DrawMaps(ctx);
}

void MasksPanel::DrawControls(PanelContext& ctx) {
  lessons::MasksState& s = ctx.state.masks;
  const int n = std::max(1, static_cast<int>(ctx.sentence.tokens.size()));
  ImGui::Checkbox("causal (no peeking ahead)", &s.causal);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("Window: how many words before and after itself each word may see.");  // wraps on a phone
  ImGui::PopStyleColor();
  const float w = std::min(220.0f, ImGui::GetContentRegionAvail().x * 0.55f);
  auto window_slider = [&](const char* label, int* value) {
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt(label, value, -1, n - 1, *value < 0 ? "all words" : *value == 1 ? "%d word" : "%d words");
    *value = std::clamp(*value, -1, 199);
  };
  window_slider("window: before", &s.window_left);
  SameLineIfFits(w + 110.0f);
  window_slider("window: after", &s.window_right);
  DrawPaddingToggles(ctx);
}

void MasksPanel::DrawPaddingToggles(PanelContext& ctx) {
  lessons::MasksState& s = ctx.state.masks;
  const std::vector<std::string>& tokens = ctx.sentence.tokens;
  ImGui::TextDisabled("Padding (tap a word):");
  for (int k = 0; k < static_cast<int>(tokens.size()); ++k) {
    ImGui::SameLine();
    const bool padded = IsPadded(s.padding, k);
    const std::string label = (padded ? "[pad] " : "") + tokens[k];
    const float bw = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetContentRegionAvail().x < bw) ImGui::NewLine();  // wrap on a narrow screen
    ImGui::PushID(k);
    if (padded) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.45f, 0.45f, 0.45f, 1.0f));
    if (ImGui::SmallButton(label.c_str())) TogglePadding(&s.padding, k);
    if (padded) ImGui::PopStyleColor();
    ImGui::PopID();
    const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
    ctx.published.Rect("masks.pad" + std::to_string(k), {p0.x, p0.y, p1.x - p0.x, p1.y - p0.y});
  }
}

void MasksPanel::DrawMaps(PanelContext& ctx) {
  const SentenceInputs& in = ctx.sentence;
  const attn::HeadIntermediates& h = result_.heads[0];
  const MatrixLabels tokens{&in.tokens, &in.known};
  const int blind = BlindRows(h.scores);
  ctx.published.Scalar("masks.blind_rows", blind);
  auto draw_scores = [&] {
    ImGui::SeparatorText("Scores sᵢⱼ = xᵢ·xⱼ/√d, −∞ where blocked");
    MatrixViewOptions o;
    o.symbol = "s";
    o.style = DivergingStyle(h.scores);
    o.rows = o.cols = tokens;
    DrawMatrix("masks.scores", scores_map_, h.scores, changed_, o, ctx.published);
  };
  auto draw_weights = [&] {
    ImGui::SeparatorText("Weights softmax(s), 0 where blocked");
    MatrixViewOptions o;
    o.symbol = "w";
    o.style = SequentialStyle(h.weights);
    o.rows = o.cols = tokens;
    o.masked_by = &h.scores;
    o.describe = [&](int i, int j) { ImGui::Text("score %.6g", h.scores(i, j)); };
    DrawMatrix("masks.W", weights_map_, h.weights, changed_, o, ctx.published);
    if (blind > 0)
      ImGui::TextWrapped("%d word%s may look at no word at all: the whole row is blocked, so its weights are all 0 "
                         "and its output is 0 (not NaN).", blind, blind == 1 ? "" : "s");
  };
  auto draw_output = [&] {
    ImGui::SeparatorText("Outputs Y = WX");
    MatrixViewOptions o;
    o.symbol = "y";
    o.style = DivergingStyle(result_.output);
    o.rows = tokens;
    o.square = false;
    DrawMatrix("masks.Y", output_map_, result_.output, changed_, o, ctx.published);
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
