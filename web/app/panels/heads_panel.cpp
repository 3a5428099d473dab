// View 5. What the reader sees: every head's weights side by side, one enlarged, the heads as
// coloured lines, then concat(heads) and Wᵒ giving the output.
#include "panels/heads_panel.h"

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/heatmap_grid.h"
#include "widgets/lines_view.h"
#include "widgets/matrix_view.h"
#include "widgets/prose.h"
#include "widgets/scroll_into_view.h"

namespace attnlab {
namespace {

// Lines in the head colours over a heatmap, between the column (or row) blocks of each head.
void MarkHeadBlocks(const LayoutRect& r, int heads, int block, int total, bool columns) {
  if (heads < 2 || total <= 0 || r.w <= 0) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  for (int h = 0; h < heads; ++h) {
    const float a = static_cast<float>(h * block) / total, b = static_cast<float>((h + 1) * block) / total;
    if (columns)
      list->AddLine(ImVec2(r.x + a * r.w, r.y - 3), ImVec2(r.x + b * r.w, r.y - 3), HeadColor(h), 3.0f);
    else
      list->AddLine(ImVec2(r.x - 3, r.y + a * r.h), ImVec2(r.x - 3, r.y + b * r.h), HeadColor(h), 3.0f);
  }
}

}  // namespace

void HeadsPanel::Draw(PanelContext& ctx) {
  const bool trained = ctx.state.heads.trained;
  DrawExplanation(ctx,
      trained ? "Multi-head attention runs h attentions side by side. Each head has its own Wq, Wk, Wv, narrower "
                "(here dₖ = 16), so each can learn a different kind of relevance. These four heads were trained: "
                "they are layer 1 of a small model that learned to tag the parts of speech of the Brown corpus "
                "(a million words of 1960s American English) from the same GloVe vectors. Each small map is one head's weights softmax(QₕKₕᵀ/(√dₖ τ)), with the words' "
                "positions rotated into q and k (RoPE). Under the maps, what each head does, measured: on your "
                "sentence, with the tags the model gives it, and on the held-out Brown text. The head outputs are "
                "concatenated, [head 1 … head h], and multiplied by Wᵒ to give the output."
              : "Multi-head attention runs h attentions side by side. Each head has its own Wq, Wk, Wv, narrower "
                "(dₖ = d/h), so each can learn a different kind of relevance. Each small map is one head's weights "
                "softmax(QₕKₕᵀ/(√dₖ τ)). The projections here are seeded at random, not trained: at τ = 1 every "
                "head's weights are close to uniform (1/n, marked on the legend). That is the honest picture of an "
                "untrained head; what a head attends to is learned (tick trained to see heads that were). Lower τ "
                "only to exaggerate the small differences. The head outputs are concatenated, [head 1 … head h], "
                "and multiplied by Wᵒ to give the output. With grouped-query attention several query heads share "
                "one key/value head.",
      trained ? "type a sentence of your own and read each head's line; click a head to enlarge it; untick trained "
                "to compare with random heads."
              : "add heads and compare their maps, click a head to enlarge it, hover a word in the lines view, or "
                "switch on grouped-query and watch heads of a group share keys.");
  DrawControls(ctx);
  if (ctx.sentence_version == 0) return;
  lessons::HeadsState& s = ctx.state.heads;
  // The model does not depend on which head is enlarged or on the lines view: a click on a head
  // redraws, it does not recompute.
  lessons::HeadsState computed = s;
  computed.selected = lessons::HeadsState().selected;
  computed.lines = lessons::HeadsState().lines;
  memo_.Update(TrainedSentenceKey(ctx, computed), [&](lessons::HeadsModel* m) {
    return lessons::ComputeHeads(ctx.sentence, s, ctx.trained_heads, ctx.trained_heads_error, m, &seeded_);
  });
  DrawStatusLine(memo_.error());
  ctx.published.Scalar("heads.error", memo_.error().empty() ? 0 : 1);  // the tests see the status line
  if (!memo_.has_model()) return;
  const int heads = static_cast<int>(memo_.model().result.heads.size());
  s.selected = std::min(s.selected, heads - 1);
  ctx.published.Scalar("heads.count", heads);
  ctx.published.Scalar("heads.trained", memo_.model().trained ? 1 : 0);
  if (!memo_.model().untrained_reason.empty()) DrawNote("%s", memo_.model().untrained_reason.c_str());
  ctx.published.Scalar("heads.selected", s.selected);
  if (ImGui::GetContentRegionAvail().x >= 900.0f && ImGui::BeginTable("heads", 2)) {
    ImGui::TableNextColumn();
    DrawHeadGrid(ctx);
    DrawSelectedHead(ctx);
    ImGui::TableNextColumn();
    DrawCombination(ctx);
    ImGui::EndTable();
  } else {
    DrawHeadGrid(ctx);
    DrawSelectedHead(ctx);
    DrawCombination(ctx);
  }
}

void HeadsPanel::DrawControls(PanelContext& ctx) {
  lessons::HeadsState& s = ctx.state.heads;
  const float w = std::min(220.0f, ImGui::GetContentRegionAvail().x * 0.6f);
  CheckboxField(s.kTrained, &s.trained);
  SameLineIfFits(w + 100.0f);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kTemperature, &s.temperature);
  if (s.trained) return;  // the trained layer has its own heads, widths and weights
  ImGui::SetNextItemWidth(w);
  SliderField(s.kHeads, &s.heads);
  SameLineIfFits(150.0f);
  ImGui::SetNextItemWidth(110.0f);
  StepperField(s.kSeed, &s.seed);
  bool grouped = s.kv_heads > 0 && s.kv_heads < s.heads;
  if (ImGui::Checkbox("grouped-query", &grouped)) s.kv_heads = grouped ? 1 : 0;
  if (grouped) {
    SameLineIfFits(150.0f);
    ImGui::SetNextItemWidth(std::min(150.0f, ImGui::GetContentRegionAvail().x));
    char preview[48];
    std::snprintf(preview, sizeof(preview), "%d key/value head%s", s.kv_heads, s.kv_heads == 1 ? "" : "s");
    if (ImGui::BeginCombo("##kv", preview)) {
      for (int g = 1; g < s.heads; ++g) {  // only divisors of h make equal groups
        if (s.heads % g != 0) continue;
        std::snprintf(preview, sizeof(preview), "%d key/value head%s", g, g == 1 ? " (multi-query)" : "s");
        if (ImGui::Selectable(preview, g == s.kv_heads)) s.kv_heads = g;
      }
      ImGui::EndCombo();
    }
  }
  SameLineIfFits(120.0f);
  CheckboxField(s.kLines, &s.lines);
}

