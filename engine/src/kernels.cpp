#include "attn/kernels.h"

#include <chrono>
#include <iterator>
#include <new>

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

KernelId FastestKernel() { return AvailableKernels().back(); }

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
  ATTN_RETURN_IF_ERROR(CheckKernelAvailable(kernel));
  if (a.cols() != b.rows()) {
    return Status(StatusCode::kShapeMismatch, "matmul: a is (" + std::to_string(a.rows()) + ", " +
                                                  std::to_string(a.cols()) + ") but b has " + std::to_string(b.rows()) +
                                                  " rows");
  }
  // Sizes within attn::Limits before the int arithmetic of the kernels and before allocating.
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: a.rows()", static_cast<long long>(a.rows()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: a.cols()", static_cast<long long>(a.cols()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("matmul: b.cols()", static_cast<long long>(b.cols()), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(budget::MatrixFits("matmul", a.rows(), b.cols()));
  try {
    Matrix product;
    if (kernel == KernelId::kReference) {
      reference::MatMul(a, b, &product);
    } else if (kernel == KernelId::kEigen) {
      eigen::EigenOps<float>::Product(a, b, &product);
    } else {
      // The SIMD GEMM writes straight into a caller's matrix of the right shape that is neither
      // operand: a repeated call allocates nothing (a fresh 4 MB product per call at 4096 × 256
      // page-faulted on some runs and not others: the bench's GEMM read 215 or 280 GFLOP/s).
      const bool in_place = out->rows() == a.rows() && out->cols() == b.cols() && out != &a && out != &b;
      Matrix& target = in_place ? *out : product;
      const simd::KernelTable& t = *simd::FindKernelTable(kernel);
      target.resize(a.rows(), b.cols());
      t.gemm(static_cast<int>(a.rows()), static_cast<int>(b.cols()), static_cast<int>(a.cols()), a.data(),
             static_cast<int>(a.cols()), b.data(), static_cast<int>(b.cols()), false, nullptr, target.data(),
             static_cast<int>(b.cols()));
      if (in_place) return Status::Ok();
    }
    *out = std::move(product);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("MatMul");
  }
  return Status::Ok();
}

double MeasurePeakGflops(KernelId kernel, double min_seconds) {
  const simd::KernelTable* t = simd::FindKernelTable(kernel);
  if (!t) return 0.0;
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
