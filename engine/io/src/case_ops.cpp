// Tensor plumbing shared by the operator mappings: slicing row-major case tensors into the
// engine's per-batch matrices and back.
#include "case_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "attn/validate.h"

namespace attn::case_ops {
namespace {

bool IsFloat(DType d) { return d == DType::kFloat32 || d == DType::kFloat16; }

// Bytes of a value Excerpt keeps.
constexpr size_t kExcerptBytes = 48;

// kUnknownOption for the first name of `given` (a map's keys) not in `known`.
template <typename Map>
Status CheckKnown(const Map& given, const std::vector<std::string_view>& known, const char* kind,
                  const char* op) {
  for (const auto& entry : given) ATTN_RETURN_IF_ERROR(CheckKnownName(entry.first, known, kind, op));
  return Status::Ok();
}

}  // namespace

Status CheckKnownName(const std::string& name, const std::vector<std::string_view>& known,
                      const char* kind, const char* of) {
  if (std::find(known.begin(), known.end(), name) != known.end()) return Status::Ok();
  std::string message = Excerpt(name) + ": unknown " + kind + " of " + of;
  // A suggestion only for near misses (two edits at most): an unrelated name gets the list instead.
  const std::string_view nearest = validate::NearestName(name, known, 2, 2 * kExcerptBytes);
  if (!nearest.empty()) {
    message += " (did you mean " + std::string(nearest) + "?)";
  } else {
    message += " (expected one of";
    for (size_t i = 0; i < known.size(); ++i) message += (i ? ", " : " ") + std::string(known[i]);
    message += ")";
  }
  return Status(StatusCode::kUnknownOption, message);
}

Status CheckNames(const Case& c, const OpNames& names) {
  ATTN_RETURN_IF_ERROR(CheckKnown(c.attributes, names.attributes, "attribute", names.op));
  ATTN_RETURN_IF_ERROR(CheckKnown(c.inputs, names.inputs, "input", names.op));
  return CheckKnown(c.outputs, names.outputs, "output", names.op);
}

bool CaseAsksFor(const Case& c, const std::string& output) { return c.outputs.count(output) != 0; }

bool CountElements(const std::vector<int64_t>& dims, int64_t cap, int64_t* count) {
  if (std::find(dims.begin(), dims.end(), int64_t{0}) != dims.end()) {
    *count = 0;
    return true;
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || n > cap / d) return false;  // n · d > cap, tested without forming n · d
    n *= d;
  }
  *count = n;
  return true;
}

Status CheckElements(const std::string& what, const std::vector<int64_t>& dims,
                     const CaseLimits& limits) {
  int64_t count = 0;
  if (CountElements(dims, limits.max_elements, &count)) return Status::Ok();
  return Status(StatusCode::kResourceExhausted,
                what + ": " + DimsString(dims) + " is more than the limit of " +
                    std::to_string(limits.max_elements) + " elements (max_elements)");
}

std::string Excerpt(std::string_view text) {
  const auto printable = [](char ch) { return ch > ' ' && ch < 0x7f && ch != '"'; };
  const bool plain = text.size() <= kExcerptBytes && !text.empty() &&
                     std::all_of(text.begin(), text.end(), printable);
  if (plain) return std::string(text);
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < kExcerptBytes; ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch >= 0x20 && ch < 0x7f) {
      out += static_cast<char>(ch);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", ch);
      out += hex;
    }
  }
  out += "\"";
  if (text.size() > kExcerptBytes) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

Status IntAttribute(const Case& c, const std::string& name, int64_t fallback, int64_t lo,
                    int64_t hi, int64_t* out) {
  const auto it = c.attributes.find(name);
  if (it == c.attributes.end()) {
    *out = fallback;
    return Status::Ok();
  }
  const double v = it->second;
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    std::ostringstream s;
    s << "attributes." << name << ": expected an integer in [" << lo << ", " << hi << "], got "
      << v;
    return Status(StatusCode::kOutOfRange, s.str());
  }
  *out = static_cast<int64_t>(v);
  return Status::Ok();
}

Status FloatAttribute(const Case& c, const std::string& name, float fallback, bool allow_zero,
                      float* out) {
  const auto it = c.attributes.find(name);
  if (it == c.attributes.end()) {
    *out = fallback;
    return Status::Ok();
  }
  const float v = static_cast<float>(it->second);
  if (!std::isfinite(v) || v < 0 || (v == 0 && !allow_zero)) {
    std::ostringstream s;
    s << "attributes." << name << ": expected a finite value " << (allow_zero ? ">= 0" : "> 0")
      << ", got " << it->second;
    return Status(StatusCode::kOutOfRange, s.str());
  }
  *out = v;
  return Status::Ok();
}

Status ShapeError(const std::string& what) { return Status(StatusCode::kShapeMismatch, what); }

const Tensor* FindInput(const Case& c, const std::string& name) {
  const auto it = c.inputs.find(name);
  return it == c.inputs.end() ? nullptr : &it->second;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  std::ostringstream s;
  constexpr size_t kShown = 8;  // a message must stay one short line, whatever the rank
  s << "(";
  for (size_t i = 0; i < dims.size() && i < kShown; ++i) s << (i ? ", " : "") << dims[i];
  if (dims.size() > kShown) s << ", ... " << dims.size() << " dims";
  s << ")";
  return s.str();
}

