// [SECTION] Engine: recompute when the state changed
// [SECTION] Frame: the page layout
// [SECTION] Panels: header, word vectors, attention weights
// [SECTION] Heatmap helpers: labels, hover, legend
#include "app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "attn/text.h"

namespace attnlab {

App& TheApp() {
  static App app;
  return app;
}

bool App::Init(std::string* error) {
  if (!gfx::Renderer().Init(error)) return false;
  attn::Matrix ramp(1, 64);
  for (int i = 0; i < 64; ++i) ramp(0, i) = static_cast<float>(i) / 63.0f;
  legend_map_.Upload(ramp);
  return true;
}

//-----------------------------------------------------------------------------
// [SECTION] Engine: recompute when the state changed
//-----------------------------------------------------------------------------

void App::SetWordVectors(attn::WordVectors vectors) {
  word_vectors_ = std::move(vectors);
  word_vectors_error_.clear();
  has_computed_ = false;  // same state, new inputs
}

void App::WordVectorsFailed(const std::string& why) {
  word_vectors_error_ = why;
  has_computed_ = false;
}

void App::RecomputeIfChanged() {
  const bool waiting_for_glove =
      state_.vectors == VectorSource::kGlove && !word_vectors_loaded() && word_vectors_error_.empty();
  if (waiting_for_glove || (has_computed_ && state_ == computed_state_)) return;
  computed_state_ = state_;
  has_computed_ = true;
  std::vector<std::string> tokens = attn::Tokenize(state_.sentence);
  if (tokens.empty()) {
    error_ = "Type a sentence: there are no words to attend to yet.";
    return;  // keep the last picture rather than an empty one
  }
  attn::Matrix x;
  std::vector<bool> known;
  if (state_.vectors == VectorSource::kGlove && word_vectors_loaded()) {
    attn::EmbeddedTokens e = attn::EmbedTokens(word_vectors_, tokens);
    x = std::move(e.x);
    known = std::move(e.known);
  } else {
    x = attn::HashEmbeddings(tokens, state_.hash_dim);
    known.assign(tokens.size(), true);  // hashed vectors exist for every word
  }
  attn::AttentionConfig config;
  config.temperature = state_.temperature;
  attn::AttentionResult result;
  ++engine_runs_;
  const attn::Status status = attn::SelfAttention(config, x, &result);
  if (!status.ok()) {
    error_ = status.ToString();
    return;
  }
  error_.clear();
  tokens_ = std::move(tokens);
  known_ = std::move(known);
  embeddings_ = std::move(x);
  result_ = std::move(result);
  embeddings_map_.Upload(embeddings_);
  weights_map_.Upload(result_.heads[0].weights);
}

//-----------------------------------------------------------------------------
// [SECTION] Frame: the page layout
//-----------------------------------------------------------------------------

void App::Frame() {
  gfx::Renderer().BeginFrame();
  hovered_ = HoveredCell{};
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("attnlab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  // Touch screens have no wheel: a drag that grabs no widget scrolls the page.
  if (io.MouseSource == ImGuiMouseSource_TouchScreen && ImGui::IsMouseDragging(0) && !ImGui::IsAnyItemActive())
    ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseDelta.y);

  DrawHeader();
  RecomputeIfChanged();
  if (!error_.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.35f, 1.0f), "%s", error_.c_str());
  if (!tokens_.empty()) {
    // Side by side on a desktop, stacked on a phone.
    if (ImGui::GetContentRegionAvail().x >= 900.0f && ImGui::BeginTable("panels", 2)) {
      ImGui::TableNextColumn();
      DrawEmbeddings();
      ImGui::TableNextColumn();
      DrawWeights();
      ImGui::EndTable();
    } else {
      DrawEmbeddings();
      DrawWeights();
    }
  }
  ImGui::End();
}

//-----------------------------------------------------------------------------
// [SECTION] Panels: header, word vectors, attention weights
//-----------------------------------------------------------------------------

