// [SECTION] Set-up and word vectors
// [SECTION] The shared sentence
// [SECTION] Frame: sentence controls and the tabs of the views
#include "app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gfx/heatmap_store.h"
#include "imgui.h"
#include "item_log.h"
#include "module_views.h"
#include "theme.h"
#include "widgets/prose.h"
#include "widgets/field_widgets.h"
#include "widgets/flow_layout.h"
#include "widgets/scroll_into_view.h"

namespace attnlab {

namespace {

// Narrower than this (a phone held upright), the views are picked from wrapped rows of buttons.
constexpr float kNarrowWidth = 600.0f;

}  // namespace

App& TheApp() {
  static App app;
  return app;
}

//-----------------------------------------------------------------------------
// [SECTION] Set-up and word vectors
//-----------------------------------------------------------------------------

App::App() : panels_(MakePanels()) {}

bool App::Init(std::string* error) { return gfx::Renderer().Init(error); }

attn::Status App::LoadWordVectors(const uint8_t* bytes, size_t size) {
  lessons::WordVectors vectors;
  const attn::Status status = lessons::WordVectors::Parse(bytes, size, &vectors);
  if (!status.ok()) {
    WordVectorsFailed(status.message());
    return status;
  }
  word_vectors_ = std::move(vectors);
  word_vectors_error_.clear();
  ++word_vectors_version_;
  return status;
}

void App::WordVectorsFailed(const std::string& why) {
  word_vectors_error_ = "Word vectors unavailable (" + why + "); using hashed vectors.";
  ++word_vectors_version_;
}

attn::Status App::LoadPrices(const std::string& csv) {
  lessons::PriceTable table;
  const attn::Status status = lessons::ParsePrices(csv, &table);
  if (!status.ok()) {
    PricesFailed(status.message());
    return status;
  }
  prices_.table = std::move(table);
  prices_.error.clear();
  ++prices_.version;
  return status;
}

bool App::NeedsWordVectors() const {
  if (word_vectors_loaded() || state_.sentence.vectors != lessons::VectorSource::kGlove) return false;
  const Panel* shown = ShownPanel();
  return shown && shown->uses_word_vectors();
}

bool App::NeedsPrices() const {
  const Panel* shown = ShownPanel();
  return shown && shown->reads_prices() && prices_.table.series.empty() && prices_.error.empty();
}

void App::PricesFailed(const std::string& why) { prices_.error = "Prices unavailable (" + why + ")."; }

bool App::NeedsTrainedHeads() const {
  if (trained_heads_loaded_ || !trained_heads_error_.empty()) return false;
  if (state_.sentence.vectors != lessons::VectorSource::kGlove) return false;
  const Panel* shown = ShownPanel();
  return shown && shown->reads_trained_heads(state_);
}

const Panel* App::ShownPanel() const {
  const auto shown = std::find_if(panels_.begin(), panels_.end(), [&](const auto& p) { return p->id() == state_.view; });
  return shown == panels_.end() ? nullptr : shown->get();
}

attn::Status App::LoadTrainedHeads(const uint8_t* bytes, size_t size) {
  lessons::TrainedHeads heads;
  const attn::Status status = lessons::ParseTrainedHeads(bytes, size, &heads);
  if (!status.ok()) {
    TrainedHeadsFailed(status.message());
    return status;
  }
  trained_heads_ = std::move(heads);
  trained_heads_loaded_ = true;
  trained_heads_error_.clear();
  ++trained_heads_version_;
  return status;
}

void App::TrainedHeadsFailed(const std::string& why) {
  trained_heads_error_ = why;
  ++trained_heads_version_;
}

attn::Status App::SetStateString(const std::string& text) {
  lessons::ViewState parsed = state_;
  const attn::Status status = lessons::ParseState(text, &parsed);
  state_ = parsed;  // the valid fields apply even when another one was bad
  return status;
}

void App::SetCapturing(bool capturing) {
  if (capturing && !capturing_) restore_scroll_ = extent_.scroll;
  capturing_ = capturing;
}

attn::Status App::ApplyLink(const std::string& text) {
  lessons::ViewState parsed;  // a link says everything that differs from the defaults
  const attn::Status status = lessons::ParseState(text, &parsed);
  state_ = parsed;
  link_note_ = status.ok() ? "" : "Parts of this link were ignored or adjusted: " + status.message();
  return status;
}

void App::NoteLinkProblem(const std::string& problem) {
  link_note_ += (link_note_.empty() ? "Parts of this link were ignored or adjusted: " : "; ") + problem;
}

void App::DrawLinkNote() {
  if (link_note_.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().warning_text);
  Prose("%s", link_note_.c_str());
  ImGui::PopStyleColor();
  published_.Rect("link_note", LastItemRect());
  if (ImGui::SmallButton("dismiss")) link_note_.clear();
}

//-----------------------------------------------------------------------------
// [SECTION] The shared sentence
//-----------------------------------------------------------------------------

void App::UpdateSentence() {
  // Until the GloVe asset is here the words get hashed vectors (labelled), so the page draws at once.
  const lessons::SentenceState& s = state_.sentence;
  const lessons::WordVectors* vectors = word_vectors_loaded() ? &word_vectors_ : nullptr;
  sentence_.Update(lessons::FieldsKey(s) + "#" + std::to_string(word_vectors_version_),
                   [&](lessons::Sentence* out) { return lessons::ComputeSentence(s, vectors, out); });
}

//-----------------------------------------------------------------------------
// [SECTION] Frame: sentence controls and the tabs of the views
//-----------------------------------------------------------------------------

void App::DrawSentenceControls(bool word_vectors) {
  // The text area's place: its frame is drawn here, the text and caret by the browser on top.
  TextBoxSlot(TextBoxId::kSentence, state_.sentence.text, published_, "sentence");

  if (!embedded_) DrawSentenceChoices(word_vectors);
  if (word_vectors) DrawWordVectorsProgress();
  const lessons::Sentence& sentence = sentence_.model();
  if (word_vectors && sentence.glove && !sentence.unknown_note.empty()) {  // which words are unknown, and the real reason
    DrawNote("%s", sentence.unknown_note.c_str());
    published_.Rect("sentence.unknown_note", LastItemRect());
  }
  DrawStatusLine(sentence_error());
}

// Lecture mode on the title line: "Aa" opens the UI scale and the explanations switch (both in the
// link, so a lecturer's prepared link opens as it was set).
void App::DrawDisplayControls() {
  lessons::DisplayState& d = state_.display;
  // Beside the title, clear of the Share button (about 70 px at the top right), or under it.
  SameLineIfFits(ButtonWidth("Aa") + 70.0f);
  if (ImGui::SmallButton("Aa")) ImGui::OpenPopup("display");
  ImGui::SetItemTooltip("Lecture mode: larger text, explanations on or off, the text as page text");
  if (ImGui::BeginPopup("display")) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    SliderField(d.kScale, &d.scale);
    CheckboxField(d.kProse, &d.prose);
    CheckboxField(d.kPageText, &d.page_text);
    ImGui::EndPopup();
  }
}

