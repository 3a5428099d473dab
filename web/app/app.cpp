// [SECTION] Set-up and word vectors
// [SECTION] The shared sentence
// [SECTION] Frame: sentence controls and the tabs of the views
#include "app.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "lessons/text.h"
#include "imgui.h"
#include "panels/cnn_panel.h"
#include "panels/heads_panel.h"
#include "panels/masks_panel.h"
#include "panels/order_panel.h"
#include "panels/prices_panel.h"
#include "panels/qkv_panel.h"
#include "panels/relevance_panel.h"
#include "panels/speed_panel.h"
#include "panels/words_panel.h"

namespace attnlab {

App& TheApp() {
  static App app;
  return app;
}

//-----------------------------------------------------------------------------
// [SECTION] Set-up and word vectors
//-----------------------------------------------------------------------------

App::App() {
  panels_.push_back(std::make_unique<WordsPanel>());
  panels_.push_back(std::make_unique<OrderPanel>());
  panels_.push_back(std::make_unique<QkvPanel>());
  panels_.push_back(std::make_unique<RelevancePanel>());
  panels_.push_back(std::make_unique<HeadsPanel>());
  panels_.push_back(std::make_unique<MasksPanel>());
  panels_.push_back(std::make_unique<CnnPanel>());
  panels_.push_back(std::make_unique<PricesPanel>());
  panels_.push_back(std::make_unique<SpeedPanel>());
}

bool App::Init(std::string* error) { return gfx::Renderer().Init(error); }

void App::SetWordVectors(lessons::WordVectors vectors) {
  word_vectors_ = std::move(vectors);
  word_vectors_error_.clear();
  sentence_dirty_ = true;
}

void App::WordVectorsFailed(const std::string& why) {
  word_vectors_error_ = why;
  sentence_dirty_ = true;
}

void App::SetPrices(lessons::PriceTable table) {
  prices_.table = std::move(table);
  prices_.error.clear();
  ++prices_.version;
}

void App::PricesFailed(const std::string& why) { prices_.error = why; }

attn::Status App::SetStateString(const std::string& text) {
  lessons::ViewState parsed = state_;
  const attn::Status status = lessons::ParseState(text, &parsed);
  state_ = parsed;  // the valid fields apply even when another one was bad
  return status;
}

//-----------------------------------------------------------------------------
// [SECTION] The shared sentence
//-----------------------------------------------------------------------------

void App::UpdateSentence() {
  const lessons::SentenceState& s = state_.sentence;
  const bool same = s.text == sentence_state_used_.text && s.vectors == sentence_state_used_.vectors &&
                    s.hash_dim == sentence_state_used_.hash_dim;
  if (same && !sentence_dirty_) return;
  const bool waiting_for_glove = s.vectors == lessons::VectorSource::kGlove && !word_vectors_loaded() && word_vectors_error_.empty();
  if (waiting_for_glove) return;
  sentence_state_used_ = s;
  sentence_dirty_ = false;
  std::vector<std::string> tokens = lessons::Tokenize(s.text);
  if (tokens.empty()) {
    sentence_error_ = "Type a sentence: there are no words to attend to yet.";
    return;  // keep the last picture rather than an empty one
  }
  if (tokens.size() > 200) {
    sentence_error_ = "That is " + std::to_string(tokens.size()) + " words; the explorer shows up to 200.";
    return;
  }
  sentence_error_.clear();
  if (s.vectors == lessons::VectorSource::kGlove && word_vectors_loaded()) {
    lessons::EmbeddedTokens e = lessons::EmbedTokens(word_vectors_, tokens);
    sentence_.x = std::move(e.x);
    sentence_.known = std::move(e.known);
    sentence_.glove = true;
  } else {
    sentence_.x = lessons::HashEmbeddings(tokens, s.hash_dim);
    sentence_.known.assign(tokens.size(), true);  // hashed vectors exist for every word
    sentence_.glove = false;
  }
  sentence_.tokens = std::move(tokens);
  ++sentence_.version;
}

//-----------------------------------------------------------------------------
// [SECTION] Frame: sentence controls and the tabs of the views
//-----------------------------------------------------------------------------

void App::DrawSentenceControls() {
  lessons::SentenceState& s = state_.sentence;
  if (std::strncmp(sentence_buffer_, s.text.c_str(), sizeof(sentence_buffer_)) != 0)
    std::snprintf(sentence_buffer_, sizeof(sentence_buffer_), "%s", s.text.c_str());
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::InputTextWithHint("##sentence", "Type a sentence", sentence_buffer_, sizeof(sentence_buffer_)))
    s.text = sentence_buffer_;
  const ImVec2 p0 = ImGui::GetItemRectMin(), p1 = ImGui::GetItemRectMax();
  published_.Rect("sentence", {p0.x, p0.y, p1.x - p0.x, p1.y - p0.y});

