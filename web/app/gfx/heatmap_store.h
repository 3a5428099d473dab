// Heatmap textures kept the way Dear ImGui keeps a widget's state: in storage keyed by the widget's
// ID, not in the panels. A texture is uploaded again when the matrix behind it changed: another
// model version, another matrix (its data pointer), another shape or another mask. Textures not
// drawn for a while are freed.
#pragma once

#include "attn/matrix.h"
#include "gfx/heatmap.h"
#include "imgui.h"

namespace attnlab::gfx {

// The texture of the widget `id` holding `m` (and `mask`, see Heatmap::Upload) as of `version`.
Heatmap& HeatmapFor(ImGuiID id, const attn::Matrix& m, const attn::Matrix* mask, int version);

// Frees the textures of widgets not drawn in the last few seconds' worth of frames.
void CollectUnusedHeatmaps();

// Drops every texture (after a WebGL context loss they are gone): each heatmap is uploaded again
// the next time it is drawn.
void ForgetHeatmapTextures();

}  // namespace attnlab::gfx