Status ExpectFloatTensor(const std::string& name, const Tensor& t, size_t rank) {
  if (!IsFloat(t.dtype)) {
    return Status(StatusCode::kShapeMismatch,
                  name + ": expected float32 or float16, got " + DTypeName(t.dtype));
  }
  if (t.dims.size() != rank) {
    return Status(StatusCode::kShapeMismatch,
                  name + ": expected " + std::to_string(rank) + " dims, got " + DimsString(t.dims));
  }
  for (int64_t d : t.dims) {
    if (d == 0)
      return Status(StatusCode::kEmptyInput, name + ": empty dim in " + DimsString(t.dims));
  }
  return Status::Ok();
}

Matrix Slice4d(const Tensor& t, int64_t i0, int64_t i1) {
  const int64_t rows = t.dims[2], cols = t.dims[3];
  const float* start = t.values.data() + ((i0 * t.dims[1] + i1) * rows) * cols;
  return Eigen::Map<const Matrix>(start, rows, cols);
}

Matrix Slice3d(const Tensor& t, int64_t i0) {
  const int64_t rows = t.dims[1], cols = t.dims[2];
  return Eigen::Map<const Matrix>(t.values.data() + i0 * rows * cols, rows, cols);
}

Matrix HeadsAsColumns(const Tensor& t, int64_t b) {
  const int64_t heads = t.dims[1], rows = t.dims[2], width = t.dims[3];
  Matrix m(rows, heads * width);
  for (int64_t h = 0; h < heads; ++h) m.middleCols(h * width, width) = Slice4d(t, b, h);
  return m;
}

void Store4d(const Matrix& m, int64_t i0, int64_t i1, Tensor* t) {
  float* start = t->values.data() + ((i0 * t->dims[1] + i1) * t->dims[2]) * t->dims[3];
  Eigen::Map<Matrix>(start, t->dims[2], t->dims[3]) = m;
}

void Store3d(const Matrix& m, int64_t i0, Tensor* t) {
  Eigen::Map<Matrix>(t->values.data() + i0 * t->dims[1] * t->dims[2], t->dims[1], t->dims[2]) = m;
}

void StoreHeadsAsColumns(const Matrix& m, int64_t b, Tensor* t) {
  const int64_t heads = t->dims[1], width = t->dims[3];
  for (int64_t h = 0; h < heads; ++h) Store4d(m.middleCols(h * width, width), b, h, t);
}

Tensor ZeroTensor(std::vector<int64_t> dims, DType dtype) {
  Tensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.values.assign(static_cast<size_t>(t.NumElements()), 0.0f);
  return t;
}

Dims4 LeftPadDims4(const std::vector<int64_t>& dims) {
  Dims4 out = {1, 1, 1, 1};
  const size_t n = std::min<size_t>(dims.size(), 4);
  for (size_t i = 0; i < n; ++i) out[4 - n + i] = dims[dims.size() - n + i];
  return out;
}

Status CheckMask(const std::string& name, const Tensor& mask, const Dims4& dims4, int64_t batch,
                 int64_t heads, int64_t L, int64_t S, bool allow_short_last) {
  if (!IsFloat(mask.dtype) && mask.dtype != DType::kBool) {
    return Status(StatusCode::kShapeMismatch,
                  name + ": expected a float or bool mask, got " + DTypeName(mask.dtype));
  }
  const std::string want = " against (batch " + std::to_string(batch) + ", heads " +
                           std::to_string(heads) + ", " + std::to_string(L) + ", " +
                           std::to_string(S) + ")";
  if (mask.dims.size() < 2 || mask.dims.size() > 4) {
    return Status(StatusCode::kShapeMismatch,
                  name + ": expected 2 to 4 dims, got " + DimsString(mask.dims));
  }
  const int64_t expected[3] = {batch, heads, L};
  for (int i = 0; i < 3; ++i) {
    if (dims4[i] != 1 && dims4[i] != expected[i]) {
      return Status(StatusCode::kShapeMismatch,
                    name + ": dims " + DimsString(mask.dims) + " do not broadcast" + want);
    }
  }
  const bool last_ok = allow_short_last ? dims4[3] >= 1 && dims4[3] <= S : dims4[3] == S;
  if (!last_ok) {
    return Status(StatusCode::kShapeMismatch,
                  name + ": last dim of " + DimsString(mask.dims) + " does not fit" + want);
  }
  return Status::Ok();
}

Matrix MaskSlice(const Tensor& mask, const Dims4& dims4, int64_t b, int64_t h, int64_t L, int64_t S,
                 float pad_value) {
  // A dim of size 1 broadcasts: its index is always 0.
  const int64_t mb = dims4[0] == 1 ? 0 : b, mh = dims4[1] == 1 ? 0 : h;
  const int64_t mask_rows = dims4[2], mask_cols = dims4[3];
  const float* plane = mask.values.data() + (mb * dims4[1] + mh) * mask_rows * mask_cols;
  Matrix out(L, S);
  for (int64_t i = 0; i < L; ++i) {
    const int64_t mi = mask_rows == 1 ? 0 : i;
    for (int64_t j = 0; j < S; ++j)
      out(i, j) = j < mask_cols ? plane[mi * mask_cols + j] : pad_value;
  }
  return out;
}

void AppendMaskSlices(const Tensor& mask, const Dims4& dims4, int64_t b, int64_t heads, int64_t L,
                      int64_t S, AttentionInputs* in) {
  const bool is_bool = mask.dtype == DType::kBool;
  const float pad = is_bool ? 0.0f : -std::numeric_limits<float>::infinity();
  const int64_t entries = dims4[1] > 1 ? heads : 1;
  for (int64_t h = 0; h < entries; ++h) {
    const Matrix slice = MaskSlice(mask, dims4, b, h, L, S, pad);
    if (is_bool)
      in->bool_mask.push_back((slice.array() != 0.0f).matrix());
    else
      in->float_mask.push_back(slice);
  }
}

}  // namespace attn::case_ops
