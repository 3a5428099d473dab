#include "attend_command.h"

#include <cstdio>
#include <string>

#include "attn/attention.h"
#include "attn/config_names.h"
#include "cli_support.h"
#include "attn/text.h"

namespace attnlab_cli {
namespace {

constexpr int64_t kDefaultDim = 16;
constexpr int64_t kMaxDim = 4096;

void PrintMatrix(const char* name, const attn::Matrix& m) {
  std::printf("%s (%ld, %ld)\n", name, static_cast<long>(m.rows()), static_cast<long>(m.cols()));
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) std::printf("%s%.6f", j ? " " : "  ", m(i, j));
    std::printf("\n");
  }
}

}  // namespace

int Attend(int argc, char** argv) {
  if (argc < 1) return UsageError("attend", "invalid_argument: expected a sentence");
  const std::string sentence = argv[0];
  int64_t dim = kDefaultDim;
  attn::AttentionConfig config;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (flag == "--dim") {
      if (!ParseInteger(value, 1, kMaxDim, &dim))
        return BadFlag("attend", flag, "an integer 1 to " + std::to_string(kMaxDim), value,
                       FlagValueCode(value, true));
    } else if (flag == "--temperature") {
      if (!ParseFinite(value, &config.temperature))
        return BadFlag("attend", flag, "a finite number", value);
    } else if (flag == "--scale") {
      if (!ParseFinite(value, &config.scale))
        return BadFlag("attend", flag, "a finite number", value);
    } else if (flag == "--kernel") {
      if (!value || !attn::ParseKernel(value, &config.kernel).ok())
        return BadFlag("attend", flag, "one of " + attn::AvailableKernelNames(), value, "unknown_option");
    } else {
      return UnknownFlag("attend", argv[i]);
    }
    ++i;
  }
  const auto tokens = attn::Tokenize(sentence);
  attn::AttentionResult result;
  const attn::Status status =
      attn::SelfAttention(config, attn::HashEmbeddings(tokens, static_cast<int>(dim)), &result);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab: %s\n", status.ToString().c_str());
    return kExitBadInput;
  }
  std::printf("tokens:");
  for (const auto& t : tokens) std::printf(" %s", t.c_str());
  std::printf("\n");
  PrintMatrix("weights", result.heads[0].weights);
  PrintMatrix("output", result.output);
  return kExitOk;
}

std::string AttendHelp() {
  const attn::AttentionConfig defaults;
  const auto number = [](float v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", v);
    return std::string(text);
  };
  return "usage: attnlab attend SENTENCE [--dim D] [--temperature T] [--scale S] [--kernel K]\n"
         "\n"
         "Self-attention over a sentence, as view 1 computes it but on hashed stand-in word "
         "vectors\n"
         "(no GloVe): X holds one D-wide vector per token, the weights are\n"
         "softmax(scale X X^T / T) row by row and the output is weights X. Prints the tokens, the\n"
         "weights (n, n) and the output (n, D).\n"
         "\n"
         "flags:\n" +
         HelpFlag("--dim D", "width of each word vector: an integer 1 to " +
                                 std::to_string(kMaxDim) + "; default " +
                                 std::to_string(kDefaultDim)) +
         HelpFlag("--temperature T", "the softmax temperature: a finite number > 0; default " +
                                         number(defaults.temperature)) +
         HelpFlag("--scale S",
                  "multiplies the scores: a finite number > 0, or 0 for 1/sqrt(D); default " +
                      number(defaults.scale)) +
         HelpFlag("--kernel K", "the engine kernel, one of " + attn::AvailableKernelNames() +
                                    " (on this machine); default " +
                                    attn::KernelName(defaults.kernel)) +
         HelpFlag("--help, -h", "this text") +
         HelpExitCodes("the weights and outputs are printed", "") +
         HelpExample("attnlab attend \"The cat sat on the mat\" --temperature 0.5");
}

}  // namespace attnlab_cli
