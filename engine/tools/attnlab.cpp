// attnlab: the engine from the command line.
//   attnlab run [OPTIONS] CASE.json          computes one case, prints {"outputs": {...}} in the
//                                            case JSON format
//   attnlab check [OPTIONS] CASE.json...     computes each case, compares with its "outputs"; one
//                                            line per case as soon as it is known, then
//                                            "N passed, M failed"; exit 1 if any failed (a case
//                                            that cannot be read or run is a FAIL line too)
//     OPTIONS of run and check:
//       --kernel K           the engine kernel (default eigen)
//       --max-input-mb N     largest case file read, in MiB (default 64; 1 to 65536)
//       --max-elements N     most elements of any one tensor a case reads, produces or needs on
//                            the way, e.g. the (heads, L, M) scores of a batch item (default
//                            16777216; 1 to 2147483647). See attn::CaseLimits.
//   attnlab attend "The cat sat on the mat" [--dim D] [--temperature T] [--scale S] [--kernel K]
//                                  prints the tokens, the attention weights and the output rows;
//                                  D an integer 1 to 4096, T and S finite numbers
//   attnlab train --task recall ...          trains a small model on a toy task (train_commands.h)
//   attnlab datasize [--sizes 16,64,...]     a transformer's and a CNN's held-out accuracy per
//                                            training-set size (train_commands.h)
// Bad input: one short line on stderr (values from a case are quoted as bounded excerpts), exit 2.
// A case over a limit is "resource_exhausted: ... (max_elements)". Nothing escapes main: an
// exception (std::bad_alloc included) is reported as resource_exhausted, exit 2.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/case_io.h"
#include "attn/config_names.h"
#include "lessons/text.h"
#include "train_commands.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: attnlab run [OPTIONS] CASE.json | "
               "attnlab check [OPTIONS] CASE.json... | "
               "attnlab attend SENTENCE [--dim D] [--temperature T] [--scale S] [--kernel K] | "
               "attnlab train --task TASK [...] | attnlab datasize [--task TASK] [--sizes N1,N2,...] [...]\n"
               "OPTIONS of run and check: --kernel K, --max-input-mb N (default 64), "
               "--max-elements N (default 16777216)\n"
               "kernels here: %s\n",
               attn::AvailableKernelNames().c_str());
  return 2;
}

int Fail(const attn::Status& status) {
  std::fprintf(stderr, "attnlab: %s\n", status.ToString().c_str());
  return 2;
}

// A bad flag or value: names the command, the flag, what it expects and (a bounded excerpt of) what
// it got, then the usage; exit 2.
int BadFlag(const char* command, const std::string& flag, const std::string& expected,
            const char* got) {
  const std::string text = got ? std::string(got) : std::string();
  const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
  if (got)
    std::fprintf(stderr, "attnlab %s: %s: expected %s, got '%s'\n", command, flag.c_str(),
                 expected.c_str(), shown.c_str());
  else
    std::fprintf(stderr, "attnlab %s: %s: expected %s, got nothing\n", command, flag.c_str(),
                 expected.c_str());
  return Usage();
}

// The whole of `text` as a base-10 integer in [lo, hi]: no sign other than a leading '-', no
// spaces, no fraction ("2.5" is not 2), no trailing garbage, no overflow.
bool ParseInteger(const char* text, int64_t lo, int64_t hi, int64_t* out) {
  if (!text || !(*text == '-' || (*text >= '0' && *text <= '9'))) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno == ERANGE || end == text || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// The whole of `text` as a finite number: no spaces, no trailing garbage, no inf or nan.
bool ParseFinite(const char* text, float* out) {
  if (!text || !*text || std::strchr(" \t\n\v\f\r", *text)) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (errno == ERANGE || end == text || *end != '\0' || !std::isfinite(v) ||
      std::fabs(v) > 3.0e38)
    return false;
  *out = static_cast<float>(v);
  return true;
}

// The options of run / check, then the case files. false after printing what was wrong.
struct CaseCommand {
  attn::KernelId kernel = attn::KernelId::kEigen;
  attn::CaseLimits limits;
  std::vector<const char*> files;
};

bool ParseCaseCommand(const char* command, int argc, char** argv, CaseCommand* out) {
  constexpr int64_t kMaxInputMb = 65536;
  constexpr int64_t kMaxElements = 2147483647;  // the engine's sizes are int
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      out->files.push_back(argv[i]);
      continue;
    }
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    int64_t n = 0;
    if (arg == "--kernel") {
      if (!value || !attn::ParseKernel(value, &out->kernel).ok()) {
        BadFlag(command, arg, "one of " + attn::AvailableKernelNames(), value);
        return false;
      }
    } else if (arg == "--max-input-mb") {
      if (!ParseInteger(value, 1, kMaxInputMb, &n)) {
        BadFlag(command, arg, "an integer 1 to " + std::to_string(kMaxInputMb), value);
        return false;
      }
      out->limits.max_input_bytes = n << 20;
    } else if (arg == "--max-elements") {
      if (!ParseInteger(value, 1, kMaxElements, &n)) {
        BadFlag(command, arg, "an integer 1 to " + std::to_string(kMaxElements), value);
        return false;
      }
      out->limits.max_elements = n;
    } else {
      std::fprintf(stderr, "attnlab %s: unknown flag '%.40s'\n", command, arg.c_str());
      Usage();
      return false;
    }
    ++i;
  }
  if (out->files.empty()) {
    std::fprintf(stderr, "attnlab %s: expected a case file\n", command);
    Usage();
    return false;
  }
  return true;
}

