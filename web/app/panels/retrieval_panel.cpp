// View 10. What the reader sees: a key–value store of GloVe word pairs and one query; the weights
// over the keys as bars, the soft answer (weighted sum of the values) and the hard one (argmax), each
// with its nearest words; how many keys the store returns right; then cross-attention from sentence A
// to sentence B as a heatmap with its shapes.
#include "panels/retrieval_panel.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "theme.h"
#include "widgets/bar_chart.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/grid.h"
#include "widgets/matrix_view.h"
#include "widgets/text_box.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

// The score functions as the reader reads them, in RetrievalState's order (lessons::kRetrievalScores).
const char* const kScoreLabels[] = {"dot q·k", "scaled dot q·k/√d", "additive wᵀtanh(qW_q + kW_k)", "cosine"};
// Where each score's weights are soft but mostly right on these tables (tests/lessons/retrieval_view_test.cpp):
// picking a score sets τ here. The dot product's 5 is the scaled dot's 0.5: dividing by √d = 10 is a
// temperature of 10. The seeded additive score is right nowhere; 1 is its default.
constexpr float kSuggestedTemperature[] = {5.0f, 0.5f, 1.0f, 0.1f};

void PublishLastItem(Published& published, const std::string& name) {
  published.Rect(name, LastItemRect());
}

}  // namespace

void RetrievalPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "Attention is a lookup. A store holds key → value pairs of GloVe word vectors (countries → capitals, or "
      "singular → plural). A query word is scored against every key, softmax(s/τ) turns the scores into weights, "
      "and the answer is the weighted sum of the values: soft retrieval. Hard retrieval takes the value of the "
      "best key only (argmax), as a database would. The nearest GloVe word to each answer says what came back. "
      "Below, the same machinery between two sentences: cross-attention.",
      "ask \"italy\" (not a key) and see the answer blend several capitals; lower τ until soft retrieval equals hard; "
      "switch to cosine or to the untrained additive score; type a second sentence and press Swap.");
  DrawStoreControls(ctx);
  DrawStore(ctx);
  DrawCross(ctx);
}

void RetrievalPanel::DrawStoreControls(PanelContext& ctx) {
  lessons::RetrievalState& s = ctx.state.retrieval;
  ImGui::SeparatorText("A key–value store");
  const std::vector<lessons::KeyValueTable>& tables = lessons::KeyValueTables();
  s.table = std::clamp(s.table, 0, static_cast<int>(tables.size()) - 1);
  for (int t = 0; t < static_cast<int>(tables.size()); ++t) {
    if (t) SameLineIfFits(ImGui::CalcTextSize(tables[t].name).x + ImGui::GetFrameHeight() * 1.5f);
    if (ImGui::RadioButton(tables[t].name, s.table == t) && s.table != t) {
      s.table = t;
      s.query = tables[t].pairs[0];  // the new table's first key
    }
    PublishLastItem(ctx.published, "rt.table." + std::to_string(t));
  }
  const lessons::KeyValueTable& table = tables[static_cast<size_t>(s.table)];

  // The query: typed (one word, in an HTML box that raises a phone's keyboard), picked from the keys,
  // or one of the words outside the table.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Query:");
  ImGui::SameLine();
  TextBoxSlot(TextBoxId::kQuery, s.query, ctx.published, "rt.query", 160.0f);
  SameLineIfFits(150.0f);
  ImGui::SetNextItemWidth(140.0f);
  if (ImGui::BeginCombo("##key", "pick a key")) {
    for (int i = 0; i < table.size; ++i)
      if (ImGui::Selectable(table.pairs[2 * i], s.query == table.pairs[2 * i])) s.query = table.pairs[2 * i];
    ImGui::EndCombo();
  }
  PublishLastItem(ctx.published, "rt.keys");
  DrawNote("Not in the table:");
  for (int o = 0; o < table.outside_count; ++o) {
    SameLineIfFits(ImGui::CalcTextSize(table.outside_queries[o]).x + ImGui::GetStyle().FramePadding.x * 2);
    ImGui::PushID(o);
    if (ImGui::SmallButton(table.outside_queries[o])) s.query = table.outside_queries[o];
    ImGui::PopID();
    PublishLastItem(ctx.published, "rt.outside." + std::to_string(o));
  }

  for (int k = 0; k < static_cast<int>(std::size(kScoreLabels)); ++k) {
    if (k) SameLineIfFits(ImGui::CalcTextSize(kScoreLabels[k]).x + ImGui::GetFrameHeight() * 1.5f);
    if (ImGui::RadioButton(kScoreLabels[k], s.score == k) && s.score != k) {
      s.score = k;
      s.temperature = kSuggestedTemperature[k];
    }
    PublishLastItem(ctx.published, "rt.score." + std::to_string(k));
  }
  ImGui::SetNextItemWidth(std::max(140.0f, std::min(420.0f, ImGui::GetContentRegionAvail().x - 110.0f)));
  SliderField(s.kTemperature, &s.temperature);
  PublishLastItem(ctx.published, "rt.temperature");
  DrawNote("Picking a score sets τ where its weights are soft but mostly right: 5 for dot, 0.5 for scaled dot "
           "(dividing by √d = 10 is a temperature of 10), 0.1 for cosine (its scores lie in [−1, 1]); 1 for the "
           "untrained additive score.");
}

