// View 3. What the reader sees: Wq, Wk, Wv; Q, K, V; the scores and weights; one (query, key)
// pair from qᵢ and kⱼ to its weight and its share of the output; the layer in matrix form.
#include "panels/qkv_panel.h"

#include <cmath>

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "widgets/bar_chart.h"
#include "widgets/field_widgets.h"
#include "widgets/grid.h"
#include "widgets/matrix_view.h"
#include "widgets/prose.h"
#include "widgets/scroll_into_view.h"
#include "widgets/flow_layout.h"

namespace attnlab {
namespace {

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

void QkvPanel::Update(PanelContext& ctx) {
  lessons::QkvState& s = ctx.state.qkv;
  const int n = static_cast<int>(ctx.sentence.tokens.size());
  s.query = std::clamp(s.query, 0, n - 1);
  s.key = std::clamp(s.key, 0, n - 1);
  memo_.Update(TrainedSentenceKey(ctx, s), [&](lessons::QkvModel* m) {
    return lessons::ComputeQkv(ctx.sentence, s, ctx.trained_heads, ctx.trained_heads_error, m);
  });
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
    SliderField(sentence.kHashDim, &sentence.hash_dim);
  } else {
    DrawNote("d_model = %d (GloVe).", static_cast<int>(ctx.sentence.x.cols()));
    const char* label = "choose d_model: hashed vectors";
    ImGui::SameLine();
    // Wrap the button on a narrow screen.
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2) ImGui::NewLine();
    if (ImGui::Button(label)) sentence.vectors = lessons::VectorSource::kHash;
  }
  CheckboxField(s.kTrained, &s.trained);
  if (s.trained) {  // one head of the trained layer: its widths and weights are its own
    const int heads = ctx.trained_heads ? ctx.trained_heads->config.heads : 4;
    for (int h = 0; h < heads; ++h) {
      char label[16];
      std::snprintf(label, sizeof(label), "head %d", h + 1);
      // Side by side where they fit; a phone wraps them (each is one tap away, none cut off).
      SameLineIfFits(RadioButtonWidth(label));
      if (ImGui::RadioButton(label, s.trained_head == h)) s.trained_head = h;
    }
    return;
  }
  ImGui::BeginDisabled(s.identity);
  next(false);
  SliderField(s.kDk, &s.d_k);
  next(true);
  SliderField(s.kDv, &s.d_v);
  next(false);
  SliderField(s.kScale, &s.scale);
  next(true);
  SliderField(s.kSeed, &s.seed);
  ImGui::EndDisabled();
  CheckboxField(s.kIdentity, &s.identity);
}

void QkvPanel::Draw(PanelContext& ctx) {
  const bool trained = ctx.state.qkv.trained;
  DrawExplanation(ctx,
      trained ? "Learnable projections: each word vector xᵢ is turned into a query qᵢ = xᵢWq (what it asks for), a "
                "key kⱼ = xⱼWk (how it answers \"am I relevant to you?\") and a value vⱼ = xⱼWv (what it passes on). "
                "Like a database lookup done softly: the query is compared with every key, and the matching values "
                "are mixed. Because Wq and Wk differ, qᵢ·kⱼ need not equal qⱼ·kᵢ. The W's here were learned: this "
                "is one head of a small model trained to tag parts of speech in the Brown corpus from these GloVe "
                "vectors (view 5 shows all four), with the words' positions rotated into q and k (RoPE), so a head "
                "can learn to look at the previous or the next word."
              : "Learnable projections: each word vector xᵢ is turned into a query qᵢ = xᵢWq (what it asks for), a "
                "key kⱼ = xⱼWk (how it answers \"am I relevant to you?\") and a value vⱼ = xⱼWv (what it passes on). "
                "Like a database lookup done softly: the query is compared with every key, and the matching values "
                "are mixed. Because Wq and Wk differ, qᵢ·kⱼ need not equal qⱼ·kᵢ, so a trained model can make "
                "\"it\" attend to \"animal\" without \"animal\" attending to \"it\". The W's here are seeded at "
                "random, not trained: whatever weight a pair gets below is chance, as its comparison with uniform "
                "1/n shows.",
      trained ? "pick another head and compare its weights; click a cell of the weights to follow that pair below; "
                "untick trained to see what random projections give."
              : "click a cell of the weights to follow that pair below, change d_k or the seed, or tick identity to "
                "get view 1's picture back.");
  DrawControls(ctx);
  if (ctx.sentence_version == 0) return;
  Update(ctx);
  DrawStatusLine(memo_.error());
  if (!memo_.has_model()) return;
  const lessons::QkvModel& m = memo_.model();
  ctx.published.Scalar("qkv.trained", m.trained ? 1 : 0);
  if (!m.untrained_reason.empty()) DrawNote("%s", m.untrained_reason.c_str());
  if (m.trained) Prose("Measured on this sentence: %s.", m.role.c_str());
  DrawLayer(ctx);
  DrawPair(ctx);
}

