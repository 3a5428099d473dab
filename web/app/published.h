// What the panels drew this frame, by name: the matrices their colours came from and where they
// sit. The browser tests read these through embind and compare them with the engine.
#pragma once

#include <map>
#include <string>

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

class Published {
 public:
  // Called at the start of each frame: names refer to this frame's drawing only.
  void Clear() {
    matrices_.clear();
    rects_.clear();
    scalars_.clear();
    hovered_ = HoveredCell{};
  }
  // `m` must stay alive until the next Clear(): panels publish matrices they own.
  void Matrix(const std::string& name, const attn::Matrix& m) { matrices_[name] = &m; }
  void Rect(const std::string& name, LayoutRect r) { rects_[name] = r; }
  void Scalar(const std::string& name, double v) { scalars_[name] = v; }
  void Hover(HoveredCell cell) { hovered_ = std::move(cell); }

  const attn::Matrix* FindMatrix(const std::string& name) const {
    const auto it = matrices_.find(name);
    return it == matrices_.end() ? nullptr : it->second;
  }
  const std::map<std::string, LayoutRect>& rects() const { return rects_; }
  const std::map<std::string, double>& scalars() const { return scalars_; }
  const std::map<std::string, const attn::Matrix*>& matrices() const { return matrices_; }
  const HoveredCell& hovered() const { return hovered_; }

 private:
  std::map<std::string, const attn::Matrix*> matrices_;
  std::map<std::string, LayoutRect> rects_;
  std::map<std::string, double> scalars_;
  HoveredCell hovered_;
};

}  // namespace attnlab