void RetrievalPanel::DrawStore(PanelContext& ctx) {
  const lessons::RetrievalState& s = ctx.state.retrieval;
  if (!ctx.word_vectors) {
    DrawNote("The store is made of GloVe word vectors: it appears when they have loaded (choose \"GloVe word vectors\" "
             "above if hashed vectors are selected).");
    return;
  }
  if (index_version_ != ctx.word_vectors_version) {  // once per asset: 20,000 unit rows
    index_ = lessons::VocabularyIndex(*ctx.word_vectors);
    index_version_ = ctx.word_vectors_version;
    store_.Invalidate();
    accuracy_.Invalidate();
  }
  const std::string vectors_key = "#wv" + std::to_string(ctx.word_vectors_version);
  store_.Update(lessons::FieldsKey(s) + vectors_key,
                [&](lessons::StoreModel* m) { return lessons::ComputeStore(*ctx.word_vectors, index_, s, m); });
  lessons::RetrievalState asked = s;  // the accuracy does not depend on the query or on the cross-attention
  asked.query.clear();
  asked.sentence_b.clear();
  asked.swap = false;
  asked.cross_temperature = 1.0f;
  accuracy_.Update(lessons::FieldsKey(asked) + vectors_key,
                   [&](lessons::StoreAccuracy* a) { return lessons::ComputeStoreAccuracy(*ctx.word_vectors, index_, s, a); });
  DrawStatusLine(store_.error());
  DrawStatusLine(accuracy_.error());
  if (!store_.has_model() || !accuracy_.has_model()) return;
  const lessons::StoreModel& m = store_.model();
  const attn::HeadIntermediates& h = m.retrieval.forward.heads[0];
  const int count = static_cast<int>(m.store.keys.size());
  const std::string& hard_key = m.store.keys[static_cast<size_t>(m.retrieval.hard)];
  const std::string& hard_value = m.store.values[static_cast<size_t>(m.retrieval.hard)];
  const auto word = [&](const lessons::VocabularyIndex::Neighbour& nb) { return index_.word(static_cast<size_t>(nb.index)); };
  std::vector<std::string> pair_labels;
  for (int j = 0; j < count; ++j) pair_labels.push_back(m.store.keys[static_cast<size_t>(j)] + " → " + m.store.values[static_cast<size_t>(j)]);

  if (!BeginGrid("rt.store", 2, 380.0f)) return;
  ImGui::TableNextColumn();
  std::string title = "Weights w = softmax(s/τ) of \"" + m.query + "\" over the " + std::to_string(count) + " keys";
  Prose("%s", title.c_str());
  if (m.query_key < 0) DrawNote("\"%s\" is no key: no row matches it exactly.", m.query.c_str());
  // Room for numbers like 0.003446 (the bar chart allows for 7 characters).
  const float bars_width = std::min(460.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("00").x);
  DrawBars("rt.weights", pair_labels, h.weights, 0, bars_width, ctx.published, BarAxis{0.0f, 1.0f});
  ctx.published.Matrix("rt.scores", h.scores);
  // The inputs, for the browser tests' own float64 computation.
  ctx.published.Matrix("rt.K", m.store.k);
  ctx.published.Matrix("rt.V", m.store.v);
  ctx.published.Matrix("rt.q", m.retrieval.forward.query_in);

  ImGui::TableNextColumn();
  ProseText("Soft retrieval: r = Σⱼ wⱼ vⱼ");
  Prose("The largest weight is %.3f, on \"%s\". Nearest GloVe words to r (cosine):", m.top_weight, hard_key.c_str());
  for (const auto& nb : m.nearest_soft) ImGui::BulletText("%s  %.3f", word(nb).c_str(), nb.cosine);
  if (!m.nearest_soft.empty()) ctx.published.Scalar("rt.soft.cosine", m.nearest_soft[0].cosine);
  ImGui::Spacing();
  ProseText("Hard retrieval: the argmax");
  Prose("The best key is \"%s\": its value \"%s\" comes back whole, every other value is ignored.",
                     hard_key.c_str(), hard_value.c_str());
  ImGui::Spacing();
  static const std::vector<std::string> kAnswerRows = {"soft r", "hard v"};
  DrawMatrix("rt.answers", m.answers, store_.version(),
             TokenRowsOptions("r", DivergingStyle(m.answers), MatrixLabels{&kAnswerRows, nullptr}), ctx.published);
  EndGrid();

  const lessons::StoreAccuracy& a = accuracy_.model();
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().explanation_text);
  Prose("Every key of this table asked in turn, at this score and τ: the nearest word to the soft answer is "
                     "the key's own value for %d of %d keys; hard retrieval picks the key's own row for %d of %d.",
                     a.soft_right, a.size, a.hard_right, a.size);
  Prose("How the soft answer moves: ‖∂r/∂q‖ = %.3g when the query moves, ‖∂r/∂τ‖ = %.3g when τ does "
                     "(the engine's backward pass). Lower τ and both fall towards 0: a hard lookup gives no gradient "
                     "to learn from.",
                     m.d_query_norm, m.d_temperature_norm);
  if (m.config.score == attn::ScoreFunction::kAdditive)
    Prose("The additive score's W_q, W_k (100 × 100) and w (100) are seeded at random (seed 1), not trained: "
                       "its weights say nothing about meaning, as the count above shows. Training would fit them.");
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().try_this_text);
  Prose("A database lookup and attention both compare a query with every key and return the values of the "
                     "keys that match. The database returns exact matches only; attention returns a blend weighted by "
                     "similarity, so a query that is no key still gets an answer, and the answer moves smoothly with "
                     "the query.");
  ImGui::PopStyleColor();
  ctx.published.Scalar("rt.hard", m.retrieval.hard);
  ctx.published.Scalar("rt.query_key", m.query_key);
  ctx.published.Scalar("rt.soft_right", a.soft_right);
  ctx.published.Scalar("rt.hard_right", a.hard_right);
  ctx.published.Scalar("rt.size", a.size);
  ctx.published.Scalar("rt.d_query_norm", m.d_query_norm);
  char summary[256];
  std::snprintf(summary, sizeof(summary), "Retrieval: \"%s\" puts %.2f on \"%s\"; soft answer nearest \"%s\", hard answer \"%s\". ",
                m.query.c_str(), m.top_weight, hard_key.c_str(), m.nearest_soft.empty() ? "" : word(m.nearest_soft[0]).c_str(),
                hard_value.c_str());
  ctx.summary = summary;
}

