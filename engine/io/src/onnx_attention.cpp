// ONNX Attention (opsets 23 and 24) mapped onto attn::Forward, one batch item at a time.
//
//   4-D inputs: Q (B, Hq, L, d_k), K (B, Hkv, m, d_k), V (B, Hkv, m, d_v)
//   3-D inputs: Q (B, L, Hq·d_k),  K (B, m, Hkv·d_k),  V (B, m, Hkv·d_v)
//               with the attributes q_num_heads = Hq, kv_num_heads = Hkv
//   past_key (B, Hkv, p, d_k), past_value (B, Hkv, p, d_v); M = p + m keys in all
//   attn_mask: bool (true = may attend) or float (added), 2-D..4-D broadcast against
//              (B, Hq, L, M); a last dim shorter than M is padded with false / -inf
//   nonpad_kv_seqlen (B): keys j >= nonpad[b] are padding
//   is_causal: query i (of L) may see key j iff j <= i + offset, offset = p with a cache,
//              nonpad[b] - L with nonpad_kv_seqlen (bottom-right aligned), else 0
//   outputs: Y like Q with d_v, present_key/value (B, Hkv, M, ·), qk_matmul_output (B, Hq, L, M)
//            chosen by qk_matmul_output_mode: 0 scaled, 1 softcapped, 2 + masks, 3 softmax;
//            qk_matmul_output only when the case lists it or sets qk_matmul_output_mode (it is
//            the one output that grows with L·M: ONNX Runtime too computes it only when asked)
//   softmax_precision: accepted (1 float, 10 float16, 11 double, 16 bfloat16); the engine's
//            softmax is float32 whatever it says
#include <string>
#include <vector>

#include "attn/attention.h"
#include "case_ops.h"

namespace attn::case_ops {
namespace {

// Shapes of one ONNX call after unifying the 3-D and 4-D layouts.
struct OnnxShape {
  bool four_d = true;
  int64_t batch = 0, q_heads = 0, kv_heads = 0;
  int64_t q_len = 0, new_kv_len = 0, past_len = 0;  // L, m, p
  int64_t d_k = 0, d_v = 0;
  int64_t total_kv_len() const { return past_len + new_kv_len; }  // M
};

const OpNames kAttentionNames = {
    "Attention",
    {"is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode", "scale", "softcap",
     "softmax_precision"},
    {"Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"},
    {"Y", "present_key", "present_value", "qk_matmul_output"},
};

Status MissingInput(const std::string& name) {
  return Status(StatusCode::kParseError, "inputs: Attention needs \"" + name + "\"");
}

// Derives every size from Q, K, V, the head-count attributes and the cache; checks consistency.
Status InferShape(const Case& c, const Tensor& q, const Tensor& k, const Tensor& v, OnnxShape* s) {
  const size_t rank = q.dims.size();
  if (rank != 3 && rank != 4)
    return ShapeError("Q: expected 3 or 4 dims, got " + DimsString(q.dims));
  ATTN_RETURN_IF_ERROR(ExpectFloatTensor("Q", q, rank));
  ATTN_RETURN_IF_ERROR(ExpectFloatTensor("K", k, rank));
  ATTN_RETURN_IF_ERROR(ExpectFloatTensor("V", v, rank));
  int64_t q_heads_attr = 0, kv_heads_attr = 0;
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "q_num_heads", 0, 1, 1 << 16, &q_heads_attr));
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "kv_num_heads", 0, 1, 1 << 16, &kv_heads_attr));

  s->four_d = rank == 4;
  s->batch = q.dims[0];
  if (s->four_d) {
    s->q_heads = q.dims[1], s->q_len = q.dims[2], s->d_k = q.dims[3];
    s->kv_heads = k.dims[1], s->new_kv_len = k.dims[2];
    s->d_v = v.dims[3];
    if (k.dims[3] != s->d_k)
      return ShapeError("K: head size " + std::to_string(k.dims[3]) + " != Q's " +
                        std::to_string(s->d_k));
    if (v.dims[1] != s->kv_heads || v.dims[2] != s->new_kv_len) {
      return ShapeError("V: dims " + DimsString(v.dims) + " disagree with K " + DimsString(k.dims));
    }
    if ((q_heads_attr && q_heads_attr != s->q_heads) ||
        (kv_heads_attr && kv_heads_attr != s->kv_heads)) {
      return ShapeError("q_num_heads / kv_num_heads disagree with the dims of Q and K");
    }
  } else {
    if (!q_heads_attr || !kv_heads_attr) {
      return ShapeError("3-D Q, K, V need the attributes q_num_heads and kv_num_heads");
    }
    s->q_heads = q_heads_attr, s->kv_heads = kv_heads_attr;
    s->q_len = q.dims[1], s->new_kv_len = k.dims[1];
    if (q.dims[2] % s->q_heads || k.dims[2] % s->kv_heads || v.dims[2] % s->kv_heads) {
      return ShapeError("hidden sizes of Q, K, V must divide by q_num_heads / kv_num_heads");
    }
    s->d_k = q.dims[2] / s->q_heads, s->d_v = v.dims[2] / s->kv_heads;
    if (k.dims[2] / s->kv_heads != s->d_k) return ShapeError("K: head size differs from Q's");
    if (v.dims[1] != s->new_kv_len) return ShapeError("V: sequence length differs from K's");
  }
  if (k.dims[0] != s->batch || v.dims[0] != s->batch)
    return ShapeError("Q, K, V: batch sizes differ");
  if (s->q_heads % s->kv_heads) {
    return ShapeError("query heads " + std::to_string(s->q_heads) +
                      " must be a multiple of key/value heads " + std::to_string(s->kv_heads));
  }

  const Tensor* past_key = FindInput(c, "past_key");
  const Tensor* past_value = FindInput(c, "past_value");
  if (!past_key != !past_value) return ShapeError("past_key and past_value come together");
  if (past_key) {
    ATTN_RETURN_IF_ERROR(ExpectFloatTensor("past_key", *past_key, 4));
    ATTN_RETURN_IF_ERROR(ExpectFloatTensor("past_value", *past_value, 4));
    s->past_len = past_key->dims[2];
    const std::vector<int64_t> want_k = {s->batch, s->kv_heads, s->past_len, s->d_k};
    const std::vector<int64_t> want_v = {s->batch, s->kv_heads, s->past_len, s->d_v};
    if (past_key->dims != want_k)
      return ShapeError("past_key: expected " + DimsString(want_k) + ", got " +
                        DimsString(past_key->dims));
    if (past_value->dims != want_v)
      return ShapeError("past_value: expected " + DimsString(want_v) + ", got " +
                        DimsString(past_value->dims));
  }
  return Status::Ok();
}

