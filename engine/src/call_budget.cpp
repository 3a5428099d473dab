#include "call_budget.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "attn/limits.h"

namespace attn::budget {

int64_t Mul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product)) return std::numeric_limits<int64_t>::max();
  return product;
}

int64_t Add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &sum)) return std::numeric_limits<int64_t>::max();
  return sum;
}

std::string Bytes(int64_t bytes) {
  char buf[48];
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
  } else if (b >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  }
  return buf;
}

namespace {

constexpr int64_t kFloat = sizeof(float);

// "1 GiB", "512 MiB": the limits are powers of two.
std::string Binary(int64_t bytes) {
  return bytes >= (int64_t{1} << 30) ? std::to_string(bytes >> 30) + " GiB" : std::to_string(bytes >> 20) + " MiB";
}

// Sum of products, saturating: Terms{}.Plus(a, b, c)…
struct Terms {
  int64_t total = 0;
  Terms& Plus(int64_t a, int64_t b = 1, int64_t c = 1) {
    total = Add(total, Mul(Mul(a, b), c));
    return *this;
  }
};

// Floats of every parameter the config uses (the seeded set; Forward keeps a copy in its result).
int64_t ParameterElements(const AttentionConfig& c, const pipeline::AttentionDims& d) {
  Terms t;
  if (c.project_inputs) {
    t.Plus(d.d_model, d.heads, d.d_k).Plus(d.d_kv_model, d.kv_heads, d.d_k).Plus(d.d_value_model, d.kv_heads, d.d_v);
    if (c.use_bias) t.Plus(d.heads, d.d_k).Plus(d.kv_heads, Add(d.d_k, d.d_v));
  }
  if (c.project_output) t.Plus(d.heads, d.d_v, d.d_out).Plus(c.use_bias ? d.d_out : 0);
  if (c.score == ScoreFunction::kBilinear) t.Plus(d.heads, d.d_k, d.d_k);
  if (c.score == ScoreFunction::kAdditive || c.score == ScoreFunction::kAdditiveConcat)
    t.Plus(d.heads, Add(Mul(2, d.d_k), 1), d.d_a);
  if (c.position == PositionEncoding::kLearned) t.Plus(c.max_positions, d.d_model);
  if (c.position == PositionEncoding::kQuadraticRelative) t.Plus(2, d.heads);
  return t.total;
}

// Floats of the projection weights packed for the SIMD GEMM (the fused path packs them, a
// PreparedAttention keeps them): each width rounded up to the widest panel, 32 floats (AVX-512).
int64_t PackedWeightElements(const AttentionConfig& c, const pipeline::AttentionDims& d) {
  const auto panels = [](int64_t width) { return Mul(Add(width, 31) / 32, 32); };
  Terms t;
  if (c.project_inputs) {
    t.Plus(d.d_model, panels(Mul(d.heads, d.d_k))).Plus(d.d_kv_model, panels(Mul(d.kv_heads, d.d_k)));
    t.Plus(d.d_value_model, panels(Mul(d.kv_heads, d.d_v)));
  }
  if (c.project_output) t.Plus(Mul(d.heads, d.d_v), panels(d.d_out));
  return t.total;
}

// Floats of what every path computes before the heads: inputs after positions, Q/K/V, the caches,
// the concatenation and the output, and two copies of the parameters (the completed set and the
// result's).
int64_t SharedElements(const AttentionConfig& c, const pipeline::AttentionDims& d) {
  Terms t;
  t.Plus(d.n, d.d_model).Plus(d.m, d.d_kv_model).Plus(d.m, d.d_value_model);           // *_in
  t.Plus(d.n, d.heads, d.d_k).Plus(d.m, d.kv_heads, Add(d.d_k, d.d_v));               // q_all, k_new, v_new
  t.Plus(d.keys, d.kv_heads, Add(d.d_k, d.d_v));                                     // present_key/value
  t.Plus(d.n, d.heads, d.d_v).Plus(d.n, d.d_out);                                    // concat, output
  t.Plus(2, ParameterElements(c, d));
  return t.total;
}

// One call's estimate: the total, and the part that dominates it (for the message).
struct Estimate {
  int64_t elements = 0;  // floats in all
  int64_t largest = 0;   // floats of the largest single matrix
  std::string part;      // "4 heads × 5 matrices of (n, M) = 16000 × 16000 floats"
  std::string advice;    // what to do instead
};

std::string PerHeadMatrices(const pipeline::AttentionDims& d, int count) {
  return std::to_string(d.heads) + " heads × " + std::to_string(count) + " (n, M) matrices of " +
         std::to_string(d.n) + " × " + std::to_string(d.keys) + " floats";
}

Estimate Estimated(CallKind kind, const AttentionConfig& c, const pipeline::AttentionDims& d) {
  const int64_t nm = Mul(d.n, d.keys);
  const int64_t shared = SharedElements(c, d);
  // Per head: q, k, v copies, its output; one head's temporaries at a time.
  const int64_t head_vectors = Terms{}.Plus(d.n, Add(d.d_k, d.d_v)).Plus(d.keys, Add(d.d_k, d.d_v)).total;
  const int64_t score_temporaries = Terms{}.Plus(d.n, d.d_a).Plus(d.keys, d.d_a).Plus(d.n, d.d_k).total;
  const std::string materialised_advice =
      "; use ForwardOutput on a SIMD kernel (softmax, dot or scaled-dot scores, no float, boolean or padding "
      "mask), which never builds the (n, M) matrices, or fewer tokens";
  Estimate e;
  const int64_t largest_shared = std::max({Mul(d.n, d.d_model), Mul(d.n, Mul(d.heads, d.d_k)), Mul(d.keys, Mul(d.kv_heads, d.d_k)),
                        Mul(d.keys, Mul(d.kv_heads, d.d_v)), Mul(d.n, d.d_out), Mul(d.d_model, Mul(d.heads, d.d_k)),
                        Mul(Mul(d.heads, d.d_v), d.d_out), Mul(Mul(2, d.d_k), d.d_a),
                        c.position == PositionEncoding::kLearned ? Mul(c.max_positions, d.d_model) : int64_t{0}});
  e.largest = std::max(largest_shared, nm);
  // Each head's bookkeeping (9 matrix headers and their heap blocks, ~256 bytes in floats): with
  // 2^24 heads of one column it is the bulk of the call.
  const int64_t per_head_overhead = Mul(d.heads, 64);
  const int64_t forward = Terms{}
                              .Plus(shared)
                              .Plus(per_head_overhead)
                              .Plus(d.heads, Add(Mul(5, nm), head_vectors))  // raw, scaled, capped, scores, weights
                              .Plus(2, nm)                                   // score bias and normaliser temporaries
                              .Plus(score_temporaries)
                              .total;
  // Gradients: d_scores and d_weights per head kept, three (n, M) temporaries, and every
  // forward-sized matrix once more (d_q_all, d_k_new, d_v_new, d_concat, parameter gradients).
  const int64_t backward =
      Terms{}.Plus(shared).Plus(per_head_overhead).Plus(d.heads, Add(Mul(2, nm), head_vectors)).Plus(3, nm).Plus(2, score_temporaries).total;
  switch (kind) {
    case CallKind::kParameters:
      e.elements = ParameterElements(c, d);
      e.part = "the parameters (" + std::to_string(e.elements) + " floats)";
      e.advice = "; choose smaller widths, heads or max_positions";
      e.largest = 0;  // each parameter is checked with its shape by the total
      break;
    case CallKind::kFusedForward: {
      // The fused kernel packs one head's Kᵀ and V (padded to 64 keys) beside a rotated query, once
      // per thread; the weights are packed too.
      const int64_t padded_keys = Add(d.keys, 64);
      e.elements = Terms{}
                       .Plus(shared)
                       .Plus(Mul(padded_keys, c.threads), Add(Add(d.d_k, d.d_v), 64))
                       .Plus(Mul(d.n, c.threads), d.d_k)
                       .Plus(PackedWeightElements(c, d))
                       .total;
      e.part = "inputs, projections and caches of " + std::to_string(d.n) + " queries and " + std::to_string(d.keys) +
               " keys";
      e.advice = "; use fewer tokens or narrower heads";
      e.largest = largest_shared;
      break;
    }
    case CallKind::kForward:
      e.elements = forward;
      e.part = PerHeadMatrices(d, 5);
      e.advice = materialised_advice;
      break;
    case CallKind::kBackward:
      e.elements = backward;
      e.part = PerHeadMatrices(d, 2) + " of gradients";
      e.advice = "; use fewer tokens";
      break;
    case CallKind::kForwardBackward:
      e.elements = Add(forward, backward);
      e.part = PerHeadMatrices(d, 7) + " (forward and gradients)";
      e.advice = "; use fewer tokens";
      break;
  }
  return e;
}

Status OverBytes(const std::string& part, int64_t bytes, const std::string& advice) {
  return Status(StatusCode::kResourceExhausted, "the call needs about " + Bytes(bytes) + " (" + part +
                                                    "), over the limit of " + Binary(Limits::max_call_bytes) +
                                                    " (attn::Limits::max_call_bytes)" + advice);
}

}  // namespace

