// What the panels drew this frame, by name: the matrices their colours came from and where they
// sit. The browser tests read these through embind and compare them with the engine.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attn/matrix.h"

namespace attnlab {

struct LayoutRect {
  float x = 0, y = 0, w = 0, h = 0;  // CSS pixels from the canvas' top-left (ImGui's screen space)
};

// The cell under the pointer (mouse or finger) and the exact value its tooltip shows.
struct HoveredCell {
  std::string map;  // the matrix's published name; empty when no cell is hovered
  int row = -1, col = -1;
  float value = 0;
};

// One piece of prose as the reader sees it: the sentence(s) and the rectangle of each drawn line.
struct PublishedText {
  std::string text;
  std::vector<LayoutRect> lines;         // each drawn line's rectangle
  std::vector<std::string> line_texts;  // and its text (where the wrap broke the sentence)
};

class Published {
 public:
  // Called at the start of each frame: names refer to this frame's drawing only.
  void Clear() {
    matrices_.clear();
    owned_.clear();
    rects_.clear();
    scalars_.clear();
    texts_.clear();
    labels_.clear();
    hovered_ = HoveredCell{};
  }
  // `m` must stay alive until the next Clear(): panels publish matrices they own.
  void Matrix(const std::string& name, const attn::Matrix& m) { matrices_[name] = &m; }
  // A matrix made while drawing (a plot's marker positions): kept here until the next Clear().
  void MatrixCopy(const std::string& name, attn::Matrix m) { matrices_[name] = &(owned_[name] = std::move(m)); }
  void Rect(const std::string& name, LayoutRect r) { rects_[name] = r; }
  void Scalar(const std::string& name, double v) { scalars_[name] = v; }
  // A word drawn outside prose (a table cell, a tile's word), by name: view 12's next words.
  void Label(const std::string& name, std::string text) { labels_[name] = std::move(text); }
  void Hover(HoveredCell cell) { hovered_ = std::move(cell); }
  // Every sentence drawn this frame, in drawing order (widgets/prose.h publishes them).
  void Text(PublishedText text) { texts_.push_back(std::move(text)); }

  const attn::Matrix* FindMatrix(const std::string& name) const {
    const auto it = matrices_.find(name);
    return it == matrices_.end() ? nullptr : it->second;
  }
  const std::map<std::string, LayoutRect>& rects() const { return rects_; }
  const std::map<std::string, double>& scalars() const { return scalars_; }
  const std::map<std::string, std::string>& labels() const { return labels_; }
  const std::map<std::string, const attn::Matrix*>& matrices() const { return matrices_; }
  const HoveredCell& hovered() const { return hovered_; }
  const std::vector<PublishedText>& texts() const { return texts_; }

 private:
  std::map<std::string, const attn::Matrix*> matrices_;
  std::map<std::string, attn::Matrix> owned_;
  std::map<std::string, LayoutRect> rects_;
  std::map<std::string, double> scalars_;
  std::map<std::string, std::string> labels_;
  std::vector<PublishedText> texts_;
  HoveredCell hovered_;
};

}  // namespace attnlab