  static const char* const kPresets[] = {"Sky is clear today",
                                         "The animal didn't cross the street because it was too tired",
                                         "The cat sat on the mat"};
  ImGui::TextDisabled("Presets:");
  for (const char* preset : kPresets) {
    ImGui::SameLine();
    // Wrap the buttons on a narrow screen.
    const float w = ImGui::CalcTextSize(preset).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    if (ImGui::SmallButton(preset)) s.text = preset;
  }
  int source = static_cast<int>(s.vectors);
  ImGui::RadioButton("GloVe word vectors (100-d)", &source, static_cast<int>(lessons::VectorSource::kGlove));
  ImGui::SameLine();
  ImGui::RadioButton("hashed vectors", &source, static_cast<int>(lessons::VectorSource::kHash));
  s.vectors = static_cast<lessons::VectorSource>(source);
  if (s.vectors == lessons::VectorSource::kHash) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - 120.0f));
    ImGui::SliderInt("width d", &s.hash_dim, 2, 64);
    s.hash_dim = std::clamp(s.hash_dim, 2, 64);
  } else if (!word_vectors_loaded()) {
    ImGui::TextDisabled("%s", word_vectors_error_.empty() ? "Loading the word vectors (1.5 MB)..." : word_vectors_error_.c_str());
  }
  if (sentence_.glove && std::find(sentence_.known.begin(), sentence_.known.end(), false) != sentence_.known.end())
    ImGui::TextDisabled("Words marked ? are not among GloVe's 20,000 most frequent: they get a stand-in vector.");
  DrawStatusLine(sentence_error_);
}

void App::Frame() {
  published_.Clear();
  gfx::Renderer().BeginFrame();
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("attnlab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);

  ImGui::TextUnformatted("attnlab: self-attention, step by step");
  const bool sentence_shown =
      std::any_of(panels_.begin(), panels_.end(), [&](const auto& p) { return p->id() == state_.view && p->uses_sentence(); });
  if (sentence_shown) DrawSentenceControls();
  UpdateSentence();
  wants_another_frame_ = false;
  PanelContext ctx{state_, sentence_, published_, &engine_runs_, &prices_, &wants_another_frame_};
  // When the state names another view than the tab shown last (URL, tests), select that tab;
  // otherwise the tab bar (the reader's clicks) decides.
  const lessons::ViewId requested = state_.view;
  const bool moved = requested != shown_view_;
  if (ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (auto& panel : panels_) {
      const bool wanted = panel->id() == requested;
      if (ImGui::BeginTabItem(panel->title(), nullptr, moved && wanted ? ImGuiTabItemFlags_SetSelected : 0)) {
        if (!moved || wanted) {
          state_.view = panel->id();
          panel->Draw(ctx);
        }
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  shown_view_ = state_.view;
  // Touch screens have no wheel: a drag that grabs no control (a heatmap is not one) scrolls.
  if (io.MouseSource == ImGuiMouseSource_TouchScreen && ImGui::IsMouseDragging(0, 4.0f) &&
      (!ImGui::IsAnyItemActive() || published_.passive_active()))
    ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseDelta.y);
  ImGui::End();
}

}  // namespace attnlab
