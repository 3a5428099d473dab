#include "attn/config_names.h"

#include <iterator>

namespace attn {
namespace {

template <typename Enum, size_t N>
Status ParseName(const char* what, const std::string& name, const char* const (&names)[N], Enum* out) {
  std::string valid;
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      *out = static_cast<Enum>(i);
      return Status::Ok();
    }
    valid += (i ? ", " : "") + std::string(names[i]);
  }
  return Status(StatusCode::kUnknownOption, std::string(what) + ": expected one of " + valid + ", got '" + name + "'");
}

// In enum order.
const char* const kScoreNames[] = {"dot", "scaled_dot", "bilinear", "additive", "additive_concat", "cosine"};
const char* const kNormalizerNames[] = {"softmax", "sparsemax", "relu", "sigmoid", "none"};
const char* const kPositionNames[] = {"none", "sinusoidal", "learned", "alibi", "rope", "quadratic_relative"};
static_assert(std::size(kScoreNames) == static_cast<size_t>(ScoreFunction::kCount), "one name per score function");
static_assert(std::size(kNormalizerNames) == static_cast<size_t>(Normalizer::kCount), "one name per normaliser");
static_assert(std::size(kPositionNames) == static_cast<size_t>(PositionEncoding::kCount), "one name per encoding");

template <size_t N>
const char* NameOf(int index, const char* const (&names)[N]) {
  return index >= 0 && static_cast<size_t>(index) < N ? names[index] : "unknown";
}

}  // namespace

const char* ScoreFunctionName(ScoreFunction f) { return NameOf(static_cast<int>(f), kScoreNames); }
const char* NormalizerName(Normalizer n) { return NameOf(static_cast<int>(n), kNormalizerNames); }
const char* PositionEncodingName(PositionEncoding p) { return NameOf(static_cast<int>(p), kPositionNames); }

Status ParseScoreFunction(const std::string& name, ScoreFunction* out) { return ParseName("score", name, kScoreNames, out); }
Status ParseNormalizer(const std::string& name, Normalizer* out) { return ParseName("normalizer", name, kNormalizerNames, out); }
Status ParsePositionEncoding(const std::string& name, PositionEncoding* out) {
  return ParseName("position", name, kPositionNames, out);
}

Status ParseKernel(const std::string& name, KernelId* out) {
  for (int i = 0; i < static_cast<int>(KernelId::kCount); ++i) {
    const KernelId id = static_cast<KernelId>(i);
    if (name != KernelName(id)) continue;
    ATTN_RETURN_IF_ERROR(CheckKernelAvailable(id));
    *out = id;
    return Status::Ok();
  }
  return Status(StatusCode::kUnknownOption,
                "kernel: expected one of " + AvailableKernelNames() + ", got '" + name + "'");
}

}  // namespace attn
