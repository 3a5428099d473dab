// View 3. What the reader sees: Wq, Wk, Wv; Q, K, V; the scores and weights; one (query, key)
// pair from qᵢ and kⱼ to its weight and its share of the output; the layer in matrix form.
#include "panels/qkv_panel.h"

#include <algorithm>
#include <cstdio>

#include "lessons/explain.h"
#include "lessons/qkv_explain.h"
#include "imgui.h"
#include "widgets/bar_chart.h"
#include "widgets/grid.h"
#include "widgets/matrix_view.h"

namespace attnlab {
namespace {

bool SameLayer(const lessons::QkvState& a, const lessons::QkvState& b) {
  return a.d_k == b.d_k && a.d_v == b.d_v && a.seed == b.seed && a.scale == b.scale && a.identity == b.identity;
}

std::string Shape(const char* what, const attn::Matrix& m) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%s  (%d × %d)", what, static_cast<int>(m.rows()), static_cast<int>(m.cols()));
  return buf;
}

// A word picker; returns true when the choice changed.
bool WordCombo(const char* label, const std::vector<std::string>& tokens, int* index) {
  bool changed = false;
  ImGui::SetNextItemWidth(std::min(200.0f, ImGui::GetContentRegionAvail().x * 0.6f));
  if (ImGui::BeginCombo(label, tokens[*index].c_str())) {
    for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
      ImGui::PushID(i);
      if (ImGui::Selectable(tokens[i].c_str(), i == *index)) {
        *index = i;
        changed = true;
      }
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  return changed;
}

}  // namespace

void QkvPanel::Recompute(PanelContext& ctx) {
  lessons::QkvState& s = ctx.state.qkv;
  const SentenceInputs& in = ctx.sentence;
  changed_ = false;
  if (in.version == 0) return;
  if (in.version != computed_version_ || !SameLayer(s, computed_)) {
    const int d_model = static_cast<int>(in.x.cols());
    attn::AttentionConfig config;  // one head, scaled dot product, softmax, projected inputs
    config.project_inputs = true;
    config.seed = static_cast<uint32_t>(s.seed);
    config.head_dim = s.identity ? d_model : s.d_k;
    config.value_head_dim = s.identity ? d_model : s.d_v;
    attn::AttentionParameters params;
    attn::AttentionInputs inputs;
    inputs.query = in.x;
    attn::AttentionResult result;
    ++*ctx.engine_runs;
    attn::Status status = lessons::ScaledProjections(config, d_model, s.scale, s.identity, &params);
    if (status.ok()) status = attn::Forward(config, inputs, params, &result);
    computed_version_ = in.version;
    computed_ = s;
    computed_query_ = -1;
    if (!KeepStatus(status, &error_)) return;
    result_ = std::move(result);
    changed_ = true;
  }
  if (result_.heads.empty()) return;  // no good layer yet: nothing to follow
  const int n = std::min(static_cast<int>(result_.heads[0].q.rows()), static_cast<int>(in.tokens.size()));
  s.query = std::clamp(s.query, 0, n - 1);
  s.key = std::clamp(s.key, 0, n - 1);
  if (changed_ || s.query != computed_query_ || s.key != computed_key_) {
    const attn::HeadIntermediates& h = result_.heads[0];
    ++*ctx.engine_runs;
    attn::Status status = lessons::PairProduct(h.q, h.k, s.query, s.key, &pair_product_);
    if (status.ok()) status = lessons::WeightedTerms(h.weights, h.v, s.query, &pair_terms_);
    if (!status.ok()) {
      error_ = status.ToString();
      return;
    }
    pair_q_ = h.q.row(s.query);
    pair_k_ = h.k.row(s.key);
    pair_output_ = result_.output.row(s.query);
    computed_query_ = s.query;
    computed_key_ = s.key;
    changed_ = true;
  }
}

void QkvPanel::DrawControls(PanelContext& ctx) {
  lessons::QkvState& s = ctx.state.qkv;
  const bool wide = ImGui::GetContentRegionAvail().x >= 700.0f;
  const float w = wide ? ImGui::GetContentRegionAvail().x * 0.5f - 120.0f : ImGui::GetContentRegionAvail().x - 110.0f;
  auto next = [&](bool same_line) {
    if (same_line && wide) ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(100.0f, w));
  };
  // d_model is the width of the shared word vectors: GloVe's is fixed, hashed ones are chosen.
  lessons::SentenceState& sentence = ctx.state.sentence;
  if (sentence.vectors == lessons::VectorSource::kHash) {
    next(false);
    ImGui::SliderInt("d_model (word vectors)", &sentence.hash_dim, 2, 64);
    sentence.hash_dim = std::clamp(sentence.hash_dim, 2, 64);
  } else {
    ImGui::TextDisabled("d_model = %d (GloVe).", static_cast<int>(ctx.sentence.x.cols()));
    const char* label = "choose d_model: hashed vectors";
    ImGui::SameLine();
    // Wrap the button on a narrow screen.
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2) ImGui::NewLine();
    if (ImGui::SmallButton(label)) sentence.vectors = lessons::VectorSource::kHash;
  }
  ImGui::BeginDisabled(s.identity);
  next(false);
  ImGui::SliderInt("d_k (q, k)", &s.d_k, 1, 64);
  next(true);
  ImGui::SliderInt("d_v (v)", &s.d_v, 1, 64);
  next(false);
  ImGui::SliderFloat("weight scale", &s.scale, 0.1f, 10.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  next(true);
  ImGui::SliderInt("seed", &s.seed, 0, 9999);
  ImGui::EndDisabled();
  // Ctrl+click can type any value: keep the state's ranges.
  s.d_k = std::clamp(s.d_k, 1, 64);
  s.d_v = std::clamp(s.d_v, 1, 64);
  s.scale = std::clamp(s.scale, 0.1f, 10.0f);
  s.seed = std::clamp(s.seed, 0, 9999);
  ImGui::Checkbox("identity: Wq = Wk = Wv = I (back to view 1)", &s.identity);
}