void QkvPanel::DrawLayer(PanelContext& ctx) {
  const lessons::Sentence& in = ctx.sentence;
  const lessons::QkvModel& model = memo_.model();
  const int version = memo_.version();
  const attn::HeadIntermediates& h = model.result.heads[0];
  const attn::AttentionParameters& p = model.result.parameters;
  const MatrixLabels tokens{&in.tokens, &in.known};
  const int n = static_cast<int>(h.q.rows()), d_model = static_cast<int>(p.wq.rows());
  const int d_k = static_cast<int>(h.q.cols()), d_v = static_cast<int>(h.v.cols());

  ImGui::SeparatorText("The whole layer in matrix form");
  // The trained head adds biases and rotates q and k by position (RoPE); the seeded ones do neither.
  if (model.trained)
    Prose("Q = RoPE(XWq + bq), K = RoPE(XWk + bk), V = XWv + bv;   Y = softmax(QKᵀ / √d_k) V");
  else
    Prose("Q = XWq, K = XWk, V = XWv;   Y = softmax(QKᵀ / √d_k) V");
  Prose("(%d×%d) = softmax((%d×%d)(%d×%d) / √%d) (%d×%d), with X (%d×%d) and Wq, Wk (%d×%d), Wv (%d×%d).",
                     n, d_v, n, d_k, d_k, n, d_k, n, d_v, n, d_model, d_model, d_k, d_model, d_v);

  // d_model rows: flat cells keep the weights about 300 px high.
  auto draw_w = [&](const char* name, const char* title, const attn::Matrix& w) {
    Prose("%s", Shape(title, w).c_str());
    MatrixViewOptions o;
    o.symbol = title;
    o.style = DivergingStyle(w);
    o.square = false;
    o.max_width = 280.0f;
    o.max_height = ImGui::GetContentRegionAvail().x >= 400.0f ? 300.0f : 200.0f;
    DrawMatrix(name, w, version, o, ctx.published);
  };
  if (BeginGrid("qkv.w", 3, 220.0f)) {
    ImGui::TableNextColumn();
    draw_w("qkv.Wq", "Wq", p.wq);
    ImGui::TableNextColumn();
    draw_w("qkv.Wk", "Wk", p.wk);
    ImGui::TableNextColumn();
    draw_w("qkv.Wv", "Wv", p.wv);
    EndGrid();
  }

  auto draw_rows = [&](const char* name, const char* title, const char* symbol, const attn::Matrix& m) {
    Prose("%s", Shape(title, m).c_str());
    MatrixViewOptions o = TokenRowsOptions(symbol, DivergingStyle(m), tokens);
    o.max_width = 320.0f;
    o.max_height = ImGui::GetTextLineHeight() * 1.5f * static_cast<float>(m.rows());
    DrawMatrix(name, m, version, o, ctx.published);
  };
  if (BeginGrid("qkv.qkv", 3, 260.0f)) {
    ImGui::TableNextColumn();
    draw_rows("qkv.Q", model.trained ? "queries Q = RoPE(XWq + bq)" : "queries Q = XWq", "q", h.q);
    ImGui::TableNextColumn();
    draw_rows("qkv.K", model.trained ? "keys K = RoPE(XWk + bk)" : "keys K = XWk", "k", h.k);
    ImGui::TableNextColumn();
    draw_rows("qkv.V", model.trained ? "values V = XWv + bv" : "values V = XWv", "v", h.v);
    EndGrid();
  }

  lessons::QkvState& s = ctx.state.qkv;
  auto pick = [&](int i, int j) {
    s.query = i;
    s.key = j;
    RequestScrollToSection("qkv.pair");  // the pair's section is below the maps: bring it into view
  };
  if (BeginGrid("qkv.swy", 3, 330.0f)) {
    ImGui::TableNextColumn();
    Prose("%s", Shape("scores QKᵀ / √d_k", h.scaled_scores).c_str());
    MatrixViewOptions o = TokenGridOptions("qᵢ·kⱼ/√d_k", DivergingStyle(h.scaled_scores), tokens);
    o.max_width = 420.0f;
    o.describe = [&](int i, int j) {
      ImGui::Text("qᵢ·kⱼ = %.4g; the mirror cell q·k of \"%s\" (%d) and \"%s\" (%d) = %.4g", h.raw_scores(i, j),
                  in.tokens[j].c_str(), j + 1, in.tokens[i].c_str(), i + 1, h.raw_scores(j, i));
      ImGui::TextDisabled("click to follow this pair");
    };
    o.on_click = pick;
    o.marked_row = s.query;  // the followed pair
    o.marked_col = s.key;
    DrawMatrix("qkv.scores", h.scaled_scores, version, o, ctx.published);
    ImGui::TableNextColumn();
    Prose("%s", Shape("weights softmax(QKᵀ / √d_k)", h.weights).c_str());
    o.symbol = "w";
    o.style = WeightsStyle(h.weights);
    o.describe = [&](int i, int j) {
      ImGui::Text("score %.4g", h.scaled_scores(i, j));
      ImGui::TextDisabled("click to follow this pair");
    };
    DrawMatrix("qkv.W", h.weights, version, o, ctx.published);
    ctx.summary = "Q, K, V: " + lessons::DescribeWeightsRow(h.weights, s.query, ctx.sentence.tokens, 3);
    ImGui::TableNextColumn();
    draw_rows("qkv.Y", "outputs Y = softmax(QKᵀ / √d_k) V", "y", model.result.output);
    EndGrid();
  }
}

