#include "validate_attention.h"

#include <limits>
#include <string>

#include "attn/limits.h"
#include "attn/validate.h"
#include "pipeline/scores.h"

namespace attn::validate {
namespace {

std::string Str(long v) { return std::to_string(v); }

Status Mismatch(const std::string& message) { return Status(StatusCode::kShapeMismatch, message); }

// A per-head list must hold nothing, one shared entry, or one entry per head.
Status ListSize(const std::string& name, size_t size, int heads) {
  if (size == 0 || size == 1 || size == static_cast<size_t>(heads)) return Status::Ok();
  return Mismatch(name + ": expected 0, 1 or num_heads = " + Str(heads) + " entries, got " + Str(static_cast<long>(size)));
}

// An optional matrix input: absent when (0, 0); otherwise non-empty and free of NaN/inf.
Status OptionalInput(const std::string& name, const Matrix& m) {
  if (m.rows() == 0 && m.cols() == 0) return Status::Ok();
  ATTN_RETURN_IF_ERROR(NonEmpty(name, m));
  return AllFinite(name, m);
}

Status PerHeadMatrices(const std::string& name, const std::vector<Matrix>& list, int heads, int rows, int cols,
                       const std::string& expected) {
  if (list.size() != static_cast<size_t>(heads))
    return Mismatch(name + ": expected num_heads = " + Str(heads) + " entries, got " + Str(static_cast<long>(list.size())));
  for (size_t h = 0; h < list.size(); ++h) {
    const std::string item = name + "[" + Str(static_cast<long>(h)) + "]";
    ATTN_RETURN_IF_ERROR(HasShape(item, list[h].rows(), list[h].cols(), rows, cols, expected));
    ATTN_RETURN_IF_ERROR(AllFinite(item, list[h]));
  }
  return Status::Ok();
}

Status Parameter(const std::string& name, const Matrix& m, int rows, int cols, const std::string& expected) {
  ATTN_RETURN_IF_ERROR(HasShape(name, m.rows(), m.cols(), rows, cols, expected));
  return AllFinite(name, m);
}

// `value` within [minimum, Limits::max_dimension].
Status Bounded(const std::string& name, int value, int minimum) {
  ATTN_RETURN_IF_ERROR(AtLeast(name, value, minimum));
  return AtMost(name, value, Limits::max_dimension);
}

}  // namespace

Status ConfigIntegersValid(const AttentionConfig& c) {
  ATTN_RETURN_IF_ERROR(AtLeast("num_heads", c.num_heads, 1));
  ATTN_RETURN_IF_ERROR(AtMost("num_heads", c.num_heads, Limits::max_heads));
  ATTN_RETURN_IF_ERROR(AtLeast("num_kv_heads", c.num_kv_heads, 0));
  ATTN_RETURN_IF_ERROR(AtMost("num_kv_heads", c.num_kv_heads, Limits::max_heads));
  ATTN_RETURN_IF_ERROR(Bounded("head_dim", c.head_dim, 0));
  ATTN_RETURN_IF_ERROR(Bounded("value_head_dim", c.value_head_dim, 0));
  ATTN_RETURN_IF_ERROR(Bounded("additive_dim", c.additive_dim, 0));
  ATTN_RETURN_IF_ERROR(Bounded("output_dim", c.output_dim, 0));
  ATTN_RETURN_IF_ERROR(Bounded("window_left", c.window_left, -1));
  ATTN_RETURN_IF_ERROR(Bounded("window_right", c.window_right, -1));
  ATTN_RETURN_IF_ERROR(Bounded("max_positions", c.max_positions, 1));
  ATTN_RETURN_IF_ERROR(AtLeast("threads", c.threads, 1));
  ATTN_RETURN_IF_ERROR(AtMost("threads", c.threads, Limits::max_threads));
  return Status::Ok();
}

Status WidthsValid(const pipeline::AttentionDims& d) {
  const auto product = [](int a, int b) { return static_cast<long long>(a) * b; };
  ATTN_RETURN_IF_ERROR(AtMost("keys (past + new)", d.keys, Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(AtMost("num_heads·d_k", product(d.heads, d.d_k), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(AtMost("num_heads·d_v", product(d.heads, d.d_v), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(AtMost("num_kv_heads·d_k", product(d.kv_heads, d.d_k), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(AtMost("num_kv_heads·d_v", product(d.kv_heads, d.d_v), Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(AtMost("output width d_out", d.d_out, Limits::max_dimension));
  return Status::Ok();
}

namespace {

// Rows and columns of an input matrix within Limits::max_dimension, before any int arithmetic on them.
Status InputDimsBounded(const std::string& name, const Matrix& m) {
  ATTN_RETURN_IF_ERROR(AtMost(name + ".rows()", static_cast<long long>(m.rows()), Limits::max_dimension));
  return AtMost(name + ".cols()", static_cast<long long>(m.cols()), Limits::max_dimension);
}

}  // namespace

Status AttentionConfigValid(const AttentionConfig& c) {
  ATTN_RETURN_IF_ERROR(KnownEnum("kernel", c.kernel));
  ATTN_RETURN_IF_ERROR(CheckKernelAvailable(c.kernel));
  ATTN_RETURN_IF_ERROR(KnownEnum("score", c.score));
  ATTN_RETURN_IF_ERROR(KnownEnum("normalizer", c.normalizer));
  ATTN_RETURN_IF_ERROR(KnownEnum("position", c.position));
  ATTN_RETURN_IF_ERROR(KnownEnum("softcap_order", c.softcap_order));
  if (c.scale != 0.0f) ATTN_RETURN_IF_ERROR(Positive("scale", c.scale));
  ATTN_RETURN_IF_ERROR(Positive("temperature", c.temperature));
  // The normalisers multiply by 1 / τ: a subnormal τ would make it inf (and 0 · inf = NaN).
  if (c.temperature < std::numeric_limits<float>::min()) {
    return Status(StatusCode::kOutOfRange, "temperature: expected at least " +
                                               Number(std::numeric_limits<float>::min()) +
                                               " (the smallest normal float, so 1 / temperature is finite), got " +
                                               Number(c.temperature));
  }
  ATTN_RETURN_IF_ERROR(Positive("cosine_temperature", c.cosine_temperature));
  if (c.softcap != 0.0f) ATTN_RETURN_IF_ERROR(Positive("softcap", c.softcap));
  ATTN_RETURN_IF_ERROR(Positive("position_base", c.position_base));
  ATTN_RETURN_IF_ERROR(ConfigIntegersValid(c));
  ATTN_RETURN_IF_ERROR(AtLeast("num_kv_heads", c.num_kv_heads, 0));
  const int kv_heads = c.num_kv_heads > 0 ? c.num_kv_heads : c.num_heads;
  if (c.num_heads % kv_heads != 0) {
    return Status(StatusCode::kOutOfRange, "num_kv_heads: expected a divisor of num_heads = " + Str(c.num_heads) +
                                               ", got " + Str(c.num_kv_heads));
  }
  return Status::Ok();
}

Status AttentionInputsValid(const AttentionConfig& c, const AttentionInputs& in, const std::string& query_name) {
  const std::string& q = query_name;
  ATTN_RETURN_IF_ERROR(NonEmpty(q, in.query));
  ATTN_RETURN_IF_ERROR(AllFinite(q, in.query));
  ATTN_RETURN_IF_ERROR(OptionalInput("key", in.key));
  ATTN_RETURN_IF_ERROR(OptionalInput("value", in.value));
  // Sizes within Limits::max_dimension before any int arithmetic on them (ResolveDims).
  ATTN_RETURN_IF_ERROR(InputDimsBounded(q, in.query));
  ATTN_RETURN_IF_ERROR(InputDimsBounded("key", in.key));
  ATTN_RETURN_IF_ERROR(InputDimsBounded("value", in.value));
  if (!in.past_key.empty()) ATTN_RETURN_IF_ERROR(InputDimsBounded("past_key[0]", in.past_key[0]));
  if (in.query_offset) {
    ATTN_RETURN_IF_ERROR(AtLeast("query_offset", *in.query_offset, -static_cast<long>(Limits::max_dimension)));
    ATTN_RETURN_IF_ERROR(AtMost("query_offset", *in.query_offset, Limits::max_dimension));
  }
  const pipeline::AttentionDims d = pipeline::ResolveDims(c, in);
  ATTN_RETURN_IF_ERROR(WidthsValid(d));
  if (in.value.size() && in.value.rows() != d.m) {
    return Mismatch("value: expected " + Str(d.m) + " rows (one per key), got " + Shape(in.value.rows(), in.value.cols()));
  }
  // Head widths.
  if (c.project_inputs) {
    if (c.head_dim == 0 && d.d_model % d.heads != 0) {
      return Mismatch("num_heads: expected a divisor of d_model = " + q + ".cols() = " + Str(d.d_model) + ", got " +
                      Str(d.heads) + " (or set head_dim)");
    }
  } else {
    if (d.d_model % d.heads != 0) {
      return Mismatch("num_heads: expected a divisor of " + q + ".cols() = " + Str(d.d_model) + ", got " + Str(d.heads));
    }
    if (c.head_dim != 0 && c.head_dim != d.d_k) {
      return Mismatch("head_dim: expected 0 or " + q + ".cols() / num_heads = " + Str(d.d_k) + " without projections, got " +
                      Str(c.head_dim));
    }
    const std::string key_name = in.key.size() ? "key" : q + " (as key)";
    ATTN_RETURN_IF_ERROR(HasShape(key_name, d.m, d.d_kv_model, d.m, static_cast<long>(d.kv_heads) * d.d_k,
                                  "(m, num_kv_heads·d_k) without projections"));
    if (d.d_value_model % d.kv_heads != 0) {
      return Mismatch("value: expected a width divisible by num_kv_heads = " + Str(d.kv_heads) + ", got " +
                      Shape(d.m, d.d_value_model));
    }
  }
  if (c.position == PositionEncoding::kRope && d.d_k % 2 != 0) {
    return Mismatch("head_dim: expected an even d_k for RoPE, got " + Str(d.d_k));
  }
  // Cache.
  if (!in.past_key.empty() && in.past_key.size() != static_cast<size_t>(d.kv_heads)) {
    return Mismatch("past_key: expected num_kv_heads = " + Str(d.kv_heads) + " entries, got " +
                    Str(static_cast<long>(in.past_key.size())));
  }
  if (in.past_value.size() != in.past_key.size()) {
    return Mismatch("past_value: expected as many entries as past_key (" + Str(static_cast<long>(in.past_key.size())) +
                    "), got " + Str(static_cast<long>(in.past_value.size())));
  }
  for (size_t g = 0; g < in.past_key.size(); ++g) {
    const std::string k = "past_key[" + Str(static_cast<long>(g)) + "]", v = "past_value[" + Str(static_cast<long>(g)) + "]";
    ATTN_RETURN_IF_ERROR(HasShape(k, in.past_key[g].rows(), in.past_key[g].cols(), d.past, d.d_k, "(p, d_k)"));
    ATTN_RETURN_IF_ERROR(HasShape(v, in.past_value[g].rows(), in.past_value[g].cols(), d.past, d.d_v, "(p, d_v)"));
    ATTN_RETURN_IF_ERROR(AllFinite(k, in.past_key[g]));
    ATTN_RETURN_IF_ERROR(AllFinite(v, in.past_value[g]));
  }
  // Masks.
  ATTN_RETURN_IF_ERROR(ListSize("float_mask", in.float_mask.size(), d.heads));
  for (size_t h = 0; h < in.float_mask.size(); ++h) {
    const std::string name = "float_mask[" + Str(static_cast<long>(h)) + "]";
    ATTN_RETURN_IF_ERROR(HasShape(name, in.float_mask[h].rows(), in.float_mask[h].cols(), d.n, d.keys, "(n, M)"));
    ATTN_RETURN_IF_ERROR(NoNanOrPositiveInf(name, in.float_mask[h]));
  }
  ATTN_RETURN_IF_ERROR(ListSize("bool_mask", in.bool_mask.size(), d.heads));
  for (size_t h = 0; h < in.bool_mask.size(); ++h) {
    ATTN_RETURN_IF_ERROR(HasShape("bool_mask[" + Str(static_cast<long>(h)) + "]", in.bool_mask[h].rows(),
                                  in.bool_mask[h].cols(), d.n, d.keys, "(n, M)"));
  }
  ATTN_RETURN_IF_ERROR(KnownEnum("bool_mask_meaning", in.bool_mask_meaning));
  if (in.key_padding.size() || in.key_padding.rows() || in.key_padding.cols()) {
    ATTN_RETURN_IF_ERROR(HasShape("key_padding", in.key_padding.rows(), in.key_padding.cols(), 1, d.keys, "(1, M)"));
  }
  if (c.position == PositionEncoding::kLearned) {
    ATTN_RETURN_IF_ERROR(AtLeast("query_offset (learned positions)", d.query_offset, 0));
    const long last = std::max<long>(d.query_offset + d.n, d.past + d.m);
    if (last > c.max_positions) {
      return Status(StatusCode::kOutOfRange, "max_positions: expected at least " + Str(last) +
                                                 " rows of the learned table for these positions, got " +
                                                 Str(c.max_positions));
    }
    if (in.key.size() && in.key.cols() != in.query.cols()) {
      return Mismatch("key: expected width " + q + ".cols() = " + Str(d.d_model) + " for a learned position table, got " +
                      Shape(in.key.rows(), in.key.cols()));
    }
  }
  return Status::Ok();
}

Status AttentionParametersValid(const AttentionConfig& c, const pipeline::AttentionDims& d,
                                const AttentionParameters& p) {
  if (c.project_inputs) {
    ATTN_RETURN_IF_ERROR(Parameter("wq", p.wq, d.d_model, d.heads * d.d_k, "(d_model, h·d_k)"));
    ATTN_RETURN_IF_ERROR(Parameter("wk", p.wk, d.d_kv_model, d.kv_heads * d.d_k, "(d_kv_model, h_kv·d_k)"));
    ATTN_RETURN_IF_ERROR(Parameter("wv", p.wv, d.d_value_model, d.kv_heads * d.d_v, "(d_value_model, h_kv·d_v)"));
    if (c.use_bias) {
      ATTN_RETURN_IF_ERROR(Parameter("bq", p.bq, 1, d.heads * d.d_k, "(1, h·d_k)"));
      ATTN_RETURN_IF_ERROR(Parameter("bk", p.bk, 1, d.kv_heads * d.d_k, "(1, h_kv·d_k)"));
      ATTN_RETURN_IF_ERROR(Parameter("bv", p.bv, 1, d.kv_heads * d.d_v, "(1, h_kv·d_v)"));
    }
  }
  if (c.project_output) {
    ATTN_RETURN_IF_ERROR(Parameter("wo", p.wo, d.heads * d.d_v, d.d_out, "(h·d_v, d_out)"));
    if (c.use_bias) ATTN_RETURN_IF_ERROR(Parameter("bo", p.bo, 1, d.d_out, "(1, d_out)"));
  }
  switch (c.score) {
    case ScoreFunction::kBilinear:
      ATTN_RETURN_IF_ERROR(PerHeadMatrices("bilinear", p.bilinear, d.heads, d.d_k, d.d_k, "(d_k, d_k)"));
      break;
    case ScoreFunction::kAdditive:
      ATTN_RETURN_IF_ERROR(PerHeadMatrices("additive_wq", p.additive_wq, d.heads, d.d_k, d.d_a, "(d_k, d_a)"));
      ATTN_RETURN_IF_ERROR(PerHeadMatrices("additive_wk", p.additive_wk, d.heads, d.d_k, d.d_a, "(d_k, d_a)"));
      ATTN_RETURN_IF_ERROR(PerHeadMatrices("additive_v", p.additive_v, d.heads, 1, d.d_a, "(1, d_a)"));
      break;
    case ScoreFunction::kAdditiveConcat:
      ATTN_RETURN_IF_ERROR(
          PerHeadMatrices("additive_concat", p.additive_concat, d.heads, 2 * d.d_k, d.d_a, "(2·d_k, d_a)"));
      ATTN_RETURN_IF_ERROR(PerHeadMatrices("additive_v", p.additive_v, d.heads, 1, d.d_a, "(1, d_a)"));
      break;
    default:
      break;
  }
  if (c.position == PositionEncoding::kLearned) {
    ATTN_RETURN_IF_ERROR(Parameter("position_table", p.position_table, c.max_positions, d.d_model,
                                   "(max_positions, d_model)"));
  }
  if (c.position == PositionEncoding::kQuadraticRelative) {
    ATTN_RETURN_IF_ERROR(Parameter("relative_center", p.relative_center, 1, d.heads, "(1, h)"));
    ATTN_RETURN_IF_ERROR(Parameter("relative_sharpness", p.relative_sharpness, 1, d.heads, "(1, h)"));
    for (int h = 0; h < d.heads; ++h) {
      if (p.relative_sharpness(0, h) < 0) {
        return Status(StatusCode::kOutOfRange, "relative_sharpness: expected values >= 0, got " +
                                                   validate::Number(p.relative_sharpness(0, h)) + " at (0, " +
                                                   std::to_string(h) + ")");
      }
    }
  }
  return Status::Ok();
}

Status ForwardResultMatches(const pipeline::AttentionDims& d, const AttentionResult& forward, const std::string& name) {
  ATTN_RETURN_IF_ERROR(
      HasShape(name + ".query_in", forward.query_in.rows(), forward.query_in.cols(), d.n, d.d_model, "(n, d_model)"));
  ATTN_RETURN_IF_ERROR(
      HasShape(name + ".key_in", forward.key_in.rows(), forward.key_in.cols(), d.m, d.d_kv_model, "(m, d_kv_model)"));
  ATTN_RETURN_IF_ERROR(HasShape(name + ".value_in", forward.value_in.rows(), forward.value_in.cols(), d.m,
                                d.d_value_model, "(m, d_value_model)"));
  ATTN_RETURN_IF_ERROR(
      HasShape(name + ".concat", forward.concat.rows(), forward.concat.cols(), d.n, d.heads * d.d_v, "(n, h·d_v)"));
  if (forward.heads.size() != static_cast<size_t>(d.heads)) {
    return Mismatch(name + ".heads: expected num_heads = " + Str(d.heads) + " entries, got " +
                    Str(static_cast<long>(forward.heads.size())));
  }
  for (size_t h = 0; h < forward.heads.size(); ++h) {
    const HeadIntermediates& head = forward.heads[h];
    const std::string item = name + ".heads[" + Str(static_cast<long>(h)) + "].";
    ATTN_RETURN_IF_ERROR(HasShape(item + "q", head.q.rows(), head.q.cols(), d.n, d.d_k, "(n, d_k)"));
    ATTN_RETURN_IF_ERROR(HasShape(item + "k", head.k.rows(), head.k.cols(), d.keys, d.d_k, "(M, d_k)"));
    ATTN_RETURN_IF_ERROR(HasShape(item + "v", head.v.rows(), head.v.cols(), d.keys, d.d_v, "(M, d_v)"));
    const Matrix& capped = head.capped_scores;
    ATTN_RETURN_IF_ERROR(HasShape(item + "capped_scores", capped.rows(), capped.cols(), d.n, d.keys, "(n, M)"));
    ATTN_RETURN_IF_ERROR(HasShape(item + "scores", head.scores.rows(), head.scores.cols(), d.n, d.keys, "(n, M)"));
    ATTN_RETURN_IF_ERROR(HasShape(item + "weights", head.weights.rows(), head.weights.cols(), d.n, d.keys, "(n, M)"));
  }
  return Status::Ok();
}

Status CheckCallFits(budget::CallKind kind, const AttentionConfig& config, const AttentionInputs& inputs,
                     const std::string& query_name) {
  ATTN_RETURN_IF_ERROR(AttentionConfigValid(config));
  ATTN_RETURN_IF_ERROR(AttentionInputsValid(config, inputs, query_name));
  return budget::CallFits(kind, config, pipeline::ResolveDims(config, inputs));
}

Status ValuesFinite(const std::vector<Matrix>& present_value) {
  for (size_t g = 0; g < present_value.size(); ++g)
    ATTN_RETURN_IF_ERROR(AllFinite("v[" + Str(static_cast<long>(g)) + "] (the value projection overflowed float32; "
                                   "scale the inputs down)", present_value[g]));
  return Status::Ok();
}

Status ScoresOverflowed(int head) {
  return Status(StatusCode::kNonFinite, "scores (head " + Str(head) +
                                            "): a score of a pair no mask blocks overflowed float32; scale the "
                                            "inputs down (or raise the temperature)");
}

Status HeadScoresFinite(const AttentionConfig& config, const AttentionInputs& inputs, const pipeline::AttentionDims& d,
                        const AttentionResult& result) {
  for (int head = 0; head < d.heads; ++head)
    if (!pipeline::AllowedScoresFinite(config, inputs, d, head, result.heads[head])) return ScoresOverflowed(head);
  return Status::Ok();
}

Status PrepareCall(budget::CallKind kind, const AttentionConfig& config, const AttentionInputs& inputs,
                   const AttentionParameters& params, pipeline::AttentionDims* dims, AttentionParameters* complete,
                   const std::string& query_name) {
  // Before seeding: the parameters can be large too.
  ATTN_RETURN_IF_ERROR(CheckCallFits(kind, config, inputs, query_name));
  const pipeline::AttentionDims d = pipeline::ResolveDims(config, inputs);
  AttentionParameters filled = params;
  ATTN_RETURN_IF_ERROR(InitializeParameters(config, d.d_model, d.d_kv_model, d.d_value_model, &filled));
  ATTN_RETURN_IF_ERROR(AttentionParametersValid(config, d, filled));
  *dims = d;
  *complete = std::move(filled);
  return Status::Ok();
}

}  // namespace attn::validate
