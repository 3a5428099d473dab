// What a figure shows, as CSV for a spreadsheet (the page's "copy the numbers"): RFC 4180 quoting,
// every number with the digits that read back as the same float.
#pragma once

#include <string>
#include <vector>

#include "lessons/common.h"

namespace lessons {

// A header row (an empty corner, then the column labels) and one row per matrix row (its label,
// then the values). A missing label is the 1-based index; −∞ (masked) reads "-inf".
// m: (rows, cols), row_labels: rows names or fewer, col_labels: cols names or fewer
std::string MatrixToCsv(const Matrix& m, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels);

// Columns of equal length side by side under their names (a plot's x and its series); a NaN (a gap
// in a series) is an empty cell. Shorter columns end early.
std::string ColumnsToCsv(const std::vector<std::string>& names, const std::vector<std::vector<double>>& columns);

}  // namespace lessons
