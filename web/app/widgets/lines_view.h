// The lines view (like bertviz's head view): tokens in two columns, a line from token i on the
// left to token j on the right with opacity w_ij. Hovering a token keeps only its lines.
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "imgui.h"
#include "published.h"

namespace attnlab {

struct WeightLayer {
  const attn::Matrix* weights;  // (n, n), values in [0, 1]
  ImU32 color;                  // the head's colour
};

// Returns the rectangle; publishes it under `name`, and the hovered left token as `name.focus`.
LayoutRect DrawLines(const std::string& name, const std::vector<std::string>& tokens,
                     const std::vector<WeightLayer>& layers, float max_width, Published& published);

}  // namespace attnlab
