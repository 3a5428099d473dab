// A view of the explorer. Each panel owns its engine results and textures, re-runs the engine
// only when its inputs changed, draws, and publishes what it drew. It computes none of the math.
#pragma once

#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/matrix.h"
#include "lessons/prices.h"
#include "published.h"
#include "lessons/view_state.h"

namespace attnlab {

// The sentence shared by the word views: tokens and their vectors, made once per change.
struct SentenceInputs {
  std::vector<std::string> tokens;
  std::vector<bool> known;  // false: not in the vocabulary (a stand-in vector)
  attn::Matrix x;           // (n, d)
  int version = 0;          // bumps whenever tokens or x change; 0 = nothing yet
  bool glove = false;       // x holds GloVe vectors
};

struct PanelContext {
  lessons::ViewState& state;
  const SentenceInputs& sentence;
  Published& published;
  // Engine runs this frame, by all panels: the tests check nothing re-runs when nothing changed.
  int* engine_runs;
  // web/assets/prices.csv, loaded after the first frame (view 8).
  const lessons::PricesInputs* prices = nullptr;
  // Set by a panel that needs the next frame drawn although nothing changed (a running timer).
  bool* wants_another_frame = nullptr;
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
};

// Views of the sentence re-run the engine only when the sentence or their own state changed:
// returns true (and remembers both) when either differs from the last run.
template <typename State, typename Same>
bool SentenceInputsChanged(const SentenceInputs& in, const State& state, Same same, int* last_version,
                           State* last_state) {
  if (in.version == 0 || (in.version == *last_version && same(state, *last_state))) return false;
  *last_version = in.version;
  *last_state = state;
  return true;
}

// Records the outcome of an engine run: on error keeps its message in *error (the panel keeps its
// last good picture) and returns false; on success clears *error and returns true.
inline bool KeepStatus(const attn::Status& status, std::string* error) {
  *error = status.ok() ? std::string() : status.ToString();
  return status.ok();
}

// Shows an engine error in the panel's colours: the last good picture stays below it.
void DrawStatusLine(const std::string& error);
// The "what you see / try this" box at the top of each panel.
void DrawExplanation(const char* what_you_see, const char* try_this);

}  // namespace attnlab