void QkvPanel::Draw(PanelContext& ctx) {
  DrawExplanation(
      "Learnable projections: each word vector xᵢ is turned into a query qᵢ = xᵢWq (what it asks for), a key "
      "kⱼ = xⱼWk (how it answers \"am I relevant to you?\") and a value vⱼ = xⱼWv (what it passes on). Like a "
      "database lookup done softly: the query is compared with every key, and the matching values are mixed. "
      "Because Wq and Wk differ, qᵢ·kⱼ need not equal qⱼ·kᵢ: \"it\" can attend to \"animal\" without "
      "\"animal\" attending to \"it\". The W's here are seeded at random, not trained.",
      "click a cell of the weights to follow that pair below, change d_k or the seed, or tick identity to get "
      "view 1's picture back.");
  DrawControls(ctx);
  Recompute(ctx);
  DrawStatusLine(error_);
  if (result_.heads.empty()) return;
  DrawLayer(ctx);
  DrawPair(ctx);
}

void QkvPanel::DrawLayer(PanelContext& ctx) {
  const SentenceInputs& in = ctx.sentence;
  const attn::HeadIntermediates& h = result_.heads[0];
  const attn::AttentionParameters& p = result_.parameters;
  const MatrixLabels tokens{&in.tokens, &in.known};
  const int n = static_cast<int>(h.q.rows()), d_model = static_cast<int>(p.wq.rows());
  const int d_k = static_cast<int>(h.q.cols()), d_v = static_cast<int>(h.v.cols());

  ImGui::SeparatorText("The whole layer in matrix form");
  ImGui::TextWrapped("Q = XWq, K = XWk, V = XWv;   Y = softmax(QKᵀ / √d_k) V");
  ImGui::TextWrapped("(%d×%d) = softmax((%d×%d)(%d×%d) / √%d) (%d×%d), with X (%d×%d) and Wq, Wk (%d×%d), Wv (%d×%d).",
                     n, d_v, n, d_k, d_k, n, d_k, n, d_v, n, d_model, d_model, d_k, d_model, d_v);

  // d_model rows: flat cells keep the weights about 300 px high.
  auto draw_w = [&](const char* name, const char* title, gfx::Heatmap& map, const attn::Matrix& w) {
    ImGui::TextWrapped("%s", Shape(title, w).c_str());
    MatrixViewOptions o;
    o.symbol = title;
    o.style = DivergingStyle(w);
    o.square = false;
    o.max_width = 280.0f;
    o.max_height = ImGui::GetContentRegionAvail().x >= 400.0f ? 300.0f : 200.0f;
    DrawMatrix(name, map, w, changed_, o, ctx.published);
  };
  if (BeginGrid("qkv.w", 3, 220.0f)) {
    ImGui::TableNextColumn();
    draw_w("qkv.Wq", "Wq", wq_map_, p.wq);
    ImGui::TableNextColumn();
    draw_w("qkv.Wk", "Wk", wk_map_, p.wk);
    ImGui::TableNextColumn();
    draw_w("qkv.Wv", "Wv", wv_map_, p.wv);
    EndGrid();
  }

  auto draw_rows = [&](const char* name, const char* title, const char* symbol, gfx::Heatmap& map, const attn::Matrix& m) {
    ImGui::TextWrapped("%s", Shape(title, m).c_str());
    MatrixViewOptions o;
    o.symbol = symbol;
    o.style = DivergingStyle(m);
    o.rows = tokens;
    o.square = false;
    o.max_width = 320.0f;
    o.max_height = ImGui::GetTextLineHeight() * 1.5f * static_cast<float>(m.rows());
    DrawMatrix(name, map, m, changed_, o, ctx.published);
  };
  if (BeginGrid("qkv.qkv", 3, 260.0f)) {
    ImGui::TableNextColumn();
    draw_rows("qkv.Q", "queries Q = XWq", "q", q_map_, h.q);
    ImGui::TableNextColumn();
    draw_rows("qkv.K", "keys K = XWk", "k", k_map_, h.k);
    ImGui::TableNextColumn();
    draw_rows("qkv.V", "values V = XWv", "v", v_map_, h.v);
    EndGrid();
  }

  lessons::QkvState& s = ctx.state.qkv;
  auto pick = [&](int i, int j) {
    s.query = i;
    s.key = j;
  };
  if (BeginGrid("qkv.swy", 3, 330.0f)) {
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", Shape("scores QKᵀ / √d_k", h.scaled_scores).c_str());
    MatrixViewOptions o;
    o.symbol = "qᵢ·kⱼ/√d_k";
    o.style = DivergingStyle(h.scaled_scores);
    o.rows = o.cols = tokens;
    o.max_width = 420.0f;
    o.describe = [&](int i, int j) {
      ImGui::Text("qᵢ·kⱼ = %.6g; the mirror cell q%d·k%d = %.6g", h.raw_scores(i, j), j, i, h.raw_scores(j, i));
      ImGui::TextDisabled("click to follow this pair");
    };
    o.on_click = pick;
    o.marked_row = s.query;  // the followed pair
    o.marked_col = s.key;
    DrawMatrix("qkv.scores", scores_map_, h.scaled_scores, changed_, o, ctx.published);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", Shape("weights softmax(QKᵀ / √d_k)", h.weights).c_str());
    o.symbol = "w";
    o.style = SequentialStyle(h.weights);
    o.describe = [&](int i, int j) {
      ImGui::Text("score %.6g", h.scaled_scores(i, j));
      ImGui::TextDisabled("click to follow this pair");
    };
    DrawMatrix("qkv.W", weights_map_, h.weights, changed_, o, ctx.published);
    ImGui::TableNextColumn();
    draw_rows("qkv.Y", "outputs Y = softmax(QKᵀ / √d_k) V", "y", output_map_, result_.output);
    EndGrid();
  }
}

