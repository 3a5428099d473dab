// Every available kernel (reference, eigen, avx2 / avx512 / wasm_simd128 where there) and both paths
// (Forward, materialised; ForwardOutput, the fused kernel) against the float64 reference on the same
// input: the same status, and answers within the float32 error bound.
//
// The bound, per query row i of a head (eps = 2^-24, γ_k = k·eps/(1 − k·eps), d = d_k, M keys):
//   a score z_ij = (q_i·k_j)·scale/τ is computed within
//     Δ_i = γ_d·B_ij·scale/τ + 4·eps·|z_ij| + (((1 + γ_d)·d·η·scale + η)/τ + η)·(1 + 4·eps),
//   where B_ij = Σ_t |q_it||k_jt| bounds every partial sum, and η = 2^-150 is what underflow loses:
//   a product or multiply-add whose result falls below FLT_MIN is off by up to η absolutely, not
//   relatively (d of them in q·k, one each in ·scale and ·1/τ). A fuzz finding needed that term:
//   q·k = −6.7e-49 rounds to 0 in float32, and scale/τ = 5.8e46 makes that a score off by 0.04.
//   Softmax weights then change by a factor within
//   e^{±2Δ_i}, so the output row is within ((e^{2Δ_i} − 1) + γ_M + 8·eps)·max|v| (plus the fast exp's
//   ulp, inside the 8·eps), doubled for safety, plus a few FLT_MIN for denormal values.
// Overflow: a score is surely finite in float32 when B·scale/τ (and B, B·scale) stay below
// FLT_MAX / 2, and surely overflows when (|q·k| − γ_d·B − (1 + γ_d)·d·η)·scale/τ passes FLT_MAX; in between the
// summation order decides, and only "ok ⇒ finite" is required.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "attn/reference.h"
#include "support/fuzz_input.h"

namespace {

using attn::fuzz::Bytes;

constexpr double kEps = 1.0 / (1 << 24);
// Half the smallest float32 denormal: the absolute rounding error of a result below FLT_MIN.
const double kUnderflow = std::ldexp(1.0, -150);

double Gamma(int k) { return k * kEps / (1 - k * kEps); }

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "differential_fuzz: %s\n", what.c_str());
  std::abort();
}

struct Call {
  attn::AttentionConfig config;
  attn::AttentionInputs inputs;
};

Call Decode(Bytes* in) {
  Call c;
  static const int kHeads[] = {1, 2, 4};
  c.config.num_heads = kHeads[in->Below(3)];
  c.config.num_kv_heads = in->Bool() ? 1 : 0;
  const int kv_heads = c.config.num_kv_heads ? 1 : c.config.num_heads;
  const int d_k = 1 + in->Below(6), d_v = 1 + in->Below(6);
  const int n = 1 + in->Below(8), m = 1 + in->Below(8);
  c.config.score = in->Bool() ? attn::ScoreFunction::kDot : attn::ScoreFunction::kScaledDot;
  if (in->Bool()) c.config.scale = in->WildFloat();
  if (in->Bool()) c.config.temperature = in->WildFloat();
  c.config.causal = in->Bool();
  if (in->Bool()) c.config.window_left = in->Below(6);
  if (in->Bool()) c.config.window_right = in->Below(6);
  if (in->Bool()) c.inputs.query_offset = in->Below(12) - 3;
  c.inputs.query = in->Values(n, c.config.num_heads * d_k, true);
  c.inputs.key = in->Values(m, kv_heads * d_k, true);
  c.inputs.value = in->Values(m, kv_heads * d_v, true);
  return c;
}

struct Run {
  std::string name;
  attn::Status status;
  attn::Matrix output;
};

std::vector<Run> RunEverywhere(const Call& c) {
  std::vector<Run> runs;
  for (attn::KernelId kernel : attn::AvailableKernels()) {
    attn::AttentionConfig config = c.config;
    config.kernel = kernel;
    Run forward{std::string("Forward on ") + attn::KernelName(kernel), {}, {}};
    attn::AttentionResult result;
    forward.status = attn::Forward(config, c.inputs, &result);
    forward.output = result.output;
    runs.push_back(forward);
    if (attn::FusedKernelCovers(config, c.inputs)) {
      Run fused{std::string("ForwardOutput (fused) on ") + attn::KernelName(kernel), {}, {}};
      fused.status = attn::ForwardOutput(config, c.inputs, attn::AttentionParameters(), &fused.output);
      runs.push_back(fused);
    }
  }
  return runs;
}

enum class Expect { kOk, kOverflow, kEither };

