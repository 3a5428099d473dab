// PreparedAttention (attn/prepared_attention.h): the checks and the packing of the weights once,
// then on each call the checks that depend on x and the fused pipeline of fused_forward.h.
#include "attn/prepared_attention.h"

#include <new>
#include <string>
#include <utility>

#include "attn/limits.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "fused_forward.h"
#include "pipeline/dims.h"
#include "validate_attention.h"

namespace attn {

struct PreparedAttention::State {
  AttentionConfig config;
  int d_model = 0, d_out = 0;
  bool fused = false;
  fused::Layer layer;              // fused: the packed weights
  AttentionParameters complete;    // otherwise: the checked, completed parameters for ForwardOutput
  fused::Workspace workspace;      // fused: every per-call matrix, kept between calls
  Eigen::Index checked_rows = -1;  // the n whose shape checks passed last
  pipeline::AttentionDims dims;    // resolved for checked_rows
};

namespace {

// A stand-in for an x of `rows` rows: the shape checks of ForwardOutput look at nothing else (the
// values are checked on x itself), so they run on it exactly as they run on the caller's input.
AttentionInputs StandIn(Eigen::Index rows, int d_model) {
  AttentionInputs inputs;
  inputs.query = Matrix::Zero(rows, d_model);
  return inputs;
}

budget::CallKind KindOf(bool fused) { return fused ? budget::CallKind::kFusedForward : budget::CallKind::kForward; }

}  // namespace

Status Prepare(const AttentionConfig& config, int d_model, const AttentionParameters& params,
               PreparedAttention* prepared) {
  ATTN_RETURN_IF_ERROR(validate::AtLeast("d_model", d_model, 1));
  ATTN_RETURN_IF_ERROR(validate::AtMost("d_model", d_model, Limits::max_dimension));
  try {
    auto state = std::make_unique<PreparedAttention::State>();
    const AttentionInputs one_row = StandIn(1, d_model);
    state->config = config;
    state->d_model = d_model;
    state->fused = FusedKernelCovers(config, one_row);
    pipeline::AttentionDims d;
    AttentionParameters complete;
    ATTN_RETURN_IF_ERROR(validate::PrepareCall(KindOf(state->fused), config, one_row, params, &d, &complete));
    state->d_out = d.d_out;
    if (state->fused) {
      fused::BuildLayer(config, std::move(complete), &state->layer);
    } else {
      state->complete = std::move(complete);
    }
    prepared->state_ = std::move(state);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("Prepare");
  }
}

PreparedAttention::PreparedAttention() = default;
PreparedAttention::~PreparedAttention() = default;
PreparedAttention::PreparedAttention(PreparedAttention&&) noexcept = default;
PreparedAttention& PreparedAttention::operator=(PreparedAttention&&) noexcept = default;

bool PreparedAttention::fused() const { return state_ && state_->fused; }
int PreparedAttention::d_model() const { return state_ ? state_->d_model : 0; }
int PreparedAttention::d_out() const { return state_ ? state_->d_out : 0; }
const AttentionConfig& PreparedAttention::config() const {
  static const AttentionConfig unprepared;
  return state_ ? state_->config : unprepared;
}

Status PreparedAttention::Forward(const Matrix& x, Matrix* out) {
  if (!state_)
    return Status(StatusCode::kInvalidArgument, "PreparedAttention: expected a layer built by attn::Prepare, got an unprepared one");
  State& s = *state_;
  // What ForwardOutput checks first, on the values of x ("query", as it names them).
  ATTN_RETURN_IF_ERROR(validate::NonEmpty("query", x));
  ATTN_RETURN_IF_ERROR(validate::AllFinite("query", x));
  if (x.cols() != s.d_model) {
    return Status(StatusCode::kShapeMismatch, "query: expected (n, " + std::to_string(s.d_model) +
                                                  ") (the d_model the layer was prepared for), got " +
                                                  validate::Shape(x.rows(), x.cols()));
  }
  try {
    if (!s.fused) {
      AttentionInputs inputs;
      inputs.query = x;
      return ForwardOutput(s.config, inputs, s.complete, out);
    }
    // The checks that depend on n (the positions a learned table holds, the memory of the call):
    // once per n, on a stand-in.
    if (x.rows() != s.checked_rows) {
      ATTN_RETURN_IF_ERROR(validate::CheckCallFits(KindOf(true), s.config, StandIn(x.rows(), s.d_model)));
      const int n = static_cast<int>(x.rows());
      s.dims = pipeline::ResolveDims(s.config, n, n, 0, s.d_model, s.d_model, s.d_model, std::nullopt);
      s.checked_rows = x.rows();
    }
    fused::CallInputs inputs;
    inputs.query = &x;
    return fused::Run(s.layer, inputs, s.dims, &s.workspace, out);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("PreparedAttention::Forward");
  }
}

}  // namespace attn