void RetrievalPanel::DrawCross(PanelContext& ctx) {
  lessons::RetrievalState& s = ctx.state.retrieval;
  ImGui::Spacing();
  ImGui::SeparatorText("Cross-attention between two sentences");
  if (!ctx.embedded)
    Prose("In self-attention the queries, keys and values come from one sentence. Here the queries come "
                       "from sentence A (the box at the top) and the keys and values from sentence B, with no parameters: "
                       "Y = softmax(X_A X_Bᵀ / (√d τ)) X_B. Each word of A retrieves from B, as the query did from the store.");
  DrawNote("Sentence B:");
  TextBoxSlot(TextBoxId::kSentenceB, s.sentence_b, ctx.published, "rt.sentence_b");
  if (ImGui::Button("Swap A and B")) s.swap = !s.swap;
  PublishLastItem(ctx.published, "rt.swap");
  SameLineIfFits(260.0f);
  ImGui::SetNextItemWidth(std::max(120.0f, std::min(260.0f, ImGui::GetContentRegionAvail().x - 150.0f)));
  SliderField(s.kCrossTemperature, &s.cross_temperature);
  PublishLastItem(ctx.published, "rt.cross_temperature");
  if (ctx.sentence_version == 0) return;
  cross_.Update(lessons::FieldsKey(s) + "#" + std::to_string(ctx.sentence_version),
                [&](lessons::CrossModel* m) { return lessons::ComputeCross(ctx.sentence, ctx.state.sentence, ctx.word_vectors, s, m); });
  DrawStatusLine(cross_.error());
  if (!cross_.has_model()) return;
  const lessons::CrossModel& m = cross_.model();
  if (m.b.glove && !m.b.unknown_note.empty()) DrawNote("Sentence B: %s", m.b.unknown_note.c_str());
  const attn::Matrix& w = m.result.heads[0].weights;
  const int nq = static_cast<int>(w.rows()), nk = static_cast<int>(w.cols()), d = static_cast<int>(m.queries.x.cols());
  const char* qn = s.swap ? "B" : "A";
  const char* kn = s.swap ? "A" : "B";
  char shapes[256];
  std::snprintf(shapes, sizeof(shapes), "Q = X_%s: %d × %d    K = V = X_%s: %d × %d    weights: %d × %d (n_%s × n_%s)    outputs Y: %d × %d",
                qn, nq, d, kn, nk, d, nq, nk, qn, kn, nq, d);
  Prose("%s", shapes);
  ctx.published.Rect("rt.shapes", LastItemRect());
  ctx.published.Matrix("rt.cross.Q", m.result.query_in);  // X of the queries' sentence
  ctx.published.Matrix("rt.cross.K", m.result.key_in);    // X of the keys' (and values') sentence
  const MatrixLabels rows{&m.queries.tokens, &m.queries.known}, cols{&m.keys.tokens, &m.keys.known};
  if (!BeginGrid("rt.cross", 2, 340.0f)) return;
  ImGui::TableNextColumn();
  std::snprintf(shapes, sizeof(shapes), "Weights: rows words of %s, columns words of %s", qn, kn);
  DrawNote("%s", shapes);
  MatrixViewOptions ow = TokenGridOptions("w", WeightsStyle(w), rows);
  ow.cols = cols;
  ow.max_width = 420.0f;
  ow.max_height = 360.0f;  // a long sentence A stays on one screen
  ow.describe = [&](int r, int c) { ImGui::Text("\"%s\" → \"%s\"", m.queries.tokens[r].c_str(), m.keys.tokens[c].c_str()); };
  DrawMatrix("rt.cross.W", w, cross_.version(), ow, ctx.published);
  ImGui::TableNextColumn();
  std::snprintf(shapes, sizeof(shapes), "Outputs Y: each word of %s, rebuilt from the vectors of %s", qn, kn);
  DrawNote("%s", shapes);
  DrawMatrix("rt.cross.Y", m.result.output, cross_.version(),
             TokenRowsOptions("y", DivergingStyle(m.result.output), rows), ctx.published);
  EndGrid();
  // Where each word of the queries' sentence puts its largest weight, one item per word (never split
  // across lines).
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().explanation_text);
  ProseText("Where each word looks most:");
  std::string align;
  for (int i = 0; i < nq; ++i) {
    char part[96];
    const int j = m.best_key[static_cast<size_t>(i)];
    std::snprintf(part, sizeof(part), "%s → %s %.2f%s", m.queries.tokens[static_cast<size_t>(i)].c_str(),
                  m.keys.tokens[static_cast<size_t>(j)].c_str(), w(i, j), i + 1 < nq ? "," : ".");
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(part).x) ImGui::NewLine();
    ImGui::TextUnformatted(part);
    align += std::string(i ? " " : "") + part;
  }
  Prose("With no trained projections each word finds the words whose vectors point its way: the same "
                     "word, or one used in similar contexts.");
  ImGui::PopStyleColor();
  ctx.summary += "Cross-attention " + std::to_string(nq) + " × " + std::to_string(nk) + ": " + align;
}

}  // namespace attnlab
