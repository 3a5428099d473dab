#include "validate.h"

#include <cmath>
#include <sstream>

namespace attn::validate {

std::string Shape(Eigen::Index rows, Eigen::Index cols) {
  std::ostringstream s;
  s << "(" << rows << ", " << cols << ")";
  return s.str();
}

Status NonEmpty(const char* name, const Matrix& m) {
  if (m.rows() > 0 && m.cols() > 0) return Status::Ok();
  return Status(StatusCode::kEmptyInput,
                std::string(name) + ": expected a non-empty matrix, got " + Shape(m.rows(), m.cols()));
}

Status AllFinite(const char* name, const Matrix& m) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      if (!std::isfinite(m(i, j))) {
        std::ostringstream s;
        s << name << ": expected finite values, got " << m(i, j) << " at (" << i << ", " << j << ")";
        return Status(StatusCode::kNonFinite, s.str());
      }
    }
  }
  return Status::Ok();
}

Status Positive(const char* name, float value) {
  if (std::isfinite(value) && value > 0) return Status::Ok();
  std::ostringstream s;
  s << name << ": expected a finite value > 0, got " << value;
  return Status(StatusCode::kOutOfRange, s.str());
}

}  // namespace attn::validate