void App::DrawSentenceChoices(bool word_vectors) {
  lessons::SentenceState& s = state_.sentence;
  static const char* const kPresets[] = {"Sky is clear today",
                                         "The animal didn't cross the street because it was too tired",
                                         "The cat sat on the mat"};
  ImGui::TextDisabled("Presets:");
  // On a phone all three share the line after "Presets:" (each its first words, the whole on hover),
  // so the figure gets the first screen; a sentence longer than the line shows its first words.
  const float full_line = ImGui::GetContentRegionAvail().x;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float line_width = full_line < kNarrowWidth
                               ? (full_line - ImGui::CalcTextSize("Presets:").x - spacing * IM_ARRAYSIZE(kPresets)) /
                                     IM_ARRAYSIZE(kPresets)
                               : full_line;
  for (int k = 0; k < IM_ARRAYSIZE(kPresets); ++k) {
    const std::string label = FitButtonLabel(kPresets[k], line_width);
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    ImGui::PushID(k);
    if (ImGui::Button(label.c_str())) s.text = kPresets[k];
    ImGui::PopID();
    if (label != kPresets[k]) ImGui::SetItemTooltip("%s", kPresets[k]);
    published_.Rect("preset." + std::to_string(k + 1), LastItemRect());
  }
  if (!word_vectors) return;
  int source = static_cast<int>(s.vectors);
  ImGui::RadioButton("GloVe word vectors (100-d)", &source, static_cast<int>(lessons::VectorSource::kGlove));
  SameLineIfFits(RadioButtonWidth("hashed vectors"));
  ImGui::RadioButton("hashed vectors", &source, static_cast<int>(lessons::VectorSource::kHash));
  s.vectors = static_cast<lessons::VectorSource>(source);
  if (s.vectors == lessons::VectorSource::kHash) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - 120.0f));
    SliderField(s.kHashDim, &s.hash_dim);
  }
}

