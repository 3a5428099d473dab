// Case files (attnlab run / check): any text parses to a Status without crashing, aborting or
// allocating past CaseLimits, and what a case computes survives the JSON round trip. For every
// input t:
//   ParseCase(t) → c;  for every available kernel k: RunCase(c, k) → outputs (any status, the same
//   code on every kernel);  OutputsToJson(outputs) → j;  ParseCase(j) is ok and gives back the
//   same dims, dtypes and values, bit for bit (NaN for NaN).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "attn/case_io.h"
#include "attn/kernels.h"

namespace {

[[noreturn]] void Fail(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "case_fuzz: %s\n  %s\n", what.c_str(), detail.substr(0, 2000).c_str());
  std::abort();
}

// Equal as written to a case file: float bits compared after NaN is folded to one NaN.
bool SameValues(const attn::Tensor& a, const attn::Tensor& b) {
  if (a.dims != b.dims || a.dtype != b.dtype || a.integers != b.integers) return false;
  if (a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const float x = a.values[i], y = b.values[i];
    if (x != x && y != y) continue;
    if (std::memcmp(&x, &y, sizeof(float)) != 0) return false;
  }
  return true;
}

// Small limits keep each run fast and its memory bounded; the defaults are tested in
// case_io_test.cpp.
attn::CaseLimits FuzzLimits() {
  attn::CaseLimits limits;
  limits.max_input_bytes = 1 << 20;
  limits.max_elements = 1 << 16;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const attn::CaseLimits limits = FuzzLimits();
  const std::string text(reinterpret_cast<const char*>(data), size);
  attn::Case c;
  if (!attn::ParseCase(text, &c, limits).ok()) return 0;

  bool first = true;
  attn::StatusCode first_code = attn::StatusCode::kOk;
  for (attn::KernelId kernel : attn::AvailableKernels()) {
    attn::TensorMap outputs;
    const attn::Status status = attn::RunCase(c, &outputs, kernel, limits);
    if (first) {
      first_code = status.code();
      first = false;
    } else if (status.code() != first_code) {
      Fail(std::string("kernels disagree on the status: ") + attn::KernelName(kernel),
           status.ToString());
    }
    if (!status.ok()) continue;

    const std::string json = attn::OutputsToJson(outputs);
    attn::Case back;
    // {"outputs":...} → {"inputs":{},"outputs":...}; a written case may be larger than the text
    // it came from, so it is read back with the default limits.
    const attn::Status reread = attn::ParseCase("{\"inputs\":{}," + json.substr(1), &back);
    if (!reread.ok()) Fail("OutputsToJson wrote a case that does not parse: " + reread.ToString(), json);
    if (back.outputs.size() != outputs.size()) Fail("outputs lost in the round trip", json);
    for (const auto& [name, tensor] : outputs) {
      const auto it = back.outputs.find(name);
      if (it == back.outputs.end() || !SameValues(tensor, it->second))
        Fail("output " + name + " changed in the round trip", json);
    }
  }
  return 0;
}
