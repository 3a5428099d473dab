// The engine's public entry points on any config and input: Forward, ForwardOutput, Backward and a
// PreparedAttention never crash, abort, throw, leak or allocate without bound (ASan, UBSan,
// -malloc_limit_mb), and an ok status always comes with finite outputs and gradients; on a
// self-attention input the prepared layer gives ForwardOutput's status and output, bit for bit. Configs decoded from the bytes take wild
// integers and floats (fuzz_input.h); the matrices are small.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/kernels.h"
#include "attn/prepared_attention.h"
#include "call_budget.h"
#include "support/fuzz_input.h"
#include "pipeline/dims.h"
#include "validate_attention.h"

namespace {

using attn::fuzz::Bytes;

[[noreturn]] void Fail(const char* what, const attn::Status& status) {
  std::fprintf(stderr, "forward_fuzz: %s (status %s)\n", what, status.ToString().c_str());
  std::abort();
}

attn::AttentionConfig DecodeConfig(Bytes* in) {
  attn::AttentionConfig c;
  const auto kernels = attn::AvailableKernels();
  const int k = in->Below(static_cast<int>(kernels.size()) + 1);
  c.kernel = k < static_cast<int>(kernels.size()) ? kernels[k] : in->AnyEnum<attn::KernelId>();
  c.score = in->AnyEnum<attn::ScoreFunction>();
  c.normalizer = in->AnyEnum<attn::Normalizer>();
  c.position = in->AnyEnum<attn::PositionEncoding>();
  c.softcap_order = in->AnyEnum<attn::SoftcapOrder>();
  c.num_heads = in->Bool() ? in->WildInt() : 1;
  c.num_kv_heads = in->Bool() ? in->WildInt() : 0;
  c.head_dim = in->Bool() ? in->WildInt() : 0;
  c.value_head_dim = in->Bool() ? in->WildInt() : 0;
  c.additive_dim = in->Bool() ? in->WildInt() : 0;
  c.output_dim = in->Bool() ? in->WildInt() : 0;
  c.window_left = in->Bool() ? in->WildInt() : -1;
  c.window_right = in->Bool() ? in->WildInt() : -1;
  c.max_positions = in->Bool() ? in->WildInt() : 512;
  c.project_inputs = in->Bool();
  c.project_output = in->Bool();
  c.use_bias = in->Bool();
  c.causal = in->Bool();
  c.seed = in->Byte();
  if (in->Bool()) c.scale = in->WildFloat();
  if (in->Bool()) c.temperature = in->WildFloat();
  if (in->Bool()) c.cosine_temperature = in->WildFloat();
  if (in->Bool()) c.softcap = in->WildFloat();
  if (in->Bool()) c.position_base = in->WildFloat();
  if (in->Bool()) c.threads = in->WildInt();  // validation only: the fuzzed calls stay below 512 queries
  return c;
}

attn::AttentionInputs DecodeInputs(Bytes* in, int* d_model) {
  attn::AttentionInputs x;
  const int n = 1 + in->Below(6), m = 1 + in->Below(6);
  *d_model = 1 + in->Below(8);
  const bool finite = in->Byte() < 200;  // mostly finite, so the computation itself is reached
  x.query = in->Values(n, *d_model, finite);
  if (in->Bool()) x.key = in->Values(m, in->Bool() ? *d_model : 1 + in->Below(8), finite);
  if (in->Bool()) x.value = in->Values(x.key.size() ? m : n, 1 + in->Below(8), finite);
  const int keys = x.key.size() ? m : n;
  if (in->Bool()) x.query_offset = in->WildInt();
  switch (in->Below(5)) {
    case 1: x.float_mask = {in->Values(n, keys, false)}; break;
    case 2: x.bool_mask = {attn::BoolMatrix::Constant(n, keys, in->Bool())}; x.bool_mask[0](0, 0) = in->Bool(); break;
    case 3: x.key_padding = attn::BoolMatrix::Constant(1, keys, false); x.key_padding(0, in->Below(keys)) = true; break;
    default: break;
  }
  x.bool_mask_meaning = in->AnyEnum<attn::BoolMaskMeaning>();
  if (in->Byte() > 230) {  // a past cache of p rows per key/value head (shapes may be wrong on purpose)
    const int p = 1 + in->Below(3), width = 1 + in->Below(8);
    x.past_key = {in->Values(p, width, true)};
    x.past_value = {in->Values(p, width, true)};
  }
  return x;
}

// Valid calls the engine accepts but that need more than this (a learned table of 2^24 rows, a
// value width of 2^22) are legitimate and take seconds to minutes under ASan on the reference loops
// (the work grows with the memory): skipped, to keep hundreds of runs a second. Calls over
// attn::Limits are still made: they must be refused at once.
constexpr int64_t kMaxFuzzedCallBytes = int64_t{4} << 20;

bool AcceptedButLarge(const attn::AttentionConfig& config, const attn::AttentionInputs& inputs) {
  if (!attn::validate::AttentionConfigValid(config).ok() || !attn::validate::AttentionInputsValid(config, inputs).ok())
    return false;
  const attn::pipeline::AttentionDims d = attn::pipeline::ResolveDims(config, inputs);
  const int64_t bytes = attn::budget::EstimatedBytes(attn::budget::CallKind::kForwardBackward, config, d);
  return bytes > kMaxFuzzedCallBytes && attn::budget::CallFits(attn::budget::CallKind::kForward, config, d).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const attn::AttentionConfig config = DecodeConfig(&in);
  int d_model = 0;
  const attn::AttentionInputs inputs = DecodeInputs(&in, &d_model);
  if (AcceptedButLarge(config, inputs)) return 0;

  attn::AttentionResult result;
  const attn::Status forward = attn::Forward(config, inputs, &result);
  if (forward.ok() && !result.output.allFinite()) Fail("Forward: ok with a non-finite output", forward);

  attn::Matrix output;
  const attn::Status fused = attn::ForwardOutput(config, inputs, attn::AttentionParameters(), &output);
  if (fused.ok() && !output.allFinite()) Fail("ForwardOutput: ok with a non-finite output", fused);
  // Whether both paths agree is differential_fuzz's question: it knows where float32 rounding may
  // legitimately decide an overflow either way.

  // A layer prepared for the query's width runs the same pipeline as ForwardOutput on the same kernel:
  // on an input of the query alone, the same status (code and message) and the same output, bit for
  // bit, twice (the second call reuses the workspace).
  attn::AttentionInputs query_only, one_row;
  query_only.query = inputs.query;
  one_row.query = attn::Matrix::Zero(1, inputs.query.cols());
  // The query alone, and the one finite row Prepare checks with, can be valid, large calls where the
  // whole input was refused (a learned table of 2^24 rows for 6 positions; an output width of 2^24
  // for a query holding inf): skipped as above.
  if (inputs.key.size() == 0 && inputs.value.size() == 0 && !AcceptedButLarge(config, query_only) &&
      !AcceptedButLarge(config, one_row)) {
    attn::Matrix want;
    const attn::Status want_status = attn::ForwardOutput(config, query_only, attn::AttentionParameters(), &want);
    attn::PreparedAttention layer;
    const attn::Status prepared =
        attn::Prepare(config, static_cast<int>(inputs.query.cols()), attn::AttentionParameters(), &layer);
    if (!prepared.ok() && want_status.ok()) Fail("Prepare refused a config ForwardOutput accepts", prepared);
    for (int call = 0; prepared.ok() && call < 2; ++call) {
      attn::Matrix got;
      const attn::Status status = layer.Forward(inputs.query, &got);
      if (status.code() != want_status.code() || status.message() != want_status.message()) {
        std::fprintf(stderr, "forward_fuzz: ForwardOutput's status: %s\n", want_status.ToString().c_str());
        Fail("PreparedAttention::Forward: not ForwardOutput's status", status);
      }
      if (status.ok() && !(got == want)) Fail("PreparedAttention::Forward: not ForwardOutput's output", status);
    }
  }

  if (forward.ok()) {
    attn::Matrix d_output = in.Values(static_cast<int>(result.output.rows()), static_cast<int>(result.output.cols()), true);
    if (in.Bool()) d_output.resize(1, 1);  // the wrong shape now and then
    attn::AttentionGradients grad;
    const attn::Status backward = attn::Backward(config, inputs, result.parameters, result, d_output, &grad);
    if (backward.ok() && !grad.d_query.allFinite()) Fail("Backward: ok with a non-finite d_query", backward);
  }
  return 0;
}
