#include "attn/kernels.h"

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <iterator>
#include <new>
#include <vector>

#include "attn/kernel_choice.h"
#include "attn/limits.h"
#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "kernels/eigen_ops.h"
#include "kernels/simd/kernel_registry.h"
#include "kernels/simd/kernel_table.h"

namespace attn {

namespace {

// In enum order.
const char* const kKernelNames[] = {"reference", "eigen", "wasm_simd128", "avx2", "avx512"};
static_assert(std::size(kKernelNames) == static_cast<size_t>(KernelId::kCount), "one name per kernel");

}  // namespace

const char* KernelName(KernelId id) {
  const int index = static_cast<int>(id);
  return index >= 0 && index < static_cast<int>(KernelId::kCount) ? kKernelNames[index] : "unknown";
}

const char* KernelBuildName(KernelId id) {
  const simd::KernelTable* table = simd::FindKernelTable(id);
  return table != nullptr ? table->build_name : KernelName(id);
}

std::vector<KernelId> AvailableKernels() {
  std::vector<KernelId> ids = {KernelId::kReference, KernelId::kEigen};
  for (const simd::KernelTable* table : simd::CompiledKernelTables()) ids.push_back(table->id);
  return ids;
}

bool KernelAvailable(KernelId id) {
  for (KernelId available : AvailableKernels())
    if (available == id) return true;
  return false;
}

std::string AvailableKernelNames() {
  std::string names;
  for (KernelId id : AvailableKernels()) names += (names.empty() ? "" : ", ") + std::string(KernelName(id));
  return names;
}

Status CheckKernelAvailable(KernelId id) {
  if (KernelAvailable(id)) return Status::Ok();
  return Status(StatusCode::kUnknownOption, std::string("kernel: ") + KernelName(id) +
                                                " is not available in this build on this CPU (available: " +
                                                AvailableKernelNames() + ")");
}

Status MatMul(KernelId kernel, const Matrix& a, const Matrix& b, Matrix* out) {
  return MatMul(kernel, a, b, out, MatMulOptions());
}

namespace {

// A per-thread buffer that only grows: a training step's transposed operands and accumulated
// products (up to R × V floats, 16 MB for the language model's batch) would otherwise be a fresh
// allocation, and its page faults, on every call.
float* ThreadScratch(int slot, Eigen::Index floats) {
  thread_local std::vector<float> buffers[2];
  std::vector<float>& buffer = buffers[slot];
  if (buffer.size() < static_cast<size_t>(floats)) buffer.resize(static_cast<size_t>(floats));
  return buffer.data();
}

// out (a.cols(), a.rows()) = aᵀ, 32 × 32 tiles at a time: a whole-matrix transpose reads a's
// columns, one cache line per float once a row is wider than the cache's ways can hold (the
// unembedding's dlogits: rows of 4,096 floats; copying it column by column was 10% of a step).
void TransposeTiled(const Matrix& a, float* out) {
  constexpr Eigen::Index kTile = 32;
  Eigen::Map<Matrix> target(out, a.cols(), a.rows());
  for (Eigen::Index i = 0; i < a.rows(); i += kTile)
    for (Eigen::Index j = 0; j < a.cols(); j += kTile) {
      const Eigen::Index rows = std::min(kTile, a.rows() - i), cols = std::min(kTile, a.cols() - j);
      target.block(j, i, cols, rows) = a.block(i, j, rows, cols).transpose();
    }
}

// Where a SIMD GEMM writes its (m, n) product: straight into the caller's matrix when it has that
// shape and is none of the operands, so a repeated call allocates nothing (a fresh 4 MB product per
// call at 4096 × 256 page-faulted on some runs and not others: the bench's GEMM read 215 or 280
// GFLOP/s); else into *spare, which the caller moves into *out. Either way sized (m, n).
Matrix& ProductTarget(Matrix* out, Eigen::Index m, Eigen::Index n, std::initializer_list<const Matrix*> operands,
                      Matrix* spare) {
  const bool in_place =
      out->rows() == m && out->cols() == n && std::find(operands.begin(), operands.end(), out) == operands.end();
  Matrix& target = in_place ? *out : *spare;
  target.resize(m, n);
  return target;
}

// product = op(a) op(b) on the reference loops or Eigen, as the expression reads.
void ProductOnReference(const Matrix& a, const Matrix& b, const MatMulOptions& o, Matrix* product) {
  if (o.transpose_a && o.transpose_b) {
    reference::MatMulTransposedB(Matrix(a.transpose()), b, product);
  } else if (o.transpose_a) {
    reference::MatMulTransposedA(a, b, product);
  } else if (o.transpose_b) {
    reference::MatMulTransposedB(a, b, product);
  } else {
    reference::MatMul(a, b, product);
  }
}

// The same with Eigen's products the engine already has (EigenOps; both operands transposed: aᵀ
// copied first): no new GEMM instantiation in the page's WebAssembly.
void ProductOnEigen(const Matrix& a, const Matrix& b, const MatMulOptions& o, Matrix* product) {
  if (o.transpose_a && o.transpose_b) {
    eigen::EigenOps<float>::ProductTransposedB(Matrix(a.transpose()), b, product);
  } else if (o.transpose_a) {
    eigen::EigenOps<float>::TransposedProduct(a, b, product);
  } else if (o.transpose_b) {
    eigen::EigenOps<float>::ProductTransposedB(a, b, product);
  } else {
    eigen::EigenOps<float>::Product(a, b, product);
  }
}

}  // namespace

Status MatMul(KernelId kernel, const Matrix& a, const Matrix& b, Matrix* out, const MatMulOptions& o) {
  ATTN_RETURN_IF_ERROR(CheckKernelAvailable(kernel));
  const Eigen::Index m = o.transpose_a ? a.cols() : a.rows(), k = o.transpose_a ? a.rows() : a.cols();
  const Eigen::Index b_k = o.transpose_b ? b.cols() : b.rows(), n = o.transpose_b ? b.rows() : b.cols();
  if (k != b_k) {
    return Status(StatusCode::kShapeMismatch, std::string("matmul: a") + (o.transpose_a ? "ᵀ" : "") + " is (" +
                                                  std::to_string(m) + ", " + std::to_string(k) + ") but b" +
                                                  (o.transpose_b ? "ᵀ" : "") + " has " + std::to_string(b_k) + " rows");
  }
  // Sizes within attn::Limits before the int arithmetic of the kernels and before allocating.
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: a.rows()", static_cast<long long>(a.rows()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: a.cols()", static_cast<long long>(a.cols()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: b.rows()", static_cast<long long>(b.rows()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: b.cols()", static_cast<long long>(b.cols()), Limits::max_dimension));
  if (o.accumulate && (out->rows() != m || out->cols() != n)) {
    return Status(StatusCode::kShapeMismatch, "matmul: out: accumulating needs (" + std::to_string(m) + ", " +
                                                  std::to_string(n) + "), got (" + std::to_string(out->rows()) + ", " +
                                                  std::to_string(out->cols()) + ")");
  }
  ATTN_RETURN_IF_ERROR(budget::MatrixFits("matmul", m, n));
  if (o.transpose_a) ATTN_RETURN_IF_ERROR(budget::MatrixFits("matmul: aᵀ", m, k));
  try {
    Matrix product;
    if (kernel == KernelId::kReference || kernel == KernelId::kEigen) {
      if (kernel == KernelId::kEigen) ProductOnEigen(a, b, o, &product);
      else ProductOnReference(a, b, o, &product);
      if (o.accumulate) {
        *out += product;
        return Status::Ok();
      }
    } else {
      const simd::KernelTable& t = *simd::FindKernelTable(kernel);
      const float* a_rows = a.data();
      if (o.transpose_a) {  // the GEMM reads A's rows in place: aᵀ's rows are a's columns, so copy once
        float* copy = ThreadScratch(0, m * k);
        TransposeTiled(a, copy);
        a_rows = copy;
      }
      const auto gemm = [&](float* c) {
        t.gemm(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), a_rows, static_cast<int>(k), b.data(),
               static_cast<int>(b.cols()), o.transpose_b, nullptr, c, static_cast<int>(n));
      };
      if (o.accumulate) {
        float* sum = ThreadScratch(1, m * n);
        gemm(sum);
        out->noalias() += Eigen::Map<const Matrix>(sum, m, n);
        return Status::Ok();
      }
      Matrix& target = ProductTarget(out, m, n, {&a, &b}, &product);
      gemm(target.data());
      if (&target == out) return Status::Ok();
    }
    *out = std::move(product);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("MatMul");
  }
  return Status::Ok();
}

