// Work that must stay small, measured by what it allocates (support/counting_malloc.h) rather than
// by the clock, so the tests hold on any machine: ALiBi with many heads allocates linearly in the
// heads, and a case over the element limit is refused before its (L, M) scores are asked for.
// Native glibc builds without sanitizers only (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <string>

#include "attn/attention.h"
#include "attn/case_io.h"
#include "support/counting_malloc.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::AllocatedDuring;
using testing::RandomMatrix;

// Found by forward_fuzz: ALiBi recomputed all h slopes for each of the h heads (h² work: minutes for
// 2^16 heads), building a vector of the h slopes for every head: for 2^14 heads, 2^14 vectors grown
// to 2^14 floats, 128 KiB each (2 GiB asked for in all). One head's slope is now O(log h) with no
// allocation, and the call's allocations per head are its few small matrices.
TEST(AllocationBudget, ManyAlibiHeadsAllocateLinearlyInTheHeads) {
  AttentionConfig config;
  config.position = PositionEncoding::kAlibi;
  config.project_inputs = true;
  config.head_dim = 1;
  AttentionInputs inputs;
  inputs.query = RandomMatrix(2, 2, 4);
  const auto bytes_per_head = [&](int heads) {
    config.num_heads = heads;
    Matrix output;
    bool ok = false;
    const long long bytes = AllocatedDuring([&] { ok = ForwardOutput(config, inputs, AttentionParameters(), &output).ok(); }).bytes;
    EXPECT_TRUE(ok) << heads << " heads";
    return static_cast<double>(bytes) / heads;
  };
  const double few = bytes_per_head(1 << 6), many = bytes_per_head(1 << 14);
  EXPECT_LT(many, 4096.0) << "bytes per head with 2^14 heads (" << few << " with 2^6)";
  EXPECT_LT(many, 2 * few + 64) << "bytes per head grow with the heads: " << few << " with 2^6, " << many << " with 2^14";
}

// Was: L = M = 100 000 asked for 40 GB and aborted with an uncaught std::bad_alloc (L = M = 20 000
// ran 78 s to 9.4 GB). The refusal (CaseLimits::max_elements, checked before allocating) asks for
// nothing near the scores: less than the case's own inputs (3 · n floats).
TEST(AllocationBudget, ACaseOverTheElementLimitIsRefusedBeforeAllocating) {
  const int n = 100000;
  Case c;
  for (const char* name : {"Q", "K", "V"}) {
    Tensor t;
    t.dims = {1, 1, n, 1};
    t.values.assign(n, 0.5f);
    c.inputs[name] = t;
  }
  TensorMap out;
  Status status;
  const testing::Allocated allocated = AllocatedDuring([&] { status = RunCase(c, &out); });
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status.ToString();
  EXPECT_NE(status.message().find("max_elements"), std::string::npos) << status.message();
  EXPECT_LT(allocated.bytes, 3LL * n * static_cast<long long>(sizeof(float)))
      << allocated.bytes << " bytes in " << allocated.calls << " allocations";
}

}  // namespace
}  // namespace attn