void App::DrawWordVectorsProgress() {
  if (state_.sentence.vectors == lessons::VectorSource::kHash) return;
  if (!word_vectors_loaded() && word_vectors_error_.empty()) {
    char overlay[64];
    std::snprintf(overlay, sizeof(overlay), "GloVe word vectors: %.0f%% of 1.5 MB", 100.0f * word_vectors_progress_);
    ImGui::ProgressBar(word_vectors_progress_, ImVec2(std::min(ImGui::GetContentRegionAvail().x, 320.0f), 0), overlay);
    published_.Scalar("sentence.vectors_progress", word_vectors_progress_);
    ImGui::TextDisabled("Meanwhile every word gets a hashed stand-in vector; the views switch when GloVe arrives.");
  } else if (!word_vectors_loaded()) {
    DrawNote("%s", word_vectors_error_.c_str());
  }
}

void App::DrawViewPicker() {
  for (size_t k = 0; k < panels_.size(); ++k) {
    const Panel& panel = *panels_[k];
    const float w = ImGui::CalcTextSize(panel.title()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (k > 0) {
      ImGui::SameLine();
      if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    }
    const bool shown = panel.id() == state_.view;
    if (shown) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_TabActive));
    if (ImGui::Button(panel.title())) {
      state_.view = panel.id();
      ImGui::SetScrollY(0.0f);
    }
    if (shown) ImGui::PopStyleColor();
    published_.Rect(std::string("view.") + std::to_string(k + 1), LastItemRect());
  }
  ImGui::Separator();
}

void App::DrawTakeaway(const Panel& panel) {
  ImGui::Spacing();
  ImGui::Separator();
  if (state_.display.prose) {
    ImGui::PushStyleColor(ImGuiCol_Text, CurrentTheme().try_this_text);
    Prose("Takeaway: %s", panel.takeaway());
    ImGui::PopStyleColor();
  }
  const auto it = std::find_if(panels_.begin(), panels_.end(), [&](const auto& p) { return p.get() == &panel; });
  if (it == panels_.end() || it + 1 == panels_.end()) return;
  const std::string label = std::string("Next: ") + (*(it + 1))->title() + "  →";
  if (ImGui::Button(label.c_str(), ImVec2(0, ImGui::GetFrameHeight() * 1.3f))) {
    state_.view = (*(it + 1))->id();
    ImGui::SetScrollY(0.0f);  // the next view starts at its top
  }
  published_.Rect("next", LastItemRect());
}