Status PackMatrix(KernelId kernel, const Matrix& b, bool transposed, PackedMatrix* out) {
  ATTN_RETURN_IF_ERROR(CheckKernelAvailable(kernel));
  const simd::KernelTable* t = simd::FindKernelTable(kernel);
  if (!t)
    return Status(StatusCode::kInvalidArgument, std::string("pack: kernel: ") + KernelName(kernel) +
                                                    " multiplies b in place (pack for a SIMD kernel: " +
                                                    AvailableKernelNames() + ")");
  ATTN_RETURN_IF_ERROR(validate::AtMost("pack: b.rows()", static_cast<long long>(b.rows()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("pack: b.cols()", static_cast<long long>(b.cols()), Limits::max_dimension));
  const int k = static_cast<int>(transposed ? b.cols() : b.rows()), n = static_cast<int>(transposed ? b.rows() : b.cols());
  ATTN_RETURN_IF_ERROR(budget::MatrixFits("pack", k, n + 2 * t->lanes));
  try {
    PackedMatrix packed;
    packed.data_.resize(t->packed_size(k, n));
    if (k > 0 && n > 0) t->pack_b(b.data(), static_cast<int>(b.cols()), transposed, k, n, packed.data_.data());
    packed.kernel_ = kernel;
    packed.k_ = k, packed.n_ = n;
    packed.transposed_ = transposed;
    packed.source_ = b.data();
    *out = std::move(packed);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("PackMatrix");
  }
}

Status MatMul(const Matrix& a, const PackedMatrix& b, Matrix* out) {
  const simd::KernelTable* t = simd::FindKernelTable(b.kernel_);
  if (!t || (b.data_.empty() && b.k_ * b.n_ > 0))
    return Status(StatusCode::kInvalidArgument, "matmul: b: not packed (PackMatrix first)");
  if (a.cols() != b.k_)
    return Status(StatusCode::kShapeMismatch, "matmul: a is (" + std::to_string(a.rows()) + ", " +
                                                  std::to_string(a.cols()) + ") but the packed b has " +
                                                  std::to_string(b.k_) + " rows");
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: a.rows()", static_cast<long long>(a.rows()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(budget::MatrixFits("matmul", a.rows(), b.n_));
  try {
    const int m = static_cast<int>(a.rows());
    Matrix product;
    Matrix& target = ProductTarget(out, m, b.n_, {&a}, &product);
    t->gemm_packed(m, b.n_, b.k_, a.data(), static_cast<int>(a.cols()), b.data_.data(), nullptr, target.data(), b.n_);
    if (&target != out) *out = std::move(product);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("MatMul");
  }
}

double MeasurePeakGflops(KernelId kernel, double min_seconds) {
  const simd::KernelTable* t = simd::FindKernelTable(kernel);
  if (!t) return 0.0;
  // The probe runs the form of the multiply-add the kernel choice picked (relaxed wasm: timed on the
  // first call): chosen before the clock starts, not inside the first timed run.
  ChosenKernelSettings(kernel);
  using Clock = std::chrono::steady_clock;
  volatile float sink = 0.0f;  // keeps the probe's result alive
  long steps = 1 << 16;
  double best = 0.0, spent = 0.0;
  while (spent < min_seconds) {
    const auto start = Clock::now();
    sink = sink + t->peak_probe(steps);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    spent += seconds;
    if (seconds > 0.0) {
      const double gflops = 24.0 * t->lanes * static_cast<double>(steps) / seconds * 1e-9;
      best = gflops > best ? gflops : best;
    }
    if (seconds < 0.05) steps *= 2;  // grow until one run is long enough to time well
  }
  return best;
}

namespace simd {

const KernelTable* FindKernelTable(KernelId id) {
  for (const KernelTable* table : CompiledKernelTables())
    if (table->id == id) return table;
  return nullptr;
}

}  // namespace simd
}  // namespace attn
