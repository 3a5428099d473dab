// attnlab: the engine from the command line.
//   attnlab run [--kernel K] CASE.json       computes one case, prints {"outputs": {...}} in the
//                                            case JSON format
//   attnlab check [--kernel K] CASE.json...  computes each case, compares with its "outputs"; one
//                                            line per case, then "N passed, M failed"; exit 1 if
//                                            any failed
//   attnlab attend "The cat sat on the mat" [--dim D] [--temperature T] [--kernel K]
//                                  prints the tokens, the attention weights and the output rows
//   attnlab train --task recall ...          trains a small model on a toy task (train_commands.h)
//   attnlab datasize [--sizes 16,64,...]     a transformer's and a CNN's held-out accuracy per
//                                            training-set size (train_commands.h)
// Bad input: one line on stderr, exit 2.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "attn/attention.h"
#include "attn/case_io.h"
#include "attn/config_names.h"
#include "lessons/text.h"
#include "train_commands.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: attnlab run [--kernel K] CASE.json | "
               "attnlab check [--kernel K] CASE.json... | "
               "attnlab attend SENTENCE [--dim D] [--temperature T] [--scale S] [--kernel K] | "
               "attnlab train --task TASK [...] | attnlab datasize [--task TASK] [--sizes N1,N2,...] [...]\n"
               "kernels here: %s\n",
               attn::AvailableKernelNames().c_str());
  return 2;
}

int Fail(const attn::Status& status) {
  std::fprintf(stderr, "attnlab: %s\n", status.ToString().c_str());
  return 2;
}

// Consumes a leading "--kernel NAME" of run / check; false when NAME is missing or unknown.
bool TakeKernelOption(int* argc, char*** argv, attn::KernelId* kernel) {
  if (*argc < 1 || std::strcmp((*argv)[0], "--kernel")) return true;
  if (*argc < 2 || !attn::ParseKernel((*argv)[1], kernel).ok()) return false;
  *argc -= 2;
  *argv += 2;
  return true;
}

// Prints the outputs the case lists (every output when it lists none) as case JSON.
int Run(int argc, char** argv) {
  attn::KernelId kernel = attn::KernelId::kEigen;
  if (!TakeKernelOption(&argc, &argv, &kernel) || argc != 1) return Usage();
  attn::Case c;
  attn::Status status = attn::ReadCaseFile(argv[0], &c);
  if (!status.ok()) return Fail(status);
  attn::TensorMap outputs;
  status = attn::RunCase(c, &outputs, kernel);
  if (!status.ok()) return Fail(status);
  if (!c.outputs.empty()) {
    for (auto it = outputs.begin(); it != outputs.end();) {
      it = c.outputs.count(it->first) ? std::next(it) : outputs.erase(it);
    }
  }
  std::printf("%s\n", attn::OutputsToJson(outputs).c_str());
  return 0;
}

int Check(int argc, char** argv) {
  attn::KernelId kernel = attn::KernelId::kEigen;
  if (!TakeKernelOption(&argc, &argv, &kernel) || argc < 1) return Usage();
  int passed = 0, failed = 0;
  for (int i = 0; i < argc; ++i) {
    attn::Case c;
    const attn::Status status = attn::ReadCaseFile(argv[i], &c);
    attn::CaseCheck check;
    if (status.ok()) {
      check = attn::CheckCase(c, kernel);
    } else {
      check.name = argv[i];
      check.message = status.ToString();
    }
    (check.passed ? passed : failed) += 1;
    std::string line = std::string(check.passed ? "PASS " : "FAIL ") + check.name;
    char error[64];
    std::snprintf(error, sizeof(error), "  max_abs_err %.3g", check.max_abs_error);
    line += error;
    if (!check.worst_output.empty()) line += " (" + check.worst_output + ")";
    if (!check.passed) line += "  " + check.message;
    std::printf("%s\n", line.c_str());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
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
    } else if (!std::strcmp(argv[i], "--kernel") && has_value && attn::ParseKernel(argv[i + 1], &config.kernel).ok()) {
    } else {
      std::fprintf(stderr, "attnlab: bad option '%s'%s\n", argv[i], has_value ? " or its value" : " (missing value)");
      return 2;
    }
    ++i;
  }
  const auto tokens = lessons::Tokenize(sentence);
  attn::AttentionResult result;
  const attn::Status status =
      attn::SelfAttention(config, lessons::HashEmbeddings(tokens, static_cast<int>(dim)), &result);
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
  if (argc >= 2 && !std::strcmp(argv[1], "run")) return Run(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "check")) return Check(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "attend")) return Attend(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "train")) return attnlab_cli::Train(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "datasize")) return attnlab_cli::DataSize(argc - 2, argv + 2);
  return Usage();
}