void App::Frame() {
  published_.Clear();
  BeginItemLog();
  SetProseSink(&published_);
  gfx::Renderer().BeginFrame();
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  if (capturing_) {
    ImGui::SetNextWindowScroll(ImVec2(0.0f, 0.0f));
  } else if (restore_scroll_ >= 0.0f) {
    ImGui::SetNextWindowScroll(ImVec2(0.0f, restore_scroll_));
    restore_scroll_ = -1.0f;
  }
  // An embed's canvas grows to its content, so it never scrolls (not even for a frame while it grows).
  const ImGuiWindowFlags scrolling = embedded_ ? ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse : 0;
  ImGui::Begin("attnlab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | scrolling);

  const std::string state_before = StateString();
  HideTextBoxes();  // until a view that uses the sentence (or sentence B) draws it
  SetTextBoxesCapturing(capturing_);
  if (!embedded_) {
    ImGui::TextUnformatted("attnlab: self-attention, step by step");
    DrawDisplayControls();
  }
  DrawLinkNote();
  const Panel* shown = ShownPanel();
  const bool sentence_shown = shown && shown->uses_sentence();
  // The sentence first: the notes under its box (unknown words, errors) are drawn from it in the same
  // frame, so one frame per keystroke is final. Again after the controls, which may pick a preset.
  UpdateSentence();
  if (sentence_shown) DrawSentenceControls(shown->uses_word_vectors());
  UpdateSentence();
  wants_another_frame_ = false;
  // The jobs first (every panel's, not only the shown one's): what the views draw below is where they
  // have got to, and the state follows them (Learn's step) before the frame's state is compared.
  std::vector<lessons::Job*> jobs;
  for (auto& panel : panels_)
    if (lessons::Job* job = panel->job()) {
      job->SetShown(panel.get() == shown);  // timing waits while its view is hidden
      jobs.push_back(job);
    }
  if (jobs_.Frame(jobs)) wants_another_frame_ = true;
  for (lessons::Job* job : jobs) job->WriteState(&state_);
  PanelContext ctx{state_, sentence_.model(), sentence_.version(), published_, &prices_, &wants_another_frame_, embedded_,
                   trained_heads_loaded_ ? &trained_heads_ : nullptr, trained_heads_error_, trained_heads_version_, ""};
  ctx.word_vectors = word_vectors_loaded() ? &word_vectors_ : nullptr;
  ctx.word_vectors_version = word_vectors_version_;
  // When the state names another view than the tab shown last (URL, tests), select that tab;
  // otherwise the tab bar (the reader's clicks) decides.
  const lessons::ViewId requested = state_.view;
  const bool moved = requested != shown_view_;
  lessons::ViewId drawn = shown_view_;
  float view_top = ImGui::GetCursorScreenPos().y;  // where the view starts: below the tabs (an embed: here)
  const bool narrow = ImGui::GetContentRegionAvail().x < kNarrowWidth;
  if (embedded_ || narrow) {
    // An embed: the one view. A phone: every view one tap away, in wrapped rows of buttons (a tab
    // bar would hide half of them).
    if (!embedded_) DrawViewPicker();
    for (auto& panel : panels_)
      if (panel->id() == state_.view) {
        drawn = panel->id();
        view_top = ImGui::GetCursorScreenPos().y;
        panel->Draw(ctx);
        if (!embedded_) DrawTakeaway(*panel);
        break;
      }
    if (!ModuleHasView(state_.view)) {  // an embed's lite module asked for a view that trains (module_views.h)
      const char* title = state_.view == lessons::ViewId::kDataSize ? "8 Data size"
                          : state_.view == lessons::ViewId::kLearn  ? "11 Learn"
                                                                    : "12 Language model";
      DrawNote("View %s trains a model: this embed loaded without the training code. \"open in attnlab\" below "
               "shows it.", title);
    }
  } else if (ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (auto& panel : panels_) {
      const bool wanted = panel->id() == requested;
      if (ImGui::BeginTabItem(panel->title(), nullptr, moved && wanted ? ImGuiTabItemFlags_SetSelected : 0)) {
        if (!moved || wanted) {
          state_.view = drawn = panel->id();
          view_top = ImGui::GetCursorScreenPos().y;
          panel->Draw(ctx);
          DrawTakeaway(*panel);
        }
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  // The view drawn this frame; a click inside it (Next) may already have asked for another.
  shown_view_ = drawn;
  // A job the view started or pressed on in this frame is stepped from the next one.
  for (lessons::Job* job : jobs)
    if (jobs_.wants_frame(job)) wants_another_frame_ = true;
  summary_ = std::move(ctx.summary);
  // Touch screens have no wheel: the platform turns vertical finger drags into page scrolls.
  if (pending_scroll_ != 0.0f) {
    ImGui::SetScrollY(ImGui::GetScrollY() + pending_scroll_);
    pending_scroll_ = 0.0f;
  }
  if (StepScroll()) wants_another_frame_ = true;
  extent_.scroll = ImGui::GetScrollY();
  extent_.scroll_max = ImGui::GetScrollMaxY();
  // The cursor sits one item spacing below the last item; the window's padding closes the page.
  extent_.content_height = std::ceil(ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y + ImGui::GetStyle().WindowPadding.y);
  published_.Scalar("page.scroll", extent_.scroll);
  published_.Scalar("page.scroll_max", extent_.scroll_max);
  published_.Scalar("page.content_height", extent_.content_height);
  if (embedded_) view_top = ImGui::GetWindowPos().y;  // an embed's picture is all of it
  view_rect_ = {0.0f, view_top, io.DisplaySize.x, ImGui::GetCursorScreenPos().y - view_top};
  published_.Rect("view", view_rect_);
  ImGui::End();
  // A click changed the state while the views were drawn from the old one: draw once more, so the
  // models follow the state before the page rests (state -> compute -> model -> draw).
  drawn_state_ = StateString();
  if (drawn_state_ != state_before) wants_another_frame_ = true;
  gfx::CollectUnusedHeatmaps();
}

}  // namespace attnlab
