// The explorer: owns the view state, asks the engine for every number it draws, and draws.
// Panels read the engine's result; they compute none of the math themselves.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/word_vectors.h"
#include "gfx/heatmap.h"
#include "imgui.h"
#include "view_state.h"

namespace attnlab {

// The cell under the pointer (mouse or finger) and the exact value its tooltip shows.
struct HoveredCell {
  std::string map;  // "X" or "W"; empty when no cell is hovered
  int row = -1, col = -1;
  float value = 0;
};

struct LayoutRect {
  float x = 0, y = 0, w = 0, h = 0;  // CSS pixels from the canvas' top-left (ImGui's screen space)
};

class App {
 public:
  // GL must be current. Returns false with *error when the shaders do not build.
  bool Init(std::string* error);
  // Builds this frame's UI; re-runs the engine only if the state changed.
  void Frame();

  // Hands over the parsed GloVe asset; the view re-runs with it.
  void SetWordVectors(attn::WordVectors vectors);
  // The asset could not be had: fall back to hashed vectors and say why.
  void WordVectorsFailed(const std::string& why);
  bool word_vectors_loaded() const { return word_vectors_.size() > 0; }

  ViewState& state() { return state_; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  // Per token: false when it is not in the vocabulary (drawn marked, with a stand-in vector).
  const std::vector<bool>& known() const { return known_; }
  const attn::Matrix& embeddings() const { return embeddings_; }
  const attn::AttentionResult& result() const { return result_; }
  // Empty when the last input was fine; otherwise what the engine said.
  const std::string& error() const { return error_; }
  // How often the engine ran: tests check it does not run when nothing changed.
  int engine_runs() const { return engine_runs_; }
  LayoutRect sentence_rect() const { return sentence_rect_; }
  LayoutRect weights_rect() const { return weights_rect_; }
  const HoveredCell& hovered() const { return hovered_; }

 private:
  void RecomputeIfChanged();
  void DrawHeader();
  void DrawEmbeddings();
  void DrawWeights();
  // Rows labelled with tokens, a heatmap, a legend; hover shows `describe(i, j)`.
  template <typename Describe>
  LayoutRect DrawLabelledHeatmap(const char* id, gfx::Heatmap& map, const attn::Matrix& m,
                                 const gfx::HeatmapStyle& style, bool column_tokens, float max_width,
                                 Describe describe);
  void DrawLegend(const gfx::HeatmapStyle& style, float width);

  ViewState state_;
  ViewState computed_state_;
  bool has_computed_ = false;
  std::vector<std::string> tokens_;
  std::vector<bool> known_;
  attn::WordVectors word_vectors_;
  std::string word_vectors_error_;
  attn::Matrix embeddings_;
  attn::AttentionResult result_;
  std::string error_;
  int engine_runs_ = 0;
  char sentence_buffer_[512] = {};
  gfx::Heatmap embeddings_map_, weights_map_, legend_map_;
  LayoutRect sentence_rect_, weights_rect_;
  HoveredCell hovered_;
};

App& TheApp();

}  // namespace attnlab