Status AllocationFailed(const std::string& entry_point) {
  return Status(StatusCode::kResourceExhausted,
                entry_point + ": out of memory although the call is within attn::Limits (the machine or the "
                              "WebAssembly heap has less free than attn::Limits::max_call_bytes); use fewer tokens");
}

Status MatrixFits(const std::string& what, int64_t rows, int64_t cols) {
  const int64_t elements = Mul(rows, cols);
  if (elements > Limits::max_tensor_elements) {
    return Status(StatusCode::kResourceExhausted,
                  what + ": a (" + std::to_string(rows) + ", " + std::to_string(cols) + ") result has " +
                      std::to_string(elements) + " elements, over the limit of " +
                      std::to_string(Limits::max_tensor_elements) + " (attn::Limits::max_tensor_elements)");
  }
  const int64_t bytes = Mul(elements, kFloat);
  if (bytes > Limits::max_call_bytes) {
    return OverBytes(what + ": a (" + std::to_string(rows) + ", " + std::to_string(cols) + ") float result", bytes,
                     "");
  }
  return Status::Ok();
}

int64_t EstimatedBytes(CallKind kind, const AttentionConfig& config, const pipeline::AttentionDims& d) {
  return Mul(Estimated(kind, config, d).elements, kFloat);
}

Status CallFits(CallKind kind, const AttentionConfig& config, const pipeline::AttentionDims& d) {
  const Estimate e = Estimated(kind, config, d);
  if (e.largest > Limits::max_tensor_elements) {
    return Status(StatusCode::kResourceExhausted,
                  "the call needs a matrix of " + std::to_string(e.largest) + " elements, over the limit of " +
                      std::to_string(Limits::max_tensor_elements) + " (attn::Limits::max_tensor_elements)" +
                      e.advice);
  }
  const int64_t bytes = Mul(e.elements, kFloat);
  if (bytes > Limits::max_call_bytes) return OverBytes(e.part, bytes, e.advice);
  return Status::Ok();
}

}  // namespace attn::budget
