// ForwardOutput: the output without the intermediates. On a SIMD kernel and a config the fused
// kernel covers, each head runs FlashAttention (kernels/simd/flash_attention.h) straight into its
// columns of the concatenation, so memory stays O(n·d), the heads spread over config.threads
// threads (worker_pool.h); otherwise it is Forward's output.
#include "attn/attention.h"

#include <cstddef>
#include <new>
#include <numeric>
#include <vector>

#include "attn/validate.h"
#include "call_budget.h"
#include "kernels/simd_ops.h"
#include "pipeline/forward.h"
#include "validate_attention.h"
#include "worker_pool.h"

namespace attn {

bool FusedKernelCovers(const AttentionConfig& config, const AttentionInputs& inputs) {
  const bool additive_or_rope = config.position == PositionEncoding::kNone ||
                                config.position == PositionEncoding::kSinusoidal ||
                                config.position == PositionEncoding::kLearned || config.position == PositionEncoding::kRope;
  return simd::FindKernelTable(config.kernel) != nullptr &&
         (config.score == ScoreFunction::kDot || config.score == ScoreFunction::kScaledDot) &&
         config.normalizer == Normalizer::kSoftmax && config.softcap == 0.0f && additive_or_rope &&
         inputs.float_mask.empty() && inputs.bool_mask.empty() && inputs.key_padding.size() == 0;
}

namespace {

// Calls with fewer queries run on one thread: below this, starting the work on another thread costs
// more than it saves.
constexpr int kMinQueriesForThreads = 512;

Status FusedForwardOutput(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                          Matrix* output) {
  pipeline::AttentionDims d;
  AttentionParameters complete;
  ATTN_RETURN_IF_ERROR(validate::PrepareCall(budget::CallKind::kFusedForward, config, inputs, params, &d, &complete));

  const simd::KernelTable* table = simd::FindKernelTable(config.kernel);
  const int threads = d.n >= kMinQueriesForThreads ? config.threads : 1;
  const simd::ScopedKernelTable use(table, threads);  // the projections' rows on `threads` threads too
  parallel::Prewarm(threads);  // the workers stay running between the projections and the heads
  AttentionResult projected;  // inputs after positions, and the key/value caches: O(n·d)
  const Matrix q_all = pipeline::ProjectInputs<float, simd::SimdOps>(config, inputs, complete, d, &projected);
  ATTN_RETURN_IF_ERROR(validate::ValuesFinite(projected.present_value));  // as Forward checks them
  const bool rope = config.position == PositionEncoding::kRope;
  Matrix concat(d.n, d.heads * d.d_v);  // (n, h d_v)
  // Work items: each head, split into `parts` interleaved sets of query tiles when there are fewer
  // heads than threads (lcm(h, threads) items, so the threads get equal shares).
  const int parts = threads / std::gcd(d.heads, threads);
  std::vector<char> overflowed(static_cast<std::size_t>(d.heads) * parts, 0);
  const auto run_item = [&](int item) {
    const int head = item / parts, part = item % parts;
    const Matrix& k = projected.present_key[head / d.group];
    const Matrix& v = projected.present_value[head / d.group];
    Matrix rotated;
    if (rope) rotated = pipeline::HeadQuery(config, d, q_all, head);
    bool item_overflowed = false;
    simd::FlashAttentionArgs args;
    args.q = rope ? rotated.data() : q_all.data() + head * d.d_k;
    args.ldq = rope ? d.d_k : static_cast<int>(q_all.cols());
    args.k = k.data(), args.ldk = d.d_k;
    args.v = v.data(), args.ldv = d.d_v;
    args.out = concat.data() + head * d.d_v, args.ldo = static_cast<int>(concat.cols());
    args.n = d.n, args.m = static_cast<int>(k.rows()), args.d_k = d.d_k, args.d_v = d.d_v;
    // Scaled as Forward scales: raw · scale, then · (1/τ) in the normaliser.
    args.scale = EffectiveScale(config, d.d_k), args.inv_temperature = 1.0f / config.temperature;
    args.query_offset = d.query_offset;
    args.causal = config.causal;
    args.window_left = config.window_left, args.window_right = config.window_right;
    args.overflowed = &item_overflowed;
    args.tile_first = part, args.tile_stride = parts;
    table->flash_attention(args);
    overflowed[item] = item_overflowed;
  };
  if (!parallel::ForEach(threads, d.heads * parts, run_item)) return budget::AllocationFailed("ForwardOutput");
  for (std::size_t item = 0; item < overflowed.size(); ++item)
    if (overflowed[item]) return validate::ScoresOverflowed(static_cast<int>(item) / parts);  // the first head, as one thread finds it
  Matrix result = pipeline::ProjectIf<float, simd::SimdOps>(config.project_output, config.use_bias, concat,
                                                             complete.wo, complete.bo);
  ATTN_RETURN_IF_ERROR(validate::AllFinite("output (scores overflowed float32; scale the inputs down)", result));
  *output = std::move(result);
  return Status::Ok();
}

}  // namespace

Status ForwardOutput(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                     Matrix* output) {
  if (!FusedKernelCovers(config, inputs)) {
    AttentionResult result;
    ATTN_RETURN_IF_ERROR(Forward(config, inputs, params, &result));  // has its own safety net
    *output = std::move(result.output);
    return Status::Ok();
  }
  try {
    return FusedForwardOutput(config, inputs, params, output);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("ForwardOutput");
  }
}

}  // namespace attn