// Prints the outputs the case lists (every output when it lists none) as case JSON.
int Run(int argc, char** argv) {
  CaseCommand cmd;
  if (!ParseCaseCommand("run", argc, argv, &cmd)) return 2;
  if (cmd.files.size() != 1) {
    std::fprintf(stderr, "attnlab run: expected one case file, got %zu\n", cmd.files.size());
    return Usage();
  }
  attn::Case c;
  attn::Status status = attn::ReadCaseFile(cmd.files[0], &c, cmd.limits);
  if (!status.ok()) return Fail(status);
  attn::TensorMap outputs;
  status = attn::RunCase(c, &outputs, cmd.kernel, cmd.limits);
  if (!status.ok()) return Fail(status);
  if (!c.outputs.empty()) {
    for (auto it = outputs.begin(); it != outputs.end();) {
      it = c.outputs.count(it->first) ? std::next(it) : outputs.erase(it);
    }
  }
  std::printf("%s\n", attn::OutputsToJson(outputs).c_str());
  return 0;
}

// One case's verdict; whatever goes wrong inside (even an exception) is this case's FAIL.
attn::CaseCheck CheckOneFile(const char* path, const CaseCommand& cmd) {
  attn::CaseCheck check;
  check.name = path;
  try {
    attn::Case c;
    const attn::Status status = attn::ReadCaseFile(path, &c, cmd.limits);
    if (!status.ok()) {
      check.message = status.ToString();
      return check;
    }
    return attn::CheckCase(c, cmd.kernel, cmd.limits);
  } catch (const std::exception& e) {
    check.passed = false;
    check.message = std::string("resource_exhausted: ") + e.what();
  }
  return check;
}

// A case's name for its verdict line: one line, whatever the file says (control characters become
// '?'; past 200 bytes it is cut).
std::string OneLineName(const std::string& name) {
  std::string out = name.substr(0, 200);
  for (char& ch : out) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  }
  if (name.size() > out.size()) out += "... (" + std::to_string(name.size()) + " bytes)";
  return out;
}

int Check(int argc, char** argv) {
  CaseCommand cmd;
  if (!ParseCaseCommand("check", argc, argv, &cmd)) return 2;
  int passed = 0, failed = 0;
  for (const char* path : cmd.files) {
    const attn::CaseCheck check = CheckOneFile(path, cmd);
    (check.passed ? passed : failed) += 1;
    std::string line = std::string(check.passed ? "PASS " : "FAIL ") + OneLineName(check.name);
    char error[64];
    std::snprintf(error, sizeof(error), "  max_abs_err %.3g", check.max_abs_error);
    line += error;
    if (!check.worst_output.empty()) line += " (" + check.worst_output + ")";
    if (!check.passed) line += "  " + check.message;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);  // each verdict is out before the next case can go wrong
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
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
  int64_t dim = 16;
  attn::AttentionConfig config;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (flag == "--dim") {
      if (!ParseInteger(value, 1, 4096, &dim))
        return BadFlag("attend", flag, "an integer 1 to 4096", value);
    } else if (flag == "--temperature") {
      if (!ParseFinite(value, &config.temperature))
        return BadFlag("attend", flag, "a finite number", value);
    } else if (flag == "--scale") {
      if (!ParseFinite(value, &config.scale))
        return BadFlag("attend", flag, "a finite number", value);
    } else if (flag == "--kernel") {
      if (!value || !attn::ParseKernel(value, &config.kernel).ok())
        return BadFlag("attend", flag, "one of " + attn::AvailableKernelNames(), value);
    } else {
      std::fprintf(stderr, "attnlab attend: unknown flag '%.40s'\n", flag.c_str());
      return Usage();
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

int Dispatch(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "run")) return Run(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "check")) return Check(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "attend")) return Attend(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "train")) return attnlab_cli::Train(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "datasize")) return attnlab_cli::DataSize(argc - 2, argv + 2);
  return Usage();
}

}  // namespace

// The engine returns statuses, but the C++ library under it may still throw (std::bad_alloc when
// a size within the limits still does not fit this machine): report it, never abort.
int main(int argc, char** argv) {
  try {
    return Dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "attnlab: resource_exhausted: %s\n", e.what());
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "attnlab: resource_exhausted: unknown exception\n");
  }
  return 2;
}
