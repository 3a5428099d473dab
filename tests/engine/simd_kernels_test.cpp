// Every hand-written SIMD variant (wasm_simd128, avx2, avx512 — whichever this build and CPU have)
// against plain double-precision loops: GEMM, fused attention, softmax rows and exp, on shapes on
// both sides of every vector width, with row strides wider than the rows and with pointers that
// are not vector-aligned. Tolerances scale with the values (Σ|a||b| for sums of products).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "attn/config_names.h"
#include "attn/kernel_choice.h"
#include "attn/kernels.h"
#include "kernels/simd/kernel_table.h"
#include "support/random.h"
#ifdef __EMSCRIPTEN__
#include "support/wasm_build.h"
#endif

namespace attn {
namespace {

using simd::FlashAttentionArgs;
using simd::KernelTable;
using testing::RandomMatrix;

const int kSizes[] = {1, 3, 4, 5, 7, 8, 9, 16, 17, 35, 64, 100};
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<const KernelTable*> SimdTables() {
  std::vector<const KernelTable*> tables;
  for (KernelId id : AvailableKernels())
    if (const KernelTable* t = simd::FindKernelTable(id)) tables.push_back(t);
  return tables;
}

// The first candidate of each form of the multiply-add the table runs, the GEMM's and the
// attention's the same (two in the relaxed-SIMD wasm build, whose probe times both for each part; one
// elsewhere): tests that hold a kernel to a bound run under each.
std::vector<KernelChoice> FormsOf(const KernelTable* t) {
  std::vector<KernelChoice> forms;
  for (const KernelChoice& c : KernelChoiceCandidates(t->id))
    if (c.gemm_fused_multiply_add == c.fused_multiply_add &&
        std::none_of(forms.begin(), forms.end(), [&](const KernelChoice& f) { return f.fused_multiply_add == c.fused_multiply_add; }))
      forms.push_back(c);
  return forms;
}

// Sizes picked by a fixed walk through kSizes, so every size meets several others.
int Pick(int i, int salt) { return kSizes[(i * 7 + salt * 5 + salt * salt) % 12]; }

// A buffer of `rows` rows at stride `ld`, starting `offset` floats in (misaligned when odd), filled
// from a seed; the padding between rows holds NaN so a kernel reading past a row is caught.
struct Strided {
  std::vector<float> storage;
  int rows, cols, ld, offset;
  Strided(int rows_, int cols_, int ld_, int offset_, uint32_t seed)
      : storage(static_cast<size_t>(rows_) * ld_ + offset_ + 1, std::numeric_limits<float>::quiet_NaN()),
        rows(rows_), cols(cols_), ld(ld_), offset(offset_) {
    const Matrix m = RandomMatrix(rows, cols, seed);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) at(i, j) = m(i, j);
  }
  float* data() { return storage.data() + offset; }
  float& at(int i, int j) { return storage[offset + static_cast<size_t>(i) * ld + j]; }
};

TEST(SimdKernels, AvailableKernelsAreNamedAndUnavailableOnesAreRefused) {
  const std::vector<KernelId> available = AvailableKernels();
  ASSERT_GE(available.size(), 2u);
  EXPECT_EQ(available[0], KernelId::kReference);
  // FastestKernel is measured: a SIMD variant where there is one (the widest unless another ran ≥ 10%
  // faster in the probe), else the last available.
  const KernelId fastest = FastestKernel();
  EXPECT_TRUE(std::find(available.begin(), available.end(), fastest) != available.end());
  if (!SimdTables().empty()) EXPECT_NE(simd::FindKernelTable(fastest), nullptr) << KernelName(fastest);
  else EXPECT_EQ(fastest, available.back());
  for (int id = 0; id < static_cast<int>(KernelId::kCount); ++id) {
    const KernelId kernel = static_cast<KernelId>(id);
    EXPECT_NE(std::string(KernelName(kernel)), "unknown");
    const bool listed = std::find(available.begin(), available.end(), kernel) != available.end();
    EXPECT_EQ(KernelAvailable(kernel), listed);
    EXPECT_EQ(simd::FindKernelTable(kernel) != nullptr, listed && id >= static_cast<int>(KernelId::kWasmSimd128));
    Matrix out;
    const Status status = MatMul(kernel, Matrix::Ones(2, 3), Matrix::Ones(3, 2), &out);
    EXPECT_EQ(status.ok(), listed) << KernelName(kernel) << ": " << status.message();
    if (!listed) EXPECT_NE(status.message().find("not available"), std::string::npos) << status.message();
    KernelId parsed = KernelId::kCount;
    const Status parse = ParseKernel(KernelName(kernel), &parsed);
    EXPECT_EQ(parse.ok(), listed) << parse.message();
    if (listed) EXPECT_EQ(parsed, kernel);
    if (!listed) EXPECT_NE(parse.message().find("(available: " + AvailableKernelNames() + ")"), std::string::npos);
  }
  KernelId parsed = KernelId::kEigen;
  const Status unknown = ParseKernel("avx9000", &parsed);
  EXPECT_EQ(unknown.code(), StatusCode::kUnknownOption);
  EXPECT_EQ(unknown.message(), "kernel: expected one of " + AvailableKernelNames() + ", got 'avx9000'");
  EXPECT_EQ(parsed, KernelId::kEigen);
#if defined(__EMSCRIPTEN__)
  EXPECT_TRUE(KernelAvailable(KernelId::kWasmSimd128));  // the page's build must have its fast path
#endif
}

// A repeated MatMul into a matrix of the product's shape reuses its buffer (the bench times the GEMM,
// not an allocation and its page faults) and gives the same bits; an output that is also an operand
// still gets the product of the operands as they were.
TEST(SimdKernels, MatMulReusesTheOutputUnlessItIsAnOperand) {
  for (const KernelTable* t : SimdTables()) {
    const Matrix a = RandomMatrix(37, 19, 1), b = RandomMatrix(19, 23, 2);
    Matrix fresh, reused = Matrix::Constant(37, 23, 7.0f);
    ASSERT_TRUE(MatMul(t->id, a, b, &fresh).ok());
    const float* buffer = reused.data();
    ASSERT_TRUE(MatMul(t->id, a, b, &reused).ok());
    EXPECT_EQ(reused.data(), buffer) << KernelName(t->id) << ": the output was reallocated";
    EXPECT_TRUE(reused == fresh) << KernelName(t->id);
    Matrix square = RandomMatrix(21, 21, 3), expected;
    ASSERT_TRUE(MatMul(t->id, square, square, &expected).ok());
    ASSERT_TRUE(MatMul(t->id, square, square, &square).ok());
    EXPECT_TRUE(square == expected) << KernelName(t->id) << ": out aliased a and b";
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
}

TEST(SimdKernels, MatMulChecksShapes) {
  Matrix out;
  const Status status = MatMul(FastestKernel(), Matrix::Ones(2, 3), Matrix::Ones(4, 2), &out);
  EXPECT_EQ(status.code(), StatusCode::kShapeMismatch);
}

// A matrix packed once (a model's weights) multiplies as MatMul(kernel, a, b) does, to the bit, for b
// given either way and for one row (a decode step) or many; the reference and Eigen have no packed
// form, and a packed b refuses an a of the wrong width. Both sides of the panel width and the depth block.
TEST(SimdKernels, PackedMatrixGivesMatMulsBits) {
  for (const KernelTable* t : SimdTables()) {
    for (const auto& [m, k, n] : {std::array<int, 3>{1, 300, 2 * t->lanes + 1}, {7, 257, 3}, {2, 64, 100}, {40, 33, 33}}) {
      for (bool transposed : {false, true}) {
        const Matrix a = RandomMatrix(m, k, 11u * m + k), b = RandomMatrix(transposed ? n : k, transposed ? k : n, 13u * n);
        PackedMatrix packed;
        ASSERT_TRUE(PackMatrix(t->id, b, transposed, &packed).ok());
        EXPECT_EQ(packed.rows(), k);
        EXPECT_EQ(packed.cols(), n);
        EXPECT_EQ(packed.source(), b.data());
        Matrix want, got;
        ASSERT_TRUE(MatMul(t->id, a, b, &want, MatMulOptions{false, transposed, false}).ok());
        ASSERT_TRUE(MatMul(a, packed, &got).ok());
        EXPECT_EQ(got, want) << KernelName(t->id) << " m=" << m << " k=" << k << " n=" << n << " transposed=" << transposed;
      }
    }
    PackedMatrix packed;
    ASSERT_TRUE(PackMatrix(t->id, Matrix::Ones(3, 5), false, &packed).ok());
    Matrix out;
    const Status wrong = MatMul(Matrix::Ones(2, 4), packed, &out);
    EXPECT_EQ(wrong.code(), StatusCode::kShapeMismatch);
    EXPECT_NE(wrong.message().find("has 3 rows"), std::string::npos) << wrong.message();
  }
  PackedMatrix packed;
  const Status eigen = PackMatrix(KernelId::kEigen, Matrix::Ones(3, 5), false, &packed);
  EXPECT_EQ(eigen.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(eigen.message().find("eigen"), std::string::npos) << eigen.message();
  Matrix out;
  EXPECT_EQ(MatMul(Matrix::Ones(2, 3), PackedMatrix(), &out).code(), StatusCode::kInvalidArgument);
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
}

// MatMul's options (a training step's products: xᵀ·dy, dy·Wᵀ, added into a gradient) on every
// available kernel against double loops, each size once as m, n and k; accumulating adds to what
// the output held. Bound: γ_k Σ|a b| for the product, plus one rounding of the sum when adding.
TEST(SimdKernels, MatMulOptionsMatchDoubleLoopsOnEveryKernel) {
  int cases = 0;
  for (KernelId kernel : AvailableKernels()) {
    for (int i = 0; i < 36; ++i) {
      const int m = i < 12 ? kSizes[i] : Pick(i, 1), n = (i >= 12 && i < 24) ? kSizes[i - 12] : Pick(i, 2),
                k = i >= 24 ? kSizes[i - 24] : Pick(i, 3);
      for (int variant = 0; variant < 8; ++variant) {
        MatMulOptions o;
        o.transpose_a = variant & 1, o.transpose_b = variant & 2, o.accumulate = variant & 4;
        const Matrix a = o.transpose_a ? RandomMatrix(k, m, 10 + i) : RandomMatrix(m, k, 10 + i);
        const Matrix b = o.transpose_b ? RandomMatrix(n, k, 20 + i) : RandomMatrix(k, n, 20 + i);
        const Matrix before = RandomMatrix(m, n, 30 + i);
        Matrix out = o.accumulate ? before : Matrix::Constant(2, 3, 7.0f);
        const Status status = MatMul(kernel, a, b, &out, o);
        ASSERT_TRUE(status.ok()) << KernelName(kernel) << ": " << status.message();
        ASSERT_EQ(out.rows(), m);
        ASSERT_EQ(out.cols(), n);
        for (int r = 0; r < m; ++r) {
          for (int c = 0; c < n; ++c) {
            double want = 0, magnitude = 0;
            for (int p = 0; p < k; ++p) {
              const double prod = double(o.transpose_a ? a(p, r) : a(r, p)) * (o.transpose_b ? b(c, p) : b(p, c));
              want += prod, magnitude += std::fabs(prod);
            }
            double bound = (k + 2) * 1.2e-7 * magnitude + 1e-30;
            if (o.accumulate) want += before(r, c), bound += 1.2e-7 * std::fabs(want);
            ASSERT_NEAR(out(r, c), want, bound) << KernelName(kernel) << " m=" << m << " n=" << n << " k=" << k
                                                << " options " << variant << " at (" << r << ", " << c << ")";
          }
        }
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 36 * 8 * static_cast<int>(AvailableKernels().size()));
}

// The options' shapes are checked (named with the transpose), an accumulated output must have the
// product's shape, and an output that is also an operand still gets the operands as they were.
TEST(SimdKernels, MatMulOptionsCheckShapesAndAliasing) {
  for (KernelId kernel : AvailableKernels()) {
    MatMulOptions transposed;
    transposed.transpose_a = true;
    Matrix out;
    Status status = MatMul(kernel, Matrix::Ones(3, 2), Matrix::Ones(4, 5), &out, transposed);
    EXPECT_EQ(status.code(), StatusCode::kShapeMismatch);
    EXPECT_EQ(status.message(), "matmul: aᵀ is (2, 3) but b has 4 rows") << KernelName(kernel);
    MatMulOptions add;
    add.accumulate = true;
    out = Matrix::Ones(2, 2);
    status = MatMul(kernel, Matrix::Ones(2, 3), Matrix::Ones(3, 4), &out, add);
    EXPECT_EQ(status.message(), "matmul: out: accumulating needs (2, 4), got (2, 2)") << KernelName(kernel);
    EXPECT_TRUE(out == Matrix::Ones(2, 2)) << "a refused call changed the output";
    Matrix square = RandomMatrix(9, 9, 4), expected = square;
    add.transpose_b = true;
    Matrix product;
    ASSERT_TRUE(MatMul(kernel, square, square, &product, MatMulOptions{false, true, false}).ok());
    expected += product;
    ASSERT_TRUE(MatMul(kernel, square, square, &square, add).ok());
    EXPECT_TRUE(square.isApprox(expected, 1e-6f)) << KernelName(kernel) << ": out aliased a and b";
  }
}

// MulAdd(a, b, c) is a·b + c on every variant. The relaxed wasm build's MulAdd is clang 14's
// prototype fma builtin rewritten after the link into f32x4.relaxed_madd (scripts/
// wasm_relaxed_opcodes.mjs): were the operands passed in another order (the prototype's a + b·c),
// C = 2·3 + 5·1 would come out 2 + 3·0 = 2, then 5 + 1·2 = 7, not 11. Small integers: exact either way
// of rounding, so the test asks for equality. n = 16 fills whole vectors on every variant.
TEST(SimdKernels, MulAddIsProductPlusAddend) {
  for (const KernelTable* t : SimdTables())
    for (const KernelChoice& form : FormsOf(t)) {
      const ScopedKernelChoice use(form);
      const int n = 16;
      const float a[2] = {2.0f, 5.0f};
      std::vector<float> b(2 * n), c(n, -1.0f);
      std::fill(b.begin(), b.begin() + n, 3.0f);
      std::fill(b.begin() + n, b.end(), 1.0f);
      t->gemm(1, n, 2, a, 2, b.data(), n, false, nullptr, c.data(), n);
      for (int j = 0; j < n; ++j) EXPECT_EQ(c[j], 11.0f) << DescribeKernelChoice(form) << " column " << j;
    }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
}

// KernelBuildName tells the two WebAssembly builds apart (the bench's rows, the speed view); every
// other variant, and the plain wasm build, is named as configs name it.
TEST(SimdKernels, BuildNameSaysWhichBuild) {
  EXPECT_STREQ(KernelBuildName(KernelId::kReference), "reference");
  EXPECT_STREQ(KernelBuildName(KernelId::kEigen), "eigen");
  for (const KernelTable* t : SimdTables()) {
#ifdef __EMSCRIPTEN__
    const bool relaxed = t->id == KernelId::kWasmSimd128 && TestBuildIsRelaxedSimd();
#else
    const bool relaxed = false;
#endif
    EXPECT_STREQ(KernelBuildName(t->id), relaxed ? "wasm_relaxed_simd" : KernelName(t->id));
  }
}

TEST(SimdKernels, GemmMatchesDoubleLoops) {
  int cases = 0;
  for (const KernelTable* t : SimdTables())
    for (const KernelChoice& form : FormsOf(t)) {
      const ScopedKernelChoice use(form);
      for (int i = 0; i < 36; ++i) {
        // Each size once as m, once as n, once as k; the others from the walk.
        const int m = i < 12 ? kSizes[i] : Pick(i, 1), n = (i >= 12 && i < 24) ? kSizes[i - 12] : Pick(i, 2),
                  k = i >= 24 ? kSizes[i - 24] : Pick(i, 3);
        for (int variant = 0; variant < 4; ++variant) {
          const bool transposed = variant & 1, bias = variant & 2;
          const int pad = 1 + i % 3, offset = i % 2;  // strides wider than rows, odd offsets: unaligned
          Strided a(m, k, k + pad, offset, 100 + i);
          Strided b(transposed ? n : k, transposed ? k : n, (transposed ? k : n) + pad, 1 - offset, 200 + i);
          Strided bias_row(1, n, n, offset, 300 + i);
          Strided c(m, n, n + pad, offset, 400 + i);
          t->gemm(m, n, k, a.data(), a.ld, b.data(), b.ld, transposed, bias ? bias_row.data() : nullptr, c.data(), c.ld);
          for (int r = 0; r < m; ++r) {
            for (int col = 0; col < n; ++col) {
              double want = bias ? bias_row.at(0, col) : 0.0, magnitude = std::fabs(want);
              for (int p = 0; p < k; ++p) {
                const double prod = double(a.at(r, p)) * (transposed ? b.at(col, p) : b.at(p, col));
                want += prod, magnitude += std::fabs(prod);
              }
              ASSERT_NEAR(c.at(r, col), want, (k + 2) * 1.2e-7 * magnitude + 1e-30)  // γ_(k+1) Σ|a b|, either form
                  << DescribeKernelChoice(form) << " m=" << m << " n=" << n << " k=" << k << " transposed=" << transposed
                  << " bias=" << bias << " at (" << r << ", " << col << ")";
            }
            // The padding after each row of C is untouched.
            for (int col = n; col < c.ld && r + 1 < m; ++col) ASSERT_TRUE(std::isnan(c.at(r, col)));
          }
          ++cases;
        }
      }
    }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// A row's sums do not depend on how the call is cut: rows of a call with fewer rows than the
// micro-kernel (gemm's few-rows path: B read in place, a decode step's one row; gemm_packed's, down
// the packed panels, one row four panels at a time) and depths past one
// depth block (GemmPacked's slices of k, continued from the stored value) give the bits of the tiled,
// packed path, for B in both layouts, with and without bias. Sizes straddle the vector width, the
// panel width and the depth block (4096 / lanes steps); the double loops bound both (as GemmMatchesDoubleLoops).
TEST(SimdKernels, FewRowsAndDepthBlocksGiveTheTiledPathsBits) {
  int cases = 0;
  for (const KernelTable* t : SimdTables()) {
    const int lanes = t->lanes, big = 7;  // 7 rows: the tiled path on every variant (kMr is 4 or 6)
    // 18·lanes + 3: nine whole panels and a part (one row: two rounds of four panels, then two alone)
    for (int n : {1, lanes - 1, 2 * lanes + 3, 100, 18 * lanes + 3}) {
      const int depth = 4096 / lanes;  // gemm_tiled.h's DepthBlock: a 32 KB slice of a panel of 2·lanes columns
      for (int k : {3, depth - 1, depth, depth + 1, 2 * depth + 5}) {
        for (int variant = 0; variant < 4; ++variant) {
          const bool transposed = variant & 1, bias = variant & 2;
          const uint32_t seed = 1000u * n + 10u * k + variant;
          Strided a(big, k, k + 1, 1, seed);
          Strided b(transposed ? n : k, transposed ? k : n, (transposed ? k : n) + 2, 0, seed + 1);
          Strided bias_row(1, n, n, 1, seed + 2);
          const float* bias_data = bias ? bias_row.data() : nullptr;
          std::vector<float> tiled(static_cast<size_t>(big) * n), packed(t->packed_size(k, n));
          t->gemm(big, n, k, a.data(), a.ld, b.data(), b.ld, transposed, bias_data, tiled.data(), n);
          t->pack_b(b.data(), b.ld, transposed, k, n, packed.data());
          for (int rows : {1, 2, 3}) {
            for (int first = 0; first + rows <= big; first += 3) {
              std::vector<float> few(static_cast<size_t>(rows) * n), few_packed(few.size());
              t->gemm(rows, n, k, &a.at(first, 0), a.ld, b.data(), b.ld, transposed, bias_data, few.data(), n);
              t->gemm_packed(rows, n, k, &a.at(first, 0), a.ld, packed.data(), bias_data, few_packed.data(), n);
              for (int r = 0; r < rows; ++r)
                for (int col = 0; col < n; ++col) {
                  const float want = tiled[static_cast<size_t>(first + r) * n + col];
                  ASSERT_EQ(few[static_cast<size_t>(r) * n + col], want)
                      << KernelName(t->id) << " rows=" << rows << " n=" << n << " k=" << k << " transposed=" << transposed
                      << " bias=" << bias << " at (" << first + r << ", " << col << ")";
                  ASSERT_EQ(few_packed[static_cast<size_t>(r) * n + col], want)
                      << KernelName(t->id) << " packed, rows=" << rows << " n=" << n << " k=" << k;
                }
            }
          }
          for (int r = 0; r < big; ++r)
            for (int col = 0; col < n; ++col) {
              double want = bias ? bias_row.at(0, col) : 0.0, magnitude = std::fabs(want);
              for (int p = 0; p < k; ++p) {
                const double prod = double(a.at(r, p)) * (transposed ? b.at(col, p) : b.at(p, col));
                want += prod, magnitude += std::fabs(prod);
              }
              ASSERT_NEAR(tiled[static_cast<size_t>(r) * n + col], want, (k + 2) * 1.2e-7 * magnitude + 1e-30);
            }
          ++cases;
        }
      }
    }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// GemmPacked's two loop orders and its row tiles of every height give the same bits: a block whose
// A (144 rows × k) is past gemm_tiled.h's 512 KB runs slice by slice over every panel, a block of
// 7 rows panel by panel; 149 = 144 + 5 rows end on a tile of 5 (AVX) or 4 + 1 (wasm), the 7-row
// calls on 6 + 1 or 4 + 3. k spans several depth slices on every variant (kDepthBlock = 4096 / lanes),
// n ends on a partial panel. Every entry is also within γ_k Σ|a b| of double loops.
TEST(SimdKernels, BothLoopOrdersAndEveryTileHeightGiveTheSameBits) {
  int cases = 0;
  for (const KernelTable* t : SimdTables()) {
    const int lanes = t->lanes, m = 149, n = 4 * lanes + 3;
    const int k = 4 * (4096 / lanes) + 7;  // > 131072 / 144 floats on every variant: the slice order
    ASSERT_GT(144 * k, 128 * 1024);
    Strided a(m, k, k + 1, 1, 77u + lanes), b(k, n, n + 2, 0, 78u + lanes);
    std::vector<float> packed(t->packed_size(k, n)), whole(static_cast<size_t>(m) * n);
    t->pack_b(b.data(), b.ld, false, k, n, packed.data());
    t->gemm_packed(m, n, k, a.data(), a.ld, packed.data(), nullptr, whole.data(), n);
    for (int first = 0; first < m; first += 7) {
      const int rows = std::min(7, m - first);
      std::vector<float> part(static_cast<size_t>(rows) * n);
      t->gemm_packed(rows, n, k, &a.at(first, 0), a.ld, packed.data(), nullptr, part.data(), n);
      for (int r = 0; r < rows; ++r)
        for (int col = 0; col < n; ++col)
          ASSERT_EQ(part[static_cast<size_t>(r) * n + col], whole[static_cast<size_t>(first + r) * n + col])
              << KernelName(t->id) << " rows " << first << "+" << rows << " at (" << first + r << ", " << col << ")";
    }
    for (int r = 0; r < m; ++r)
      for (int col = 0; col < n; ++col) {
        double want = 0.0, magnitude = 0.0;
        for (int p = 0; p < k; ++p) {
          const double prod = double(a.at(r, p)) * b.at(p, col);
          want += prod, magnitude += std::fabs(prod);
        }
        ASSERT_NEAR(whole[static_cast<size_t>(r) * n + col], want, (k + 2) * 1.2e-7 * magnitude + 1e-30)
            << KernelName(t->id) << " at (" << r << ", " << col << ")";
      }
    ++cases;
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// Every GEMM setting KernelChoice may pick (tile heights 4, 6, 8 where the ISA has them; 16 and 32 KB
// depth slices) gives the bits of its form of the multiply-add's default setting, packed and
// unpacked, on rows that end on every tile height's edge, k across several slices of either size and
// n on both sides of the panel width. (The two forms differ within GemmMatchesDoubleLoops' bound.)
TEST(SimdKernels, EveryGemmSettingGivesTheSameBits) {
  int cases = 0;
  for (const KernelTable* t : SimdTables()) {
    std::vector<KernelChoice> settings;  // one per GEMM setting
    for (const KernelChoice& c : KernelChoiceCandidates(t->id))
      if (std::none_of(settings.begin(), settings.end(), [&](const KernelChoice& s) {
            return s.gemm_rows == c.gemm_rows && s.gemm_slice_kb == c.gemm_slice_kb &&
                   s.gemm_fused_multiply_add == c.gemm_fused_multiply_add;
          }))
        settings.push_back(c);
    ASSERT_GE(settings.size(), 2u) << KernelName(t->id) << ": both slice sizes at least";
    const int lanes = t->lanes, slice16 = 16 * 1024 / (2 * lanes * 4);
    for (int m : {1, 3, 5, 7, 9, 17, 49, 149})
      for (int n : {lanes - 1, 2 * lanes + 3, 9 * lanes + 1})
        for (int k : {3, slice16 - 1, slice16 + 1, 2 * slice16 + 5, 5 * slice16 + 3}) {
          if (n < 1) continue;
          const uint32_t seed = 100u * m + 10u * n + k;
          Strided a(m, k, k + 1, 1, seed), b(k, n, n + 2, 0, seed + 1);
          std::vector<float> packed(t->packed_size(k, n));
          t->pack_b(b.data(), b.ld, false, k, n, packed.data());
          std::vector<float> want(static_cast<size_t>(m) * n), got(want.size()), got_packed(want.size());
          for (size_t i = 0; i < settings.size(); ++i) {  // each form's settings in a run, its default first
            const KernelChoice& setting = settings[i];
            if (i == 0 || settings[i - 1].gemm_fused_multiply_add != setting.gemm_fused_multiply_add) {
              const ScopedKernelChoice use(setting);  // the first setting of its form: the bits to match
              t->gemm_packed(m, n, k, a.data(), a.ld, packed.data(), nullptr, want.data(), n);
            }
            const ScopedKernelChoice use(setting);
            t->gemm(m, n, k, a.data(), a.ld, b.data(), b.ld, false, nullptr, got.data(), n);
            t->gemm_packed(m, n, k, a.data(), a.ld, packed.data(), nullptr, got_packed.data(), n);
            for (size_t i = 0; i < want.size(); ++i) {
              ASSERT_EQ(got[i], want[i]) << DescribeKernelChoice(setting) << " m=" << m << " n=" << n << " k=" << k << " at " << i;
              ASSERT_EQ(got_packed[i], want[i]) << DescribeKernelChoice(setting) << " packed, m=" << m << " n=" << n << " k=" << k;
            }
            ++cases;
          }
        }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// pack_b of a transposed B (the fused kernel's Kᵀ panels and a prepared layer's weights) against a
// plain loop, for shapes around every transpose tile (4 × 4 on wasm, 8 × 8 on x86) and panel width:
// exact, zeros past the last column, and nothing read from the NaN padding between rows.
TEST(SimdKernels, PackTransposedMatchesPlainLoop) {
  int cases = 0;
  for (const KernelTable* t : SimdTables()) {
    const int nr = 2 * t->lanes;  // panel width
    for (int n : {1, 3, 15, 17, 33}) {
      for (int k : {1, 7, 16, 63, 64}) {
        Strided bt(n, k, k + 3, 1, 17u * n + k);  // B given as Bᵀ (n, k), rows k + 3 apart, misaligned
        std::vector<float> packed(t->packed_size(k, n), std::numeric_limits<float>::quiet_NaN());
        t->pack_b(bt.data(), bt.ld, true, k, n, packed.data());
        ASSERT_EQ(packed.size(), static_cast<size_t>((n + nr - 1) / nr * nr) * k);
        for (size_t i = 0; i < packed.size(); ++i) {
          const int panel = static_cast<int>(i / (static_cast<size_t>(k) * nr)),
                    p = static_cast<int>(i / nr % k), j = panel * nr + static_cast<int>(i % nr);
          const float expected = j < n ? bt.at(j, p) : 0.0f;
          ASSERT_EQ(packed[i], expected) << t->lanes << " lanes, n " << n << ", k " << k << ", key " << j << ", p " << p;
        }
        ++cases;
      }
    }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// softmax(scale · q kᵀ + mask) v in double, the mask as in FlashAttentionArgs; a row with no
// allowed key gives zeros. tolerance[i]: float32's error bound for row i — a score's error is at
// most (d_k + 4)·u·scale·Σ|q||k|, which moves the weighted mean of v by at most that times max|v|.
std::vector<double> AttentionDouble(const FlashAttentionArgs& a, std::vector<double>* tolerance) {
  std::vector<double> out(static_cast<size_t>(a.n) * a.d_v, 0.0);
  double v_max = 0;
  for (int j = 0; j < a.m; ++j)
    for (int c = 0; c < a.d_v; ++c) v_max = std::max(v_max, std::fabs(double(a.v[j * a.ldv + c])));
  tolerance->assign(a.n, (a.m + 4) * 1.2e-7 * v_max);  // the weighted sum over m keys
  for (int i = 0; i < a.n; ++i) {
    const int p = a.query_offset + i;
    std::vector<double> s(a.m, -INFINITY);
    double mx = -INFINITY;
    for (int j = 0; j < a.m; ++j) {
      const bool allowed = (!a.causal || j <= p) && (a.window_left < 0 || j >= p - a.window_left) &&
                           (a.window_right < 0 || j <= p + a.window_right);
      if (!allowed) continue;
      double dot = 0, magnitude = 0;
      for (int c = 0; c < a.d_k; ++c) {
        dot += double(a.q[i * a.ldq + c]) * a.k[j * a.ldk + c];
        magnitude += std::fabs(double(a.q[i * a.ldq + c]) * a.k[j * a.ldk + c]);
      }
      s[j] = a.scale * dot;
      (*tolerance)[i] = std::max((*tolerance)[i], 2 * (a.d_k + 4) * 1.2e-7 * a.scale * magnitude * v_max);
      mx = std::max(mx, s[j]);
    }
    if (mx == -INFINITY) continue;
    double sum = 0;
    for (int j = 0; j < a.m; ++j) sum += s[j] == -INFINITY ? 0.0 : std::exp(s[j] - mx);
    for (int j = 0; j < a.m; ++j) {
      if (s[j] == -INFINITY) continue;
      const double w = std::exp(s[j] - mx) / sum;
      for (int c = 0; c < a.d_v; ++c) out[i * a.d_v + c] += w * a.v[j * a.ldv + c];
    }
  }
  return out;
}

TEST(SimdKernels, FlashAttentionMatchesDoubleSoftmaxAttention) {
  struct Mask {
    bool causal;
    int left, right, offset;
  };
  const Mask masks[] = {{false, -1, -1, 0}, {true, -1, -1, 0}, {false, 2, 1, 0}, {true, 4, -1, 3}, {true, -1, -1, -6},
                        {false, 0, 0, 0}};
  int cases = 0;
  for (const KernelTable* t : SimdTables()) {
    for (int i = 0; i < 24; ++i) {
      const int n = i < 12 ? kSizes[i] : Pick(i, 1), m = i >= 12 ? kSizes[i - 12] : Pick(i, 2);
      const int d_k = Pick(i, 3), d_v = Pick(i, 4);
      const Mask& mask = masks[i % 6];
      const int pad = i % 3, offset = i % 2;
      Strided q(n, d_k, d_k + pad, offset, 500 + i), k(m, d_k, d_k + 1, offset, 600 + i),
          v(m, d_v, d_v + pad, 1 - offset, 700 + i), out(n, d_v, d_v + 2, offset, 800 + i);
      FlashAttentionArgs args;
      args.q = q.data(), args.ldq = q.ld, args.k = k.data(), args.ldk = k.ld, args.v = v.data(), args.ldv = v.ld;
      args.out = out.data(), args.ldo = out.ld;
      args.n = n, args.m = m, args.d_k = d_k, args.d_v = d_v;
      args.scale = 3.0f / std::sqrt(static_cast<float>(d_k));  // sharp enough that the max matters
      args.causal = mask.causal, args.window_left = mask.left, args.window_right = mask.right;
      args.query_offset = mask.offset;
      t->flash_attention(args);
      std::vector<double> tolerance;
      const std::vector<double> want = AttentionDouble(args, &tolerance);
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < d_v; ++c)
          ASSERT_NEAR(out.at(r, c), want[r * d_v + c], tolerance[r] + 1e-6)
              << KernelName(t->id) << " n=" << n << " m=" << m << " d_k=" << d_k << " d_v=" << d_v
              << " mask #" << i % 6 << " at (" << r << ", " << c << ")";
      ++cases;
    }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

TEST(SimdKernels, FlashAttentionSpansManyKeyTilesWithLargeScores) {
  // Several 64-key tiles and scores in the hundreds: the online softmax must rescale exactly.
  for (const KernelTable* t : SimdTables()) {
    const int n = 70, m = 300, d = 16;
    Matrix q = RandomMatrix(n, d, 1, -4.0f, 4.0f), k = RandomMatrix(m, d, 2, -4.0f, 4.0f), v = RandomMatrix(m, d, 3);
    Matrix out(n, d);
    FlashAttentionArgs args;
    args.q = q.data(), args.ldq = d, args.k = k.data(), args.ldk = d, args.v = v.data(), args.ldv = d;
    args.out = out.data(), args.ldo = d, args.n = n, args.m = m, args.d_k = d, args.d_v = d, args.scale = 2.0f;
    t->flash_attention(args);
    std::vector<double> tolerance;
    const std::vector<double> want = AttentionDouble(args, &tolerance);
    for (int i = 0; i < n * d; ++i)
      ASSERT_NEAR(out.data()[i], want[i], tolerance[i / d] + 1e-6) << KernelName(t->id) << " at " << i;
  }
}

// Every attention setting KernelChoice may pick (query tiles of 4 or 8 micro-kernel tiles; key tiles
// of 64, 128 or 256; either form of the multiply-add where the build has two) within float32's bound
// of double softmax attention, masks and all, on sizes on both sides of every tile; settings that
// differ only in the query tile give the same bits (a row's arithmetic does not depend on the rows
// beside it). Each shape twice: as drawn (scores provably under 2^24 in size: in log2 units) and with
// q's first column 1e7 against a zero column of k — the same scores, but a bound from max |q|·max |k|
// above 2^24, so the kernel scales them in the exp pass, in two roundings, checked.
TEST(SimdKernels, EveryAttentionSettingIsWithinTheBound) {
  struct Shape {
    int n, m, d_k, d_v;
    bool causal;
    int left, right, offset;
  };
  const Shape shapes[] = {{1, 300, 16, 8, false, -1, -1, 0}, {23, 65, 5, 9, true, -1, -1, 0},
                          {50, 257, 16, 16, false, 40, 3, 0}, {97, 129, 8, 3, true, -1, -1, 5},
                          {130, 520, 17, 33, true, 200, -1, 0}};
  int cases = 0;
  for (const KernelTable* t : SimdTables()) {
    int s = 0;
    for (const Shape& shape : shapes)
    for (const bool large_bound : {false, true}) {
      ++s;
      Strided q(shape.n, shape.d_k, shape.d_k + 1, 1, 900 + s), k(shape.m, shape.d_k, shape.d_k, 0, 910 + s),
          v(shape.m, shape.d_v, shape.d_v + 1, 1, 920 + s);
      for (int i = 0; i < shape.n; ++i)
        for (int c = 0; c < shape.d_k; ++c) q.at(i, c) *= 3.0f;  // sharp: which keys dominate matters
      if (large_bound) {
        for (int i = 0; i < shape.n; ++i) q.at(i, 0) = 1e7f;
        for (int j = 0; j < shape.m; ++j) k.at(j, 0) = 0.0f;
      }
      FlashAttentionArgs args;
      args.q = q.data(), args.ldq = q.ld, args.k = k.data(), args.ldk = k.ld, args.v = v.data(), args.ldv = v.ld;
      args.n = shape.n, args.m = shape.m, args.d_k = shape.d_k, args.d_v = shape.d_v;
      args.scale = 2.0f / std::sqrt(static_cast<float>(shape.d_k));
      args.causal = shape.causal, args.window_left = shape.left, args.window_right = shape.right;
      args.query_offset = shape.offset;
      std::vector<double> tolerance;
      const std::vector<double> want = AttentionDouble(args, &tolerance);
      std::vector<std::pair<KernelChoice, std::vector<float>>> outputs;
      for (const KernelChoice& setting : KernelChoiceCandidates(t->id)) {
        if (setting.gemm_rows != KernelChoiceCandidates(t->id)[0].gemm_rows ||
            setting.gemm_slice_kb != KernelChoiceCandidates(t->id)[0].gemm_slice_kb ||
            setting.gemm_fused_multiply_add != KernelChoiceCandidates(t->id)[0].gemm_fused_multiply_add)
          continue;  // the GEMM's settings do not reach the attention kernel
        std::vector<float> out(static_cast<size_t>(shape.n) * shape.d_v);
        args.out = out.data(), args.ldo = shape.d_v;
        {
          const ScopedKernelChoice use(setting);
          t->flash_attention(args);
        }
        for (int r = 0; r < shape.n; ++r)
          for (int c = 0; c < shape.d_v; ++c)
            ASSERT_NEAR(out[r * shape.d_v + c], want[r * shape.d_v + c], tolerance[r] + 1e-6)
                << DescribeKernelChoice(setting) << " shape #" << s << " at (" << r << ", " << c << ")";
        for (const auto& [other, other_out] : outputs)
          if (other.attention_keys == setting.attention_keys && other.fused_multiply_add == setting.fused_multiply_add)
            ASSERT_EQ(out, other_out) << DescribeKernelChoice(setting) << " against " << DescribeKernelChoice(other);
        outputs.emplace_back(setting, out);
        ++cases;
      }
    }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// no_inf_or_nan (validate::NoInfOrNan on the widest variant): false for one ±inf or NaN at any place
// of any length on both sides of 4 vectors, true for finite values of every size (FLT_MAX, denormals, −0).
TEST(SimdKernels, NoInfOrNanFindsEveryNonFiniteValue) {
  int cases = 0;
  const float finite[] = {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min(), -0.0f, 1.0f};
  const float bad[] = {kInf, -kInf, std::numeric_limits<float>::quiet_NaN()};
  for (const KernelTable* t : SimdTables()) {
    for (int count : {0, 1, t->lanes - 1, t->lanes, 4 * t->lanes - 1, 4 * t->lanes, 4 * t->lanes + 1, 9 * t->lanes + 3}) {
      std::vector<float> x(static_cast<size_t>(count) + 1);
      for (int i = 0; i < count; ++i) x[i] = finite[i % 5];
      x[count] = kInf;  // past the end: never read
      ASSERT_TRUE(t->no_inf_or_nan(x.data(), count)) << KernelName(t->id) << " count " << count;
      for (int at = 0; at < count; ++at)
        for (float b : bad) {
          const float kept = x[at];
          x[at] = b;
          ASSERT_FALSE(t->no_inf_or_nan(x.data(), count)) << KernelName(t->id) << " count " << count << ", " << b << " at " << at;
          x[at] = kept;
          ++cases;
        }
    }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// columns_max_abs (the fused forward's value columns): each column's largest |x| exactly as a scalar
// loop finds it, for widths on both sides of 1 and 2 vectors, rows 1 … 3, a row stride past the width
// whose floats are never read (they would be the maximum); false for one ±inf or NaN at any place.
TEST(SimdKernels, ColumnsMaxAbsIsEachColumnsLargestSizeAndFindsEveryNonFiniteValue) {
  int cases = 0;
  const float bad[] = {kInf, -kInf, std::numeric_limits<float>::quiet_NaN()};
  for (const KernelTable* t : SimdTables()) {
    const int L = t->lanes;
    for (int cols : {1, L - 1, L, L + 1, 2 * L - 1, 2 * L, 2 * L + 3})
      for (int rows : {1, 2, 3}) {
        if (cols < 1) continue;
        const int ld = cols + 5;
        std::vector<float> x(static_cast<size_t>(rows) * ld, 1e30f);  // past each row's cols: never read
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c)
            x[r * ld + c] = static_cast<float>(((r * 7 + c * 13) % 11) - 5) * std::ldexp(1.0f, (c * 5 + r) % 60 - 30);
        x[(rows - 1) * ld] = -std::numeric_limits<float>::max();
        std::vector<float> most(cols, -1.0f), want(cols, 0.0f);
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) want[c] = std::max(want[c], std::fabs(x[r * ld + c]));
        ASSERT_TRUE(t->columns_max_abs(x.data(), rows, cols, ld, most.data())) << KernelName(t->id) << " " << rows << "×" << cols;
        for (int c = 0; c < cols; ++c)
          ASSERT_EQ(most[c], want[c]) << KernelName(t->id) << " " << rows << "×" << cols << ", column " << c;
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c)
            for (float b : bad) {
              const float kept = x[r * ld + c];
              x[r * ld + c] = b;
              ASSERT_FALSE(t->columns_max_abs(x.data(), rows, cols, ld, most.data()))
                  << KernelName(t->id) << " " << rows << "×" << cols << ", " << b << " at " << r << "," << c;
              x[r * ld + c] = kept;
              ++cases;
            }
      }
  }
  if (SimdTables().empty()) GTEST_SKIP() << "no SIMD variant on this target";
  EXPECT_GT(cases, 0);
}

// The probe picks one of the candidates, measures it and says so; SetKernelChoice admits only
// candidates, naming the field, the candidates and the value, and keeps what it was given.
TEST(SimdKernels, KernelChoiceIsACandidateMeasuredAndSaid) {
  EXPECT_EQ(DescribeKernelChoice(ChosenKernelSettings(KernelId::kEigen)), "eigen: no tiling to choose");
  EXPECT_TRUE(KernelChoiceCandidates(KernelId::kReference).empty());
  for (const KernelTable* t : SimdTables()) {
    const KernelChoice chosen = ChosenKernelSettings(t->id);
    const std::vector<KernelChoice> candidates = KernelChoiceCandidates(t->id);
    const bool listed = std::any_of(candidates.begin(), candidates.end(), [&](const KernelChoice& c) {
      return c.gemm_rows == chosen.gemm_rows && c.gemm_slice_kb == chosen.gemm_slice_kb &&
             c.attention_rows == chosen.attention_rows && c.attention_keys == chosen.attention_keys &&
             c.fused_multiply_add == chosen.fused_multiply_add && c.gemm_fused_multiply_add == chosen.gemm_fused_multiply_add;
    });
    EXPECT_TRUE(listed) << DescribeKernelChoice(chosen);
    EXPECT_GT(chosen.candidates, 2) << DescribeKernelChoice(chosen);
    EXPECT_TRUE(chosen.gemm_gflops > 0 && std::isfinite(chosen.gemm_gflops)) << DescribeKernelChoice(chosen);
    EXPECT_TRUE(chosen.attention_gflops > 0 && std::isfinite(chosen.attention_gflops)) << DescribeKernelChoice(chosen);
    const std::string said = DescribeKernelChoice(chosen);
    std::printf("[ choice ] %s\n", said.c_str());
    EXPECT_EQ(said.rfind(std::string(t->build_name) + ": GEMM tiles of " + std::to_string(chosen.gemm_rows) + " rows", 0), 0u)
        << said;
    EXPECT_NE(said.find("settings timed in"), std::string::npos) << said;
    // The clock it timed with, and what it says where a clock is too coarse to time anything (a
    // browser that resists fingerprinting ticks every 100 ms) or does not move.
    EXPECT_TRUE(chosen.clock_tick_us > 0 && chosen.clock_tick_us <= 500) << chosen.clock_tick_us;
    KernelChoice coarse = KernelChoiceCandidates(t->id)[0];
    coarse.probe_ms = 0.3, coarse.clock_tick_us = 1e5;
    EXPECT_NE(DescribeKernelChoice(coarse).find("(the defaults: this clock ticks every 100 ms, too coarse to time them)"),
              std::string::npos) << DescribeKernelChoice(coarse);
    coarse.clock_tick_us = std::numeric_limits<double>::infinity();
    EXPECT_NE(DescribeKernelChoice(coarse).find("(the defaults: this clock does not move, so nothing can be timed)"),
              std::string::npos) << DescribeKernelChoice(coarse);
    // The form of the multiply-add, the GEMM's and the attention's each: chosen, and said, only where
    // the build has two (the relaxed-SIMD wasm build: its candidates come in every pair of forms);
    // fixed, and refused otherwise, elsewhere.
    const std::vector<KernelChoice> forms = FormsOf(t);
    EXPECT_EQ(forms.size(), t->chooses_fusion ? 2u : 1u) << said;
    const auto form = [](bool fused) { return fused ? "fused (f32x4.relaxed_madd)" : "unfused (a multiply, then an add)"; };
    const std::string form_said = chosen.gemm_fused_multiply_add == chosen.fused_multiply_add
                                      ? std::string("; multiply-adds ") + form(chosen.fused_multiply_add)
                                      : std::string("; the GEMM's multiply-adds ") + form(chosen.gemm_fused_multiply_add) +
                                            ", the attention's " + form(chosen.fused_multiply_add);
    EXPECT_EQ(said.find(form_said) != std::string::npos, t->chooses_fusion) << said;
    if (t->chooses_fusion) {
      const auto mixed = [&](bool gemm, bool attention) {
        return std::any_of(candidates.begin(), candidates.end(), [&](const KernelChoice& c) {
          return c.gemm_fused_multiply_add == gemm && c.fused_multiply_add == attention;
        });
      };
      EXPECT_TRUE(mixed(true, false) && mixed(false, true)) << "each part's form is its own";
      KernelChoice pair = chosen;
      pair.gemm_fused_multiply_add = false, pair.fused_multiply_add = true;
      EXPECT_NE(DescribeKernelChoice(pair).find("; the GEMM's multiply-adds unfused (a multiply, then an add), the "
                                                "attention's fused (f32x4.relaxed_madd)"),
                std::string::npos) << DescribeKernelChoice(pair);
    } else {
      EXPECT_EQ(chosen.fused_multiply_add, t->fused_multiply_add) << said;
      EXPECT_EQ(chosen.gemm_fused_multiply_add, t->fused_multiply_add) << said;
      for (const char* field : {"fused_multiply_add", "gemm_fused_multiply_add"}) {
        KernelChoice other_form = chosen;
        bool& flip = std::string(field) == "fused_multiply_add" ? other_form.fused_multiply_add
                                                                : other_form.gemm_fused_multiply_add;
        flip = !flip;
        const Status refused = SetKernelChoice(other_form);
        EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
        EXPECT_NE(refused.message().find(std::string("kernel choice: ") + field + " must be " +
                                         (t->fused_multiply_add ? "true" : "false") + " on " + KernelName(t->id) +
                                         " (its only form)"),
                  std::string::npos)
            << refused.message();
      }
    }

    KernelChoice bad = chosen;
    bad.gemm_rows = 5;
    Status status = SetKernelChoice(bad);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("gemm_rows must be one of 4"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("got 5"), std::string::npos) << status.message();
    bad = chosen, bad.attention_keys = 100;
    status = SetKernelChoice(bad);
    EXPECT_NE(status.message().find("attention_keys must be one of 128, 64, 256 on"), std::string::npos) << status.message();
    bad = chosen, bad.attention_rows = t->micro_rows * 8 + 1;
    EXPECT_EQ(SetKernelChoice(bad).code(), StatusCode::kInvalidArgument);
    bad = chosen, bad.gemm_slice_kb = 0;
    EXPECT_EQ(SetKernelChoice(bad).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(ChosenKernelSettings(t->id).gemm_rows, chosen.gemm_rows) << "a refused choice changes nothing";

    KernelChoice other = candidates.back();
    ASSERT_TRUE(SetKernelChoice(other).ok());
    const KernelChoice now = ChosenKernelSettings(t->id);
    EXPECT_EQ(now.attention_keys, other.attention_keys);
    EXPECT_EQ(now.candidates, 0);
    EXPECT_NE(DescribeKernelChoice(now).find("(set, not measured here)"), std::string::npos);
    // The defaults (a page's first load, whose worker probes for the next) say so.
    const KernelChoice defaults = DefaultKernelChoice(t->id);
    EXPECT_EQ(defaults.gemm_rows, candidates[0].gemm_rows);
    EXPECT_EQ(defaults.attention_keys, candidates[0].attention_keys);
    ASSERT_TRUE(SetKernelChoice(defaults).ok());
    const std::string said_defaults = DescribeKernelChoice(ChosenKernelSettings(t->id));
    EXPECT_EQ(said_defaults.substr(said_defaults.size() - 34), " (the defaults, not measured here)") << said_defaults;
    // As it was, for the tests after this one; handed on with its probe's numbers (the page's saved
    // choice, a worker's), it says where they come from.
    ASSERT_TRUE(SetKernelChoice(chosen).ok());
    const KernelChoice back = ChosenKernelSettings(t->id);
    EXPECT_TRUE(back.set_from_elsewhere);
    EXPECT_FALSE(chosen.set_from_elsewhere) << "the probe's own";
    if (chosen.candidates > 0) {
      char text[200];
      std::snprintf(text, sizeof text, " (taken from an earlier probe: the fastest of %d settings, timed in %.1f ms: GEMM ",
                    chosen.candidates, chosen.probe_ms);
      EXPECT_NE(DescribeKernelChoice(back).find(text), std::string::npos) << DescribeKernelChoice(back);
    }
  }
  KernelChoice missing;
  missing.kernel = KernelId::kCount;
  EXPECT_EQ(SetKernelChoice(missing).code(), StatusCode::kUnknownOption);
}

// One key whose score is NaN (q·k = 1e60 − 1e60), −inf or +inf among 130 finite ones, inside the
// first two (unmasked, 64-key) tiles or the last (partly masked) one: the kernel must report it. The
// unmasked tiles take the max of the raw scores, which can skip a NaN, and check the scaled scores
// in the exp pass. n = 3 is less than a query tile (the check always runs); with n = 70, more than
// any tile, the kernel first bounds the scores from max |q| and max |k|: without a bad key they are
// provably finite (4·2·1e30·1e−3·1e−30 ≪ FLT_MAX) and the exp pass skips its check, with one it
// cannot prove it and must find the bad score.
TEST(SimdKernels, FlashAttentionReportsANonFiniteScoreInAnyKeyTile) {
  for (const int n : {3, 70}) {
    const int m = 130, d = 2;
    const float big = 1e30f;
    const float bad_keys[][2] = {{big, -big}, {-big, -big}, {big, big}};  // NaN, −inf, +inf against q = (1e30, 1e30)
    for (const KernelTable* t : SimdTables()) {
      for (int kind = 0; kind < 3; ++kind) {
        for (int bad_at : {-1, 5, 100, 129}) {  // -1: none; 129: in the partly masked last tile
          Matrix q = Matrix::Constant(n, d, big), k = RandomMatrix(m, d, 4, -1e-3f, 1e-3f), v = RandomMatrix(m, d, 5);
          if (bad_at >= 0) k(bad_at, 0) = bad_keys[kind][0], k(bad_at, 1) = bad_keys[kind][1];
          Matrix out(n, d);
          bool overflowed = false;
          FlashAttentionArgs args;
          args.q = q.data(), args.ldq = d, args.k = k.data(), args.ldk = d, args.v = v.data(), args.ldv = d;
          args.out = out.data(), args.ldo = d, args.n = n, args.m = m, args.d_k = d, args.d_v = d;
          args.scale = 1e-30f, args.overflowed = &overflowed;
          t->flash_attention(args);
          EXPECT_EQ(overflowed, bad_at >= 0) << KernelName(t->id) << " n " << n << " kind " << kind << " at key " << bad_at;
          if (bad_at < 0) EXPECT_TRUE(out.allFinite()) << KernelName(t->id);
        }
      }
    }
  }
}

TEST(SimdKernels, SoftmaxRowsMatchesDoubleWithMaskedEntriesAndRows) {
  for (const KernelTable* t : SimdTables()) {
    for (int cols : kSizes) {
      const int rows = 4;
      Matrix s = RandomMatrix(rows, cols, cols, -30.0f, 30.0f);
      for (int j = 0; j < cols; j += 3) s(1, j) = -kInf;  // some masked entries
      s.row(2).setConstant(-kInf);                        // a fully masked row
      Matrix w(rows, cols);
      const float inv_t = 1.0f / 0.7f;
      t->softmax_rows(s.data(), w.data(), rows, cols, cols, inv_t);
      for (int i = 0; i < rows; ++i) {
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < cols; ++j) mx = std::max(mx, double(s(i, j)) * inv_t);
        for (int j = 0; j < cols; ++j) {
          if (mx == -INFINITY) {
            ASSERT_EQ(w(i, j), 0.0f);
            continue;
          }
          sum += std::exp(double(s(i, j)) * inv_t - mx);
        }
        for (int j = 0; j < cols && mx != -INFINITY; ++j) {
          const double want = std::exp(double(s(i, j)) * inv_t - mx) / sum;
          if (s(i, j) == -kInf) ASSERT_EQ(w(i, j), 0.0f) << "masked entries are exactly 0";
          // s·(1/τ) is rounded to float: relative error up to |s/τ|·u in each exponent, twice (max, entry).
          const double bound = (4 + 2 * 30.0 * inv_t) * 1.2e-7 * want + 1e-12;
          ASSERT_NEAR(w(i, j), want, bound) << KernelName(t->id) << " cols=" << cols << " row " << i;
        }
      }
    }
  }
}

// Distance in units in the last place between two non-negative floats (denormals included).
int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return ia > ib ? int64_t(ia) - ib : int64_t(ib) - ia;
}

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Which of the table's exponentials a test measures: exp, exp_non_positive (the fused softmax's, for
// x ≤ 1) or exp2_non_positive (its 2^x, for x ≤ 0, where scores are in log2 units).
enum class ExpForm { kExp, kNonPositive, kBase2NonPositive };

// Worst ulp distance of the table's `form` over x against the correctly rounded value, checking
// NaN -> NaN and overflow -> +inf exactly.
int64_t WorstExpUlp(const KernelTable& t, const std::vector<float>& x, float* worst_x, ExpForm form = ExpForm::kExp) {
  // Offset by one float so the vector loads are unaligned; an odd count exercises the scalar tail.
  std::vector<float> in(x.size() + 1), out(x.size() + 1);
  std::copy(x.begin(), x.end(), in.begin() + 1);
  const auto run = form == ExpForm::kExp ? t.exp : form == ExpForm::kNonPositive ? t.exp_non_positive : t.exp2_non_positive;
  run(in.data() + 1, out.data() + 1, static_cast<int>(x.size()));
  int64_t worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float got = out[i + 1];
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(got)) << "exp(NaN)";
      continue;
    }
    const double exact = form == ExpForm::kBase2NonPositive ? std::exp2(static_cast<double>(x[i])) : std::exp(static_cast<double>(x[i]));
    const float want = static_cast<float>(exact);  // correctly rounded
    if (std::isinf(want)) {
      EXPECT_EQ(got, kInf) << KernelName(t.id) << " exp(" << x[i] << ") overflows to +inf";
      continue;
    }
    const int64_t ulp = UlpDistance(got, want);
    if (ulp > worst) worst = ulp, *worst_x = x[i];
  }
  return worst;
}

// The worst ulp over `edges` and every step-th float bit pattern from `first` to `last` (in chunks of
// a million), and where; *count: how many inputs.
int64_t WorstExpUlpOverBits(const KernelTable& t, const std::vector<float>& edges, uint64_t first, uint64_t last,
                            uint64_t step, ExpForm form, float* worst_x, size_t* count) {
  int64_t worst = WorstExpUlp(t, edges, worst_x, form);
  *count = edges.size();
  std::vector<float> x;
  for (uint64_t bits = first; bits <= last; bits += step) {
    x.push_back(FromBits(static_cast<uint32_t>(bits)));
    if (x.size() == (1u << 20) || bits + step > last) {
      float chunk_x = 0;
      const int64_t chunk = WorstExpUlp(t, x, &chunk_x, form);
      if (chunk > worst) worst = chunk, *worst_x = chunk_x;
      *count += x.size();
      x.clear();
    }
  }
  return worst;
}

// The fused softmax's exp of scores minus their max (x ≤ 1, fast_exp.h's ExpNonPositive, a degree-5
// form of its own): within 2 ulp of the correctly rounded exp over every 61st float of [−87.3365, 0]
// (≈ 18 million values), every 61st of (0, 1] (the largest score minus the rounded max, as one
// multiply-add, lies a hair above 0) and the edges, the bound the softmax tests' tolerances are
// derived for. Below −87.3365 its results may flush to ~1e−38 (never read: a tile's max has weight 1).
TEST(SimdKernels, ExpNonPositiveWithin2Ulp) {
  const std::vector<float> edges = {0.0f, -0.0f, -1.0f, -87.33654f, -0.5f * 0.6931472f, -0.6931472f, -1e-30f,
                                    -std::numeric_limits<float>::denorm_min(), -10.0f, -42.0f, 1.0f,
                                    0.5f * 0.6931472f, 1e-7f, std::numeric_limits<float>::denorm_min()};
  const uint32_t last = 0xC2AEAC50u;  // −87.33654f: exp is FLT_MIN there
  for (const KernelTable* t : SimdTables()) {
    float worst_x = 0, above_x = 0;
    size_t count = 0, above = 0;
    int64_t worst = WorstExpUlpOverBits(*t, edges, 0x80000000u, last, 61, ExpForm::kNonPositive, &worst_x, &count);
    const int64_t worst_above =
        WorstExpUlpOverBits(*t, {}, 1, 0x3F800000u, 61, ExpForm::kNonPositive, &above_x, &above);  // (0, 1]
    if (worst_above > worst) worst = worst_above, worst_x = above_x;
    count += above;
    EXPECT_LE(worst, 2) << KernelName(t->id) << ": worst at x = " << worst_x;
    // Below the clamp every x gives the clamp's value, a normal float (the softmax's masked keys,
    // −inf, come out as it before they are zeroed): wasm adds k to the mantissa's exponent bits,
    // which is the product by 2^k only where the result is normal.
    const float below[] = {-87.3366f, -88.0f, -100.0f, -1e6f, -std::numeric_limits<float>::max(), -kInf},
                clamp = -87.33654f;
    float at_clamp = 0;
    t->exp_non_positive(&clamp, &at_clamp, 1);
    EXPECT_GE(at_clamp, std::numeric_limits<float>::min()) << KernelName(t->id);
    EXPECT_LT(at_clamp, 1.1f * std::numeric_limits<float>::min()) << KernelName(t->id);
    for (float x : below) {
      std::vector<float> xs(static_cast<size_t>(t->lanes) + 1, x), ys(xs.size());
      t->exp_non_positive(xs.data(), ys.data(), static_cast<int>(xs.size()));  // vector lanes and the scalar tail
      for (float y : ys) EXPECT_EQ(y, at_clamp) << KernelName(t->id) << ": x = " << x;
    }
    std::printf("[ exp ≤ 0 ] %s: worst %lld ulp (at x = %.9g) over %zu inputs\n", KernelName(t->id),
                static_cast<long long>(worst), worst_x, count);
  }
}

// The fused softmax's 2^z where its scores are in log2 units (z = score − max ≤ 0, fast_exp.h's
// Exp2NonPositive): within 2 ulp of the correctly rounded 2^z over every 61st float of [−126, 0]
// (≈ 18 million values) and the edges, the bound the softmax tests' tolerances are derived for;
// every z below −126 (−inf: a masked key, zeroed afterwards) gives FLT_MIN exactly.
TEST(SimdKernels, Exp2NonPositiveWithin2Ulp) {
  const std::vector<float> edges = {0.0f, -0.0f, -0.5f, -0.5000001f, -0.4999999f, -1.0f, -1.5f, -125.5f, -125.50001f,
                                    -125.49999f, -126.0f, -std::numeric_limits<float>::denorm_min(), -1e-30f, -10.0f,
                                    -64.5f, -100.0f};
  const uint32_t last = 0xC2FC0000u;  // −126.0f: 2^z is FLT_MIN there
  for (const KernelTable* t : SimdTables()) {
    float worst_x = 0;
    size_t count = 0;
    const int64_t worst =
        WorstExpUlpOverBits(*t, edges, 0x80000000u, last, 61, ExpForm::kBase2NonPositive, &worst_x, &count);
    EXPECT_LE(worst, 2) << KernelName(t->id) << ": worst at z = " << worst_x;
    const float below[] = {-126.00001f, -126.5f, -127.0f, -149.0f, -1e6f, -std::numeric_limits<float>::max(), -kInf};
    for (float z : below) {
      std::vector<float> zs(static_cast<size_t>(t->lanes) + 1, z), ys(zs.size());
      t->exp2_non_positive(zs.data(), ys.data(), static_cast<int>(zs.size()));  // vector lanes and the scalar tail
      for (float y : ys) EXPECT_EQ(y, std::numeric_limits<float>::min()) << KernelName(t->id) << ": z = " << z;
    }
    std::printf("[ 2^z, z ≤ 0 ] %s: worst %lld ulp (at z = %.9g) over %zu inputs\n", KernelName(t->id),
                static_cast<long long>(worst), worst_x, count);
  }
}

TEST(SimdKernels, ExpWithin2UlpOverTheWholeRange) {
  // Every float bit pattern in steps of 251 (both signs, ~17 million values) in chunks, plus the
  // edges: overflow, the denormal results, ±inf, NaN.
  const std::vector<float> edges = {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.72284f, 88.7229f, 89.0f, 1e30f,
                                    -87.33654f, -87.3366f, -103.2789f, -103.9721f, -104.0f, -1e30f, kInf, -kInf,
                                    std::numeric_limits<float>::quiet_NaN(), 0.5f * 0.6931472f, -0.5f * 0.6931472f};
  for (const KernelTable* t : SimdTables()) {
    float worst_x = 0;
    size_t count = 0;
    const int64_t worst = WorstExpUlpOverBits(*t, edges, 0, 0xFFFFFFFFull, 251, ExpForm::kExp, &worst_x, &count);
    EXPECT_LE(worst, 2) << KernelName(t->id) << ": worst at x = " << worst_x;
    std::printf("[ exp ] %s: worst %lld ulp (at x = %.9g) over %zu inputs\n", KernelName(t->id),
                static_cast<long long>(worst), worst_x, count);
  }
}

TEST(SimdKernels, PeakProbeMeasuresSomething) {
  for (const KernelTable* t : SimdTables()) EXPECT_GT(MeasurePeakGflops(t->id, 0.01), 0.1) << KernelName(t->id);
  EXPECT_EQ(MeasurePeakGflops(KernelId::kReference, 0.01), 0.0);
}

}  // namespace
}  // namespace attn
