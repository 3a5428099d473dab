// A view of the explorer. A panel lays out its controls, asks its memo for the model of the
// current state (lessons/views/ computes it, only when the state changed), draws the model and
// publishes what it drew. It computes none of the math.
#pragma once

#include <string>
#include <vector>

#include "imgui.h"
#include "lessons/explain.h"
#include "lessons/job.h"
#include "lessons/prices.h"
#include "lessons/trained_heads.h"
#include "lessons/view_state.h"
#include "lessons/views/sentence.h"
#include "lessons/word_vectors.h"
#include "memo.h"
#include "published.h"

namespace attnlab {

struct PanelContext {
  lessons::ViewState& state;
  // The shared sentence and its version (0: none yet); views of words recompute when it bumps.
  const lessons::Sentence& sentence;
  int sentence_version;
  Published& published;
  // web/assets/prices.csv, loaded after the first frame (view 13).
  const lessons::PricesInputs* prices = nullptr;
  // Set by a panel that needs the next frame drawn although nothing changed (a running timer).
  bool* wants_another_frame = nullptr;
  // In an embed (a blog post's iframe or <attn-lab>): the figure and its controls, no lesson text.
  bool embedded = false;
  // web/assets/heads-trained-brown.bin (views 3 and 5), null until it is parsed; why it failed
  // ("" while loading or loaded); its version bumps when it arrives or fails (memo keys use it).
  const lessons::TrainedHeads* trained_heads = nullptr;
  std::string trained_heads_error;
  int trained_heads_version = 0;
  // What the view shows, in one sentence for a screen reader (an aria-live region reads it after
  // each change): set by the panel from its model, e.g. "weights of 'it' (9): 'animal' 0.31, …".
  std::string summary;
  // The GloVe asset once parsed (null before, or when it failed), and its version (bumps when it
  // arrives or fails): view 10 builds its key–value store from it.
  const lessons::WordVectors* word_vectors = nullptr;
  int word_vectors_version = 0;
};

class Panel {
 public:
  virtual ~Panel() = default;
  virtual lessons::ViewId id() const = 0;
  // The tab's label.
  virtual const char* title() const = 0;
  virtual void Draw(PanelContext& ctx) = 0;
  // Views of words show the shared sentence box above the tabs; the others do not.
  virtual bool uses_sentence() const { return true; }
  // Views of the sentence's word vectors (GloVe or hashed) show the choice between them and GloVe's
  // loading; a view that reads the words some other way (the language model's own vocabulary) does not.
  virtual bool uses_word_vectors() const { return uses_sentence(); }
  // The other assets the view reads, fetched once it is shown (App::Needs*, mount_assets.js): the
  // heads trained on English (in states that draw them) and prices.csv.
  virtual bool reads_trained_heads(const lessons::ViewState& /*state*/) const { return false; }
  virtual bool reads_prices() const { return false; }
  // The long work the panel started and draws (lessons/job.h), or null: the app steps it every frame,
  // whether or not the view is shown (JobScheduler); the panel only starts, pauses and draws it.
  virtual lessons::Job* job() { return nullptr; }
  // The one line the reader should leave the view with, shown at its end above "next →".
  virtual const char* takeaway() const = 0;
};

// The memo key of a view of the sentence: its state's fields and the sentence's version.
template <typename State>
std::string SentenceKey(const PanelContext& ctx, const State& state) {
  return lessons::FieldsKey(state) + "#" + std::to_string(ctx.sentence_version);
}
// The same, for the views that may draw the trained heads: their arrival re-runs the view too.
template <typename State>
std::string TrainedSentenceKey(const PanelContext& ctx, const State& state) {
  return SentenceKey(ctx, state) + "#th" + std::to_string(ctx.trained_heads_version);
}

// Shows an engine error in the panel's colours: the last good picture stays below it.
void DrawStatusLine(const std::string& error);
// A side note in the quiet (disabled) colour that wraps at the column's edge, never cut.
void DrawNote(const char* fmt, ...) IM_FMTARGS(1);
// The "what you see / try this" box at the top of each panel (not in an embed: the post around it
// does the explaining; not with the lecture mode's explanations off).
void DrawExplanation(const PanelContext& ctx, const char* what_you_see, const char* try_this);

}  // namespace attnlab
