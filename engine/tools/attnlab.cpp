// attnlab: the engine from the command line.
//   attnlab attend "The cat sat on the mat" [--dim D] [--temperature T] [--kernel reference|eigen]
// prints the tokens, the attention weights and the output rows. Bad input: one line on stderr, exit 2.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "attn/attention.h"
#include "attn/text.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: attnlab attend SENTENCE [--dim D] [--temperature T] [--scale S] "
               "[--kernel reference|eigen]\n");
  return 2;
}

bool ParseFloat(const char* text, float* out) {
  char* end = nullptr;
  *out = std::strtof(text, &end);
  return end != text && *end == '\0';
}

void PrintMatrix(const char* name, const attn::Matrix& m) {
  std::printf("%s (%ld, %ld)\n", name, static_cast<long>(m.rows()), static_cast<long>(m.cols()));
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) std::printf("%s%.6f", j ? " " : "  ", m(i, j));
    std::printf("\n");
  }
}

int Attend(int argc, char** argv) {
  if (argc < 1) return Usage();
  const std::string sentence = argv[0];
  float dim = 16;
  attn::AttentionConfig config;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--dim") && has_value && ParseFloat(argv[i + 1], &dim) && dim >= 1 && dim <= 4096) {
    } else if (!std::strcmp(argv[i], "--temperature") && has_value && ParseFloat(argv[i + 1], &config.temperature)) {
    } else if (!std::strcmp(argv[i], "--scale") && has_value && ParseFloat(argv[i + 1], &config.scale)) {
    } else if (!std::strcmp(argv[i], "--kernel") && has_value && !std::strcmp(argv[i + 1], "reference")) {
      config.kernel = attn::KernelId::kReference;
    } else if (!std::strcmp(argv[i], "--kernel") && has_value && !std::strcmp(argv[i + 1], "eigen")) {
      config.kernel = attn::KernelId::kEigen;
    } else {
      std::fprintf(stderr, "attnlab: bad option '%s'%s\n", argv[i], has_value ? " or its value" : " (missing value)");
      return 2;
    }
    ++i;
  }
  const auto tokens = attn::Tokenize(sentence);
  attn::AttentionResult result;
  const attn::Status status =
      attn::SelfAttention(config, attn::HashEmbeddings(tokens, static_cast<int>(dim)), &result);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab: %s\n", status.ToString().c_str());
    return 2;
  }
  std::printf("tokens:");
  for (const auto& t : tokens) std::printf(" %s", t.c_str());
  std::printf("\n");
  PrintMatrix("weights", result.heads[0].weights);
  PrintMatrix("output", result.output);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "attend")) return Attend(argc - 2, argv + 2);
  return Usage();
}
