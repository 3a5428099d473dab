// The explorer: the view state, the shared sentence, and one panel per view in tabs. It asks the
// engine for every number it draws (through the panels) and computes none itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lessons/trained_heads.h"
#include "lessons/views/sentence.h"
#include "lessons/word_vectors.h"
#include "job_scheduler.h"
#include "memo.h"
#include "panels/panel.h"
#include "published.h"
#include "lessons/view_state.h"
#include "widgets/text_box.h"

namespace attnlab {

class App {
 public:
  App();
  // GL must be current. Returns false with *error when the shaders do not build.
  bool Init(std::string* error);
  // Builds this frame's UI; each panel re-runs the engine only if its inputs changed.
  void Frame();
  // Scrolls the page by `px` CSS pixels in the next frame (a touch scroll; down positive).
  void ScrollBy(float px) { pending_scroll_ += px; }

  // The text boxes are HTML text areas over the canvas (widgets/text_box.h). What box `id` holds: the
  // shared sentence (box 0), view 10's sentence B (box 1) or its query word (box 2).
  std::string& TextBoxText(TextBoxId id) {
    if (id == TextBoxId::kSentenceB) return state_.retrieval.sentence_b;
    if (id == TextBoxId::kQuery) return state_.retrieval.query;
    return state_.sentence.text;
  }

  // The GloVe asset's bytes: parsed, then the views re-run with it. On a bad asset the page falls
  // back to hashed vectors and says why; returns the parse status.
  attn::Status LoadWordVectors(const uint8_t* bytes, size_t size);
  // How much of the asset has arrived (0..1); until it is parsed the words get hashed vectors.
  void WordVectorsProgress(float fraction) { word_vectors_progress_ = fraction; }
  // The asset could not be fetched (`why`, e.g. "HTTP 404"): hashed vectors, and the reason shown.
  void WordVectorsFailed(const std::string& why);
  // The prices view is shown and prices.csv (30 KB) has not arrived: fetch it now.
  bool NeedsPrices() const;
  // The view shown draws the trained heads (Panel::reads_trained_heads: views 3 and 5 when asked) and
  // heads-trained-brown.bin (200 KB) has not arrived.
  bool NeedsTrainedHeads() const;
  // The asset's bytes: parsed, then views 3 and 5 re-run with it; on bad bytes they say why and
  // draw seeded heads. Returns the parse status.
  attn::Status LoadTrainedHeads(const uint8_t* bytes, size_t size);
  void TrainedHeadsFailed(const std::string& why);
  // prices.csv's text for view 13, or why it could not be fetched.
  attn::Status LoadPrices(const std::string& csv);
  void PricesFailed(const std::string& why);
  const lessons::PricesInputs& prices() const { return prices_; }
  bool word_vectors_loaded() const { return word_vectors_.size() > 0; }
  // The view shown draws the sentence's word vectors (Panel::uses_word_vectors) with GloVe (not yet
  // loaded): fetch them now.
  bool NeedsWordVectors() const;

  lessons::ViewState& state() { return state_; }
  // The whole state as a short string, and back (bad fields are reported and skipped).
  std::string StateString() const { return lessons::SerializeState(state_); }
  attn::Status SetStateString(const std::string& text);
  // A link's state (the URL's hash): from the defaults, every field the link names; what was
  // ignored or clamped is said in a note at the top of the page until the reader dismisses it.
  attn::Status ApplyLink(const std::string& text);
  // A problem with a part of the link the page reads itself (its theme): added to the link's note.
  void NoteLinkProblem(const std::string& problem);

  // An embed shows one view's figure and controls: no title, presets, tabs or lesson text, and
  // the page around it scrolls (the app never does).
  void SetEmbedded(bool embedded) { embedded_ = embedded; }
  bool embedded() const { return embedded_; }

  // The page's vertical extent after the last frame, in CSS pixels.
  struct Extent {
    float scroll = 0, scroll_max = 0;
    float content_height = 0;  // everything drawn, padding included: an embed's canvas is this tall
  };
  const Extent& extent() const { return extent_; }
  // A capture frame ("Save view as PNG"): scrolled to the top, the sentence drawn into the picture;
  // the frame after it returns to where the reader was.
  void SetCapturing(bool capturing);
  // The view below the tabs (an embed: all of it), in CSS px of the last frame.
  LayoutRect view_rect() const { return view_rect_; }
  // The state string at the end of the last frame (the page's address bar follows it).
  const std::string& drawn_state() const { return drawn_state_; }
  // One sentence on what the view shows now, for a screen reader ("" while nothing is drawn).
  const std::string& summary() const { return summary_; }

  const lessons::Sentence& sentence() const { return sentence_.model(); }
  // Empty when the sentence is fine; otherwise why it cannot be drawn.
  const std::string& sentence_error() const { return sentence_.status().message(); }
  const Published& published() const { return published_; }
  int engine_runs() const { return EngineRuns(); }
  // A panel asked for the next frame although no input came (view 14 keeps timing).
  bool wants_another_frame() const { return wants_another_frame_; }

 private:
  // The panel of the view in the state (null only for a view id no panel has).
  const Panel* ShownPanel() const;
  void UpdateSentence();
  // The sentence box, the word-vector progress and notes; DrawSentenceChoices: presets and the
  // source of the vectors (not in an embed). word_vectors: the view reads them (Panel::uses_word_vectors),
  // else neither the choice, GloVe's progress nor its unknown-word note is shown.
  void DrawSentenceControls(bool word_vectors);
  void DrawDisplayControls();
  void DrawSentenceChoices(bool word_vectors);
  void DrawWordVectorsProgress();
  // On a narrow screen: every view as a button, in rows that wrap.
  void DrawViewPicker();
  // The view's takeaway and a button to the next view in reading order.
  void DrawTakeaway(const Panel& panel);
  void DrawLinkNote();

  lessons::ViewState state_;
  std::vector<std::unique_ptr<Panel>> panels_;
  JobScheduler jobs_;  // the panels' long work, stepped every frame whichever view is shown
  lessons::ViewId shown_view_ = lessons::ViewId::kCount;  // the tab drawn last frame; differs when the state moved it
  Memo<lessons::Sentence> sentence_;
  int word_vectors_version_ = 0;
  float word_vectors_progress_ = 0;  // bumps when the asset arrives or fails: the sentence is embedded again
  lessons::WordVectors word_vectors_;
  std::string word_vectors_error_;
  bool embedded_ = false;
  std::string link_note_;
  Extent extent_;
  std::string summary_;
  std::string drawn_state_;
  bool capturing_ = false;
  float restore_scroll_ = -1.0f;  // after a capture frame: the reader's scroll
  LayoutRect view_rect_;
  Published published_;
  bool wants_another_frame_ = false;
  float pending_scroll_ = 0;
  lessons::PricesInputs prices_;
  lessons::TrainedHeads trained_heads_;
  bool trained_heads_loaded_ = false;
  std::string trained_heads_error_;
  int trained_heads_version_ = 0;
};

App& TheApp();

}  // namespace attnlab