void QkvPanel::DrawPair(PanelContext& ctx) {
  lessons::QkvState& s = ctx.state.qkv;
  const SentenceInputs& in = ctx.sentence;
  ImGui::SeparatorText("One pair: query word i, key word j");
  WordCombo("query i", in.tokens, &s.query);
  if (ImGui::GetContentRegionAvail().x >= 560.0f) ImGui::SameLine();
  WordCombo("key j", in.tokens, &s.key);
  Recompute(ctx);  // the pair may have changed just now
  const attn::HeadIntermediates& h = result_.heads[0];
  const int i = s.query, j = s.key;
  const std::string& qw = in.tokens[i];
  const std::string& kw = in.tokens[j];
  const std::vector<std::string> q_label = {"q " + qw}, k_label = {"k " + kw}, qk_label = {"q∘k"}, y_label = {"y " + qw};

  // One-row matrices with one label column, so that qᵢ, kⱼ and qᵢ∘kⱼ line up cell by cell.
  float label_w = 0;
  for (const auto* l : {&q_label, &k_label, &qk_label, &y_label}) label_w = std::max(label_w, ImGui::CalcTextSize((*l)[0].c_str()).x);
  auto draw_row = [&](const char* name, const std::vector<std::string>& label, gfx::Heatmap& map, const attn::Matrix& m) {
    MatrixViewOptions o;
    o.symbol = label[0];
    o.style = DivergingStyle(m);
    o.rows = MatrixLabels{&label, nullptr};
    o.square = false;
    o.legend = false;
    o.max_width = 480.0f;
    o.max_height = ImGui::GetTextLineHeight() * 1.6f;
    o.min_label_width = label_w;
    DrawMatrix(name, map, m, changed_, o, ctx.published);
  };
  if (!BeginGrid("qkv.pair", 2, 440.0f)) return;
  ImGui::TableNextColumn();
  ImGui::TextWrapped("1. The query of \"%s\" and the key of \"%s\" (d_k = %d numbers each):", qw.c_str(), kw.c_str(),
                     static_cast<int>(h.q.cols()));
  draw_row("qkv.pair.q", q_label, pair_q_map_, pair_q_);
  draw_row("qkv.pair.k", k_label, pair_k_map_, pair_k_);
  ImGui::TextWrapped("2. Multiplied number by number, qᵢ∘kⱼ (red where the two agree in sign, blue where they disagree):");
  draw_row("qkv.pair.qk", qk_label, pair_product_map_, pair_product_);

  const float dot = h.raw_scores(i, j), scaled = h.scaled_scores(i, j), weight = h.weights(i, j);
  ImGui::TextWrapped("3. Their sum is the dot product qᵢ·kⱼ = %.4f; divided by √d_k it is the score %.4f.", dot, scaled);
  ImGui::TextWrapped("4. Softmax over the scores of \"%s\" with every key gives the weight wᵢⱼ = %.4f (the bar of \"%s\"):",
                     qw.c_str(), weight, kw.c_str());
  ctx.published.Scalar("qkv.pair.dot", dot);
  ctx.published.Scalar("qkv.pair.scaled", scaled);
  ctx.published.Scalar("qkv.pair.weight", weight);
  DrawBars("qkv.pair.weights", in.tokens, h.weights, i, 560.0f, ctx.published);
  ImGui::TableNextColumn();
  ImGui::TextWrapped("5. Each value vⱼ times its weight, wᵢⱼ vⱼ; their column sums are the output of \"%s\":", qw.c_str());
  MatrixViewOptions o;
  o.symbol = "wᵢⱼvⱼ";
  o.style = DivergingStyle(pair_terms_);
  o.rows = MatrixLabels{&in.tokens, &in.known};
  o.square = false;
  o.max_width = 480.0f;
  o.max_height = ImGui::GetTextLineHeight() * 1.5f * static_cast<float>(pair_terms_.rows());
  o.min_label_width = label_w;
  DrawMatrix("qkv.pair.terms", pair_terms_map_, pair_terms_, changed_, o, ctx.published);
  draw_row("qkv.pair.y", y_label, pair_output_map_, pair_output_);
  EndGrid();
}

}  // namespace attnlab