void QkvPanel::DrawPair(PanelContext& ctx) {
  lessons::QkvState& s = ctx.state.qkv;
  const lessons::Sentence& in = ctx.sentence;
  MarkSection("qkv.pair");
  ImGui::SeparatorText("One pair: query word i, key word j");
  WordCombo("query i", in.tokens, &s.query);
  if (ImGui::GetContentRegionAvail().x >= 560.0f) ImGui::SameLine();
  WordCombo("key j", in.tokens, &s.key);
  Update(ctx);  // the pair may have changed just now
  const lessons::QkvModel& model = memo_.model();
  const int version = memo_.version();
  const attn::HeadIntermediates& h = model.result.heads[0];
  const int i = model.query, j = model.key;
  const std::string& qw = in.tokens[i];
  const std::string& kw = in.tokens[j];
  const std::vector<std::string> q_label = {"q " + qw}, k_label = {"k " + kw}, qk_label = {"q∘k"}, y_label = {"y " + qw};

  // One-row matrices with one label column, so that qᵢ, kⱼ and qᵢ∘kⱼ line up cell by cell.
  float label_w = 0;
  for (const auto* l : {&q_label, &k_label, &qk_label, &y_label}) label_w = std::max(label_w, ImGui::CalcTextSize((*l)[0].c_str()).x);
  auto draw_row = [&](const char* name, const std::vector<std::string>& label, const attn::Matrix& m) {
    MatrixViewOptions o = TokenRowsOptions(label[0], DivergingStyle(m), MatrixLabels{&label, nullptr});
    o.legend = false;
    o.max_width = 480.0f;
    o.max_height = ImGui::GetTextLineHeight() * 1.6f;
    o.min_label_width = label_w;
    DrawMatrix(name, m, version, o, ctx.published);
  };
  if (!BeginGrid("qkv.pair", 2, 440.0f)) return;
  ImGui::TableNextColumn();
  Prose("1. The query of \"%s\" and the key of \"%s\" (d_k = %d numbers each):", qw.c_str(), kw.c_str(),
                     static_cast<int>(h.q.cols()));
  draw_row("qkv.pair.q", q_label, model.pair_q);
  draw_row("qkv.pair.k", k_label, model.pair_k);
  Prose("2. Multiplied number by number, qᵢ∘kⱼ (red where the two agree in sign, blue where they disagree):");
  draw_row("qkv.pair.qk", qk_label, model.pair_product);

  const float dot = model.dot, scaled = model.scaled, weight = model.weight;
  Prose("3. Their sum is the dot product qᵢ·kⱼ = %.4f; divided by √d_k it is the score %.4f.", dot, scaled);
  // Who made the weight: the trained head, the identity, or seeded projections (never "random" for trained).
  const char* maker = model.trained ? "this trained head makes"
                      : ctx.state.qkv.identity ? "the identity projections make"
                                               : "these random (seeded) projections make";
  // Compared as printed (4 decimals): equal on screen reads "as much as".
  const bool same = std::fabs(weight - model.uniform_weight) < 5e-5f;
  Prose("4. Softmax over the scores of \"%s\" with every key gives the weight wᵢⱼ = %.4f (the bar of \"%s\"); "
        "uniform attention would give 1/n = %.4f, so %s \"%s\" look at \"%s\" %s:",
        qw.c_str(), weight, kw.c_str(), model.uniform_weight, maker, qw.c_str(), kw.c_str(),
        same ? "as much as at an average word"
             : weight > model.uniform_weight ? "more than at an average word" : "less than at an average word");
  ctx.published.Scalar("qkv.pair.dot", dot);
  ctx.published.Scalar("qkv.pair.scaled", scaled);
  ctx.published.Scalar("qkv.pair.weight", weight);
  DrawBars("qkv.pair.weights", in.tokens, h.weights, i, 560.0f, ctx.published, BarAxis{0.0f, 1.0f});
  ImGui::TableNextColumn();
  Prose("5. Each value vⱼ times its weight, wᵢⱼ vⱼ; their column sums are the output of \"%s\":", qw.c_str());
  MatrixViewOptions o = TokenRowsOptions("wᵢⱼvⱼ", DivergingStyle(model.pair_terms), MatrixLabels{&in.tokens, &in.known});
  o.max_width = 480.0f;
  o.max_height = ImGui::GetTextLineHeight() * 1.5f * static_cast<float>(model.pair_terms.rows());
  o.min_label_width = label_w;
  DrawMatrix("qkv.pair.terms", model.pair_terms, version, o, ctx.published);
  draw_row("qkv.pair.y", y_label, model.pair_output);
  EndGrid();
}

}  // namespace attnlab
