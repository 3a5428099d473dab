// Backward on every available kernel (reference, eigen and the SIMD kernels, whose backward pass is
// Eigen's) on the same input, as differential_fuzz does for the forward pass: the same status on
// every kernel wherever Forward's status is (outside the band where the summation order decides a
// score's overflow, which differential_fuzz allows), and an ok status only with every gradient finite
// (issue 26: eigen answered ok with inf and NaN in dWq and dWk where reference was finite). Values are finite but reach 1e30
// (FiniteFloat), so products overflow float32 on purpose.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/kernels.h"
#include "support/fuzz_input.h"

namespace {

using attn::fuzz::Bytes;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "backward_fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  attn::AttentionConfig config;
  static const int kHeads[] = {1, 2};
  config.num_heads = kHeads[in.Below(2)];
  const int d_k = 1 + in.Below(4), n = 1 + in.Below(5), m = 1 + in.Below(5);
  config.project_inputs = in.Bool();
  config.project_output = in.Bool();
  config.use_bias = in.Bool();
  config.causal = in.Bool();
  config.seed = in.Byte();
  if (in.Bool()) config.score = attn::ScoreFunction::kDot;
  if (in.Bool()) config.temperature = 0.25f * (1 + in.Below(8));
  attn::AttentionInputs inputs;
  const int d_model = config.num_heads * d_k;
  inputs.query = in.Values(n, d_model, true);
  if (in.Bool()) {
    inputs.key = in.Values(m, d_model, true);
    inputs.value = in.Values(m, d_model, true);
  }
  const attn::Matrix d_output = in.Values(n, d_model, true);

  std::vector<attn::KernelId> kernels = attn::AvailableKernels();
  // Where the forward pass itself may differ (scores within float32's rounding of FLT_MAX: the
  // summation order decides, the band differential_fuzz allows), the backward statuses may too.
  attn::StatusCode forward_code = attn::StatusCode::kOk;
  for (size_t k = 0; k < kernels.size(); ++k) {
    config.kernel = kernels[k];
    attn::AttentionResult result;
    const attn::StatusCode code = attn::Forward(config, inputs, attn::AttentionParameters(), &result).code();
    if (k == 0) forward_code = code;
    if (code != forward_code) return 0;
  }
  attn::Status first = attn::Status::Ok();
  for (size_t k = 0; k < kernels.size(); ++k) {
    config.kernel = kernels[k];
    attn::AttentionGradients g;
    const attn::Status s = attn::Backward(config, inputs, attn::AttentionParameters(), d_output, &g);
    const std::string on = std::string(" on ") + attn::KernelName(kernels[k]);
    if (k == 0) first = s;
    if (s.code() != first.code())
      Fail("status " + s.ToString() + on + ", but " + first.ToString() + " on " + attn::KernelName(kernels[0]));
    if (!s.ok()) continue;
    attn::ForEachGradient(g, [&](const std::string& name, const attn::Matrix& grad) {
      if (!grad.allFinite()) Fail("ok" + on + " with a non-finite " + name);
    });
  }
  return 0;
}
