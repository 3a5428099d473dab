// One horizontal bar per token: a row of scores or weights, with the exact numbers beside it.
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "published.h"

namespace attnlab {

// Draws row `row` of `m` as bars labelled by `labels`; signed values grow left and right of a
// zero line. Publishes the row under `name`. Returns the rectangle.
// `axis` fixes the value axis (bar charts compared side by side share one; weights use [0, 1]); by
// default it spans the row's own values and 0.
struct BarAxis {
  float lo = 0, hi = 0;  // lo == hi: the row's own range
};
LayoutRect DrawBars(const std::string& name, const std::vector<std::string>& labels, const attn::Matrix& m, int row,
                    float max_width, Published& published, BarAxis axis = {});

}  // namespace attnlab
