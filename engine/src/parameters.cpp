// Deterministic parameter initialisation: the same seed gives the same weights on every platform
// (attn/seeded_random.h).
#include <cmath>
#include <new>

#include "attn/attention.h"
#include "attn/limits.h"
#include "attn/seeded_random.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "pipeline/dims.h"
#include "validate_attention.h"

namespace attn {
namespace {

// Uniform in [-limit, limit), one independent stream per (seed, parameter id), so adding a
// parameter never changes the others.   -> (rows, cols)
Matrix SeededUniform(uint32_t seed, uint32_t parameter_id, int rows, int cols, float limit) {
  return SeededRandom(seed, parameter_id).SymmetricMatrix(rows, cols, limit);
}

float FanInLimit(int fan_in) { return 1.0f / std::sqrt(static_cast<float>(fan_in > 0 ? fan_in : 1)); }

// Fills `m` if empty: a (rows, cols) matrix seeded for `id`, scaled for `fan_in` inputs.
void FillIfEmpty(uint32_t seed, uint32_t id, int rows, int cols, int fan_in, Matrix* m) {
  if (m->size() == 0) *m = SeededUniform(seed, id, rows, cols, FanInLimit(fan_in));
}

// One matrix per head, each seeded for (id, head).
void FillHeadsIfEmpty(uint32_t seed, uint32_t id, int heads, int rows, int cols, int fan_in,
                      std::vector<Matrix>* list) {
  if (!list->empty()) return;
  for (int h = 0; h < heads; ++h)
    list->push_back(SeededUniform(seed, id * 1000u + static_cast<uint32_t>(h), rows, cols, FanInLimit(fan_in)));
}

// Parameter ids: fixed forever so seeds keep their meaning.
enum ParameterId : uint32_t {
  kWq = 1, kWk, kWv, kWo, kBq, kBk, kBv, kBo, kBilinear, kAdditiveWq, kAdditiveWk, kAdditiveConcat,
  kAdditiveV, kPositionTable,
};

}  // namespace

namespace {

// Fills what the config needs; sizes checked by InitializeParameters.
void Fill(const AttentionConfig& config, const pipeline::AttentionDims& d, AttentionParameters* params);

}  // namespace

Status InitializeParameters(const AttentionConfig& config, int d_model, int d_kv_model, int d_value_model,
                            AttentionParameters* params) {
  ATTN_RETURN_IF_ERROR(validate::ConfigIntegersValid(config));
  ATTN_RETURN_IF_ERROR(validate::AtMost("d_model", d_model, Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("d_kv_model", d_kv_model, Limits::max_dimension));
  ATTN_RETURN_IF_ERROR(validate::AtMost("d_value_model", d_value_model, Limits::max_dimension));
  const pipeline::AttentionDims d =
      pipeline::ResolveDims(config, 1, 1, 0, d_model, d_kv_model, d_value_model, std::nullopt);
  if (d_model <= 0 || d_kv_model <= 0 || d_value_model <= 0 || d.heads <= 0 || d.kv_heads <= 0 || d.d_k <= 0 ||
      d.d_v <= 0 || d.d_out <= 0) {
    return Status(StatusCode::kOutOfRange, "InitializeParameters: config gives an empty head or output width");
  }
  ATTN_RETURN_IF_ERROR(validate::WidthsValid(d));
  ATTN_RETURN_IF_ERROR(budget::CallFits(budget::CallKind::kParameters, config, d));
  try {
    Fill(config, d, params);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("InitializeParameters");
  }
  return Status::Ok();
}

namespace {

void Fill(const AttentionConfig& config, const pipeline::AttentionDims& d, AttentionParameters* params) {
  const int d_model = d.d_model, d_kv_model = d.d_kv_model, d_value_model = d.d_value_model;
  const uint32_t s = config.seed;
  if (config.project_inputs) {
    FillIfEmpty(s, kWq, d_model, d.heads * d.d_k, d_model, &params->wq);
    FillIfEmpty(s, kWk, d_kv_model, d.kv_heads * d.d_k, d_kv_model, &params->wk);
    FillIfEmpty(s, kWv, d_value_model, d.kv_heads * d.d_v, d_value_model, &params->wv);
    if (config.use_bias) {
      FillIfEmpty(s, kBq, 1, d.heads * d.d_k, d_model, &params->bq);
      FillIfEmpty(s, kBk, 1, d.kv_heads * d.d_k, d_kv_model, &params->bk);
      FillIfEmpty(s, kBv, 1, d.kv_heads * d.d_v, d_value_model, &params->bv);
    }
  }
  if (config.project_output) {
    FillIfEmpty(s, kWo, d.heads * d.d_v, d.d_out, d.heads * d.d_v, &params->wo);
    if (config.use_bias) FillIfEmpty(s, kBo, 1, d.d_out, d.heads * d.d_v, &params->bo);
  }
  switch (config.score) {
    case ScoreFunction::kBilinear:
      FillHeadsIfEmpty(s, kBilinear, d.heads, d.d_k, d.d_k, d.d_k, &params->bilinear);
      break;
    case ScoreFunction::kAdditive:
      FillHeadsIfEmpty(s, kAdditiveWq, d.heads, d.d_k, d.d_a, d.d_k, &params->additive_wq);
      FillHeadsIfEmpty(s, kAdditiveWk, d.heads, d.d_k, d.d_a, d.d_k, &params->additive_wk);
      FillHeadsIfEmpty(s, kAdditiveV, d.heads, 1, d.d_a, d.d_a, &params->additive_v);
      break;
    case ScoreFunction::kAdditiveConcat:
      FillHeadsIfEmpty(s, kAdditiveConcat, d.heads, 2 * d.d_k, d.d_a, 2 * d.d_k, &params->additive_concat);
      FillHeadsIfEmpty(s, kAdditiveV, d.heads, 1, d.d_a, d.d_a, &params->additive_v);
      break;
    default:
      break;
  }
  if (config.position == PositionEncoding::kLearned)
    FillIfEmpty(s, kPositionTable, config.max_positions, d_model, d_model, &params->position_table);
  if (config.position == PositionEncoding::kQuadraticRelative) {
    if (params->relative_center.size() == 0) {
      params->relative_center.resize(1, d.heads);
      for (int h = 0; h < d.heads; ++h) params->relative_center(0, h) = static_cast<float>(h - d.heads / 2);
    }
    if (params->relative_sharpness.size() == 0) params->relative_sharpness = Matrix::Ones(1, d.heads);
  }
}

}  // namespace
}  // namespace attn
