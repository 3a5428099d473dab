#include "lessons/csv.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "attn/text.h"

namespace lessons {
namespace {

// Quoted when it holds a comma, a quote or a line break; quotes doubled.
std::string Field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// An empty cell for NaN; else the shortest text that reads back as the same value.
template <typename T>
std::string Number(T v) {
  return std::isnan(v) ? "" : attn::ShortestNumberText(v);
}

std::string Label(const std::vector<std::string>& labels, size_t k) {
  return k < labels.size() ? Field(labels[k]) : std::to_string(k + 1);
}

}  // namespace

std::string MatrixToCsv(const Matrix& m, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels) {
  std::string out;
  for (Eigen::Index j = 0; j < m.cols(); ++j) out += "," + Label(col_labels, static_cast<size_t>(j));
  out += "\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out += Label(row_labels, static_cast<size_t>(i));
    for (Eigen::Index j = 0; j < m.cols(); ++j) out += "," + Number(m(i, j));
    out += "\n";
  }
  return out;
}

std::string ColumnsToCsv(const std::vector<std::string>& names, const std::vector<std::vector<double>>& columns) {
  std::string out;
  for (size_t c = 0; c < names.size(); ++c) out += (c ? "," : "") + Field(names[c]);
  out += "\n";
  size_t rows = 0;
  for (const auto& column : columns) rows = std::max(rows, column.size());
  for (size_t i = 0; i < rows; ++i) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) out += ",";
      if (i < columns[c].size()) out += Number(columns[c][i]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace lessons