void App::DrawHeader() {
  ImGui::TextUnformatted("attnlab: self-attention, step by step");
  ImGui::Separator();
  ImGui::TextWrapped(
      "Each word becomes a vector xᵢ. Every word scores every word (itself included) by the dot "
      "product xᵢ · xⱼ / √d; softmax turns each row of scores into weights that are positive and sum "
      "to 1; each word's output yᵢ = Σⱼ wᵢⱼ xⱼ is the weighted average of all the vectors. No trained "
      "parameters: the weights come from the words themselves. Try this: raise the temperature τ to "
      "flatten the rows, lower it to make each word attend to its closest match.");
  ImGui::Spacing();

  if (std::strncmp(sentence_buffer_, state_.sentence.c_str(), sizeof(sentence_buffer_)) != 0)
    std::snprintf(sentence_buffer_, sizeof(sentence_buffer_), "%s", state_.sentence.c_str());
  ImGui::TextUnformatted("Sentence");
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::InputText("##sentence", sentence_buffer_, sizeof(sentence_buffer_)))
    state_.sentence = sentence_buffer_;
  const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
  sentence_rect_ = {p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};

  const float half = std::max(120.0f, ImGui::GetContentRegionAvail().x * 0.5f - 8.0f);
  ImGui::SetNextItemWidth(half);
  ImGui::SliderFloat("temperature τ", &state_.temperature, 0.05f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  int source = static_cast<int>(state_.vectors);
  ImGui::RadioButton("GloVe word vectors (100-d)", &source, static_cast<int>(VectorSource::kGlove));
  ImGui::SameLine();
  ImGui::RadioButton("hashed vectors", &source, static_cast<int>(VectorSource::kHash));
  state_.vectors = static_cast<VectorSource>(source);
  if (state_.vectors == VectorSource::kHash) {
    ImGui::SetNextItemWidth(half);
    ImGui::SliderInt("vector width d", &state_.hash_dim, 2, 64);
  } else if (!word_vectors_loaded()) {
    ImGui::TextDisabled("%s", word_vectors_error_.empty() ? "Loading the word vectors (1.5 MB)..."
                                                         : word_vectors_error_.c_str());
  }
  // Typed values (Ctrl+click) can leave the range; the engine would refuse them, so clamp here.
  state_.temperature = std::clamp(state_.temperature, 0.05f, 5.0f);
  state_.hash_dim = std::clamp(state_.hash_dim, 2, 64);
}

void App::DrawEmbeddings() {
  ImGui::Spacing();
  ImGui::SeparatorText("Word vectors X");
  if (computed_state_.vectors == VectorSource::kGlove && word_vectors_loaded()) {
    ImGui::TextWrapped(
        "One row per word: its 100-d GloVe vector, learned from how words co-occur in 6 billion words "
        "of text. Words used alike point alike. Words marked ? are not among the 20,000 most frequent "
        "and get a stand-in vector. Blue is negative, red positive.");
  } else {
    ImGui::TextWrapped(
        "One row per word, %d numbers each: a deterministic stand-in (the same word always gets the "
        "same random vector), so only identical words are similar. Blue is negative, red positive.",
        static_cast<int>(embeddings_.cols()));
  }
  const float bound = std::max(1e-6f, embeddings_.cwiseAbs().maxCoeff());
  gfx::HeatmapStyle style{gfx::Colormap::kDiverging, -bound, bound, 0.0f};
  DrawLabelledHeatmap("X", embeddings_map_, embeddings_, style, false, 520.0f, [&](int i, int j) {
    ImGui::Text("x[%s][%d] = %.6g", tokens_[i].c_str(), j, embeddings_(i, j));  // the engine's float
    if (!known_[i]) ImGui::TextDisabled("not in the vocabulary: a stand-in vector");
  });
}

void App::DrawWeights() {
  ImGui::Spacing();
  ImGui::SeparatorText("Attention weights W = softmax(XXᵀ / (√d τ))");
  ImGui::TextWrapped("Row i: how much word i takes from each word j. Each row sums to 1. Hover or tap a cell.");
  const attn::HeadIntermediates& head = result_.heads[0];
  gfx::HeatmapStyle style{gfx::Colormap::kViridis, 0.0f, std::max(1e-6f, head.weights.maxCoeff()), 0.04f};
  weights_rect_ = DrawLabelledHeatmap("W", weights_map_, head.weights, style, true, 520.0f, [&](int i, int j) {
    ImGui::Text("%s -> %s", tokens_[i].c_str(), tokens_[j].c_str());
    ImGui::Text("raw score xᵢ · xⱼ   %.6g", head.raw_scores(i, j));
    ImGui::Text("scaled ÷ √d        %.6g", head.scaled_scores(i, j));
    ImGui::Text("weight wᵢⱼ         %.6g", head.weights(i, j));
  });
}

//-----------------------------------------------------------------------------
// [SECTION] Heatmap helpers: labels, hover, legend
//-----------------------------------------------------------------------------