void HeadsPanel::DrawHeadGrid(PanelContext& ctx) {
  lessons::HeadsState& s = ctx.state.heads;
  const lessons::HeadsModel& model = memo_.model();
  const int heads = static_cast<int>(model.result.heads.size());
  const int d_k = static_cast<int>(model.result.heads[0].q.cols());
  char text[96];
  std::snprintf(text, sizeof(text), model.trained ? "Weights of each trained head (dₖ = %d)" : "Weights of each head (dₖ = %d)", d_k);
  ImGui::SeparatorText(text);
  std::vector<GridTile> tiles;
  for (int h = 0; h < heads; ++h) {
    const attn::Matrix& w = model.result.heads[h].weights;
    if (model.grouped)
      std::snprintf(text, sizeof(text), "head %d · kv %d", h + 1, model.KvHeadOf(h) + 1);
    else
      std::snprintf(text, sizeof(text), "head %d", h + 1);
    tiles.push_back({"heads.W" + std::to_string(h), text, &w, nullptr, &ctx.sentence.tokens, memo_.version(),
                     WeightsStyle(w), HeadColor(h)});
  }
  // Many heads get smaller tiles, so a phone shows four in a row.
  const int clicked = DrawHeatmapGrid(tiles, s.selected, heads <= 4 ? 110.0f : 72.0f, ctx.published);
  const int shown = std::clamp(s.selected, 0, heads - 1);
  ctx.summary = std::to_string(heads) + " heads; head " + std::to_string(shown + 1) + ", " +
                lessons::DescribeWeightsRow(model.result.heads[shown].weights, 0, ctx.sentence.tokens, 3);
  if (clicked >= 0) {
    s.selected = clicked;
    RequestScrollToSection("heads.selected");  // the enlarged map is below the grid: bring it into view
  }
  if (model.trained) DrawTrainedRoles(ctx);
  if (model.grouped)
    Prose("Grouped-query: %d query heads share each of %d key/value heads (fewer keys and values to "
                       "store), yet every head still has its own queries, so its map differs.",
                       model.group, model.kv_heads);
}

