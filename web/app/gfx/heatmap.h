// Heatmaps drawn by shaders/heatmap.*: the matrix goes to a float texture unchanged and is
// coloured in the fragment shader, so cells are crisp at any zoom and values stay exact.
#pragma once

#include <GLES3/gl3.h>

#include <limits>
#include <string>
#include <vector>

#include "attn/matrix.h"
#include "imgui.h"

namespace attnlab::gfx {

enum class Colormap { kViridis = 0, kDiverging = 1 };

struct HeatmapStyle {
  Colormap colormap = Colormap::kViridis;
  float vmin = 0.0f;  // value at the bottom of the colour map
  float vmax = 1.0f;  // value at the top
  float gap = 0.0f;   // gap between cells as a fraction of a cell
  // A value marked on the legend (1/n for weights: what uniform attention would give); NaN: none.
  float reference = std::numeric_limits<float>::quiet_NaN();
  // Weights: drawn on a fixed 0..1 scale, with a per-map toggle that stretches it to the map's maximum.
  bool stretchable = false;
};

// One texture per heatmap; upload when the data changes, draw every frame.
class Heatmap {
 public:
  Heatmap() = default;
  Heatmap(const Heatmap&) = delete;
  Heatmap& operator=(const Heatmap&) = delete;
  ~Heatmap();

  // m: (rows, cols) -> R32F texture (cols, rows). Cheap to call with unchanged data: it re-uploads.
  // Cells where m is −inf are drawn hatched (masked). `mask`, if given, has m's shape and marks
  // more cells as masked where it is −inf (the scores of weights that a mask set to 0).
  void Upload(const attn::Matrix& m, const attn::Matrix* mask = nullptr);
  // Queues the draw into `list` over [p0, p1) with the renderer's shader.
  void Draw(ImDrawList* list, ImVec2 p0, ImVec2 p1, const HeatmapStyle& style);
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  friend class HeatmapRenderer;
  GLuint texture_ = 0;
  GLuint mask_texture_ = 0;
  bool has_mask_ = false;
  int rows_ = 0, cols_ = 0;
  struct Pending {
    Heatmap* owner;
    ImVec4 rect;
    HeatmapStyle style;
  };
};

// Owns the program and the quad; one per GL context.
class HeatmapRenderer {
 public:
  // Returns false and fills *error if the shaders do not build.
  bool Init(std::string* error);
  // Call once per frame before the panels draw: forgets last frame's queued draws.
  void BeginFrame();
  void Shutdown();

 private:
  friend class Heatmap;
  static void DrawCallback(const ImDrawList* list, const ImDrawCmd* cmd);
  GLuint program_ = 0, vao_ = 0, vbo_ = 0;
  GLint u_rect_ = -1, u_display_ = -1, u_range_ = -1, u_colormap_ = -1, u_gap_ = -1, u_gap_color_ = -1,
        u_values_ = -1, u_mask_ = -1, u_has_mask_ = -1;
  // Draw parameters live here until ImGui renders; callbacks point into it (stable within a frame).
  std::vector<Heatmap::Pending> pending_;
};

// The renderer the heatmaps use; set by the app once GL is up.
HeatmapRenderer& Renderer();

}  // namespace attnlab::gfx
