// A matrix as a labelled heatmap with a colour legend; hovering (or tapping) a cell shows its
// exact value. Publishes the matrix and its rectangle under `name` for the tests.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "attn/matrix.h"
#include "gfx/heatmap.h"
#include "published.h"

namespace attnlab {

struct MatrixLabels {
  const std::vector<std::string>* names = nullptr;  // one per row (or column); null: indices
  const std::vector<bool>* known = nullptr;         // false entries drawn marked ("word?")
};

struct MatrixViewOptions {
  std::string symbol = "value";  // the tooltip's first line: "symbol[row, col] = value"
  gfx::HeatmapStyle style;
  MatrixLabels rows, cols;
  float max_width = 520.0f;
  // Square cells suit token × token maps; otherwise rows are at least one text line tall.
  bool square = true;
  // Cells shrink (square ones in both directions) so that tall matrices stay this high; 0: no limit.
  float max_height = 0.0f;
  // At least this wide a column of row labels, so that stacked matrices line up.
  float min_label_width = 0.0f;
  bool legend = true;
  // Cells where this matrix (m's shape) is −inf are hatched as masked: the scores behind weights.
  const attn::Matrix* masked_by = nullptr;
  // A cell outlined as chosen (the followed pair); -1: none.
  int marked_row = -1, marked_col = -1;
  // A whole row / column outlined as chosen (the spotlighted word); -1: none. Published as
  // "<name>.row" / "<name>.col" rectangles.
  int highlight_row = -1, highlight_col = -1;
  // Extra tooltip lines for cell (i, j), after the value itself.
  std::function<void(int, int)> describe;
  // Called with the cell that was clicked or tapped.
  std::function<void(int, int)> on_click;
};

// A (tokens, features) matrix: one labelled row per token, rows a text line tall.
MatrixViewOptions TokenRowsOptions(const std::string& symbol, const gfx::HeatmapStyle& style, MatrixLabels rows);
// A (tokens, tokens) matrix: square cells, both axes labelled by the same words.
MatrixViewOptions TokenGridOptions(const std::string& symbol, const gfx::HeatmapStyle& style, MatrixLabels tokens);

// Colour ranges. Weights: viridis on a fixed [0, 1], so maps side by side compare and near-uniform
// weights look near-uniform; 1/n (uniform attention over m's columns) is marked on the legend, and
// the reader may stretch one map to its own maximum (the legend then says so). Signed values:
// symmetric [−max|m|, max|m|] on the diverging map.
gfx::HeatmapStyle WeightsStyle(const attn::Matrix& m);
gfx::HeatmapStyle DivergingStyle(const attn::Matrix& m);
// One diverging scale for several matrices shown side by side.
gfx::HeatmapStyle SharedDivergingStyle(std::initializer_list<const attn::Matrix*> ms);

// Draws `m` and returns where the cells are. `version` is the version of the model `m` belongs to:
// the texture kept for `name` is uploaded again when it (or the matrix) changed.
LayoutRect DrawMatrix(const std::string& name, const attn::Matrix& m, int version, const MatrixViewOptions& options,
                      Published& published);

// Two columns on a desktop (at least `min_width` wide), one after the other on a phone.
void DrawSideBySide(const char* id, const std::function<void()>& left, const std::function<void()>& right,
                    float min_width = 900.0f);

// A colour bar of `style` with its end values (and its reference value), `width` wide.
void DrawLegend(const gfx::HeatmapStyle& style, float width, const char* note = nullptr);

}  // namespace attnlab
