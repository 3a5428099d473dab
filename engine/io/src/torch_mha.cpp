// torch.nn.MultiheadAttention(embed_dim E, num_heads H, batch_first=True) mapped onto
// attn::Forward with projections, one batch item at a time.
//
//   query (N, L, E), key (N, S, E), value (N, S, E)
//   in_proj_weight (3E, E) = [W_q; W_k; W_v] in torch's y = x Wᵀ convention, in_proj_bias (3E)
//   out_proj_weight (E, E), out_proj_bias (E); bias=False drops both biases
//   attn_mask (L, S) or (N·H, L, S): bool true = may NOT attend, float = added to the scores
//   key_padding_mask (N, S): bool true = padding (never attended), float = added
//   outputs: attn_output (N, L, E), attn_output_weights (N, H, L, S) (average_attn_weights=False)
//            when the case lists it or sets need_weights = 1 (need_weights = 0 never gives it)
#include <string>

#include "attn/attention.h"
#include "case_ops.h"

namespace attn::case_ops {
namespace {

const OpNames kMultiHeadAttentionNames = {
    "MultiHeadAttention",
    {"batch_first", "need_weights", "num_heads"},
    {"query", "key", "value", "in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias",
     "attn_mask", "key_padding_mask"},
    {"attn_output", "attn_output_weights"},
};

Status ExpectDims(const std::string& name, const Tensor& t, const std::vector<int64_t>& dims) {
  ATTN_RETURN_IF_ERROR(ExpectFloatTensor(name, t, dims.size()));
  if (t.dims != dims)
    return ShapeError(name + ": expected " + DimsString(dims) + ", got " + DimsString(t.dims));
  return Status::Ok();
}

// The row vector (1, E) at element offset `start` of a 1-D tensor, or zeros without the tensor
// (torch with bias=False; the engine would otherwise seed a missing bias).
Matrix BiasRow(const Tensor* t, int64_t start, int64_t E) {
  if (!t) return Matrix::Zero(1, E);
  return Eigen::Map<const Matrix>(t->values.data() + start, 1, E);
}

// Builds the engine parameters from torch's packed weights (checked by the caller).
AttentionParameters ToParameters(const Tensor& in_w, const Tensor* in_b, const Tensor& out_w,
                                 const Tensor* out_b, int64_t E) {
  const Eigen::Map<const Matrix> w(in_w.values.data(), 3 * E, E);  // rows: q, k, v outputs
  AttentionParameters p;
  // torch computes x Wᵀ; the engine computes x W.
  p.wq = w.topRows(E).transpose();
  p.wk = w.middleRows(E, E).transpose();
  p.wv = w.bottomRows(E).transpose();
  p.wo = Eigen::Map<const Matrix>(out_w.values.data(), E, E).transpose();
  p.bq = BiasRow(in_b, 0, E);
  p.bk = BiasRow(in_b, E, E);
  p.bv = BiasRow(in_b, 2 * E, E);
  p.bo = BiasRow(out_b, 0, E);
  return p;
}

}  // namespace

Status RunTorchMha(const Case& c, KernelId kernel, const CaseLimits& limits, TensorMap* outputs) {
  ATTN_RETURN_IF_ERROR(CheckNames(c, kMultiHeadAttentionNames));
  for (const char* name : {"query", "key", "value", "in_proj_weight", "out_proj_weight"}) {
    if (!FindInput(c, name)) {
      return Status(StatusCode::kParseError,
                    std::string("inputs: MultiHeadAttention needs \"") + name + "\"");
    }
  }
  const Tensor& query = *FindInput(c, "query");
  ATTN_RETURN_IF_ERROR(ExpectFloatTensor("query", query, 3));
  const int64_t N = query.dims[0], L = query.dims[1], E = query.dims[2];
  const Tensor& key = *FindInput(c, "key");
  ATTN_RETURN_IF_ERROR(ExpectFloatTensor("key", key, 3));
  const int64_t S = key.dims[1];
  ATTN_RETURN_IF_ERROR(ExpectDims("key", key, {N, S, E}));
  ATTN_RETURN_IF_ERROR(ExpectDims("value", *FindInput(c, "value"), {N, S, E}));
  ATTN_RETURN_IF_ERROR(ExpectDims("in_proj_weight", *FindInput(c, "in_proj_weight"), {3 * E, E}));
  ATTN_RETURN_IF_ERROR(ExpectDims("out_proj_weight", *FindInput(c, "out_proj_weight"), {E, E}));
  const Tensor* in_bias = FindInput(c, "in_proj_bias");
  const Tensor* out_bias = FindInput(c, "out_proj_bias");
  if (in_bias) ATTN_RETURN_IF_ERROR(ExpectDims("in_proj_bias", *in_bias, {3 * E}));
  if (out_bias) ATTN_RETURN_IF_ERROR(ExpectDims("out_proj_bias", *out_bias, {E}));

  int64_t heads = 0, batch_first = 1, need_weights = 0;
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "num_heads", 0, 1, E, &heads));
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "batch_first", 1, 1, 1, &batch_first));
  const bool lists_weights = CaseAsksFor(c, "attn_output_weights");
  ATTN_RETURN_IF_ERROR(IntAttribute(c, "need_weights", lists_weights, 0, 1, &need_weights));
  if (heads == 0)
    return Status(StatusCode::kParseError, "attributes: MultiHeadAttention needs num_heads");
  if (E % heads) {
    return ShapeError("embed_dim " + std::to_string(E) + " must divide by num_heads " +
                      std::to_string(heads));
  }

  // torch's 3-D mask (N·H, L, S) is the same memory as (N, H, L, S).
  const Tensor* mask = FindInput(c, "attn_mask");
  Dims4 mask_dims{};
  if (mask) {
    if (mask->dims.size() > 3) {
      return ShapeError("attn_mask: expected (L, S) or (N·H, L, S), got " + DimsString(mask->dims));
    }
    if (mask->dims.size() == 3 && mask->dims[0] != N * heads) {
      return ShapeError("attn_mask: 3-D mask needs N·num_heads = " + std::to_string(N * heads) +
                        " planes, got " + DimsString(mask->dims));
    }
    mask_dims = mask->dims.size() == 3 ? Dims4{N, heads, mask->dims[1], mask->dims[2]}
                                       : LeftPadDims4(mask->dims);
    ATTN_RETURN_IF_ERROR(CheckMask("attn_mask", *mask, mask_dims, N, heads, L, S, false));
  }
  const Tensor* padding = FindInput(c, "key_padding_mask");
  if (padding) {
    if (padding->dims != std::vector<int64_t>{N, S} ||
        (padding->dtype != DType::kBool && padding->dtype != DType::kFloat32 &&
         padding->dtype != DType::kFloat16)) {
      return ShapeError("key_padding_mask: expected bool or float (" + std::to_string(N) + ", " +
                        std::to_string(S) + "), got " + DTypeName(padding->dtype) + " " +
                        DimsString(padding->dims));
    }
  }

  // What the call will hold, before any of it is allocated (every dim is at most an input's).
  const std::vector<int64_t> weights_dims = {N, heads, L, S};
  ATTN_RETURN_IF_ERROR(CheckElements("attn_output", {N, L, E}, limits));
  ATTN_RETURN_IF_ERROR(CheckElements("scores of one batch item (H, L, S)", {heads, L, S}, limits));
  if (need_weights)
    ATTN_RETURN_IF_ERROR(CheckElements("attn_output_weights", weights_dims, limits));

  AttentionConfig config;
  config.kernel = kernel;
  config.score = ScoreFunction::kScaledDot;
  config.num_heads = static_cast<int>(heads);
  config.project_inputs = true;
  config.project_output = true;
  config.use_bias = true;  // zeros stand in for absent biases
  config.output_dim = static_cast<int>(E);
  const AttentionParameters params = ToParameters(*FindInput(c, "in_proj_weight"), in_bias,
                                                  *FindInput(c, "out_proj_weight"), out_bias, E);

  Tensor attn_output = ZeroTensor({N, L, E}, query.dtype);
  Tensor weights = need_weights ? ZeroTensor(weights_dims, query.dtype) : Tensor();
  for (int64_t n = 0; n < N; ++n) {
    AttentionInputs in;
    in.query = Slice3d(query, n);
    in.key = Slice3d(key, n);
    in.value = Slice3d(*FindInput(c, "value"), n);
    in.bool_mask_meaning = BoolMaskMeaning::kTrueMeansBlock;
    if (mask) AppendMaskSlices(*mask, mask_dims, n, heads, L, S, &in);
    if (padding) {
      const Matrix row = Eigen::Map<const Matrix>(padding->values.data() + n * S, 1, S);
      if (padding->dtype == DType::kBool) {
        in.key_padding = (row.array() != 0.0f).matrix();
      } else {
        // A float key_padding_mask is added to every query row, like a float attn_mask.
        if (in.float_mask.empty()) in.float_mask.push_back(Matrix::Zero(L, S));
        for (Matrix& m : in.float_mask) m.rowwise() += row.row(0);
      }
    }

    AttentionResult r;
    const Status status = Forward(config, in, params, &r);
    if (!status.ok()) {
      return Status(status.code(), "batch " + std::to_string(n) + ": " + status.message());
    }
    Store3d(r.output, n, &attn_output);
    for (int64_t h = 0; need_weights && h < heads; ++h) Store4d(r.heads[h].weights, n, h, &weights);
  }
  (*outputs)["attn_output"] = std::move(attn_output);
  if (need_weights) (*outputs)["attn_output_weights"] = std::move(weights);
  return Status::Ok();
}

}  // namespace attn::case_ops