// The engine's matrix for qk_matmul_output_mode.
const Matrix& QkOutput(const HeadIntermediates& head, int64_t mode) {
  switch (mode) {
    case 0: return head.scaled_scores;
    case 1: return head.capped_scores;
    case 2: return head.scores;
    default: return head.weights;
  }
}

}  // namespace

Status RunOnnxAttention(const Case& c, KernelId kernel, const CaseLimits& limits,
                        TensorMap* outputs) {
  ATTN_RETURN_IF_ERROR(CheckNames(c, kAttentionNames));
  const Tensor* q = FindInput(c, "Q");
  const Tensor* k = FindInput(c, "K");
  const Tensor* v = FindInput(c, "V");
  if (!q) return MissingInput("Q");
  if (!k) return MissingInput("K");
  if (!v) return MissingInput("V");
  OnnxShape s;
  ATTN_RETURN_IF_ERROR(InferShape(c, *q, *k, *v, &s));
  const int64_t L = s.q_len, M = s.total_kv_len();

  int64_t is_causal = 0, mode = 0;
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "is_causal", 0, 0, 1, &is_causal));
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "qk_matmul_output_mode", 0, 0, 3, &mode));
  int64_t softmax_precision = 1;
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "softmax_precision", 1, 1, 16, &softmax_precision));
  if (softmax_precision != 1 && softmax_precision != 10 && softmax_precision != 11 &&
      softmax_precision != 16) {
    return Status(StatusCode::kOutOfRange,
                  "attributes.softmax_precision: expected 1, 10, 11 or 16 (a float type), got " +
                      std::to_string(softmax_precision));
  }
  const bool want_qk =
      CaseAsksFor(c, "qk_matmul_output") || c.attributes.count("qk_matmul_output_mode") != 0;
  AttentionConfig config;
  ATTN_RETURN_IF_ERROR(FloatAttribute(c, "scale", 0.0f, /*allow_zero=*/false, &config.scale));
  ATTN_RETURN_IF_ERROR(FloatAttribute(c, "softcap", 0.0f, /*allow_zero=*/true, &config.softcap));
  config.kernel = kernel;
  config.score = ScoreFunction::kScaledDot;
  config.num_heads = static_cast<int>(s.q_heads);
  config.num_kv_heads = static_cast<int>(s.kv_heads);
  config.head_dim = static_cast<int>(s.d_k);
  config.value_head_dim = static_cast<int>(s.d_v);
  config.causal = is_causal != 0;

  const Tensor* mask = FindInput(c, "attn_mask");
  const Dims4 mask_dims = mask ? LeftPadDims4(mask->dims) : Dims4{};
  if (mask)
    ATTN_RETURN_IF_ERROR(CheckMask("attn_mask", *mask, mask_dims, s.batch, s.q_heads, L, M, true));
  const Tensor* nonpad = FindInput(c, "nonpad_kv_seqlen");
  if (nonpad) {
    if (nonpad->dtype != DType::kInt64 || nonpad->dims != std::vector<int64_t>{s.batch}) {
      return ShapeError("nonpad_kv_seqlen: expected int64 (" + std::to_string(s.batch) + "), got " +
                        DTypeName(nonpad->dtype) + " " + DimsString(nonpad->dims));
    }
    for (int64_t n : nonpad->integers) {
      if (n < 0 || n > M) {
        return Status(StatusCode::kOutOfRange, "nonpad_kv_seqlen: expected values in [0, " +
                                                   std::to_string(M) + "], got " +
                                                   std::to_string(n));
      }
    }
  }

  // What the call will hold, before any of it is allocated. Every dim is at most max_elements (an
  // input's), so M = p + m cannot overflow; the products are checked.
  const std::vector<int64_t> y_dims = {s.batch, s.q_heads, L, s.d_v};
  const std::vector<int64_t> present_key_dims = {s.batch, s.kv_heads, M, s.d_k};
  const std::vector<int64_t> present_value_dims = {s.batch, s.kv_heads, M, s.d_v};
  const std::vector<int64_t> qk_dims = {s.batch, s.q_heads, L, M};
  ATTN_RETURN_IF_ERROR(CheckElements("Y", y_dims, limits));
  ATTN_RETURN_IF_ERROR(CheckElements("present_key", present_key_dims, limits));
  ATTN_RETURN_IF_ERROR(CheckElements("present_value", present_value_dims, limits));
  // The engine's scores (and the expanded mask) for the heads of one batch item.
  ATTN_RETURN_IF_ERROR(
      CheckElements("scores of one batch item (Hq, L, M)", {s.q_heads, L, M}, limits));
  if (want_qk) ATTN_RETURN_IF_ERROR(CheckElements("qk_matmul_output", qk_dims, limits));

  const DType out_type = q->dtype;
  Tensor y = s.four_d ? ZeroTensor(y_dims, out_type)
                      : ZeroTensor({s.batch, L, s.q_heads * s.d_v}, out_type);
  Tensor present_key = ZeroTensor(present_key_dims, out_type);
  Tensor present_value = ZeroTensor(present_value_dims, out_type);
  Tensor qk_output = want_qk ? ZeroTensor(qk_dims, out_type) : Tensor();
  const Tensor* past_key = FindInput(c, "past_key");
  const Tensor* past_value = FindInput(c, "past_value");

  for (int64_t b = 0; b < s.batch; ++b) {
    AttentionInputs in;
    in.query = s.four_d ? HeadsAsColumns(*q, b) : Slice3d(*q, b);
    in.key = s.four_d ? HeadsAsColumns(*k, b) : Slice3d(*k, b);
    in.value = s.four_d ? HeadsAsColumns(*v, b) : Slice3d(*v, b);
    for (int64_t g = 0; past_key && g < s.kv_heads; ++g) {
      in.past_key.push_back(Slice4d(*past_key, b, g));
      in.past_value.push_back(Slice4d(*past_value, b, g));
    }
    if (mask) AppendMaskSlices(*mask, mask_dims, b, s.q_heads, L, M, &in);
    in.bool_mask_meaning = BoolMaskMeaning::kTrueMeansAttend;
    if (nonpad) {
      in.key_padding = BoolMatrix::Constant(1, M, false);
      in.key_padding.rightCols(M - nonpad->integers[b]).setConstant(true);
    }

    // Causal frontier j <= i + offset; negative when fewer valid keys than queries.
    in.query_offset = static_cast<int>(past_key ? s.past_len
                                       : nonpad ? nonpad->integers[b] - L
                                                : 0);

    AttentionResult r;
    const Status status = Forward(config, in, AttentionParameters(), &r);
    if (!status.ok()) {
      return Status(status.code(), "batch " + std::to_string(b) + ": " + status.message());
    }
    if (s.four_d)
      StoreHeadsAsColumns(r.output, b, &y);
    else
      Store3d(r.output, b, &y);
    for (int64_t g = 0; g < s.kv_heads; ++g) {
      Store4d(r.present_key[g], b, g, &present_key);
      Store4d(r.present_value[g], b, g, &present_value);
    }
    for (int64_t h = 0; want_qk && h < s.q_heads; ++h)
      Store4d(QkOutput(r.heads[h], mode), b, h, &qk_output);
  }
  (*outputs)["Y"] = std::move(y);
  (*outputs)["present_key"] = std::move(present_key);
  (*outputs)["present_value"] = std::move(present_value);
  if (want_qk) (*outputs)["qk_matmul_output"] = std::move(qk_output);
  return Status::Ok();
}

}  // namespace attn::case_ops
