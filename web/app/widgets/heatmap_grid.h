// Small heatmaps in a grid that wraps to the width (one per head), each with a coloured frame and
// title; hovering shows a cell's value and outlines the hovered row in every tile with the cell of
// its largest value (published as "<tile>.row" and "<tile>.sends"); clicking picks a tile.
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "gfx/heatmap.h"
#include "imgui.h"
#include "published.h"

namespace attnlab {

struct GridTile {
  std::string name;         // published name of the matrix and its rectangle
  std::string title;        // drawn above the tile
  const attn::Matrix* m;    // the values
  const attn::Matrix* masked_by;  // optional: cells where it is −inf are hatched
  const std::vector<std::string>* labels;  // row and column names for the tooltip
  int version;              // of the model the values belong to
  gfx::HeatmapStyle style;
  ImU32 color;              // frame and title colour
};

// Draws the tiles, `selected` framed thicker. Returns the index of the tile clicked this frame, or -1.
int DrawHeatmapGrid(const std::vector<GridTile>& tiles, int selected, float target_size, Published& published);

}  // namespace attnlab