// Expected status from the float64 intermediates, and each output row's tolerance.   -> tol: (n, h·d_v)
Expect Expected(const Call& c, const attn::AttentionResultD& ref, attn::MatrixD* tol) {
  const double scale = attn::EffectiveScale(c.config, static_cast<int>(ref.heads[0].q.cols()));
  const double temperature = c.config.temperature;
  Expect expect = Expect::kOk;
  const int n = static_cast<int>(ref.concat.rows());
  tol->resize(n, ref.concat.cols());
  for (size_t h = 0; h < ref.heads.size(); ++h) {
    const attn::HeadIntermediatesT<double>& head = ref.heads[h];
    const int d = static_cast<int>(head.q.cols()), keys = static_cast<int>(head.k.rows());
    const int d_v = static_cast<int>(head.v.cols());
    for (int i = 0; i < n; ++i) {
      double delta = 0, v_max = 0;
      for (int j = 0; j < keys; ++j) {
        if (head.scores(i, j) == -INFINITY) continue;  // masked (float64 never overflows here)
        const double bound = (head.q.row(i).cwiseAbs() * head.k.row(j).cwiseAbs().transpose())(0, 0);
        const double raw = head.raw_scores(i, j);
        const double upper = bound * (1 + 4 * kEps);
        if (!(upper < FLT_MAX / 2 && upper * scale < FLT_MAX / 2 && upper * scale / temperature < FLT_MAX / 2) &&
            expect == Expect::kOk)
          expect = Expect::kEither;
        const double raw_underflow = (1 + Gamma(d)) * d * kUnderflow;  // absolute, in q·k
        const double lower = std::max(0.0, std::fabs(raw) - Gamma(d) * bound - raw_underflow) * (1 - 4 * kEps);
        if (lower > FLT_MAX * (1 + kEps) || lower * scale > FLT_MAX * (1 + kEps) ||
            lower * scale / temperature > FLT_MAX * (1 + kEps))
          expect = Expect::kOverflow;
        const double underflow = (raw_underflow * scale + kUnderflow) / temperature + kUnderflow;
        delta = std::max(delta, (Gamma(d) * bound * scale / temperature + 4 * kEps * std::fabs(raw * scale / temperature)) +
                                    underflow * (1 + 4 * kEps));
        v_max = std::max<double>(v_max, head.v.row(j).cwiseAbs().maxCoeff());
      }
      if (v_max > FLT_MAX / 4 && expect == Expect::kOk) expect = Expect::kEither;  // Σ w·v may round past FLT_MAX
      const double t = 2 * (std::expm1(std::min(2 * delta, 700.0)) + Gamma(keys) + 8 * kEps) * v_max + 4 * keys * FLT_MIN;
      tol->block(i, static_cast<Eigen::Index>(h) * d_v, 1, d_v).setConstant(t);
    }
  }
  return expect;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const Call c = Decode(&in);
  const std::vector<Run> runs = RunEverywhere(c);

  // Input checks (a non-positive scale or temperature) are the same code on every kernel.
  const attn::StatusCode first = runs[0].status.code();
  if (first != attn::StatusCode::kOk && first != attn::StatusCode::kNonFinite) {
    for (const Run& r : runs)
      if (r.status.code() != first) Fail(r.name + ": " + r.status.ToString() + " but " + runs[0].name + ": " + runs[0].status.ToString());
    return 0;
  }
  for (const Run& r : runs)
    if (r.status.ok() && !r.output.allFinite()) Fail(r.name + ": ok with a non-finite output");

  attn::AttentionResultD ref;
  attn::AttentionParameters params;
  if (!attn::InitializeParameters(c.config, static_cast<int>(c.inputs.query.cols()), static_cast<int>(c.inputs.key.cols()),
                                  static_cast<int>(c.inputs.value.cols()), &params).ok())
    Fail("InitializeParameters failed on a valid call");
  attn::reference::Forward(c.config, attn::reference::ToDouble(c.inputs), attn::reference::ToDouble(params), &ref);
  attn::MatrixD tol;
  const Expect expect = Expected(c, ref, &tol);

  for (const Run& r : runs) {
    if (expect == Expect::kOk && !r.status.ok()) Fail(r.name + ": " + r.status.ToString() + ", expected ok");
    if (expect == Expect::kOverflow && r.status.code() != attn::StatusCode::kNonFinite)
      Fail(r.name + ": " + r.status.ToString() + ", expected non_finite (a score overflows float32)");
    if (!r.status.ok()) continue;
    for (Eigen::Index i = 0; i < tol.rows(); ++i) {
      for (Eigen::Index j = 0; j < tol.cols(); ++j) {
        const double err = std::fabs(static_cast<double>(r.output(i, j)) - ref.output(i, j));
        if (!(err <= tol(i, j))) {
          char buf[200];
          std::snprintf(buf, sizeof buf, ": output (%ld, %ld) = %.9g, float64 %.9g, error %.3g over the bound %.3g",
                        static_cast<long>(i), static_cast<long>(j), r.output(i, j), ref.output(i, j), err, tol(i, j));
          Fail(r.name + buf);
        }
      }
    }
  }
  return 0;
}
