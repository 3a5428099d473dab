// The explorer: the view state, the shared sentence, and one panel per view in tabs. It asks the
// engine for every number it draws (through the panels) and computes none itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lessons/word_vectors.h"
#include "panels/panel.h"
#include "published.h"
#include "lessons/view_state.h"

namespace attnlab {

class App {
 public:
  App();
  // GL must be current. Returns false with *error when the shaders do not build.
  bool Init(std::string* error);
  // Builds this frame's UI; each panel re-runs the engine only if its inputs changed.
  void Frame();

  // Hands over the parsed GloVe asset; the views re-run with it.
  void SetWordVectors(lessons::WordVectors vectors);
  // The asset could not be had: fall back to hashed vectors and say why.
  void WordVectorsFailed(const std::string& why);
  // Hands over the parsed prices.csv (view 8), or says why it is missing.
  void SetPrices(lessons::PriceTable table);
  void PricesFailed(const std::string& why);
  const lessons::PricesInputs& prices() const { return prices_; }
  bool word_vectors_loaded() const { return word_vectors_.size() > 0; }

  lessons::ViewState& state() { return state_; }
  // The whole state as a short string, and back (bad fields are reported and skipped).
  std::string StateString() const { return lessons::SerializeState(state_); }
  attn::Status SetStateString(const std::string& text);

  const SentenceInputs& sentence() const { return sentence_; }
  // Empty when the sentence is fine; otherwise why it cannot be drawn.
  const std::string& sentence_error() const { return sentence_error_; }
  const Published& published() const { return published_; }
  int engine_runs() const { return engine_runs_; }
  // A panel asked for the next frame although no input came (view 9 keeps timing).
  bool wants_another_frame() const { return wants_another_frame_; }

 private:
  void UpdateSentence();
  void DrawSentenceControls();

  lessons::ViewState state_;
  std::vector<std::unique_ptr<Panel>> panels_;
  lessons::ViewId shown_view_ = lessons::ViewId::kCount;  // the tab drawn last frame; differs when the state moved it
  SentenceInputs sentence_;
  lessons::SentenceState sentence_state_used_;
  bool sentence_dirty_ = true;
  std::string sentence_error_;
  lessons::WordVectors word_vectors_;
  std::string word_vectors_error_;
  char sentence_buffer_[512] = {};
  Published published_;
  int engine_runs_ = 0;
  bool wants_another_frame_ = false;
  lessons::PricesInputs prices_;
};

App& TheApp();

}  // namespace attnlab
