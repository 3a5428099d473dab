#include "lessons/views/order.h"

#include <algorithm>

#include "attn/attention.h"
#include "attn/positions.h"
#include "lessons/explain.h"
#include "lessons/view_kernel.h"

namespace lessons {
namespace {

attn::PositionEncoding EngineEncoding(OrderEncoding e) {
  switch (e) {
    case OrderEncoding::kSinusoidal: return attn::PositionEncoding::kSinusoidal;
    case OrderEncoding::kLearned: return attn::PositionEncoding::kLearned;
    default: return attn::PositionEncoding::kNone;
  }
}

}  // namespace

Status ComputeOrder(const Sentence& sentence, const OrderState& state, OrderModel* out) {
  const int n = static_cast<int>(sentence.tokens.size());
  attn::AttentionConfig config = ViewConfig();  // parameter-free self-attention, as in view 1
  config.position = EngineEncoding(state.encoding);
  config.seed = 1;  // the learned table is seeded: the same table for both orders
  OrderModel m;
  m.order = SeededPermutation(n, static_cast<unsigned>(state.shuffle));
  attn::AttentionInputs original, shuffled;
  original.query = sentence.x;
  ATTN_RETURN_IF_ERROR(PermuteRows(sentence.x, m.order, &shuffled.query));
  attn::AttentionResult a, b;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, original, &a));
  ATTN_RETURN_IF_ERROR(attn::Forward(config, shuffled, &b));
  ATTN_RETURN_IF_ERROR(PermuteRows(a.output, m.order, &m.permuted_output));
  ATTN_RETURN_IF_ERROR(MaxAbsDifference(b.output, m.permuted_output, &m.difference));
  for (int i = 0; i < n; ++i) {
    m.shuffled_tokens.push_back(sentence.tokens[m.order[i]]);
    m.shuffled_known.push_back(sentence.known[m.order[i]]);
  }
  m.rounding = 1e-5f * std::max(1.0f, a.output.cwiseAbs().maxCoeff());
  m.equal = m.difference <= m.rounding;
  const int d = static_cast<int>(sentence.x.cols());
  if (state.encoding == OrderEncoding::kSinusoidal)
    m.encoding = attn::SinusoidalEncoding<float>(n, d, 0, config.position_base);
  else if (state.encoding == OrderEncoding::kLearned)
    m.encoding = a.parameters.position_table.topRows(n);  // the rows of the seeded table in use
  m.output = std::move(a.output);
  m.shuffled_output = std::move(b.output);
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
