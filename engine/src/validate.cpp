#include "attn/validate.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>

#include "kernels/simd/kernel_registry.h"

namespace attn::validate {
namespace {

// First element failing `ok`, reported as "<name>: expected <what>, got <v> at (i, j)".
template <typename Ok>
Status FirstBad(const std::string& name, const Matrix& m, const char* what, Ok ok) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      if (ok(m(i, j))) continue;
      return Status(StatusCode::kNonFinite, name + ": expected " + what + ", got " + Number(m(i, j)) + " at (" +
                                                std::to_string(i) + ", " + std::to_string(j) + ")");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

std::string Shape(Eigen::Index rows, Eigen::Index cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

Status NonEmpty(const std::string& name, const Matrix& m) {
  if (m.rows() > 0 && m.cols() > 0) return Status::Ok();
  return Status(StatusCode::kEmptyInput, name + ": expected a non-empty matrix, got " + Shape(m.rows(), m.cols()));
}

// True when no entry is ±inf or NaN: all exponent bits set. Branch-free so the compiler vectorises
// it (Eigen's allFinite() and a std::isfinite loop were a quarter of a small forward pass).
bool NoInfOrNan(const float* x, std::size_t count) {
  // On the widest SIMD variant compiled in (a yes or no, the same on every variant), else plain bits.
  static const simd::KernelTable* const widest =
      simd::CompiledKernelTables().empty() ? nullptr : simd::CompiledKernelTables().back();
  if (widest) return widest->no_inf_or_nan(x, count);
  uint32_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

bool NoInfOrNan(const Matrix& m) { return NoInfOrNan(m.data(), static_cast<std::size_t>(m.size())); }

Status AllFinite(const std::string& name, const Matrix& m) {
  if (NoInfOrNan(m)) return Status::Ok();  // the scalar search below only names the culprit
  return FirstBad(name, m, "finite values", [](float v) { return std::isfinite(v); });
}

Status NoNanOrPositiveInf(const std::string& name, const Matrix& m) {
  return FirstBad(name, m, "finite values or -inf", [](float v) { return std::isfinite(v) || v < 0; });
}

Status Positive(const std::string& name, float value) {
  if (std::isfinite(value) && value > 0) return Status::Ok();
  return Status(StatusCode::kOutOfRange, name + ": expected a finite value > 0, got " + Number(value));
}

Status AtLeast(const std::string& name, long value, long minimum) {
  if (value >= minimum) return Status::Ok();
  return Status(StatusCode::kOutOfRange,
                name + ": expected a value >= " + std::to_string(minimum) + ", got " + std::to_string(value));
}

Status AtMost(const std::string& name, long long value, long long maximum) {
  if (value <= maximum) return Status::Ok();
  return Status(StatusCode::kOutOfRange,
                name + ": expected at most " + std::to_string(maximum) + ", got " + std::to_string(value));
}

Status HasShape(const std::string& name, Eigen::Index m_rows, Eigen::Index m_cols, Eigen::Index rows,
                Eigen::Index cols, const std::string& expected) {
  if (m_rows == rows && m_cols == cols) return Status::Ok();
  const std::string want = Shape(rows, cols) + (expected.empty() ? "" : " " + expected);
  return Status(StatusCode::kShapeMismatch, name + ": expected " + want + ", got " + Shape(m_rows, m_cols));
}

Status KnownOption(const std::string& name, int value, int count) {
  if (value >= 0 && value < count) return Status::Ok();
  return Status(StatusCode::kUnknownOption,
                name + ": expected one of 0.." + std::to_string(count - 1) + ", got " + std::to_string(value));
}

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Levenshtein distance with one row, letters compared without case.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (Lower(a[i - 1]) != Lower(b[j - 1]))});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view NearestName(std::string_view name, const std::vector<std::string_view>& known,
                             size_t max_distance, size_t max_length) {
  if (name.size() > max_length) return {};
  std::string_view nearest;
  size_t best = max_distance;
  for (std::string_view k : known) {
    const size_t d = EditDistance(name, k);
    if (d <= best && (nearest.empty() || d < best)) best = d, nearest = k;
  }
  return nearest;
}

}  // namespace attn::validate