void HeadsPanel::DrawTrainedRoles(PanelContext& ctx) {
  const lessons::HeadsModel& model = memo_.model();
  std::string tags;
  for (size_t i = 0; i < model.tags.size(); ++i) tags += ctx.sentence.tokens[i] + "/" + model.tags[i] + "  ";
  Prose("The model's tags: %s", tags.c_str());
  ProseText("What each head does on this sentence (measured with those tags):");
  for (size_t h = 0; h < model.roles.size(); ++h) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(static_cast<int>(h))));
    ImGui::Bullet();
    ImGui::PopStyleColor();
    ImGui::SameLine();
    Prose("%s", model.roles[h].c_str());
  }
  Prose("and on the held-out Brown text, where the model %s:", model.held_out.c_str());
  for (size_t h = 0; h < model.corpus_roles.size(); ++h) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(static_cast<int>(h))));
    ImGui::Bullet();
    ImGui::PopStyleColor();
    ImGui::SameLine();
    DrawNote("%s", model.corpus_roles[h].c_str());
  }
}

void HeadsPanel::DrawSelectedHead(PanelContext& ctx) {
  const int h = ctx.state.heads.selected;
  if (h < 0) {
    DrawNote("Click a head to enlarge it.");
    return;
  }
  const lessons::Sentence& in = ctx.sentence;
  const attn::HeadIntermediates& head = memo_.model().result.heads[h];
  MarkSection("heads.selected");
  char title[64];
  std::snprintf(title, sizeof(title), "Head %d, enlarged", h + 1);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(HeadColor(h)));
  ImGui::SeparatorText(title);
  ImGui::PopStyleColor();
  MatrixViewOptions o = TokenGridOptions("w", WeightsStyle(head.weights), MatrixLabels{&in.tokens, &in.known});
  o.describe = [&](int i, int j) { ImGui::Text("scaled score qᵢ·kⱼ/√dₖ = %.4g", head.scaled_scores(i, j)); };
  DrawMatrix("heads.big", head.weights, memo_.version(), o, ctx.published);
}

void HeadsPanel::DrawCombination(PanelContext& ctx) {
  const lessons::HeadsState& s = ctx.state.heads;
  const lessons::Sentence& in = ctx.sentence;
  const attn::AttentionResult& result = memo_.model().result;
  const int version = memo_.version();
  const int heads = static_cast<int>(result.heads.size());
  const MatrixLabels tokens{&in.tokens, &in.known};
  if (s.lines) {
    ImGui::SeparatorText("All heads as lines (one colour per head)");
    std::vector<WeightLayer> layers;
    for (int h = 0; h < heads; ++h) layers.push_back({&result.heads[h].weights, HeadColor(h)});
    DrawLines("heads.lines", in.tokens, layers, 520.0f, ctx.published);
    DrawNote("Hover a word on the left to see where each head sends it.");
  }
  const int d_v = static_cast<int>(result.heads[0].v.cols());
  char title[96];
  std::snprintf(title, sizeof(title), "Concatenation [head 1 … head %d] (%d × %d)", heads,
                static_cast<int>(result.concat.rows()), static_cast<int>(result.concat.cols()));
  ImGui::SeparatorText(title);
  MatrixViewOptions o = TokenRowsOptions("concat", DivergingStyle(result.concat), tokens);
  o.describe = [&](int, int j) { ImGui::TextDisabled("from head %d", j / d_v + 1); };
  MarkHeadBlocks(DrawMatrix("heads.concat", result.concat, version, o, ctx.published), heads, d_v,
                 static_cast<int>(result.concat.cols()), true);

  const attn::Matrix& wo = result.parameters.wo;
  std::snprintf(title, sizeof(title), "Output projection Wᵒ (%d × %d)", static_cast<int>(wo.rows()), static_cast<int>(wo.cols()));
  ImGui::SeparatorText(title);
  MatrixViewOptions ow;
  ow.symbol = "Wᵒ";
  ow.style = DivergingStyle(wo);
  ow.max_width = 360.0f;
  ow.describe = [&](int i, int) { ImGui::TextDisabled("row %d multiplies head %d's outputs", i + 1, i / d_v + 1); };
  MarkHeadBlocks(DrawMatrix("heads.Wo", wo, version, ow, ctx.published), heads, d_v,
                 static_cast<int>(wo.rows()), false);

  ImGui::SeparatorText("Output Y = concat · Wᵒ");
  MatrixViewOptions oy = TokenRowsOptions("y", DivergingStyle(result.output), tokens);
  DrawMatrix("heads.Y", result.output, version, oy, ctx.published);
  // The projections the maps came from (seeded or trained), for the tests to recompute them.
  const attn::AttentionParameters& p = result.parameters;
  for (const auto& [key, m] : {std::pair{"heads.Wq", &p.wq}, {"heads.Wk", &p.wk}, {"heads.Wv", &p.wv}, {"heads.bq", &p.bq},
                               {"heads.bk", &p.bk}, {"heads.bv", &p.bv}, {"heads.bo", &p.bo}})
    if (m->size()) ctx.published.Matrix(key, *m);
}

}  // namespace attnlab
