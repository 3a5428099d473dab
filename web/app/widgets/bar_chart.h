// One horizontal bar per token: a row of scores or weights, with the exact numbers beside it.
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "published.h"

namespace attnlab {

// Draws row `row` of `m` as bars labelled by `labels`; signed values grow left and right of a
// zero line. Publishes the row under `name`. Returns the rectangle.
LayoutRect DrawBars(const std::string& name, const std::vector<std::string>& labels, const attn::Matrix& m, int row,
                    float max_width, Published& published);

}  // namespace attnlab