template <typename Describe>
LayoutRect App::DrawLabelledHeatmap(const char* id, gfx::Heatmap& map, const attn::Matrix& m,
                                    const gfx::HeatmapStyle& style, bool column_tokens, float max_width,
                                    Describe describe) {
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  std::vector<std::string> labels(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) labels[i] = known_[i] ? tokens_[i] : tokens_[i] + "?";
  float label_w = 0;
  for (const auto& t : labels) label_w = std::max(label_w, ImGui::CalcTextSize(t.c_str()).x);
  label_w += ImGui::GetStyle().ItemSpacing.x;
  const float avail = std::min(ImGui::GetContentRegionAvail().x - label_w, max_width);
  const float line = ImGui::GetTextLineHeight();
  // Square cells for token x token maps; wide matrices (100-d vectors) get rows tall enough to label.
  const float cell_w = std::clamp(avail / static_cast<float>(cols), 2.0f, 56.0f);
  const float cell_h = column_tokens ? cell_w : std::max(cell_w, line * 1.15f);
  const float header_h = column_tokens ? line * 1.2f : 0.0f;

  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 p0(origin.x + label_w, origin.y + header_h);
  const ImVec2 p1(p0.x + cell_w * cols, p0.y + cell_h * rows);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 unknown_col = IM_COL32(255, 170, 80, 255);
  for (int i = 0; i < rows; ++i) {
    const ImVec2 size = ImGui::CalcTextSize(labels[i].c_str());
    const float y = p0.y + cell_h * (i + 0.5f) - size.y * 0.5f;
    if (cell_h >= line * 0.8f || i % static_cast<int>(std::ceil(line / cell_h)) == 0)
      list->AddText(ImVec2(p0.x - size.x - ImGui::GetStyle().ItemSpacing.x, y), known_[i] ? text_col : unknown_col,
                    labels[i].c_str());
  }
  if (column_tokens) {
    // Column labels: as much of each token as fits above its column.
    for (int j = 0; j < cols; ++j) {
      const char* t = tokens_[j].c_str();
      const char* end = t + std::strlen(t);
      while (end > t && ImGui::CalcTextSize(t, end).x > cell_w - 2.0f) --end;
      const float w = ImGui::CalcTextSize(t, end).x;
      list->AddText(ImVec2(p0.x + cell_w * (j + 0.5f) - w * 0.5f, origin.y), known_[j] ? text_col : unknown_col, t, end);
    }
  }
  map.Draw(list, p0, p1, style);
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton(id, ImVec2(p1.x - p0.x, p1.y - p0.y));
  if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int j = std::clamp(static_cast<int>((mouse.x - p0.x) / cell_w), 0, cols - 1);
    const int i = std::clamp(static_cast<int>((mouse.y - p0.y) / cell_h), 0, rows - 1);
    hovered_ = HoveredCell{id, i, j, m(i, j)};
    list->AddRect(ImVec2(p0.x + j * cell_w, p0.y + i * cell_h), ImVec2(p0.x + (j + 1) * cell_w, p0.y + (i + 1) * cell_h),
                  IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
    ImGui::BeginTooltip();
    describe(i, j);
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p1.y + ImGui::GetStyle().ItemSpacing.y));
  DrawLegend(style, std::min(p1.x - p0.x, 260.0f));
  return {p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};
}

void App::DrawLegend(const gfx::HeatmapStyle& style, float width) {
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  char lo[32], hi[32];
  std::snprintf(lo, sizeof(lo), "%.3g", style.vmin);
  std::snprintf(hi, sizeof(hi), "%.3g", style.vmax);
  const float lo_w = ImGui::CalcTextSize(lo).x, spacing = ImGui::GetStyle().ItemSpacing.x;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  list->AddText(origin, text_col, lo);
  const ImVec2 b0(origin.x + lo_w + spacing, origin.y + line * 0.15f);
  const ImVec2 b1(b0.x + std::max(width - lo_w, 40.0f), origin.y + line * 0.85f);
  // The ramp texture holds 0..1; the style maps that same span, so colours match the heatmap's.
  legend_map_.Draw(list, b0, b1, gfx::HeatmapStyle{style.colormap, 0.0f, 1.0f, 0.0f});
  list->AddText(ImVec2(b1.x + spacing, origin.y), text_col, hi);
  ImGui::Dummy(ImVec2(b1.x - origin.x + spacing + ImGui::CalcTextSize(hi).x, line));
}

}  // namespace attnlab
