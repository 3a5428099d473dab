#include "case_commands.h"

#include <cstdio>
#include <exception>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "attn/case_io.h"
#include "attn/config_names.h"
#include "cli_support.h"
#include "json_text.h"

namespace attnlab_cli {
namespace {

constexpr int64_t kMaxInputMb = 65536;
constexpr int64_t kMaxElements = 2147483647;  // the engine's sizes are int
constexpr size_t kMaxNameBytes = 200;         // of a case's name on its verdict line

// The options of run / check, then the case files.
struct CaseCommand {
  attn::KernelId kernel = attn::KernelId::kEigen;
  attn::CaseLimits limits;
  bool json = false;  // check only
  std::vector<const char*> files;
};

// false after reporting the usage error.
bool ParseCaseCommand(const char* command, int argc, char** argv, CaseCommand* out) {
  const bool is_check = std::string(command) == "check";
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      out->files.push_back(argv[i]);
      continue;
    }
    if (is_check && arg == "--json") {
      out->json = true;
      continue;
    }
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    int64_t n = 0;
    if (arg == "--kernel") {
      if (!value || !attn::ParseKernel(value, &out->kernel).ok()) {
        BadFlag(command, arg, "one of " + attn::AvailableKernelNames(), value, "unknown_option");
        return false;
      }
    } else if (arg == "--max-input-mb") {
      if (!ParseInteger(value, 1, kMaxInputMb, &n)) {
        BadFlag(command, arg, "an integer 1 to " + std::to_string(kMaxInputMb), value, FlagValueCode(value, true));
        return false;
      }
      out->limits.max_input_bytes = n << 20;
    } else if (arg == "--max-elements") {
      if (!ParseInteger(value, 1, kMaxElements, &n)) {
        BadFlag(command, arg, "an integer 1 to " + std::to_string(kMaxElements), value, FlagValueCode(value, true));
        return false;
      }
      out->limits.max_elements = n;
    } else {
      UnknownFlag(command, argv[i]);
      return false;
    }
    ++i;
  }
  if (out->files.empty()) {
    UsageError(command, "invalid_argument: expected a case file");
    return false;
  }
  return true;
}

// The flags run and check share, for their help.
std::string CaseFlagsHelp() {
  const attn::CaseLimits defaults;
  return HelpFlag("--kernel K", "the engine kernel, one of " + attn::AvailableKernelNames() +
                                    " (on this machine); default " +
                                    attn::KernelName(CaseCommand().kernel)) +
         HelpFlag("--max-input-mb N", "the largest case file read, in MiB: 1 to " +
                                          std::to_string(kMaxInputMb) + "; default " +
                                          std::to_string(defaults.max_input_bytes >> 20)) +
         HelpFlag("--max-elements N",
                  "the most elements of any one tensor a case reads, produces or needs on the way "
                  "(the (heads, L, M) scores of a batch item): 1 to " +
                      std::to_string(kMaxElements) + "; default " +
                      std::to_string(defaults.max_elements)) +
         HelpFlag("--help, -h", "this text");
}

enum class Verdict { kPassed, kFailed, kError };

// What `check` says about one file.
struct CaseVerdict {
  std::string file;
  bool has_name = false;  // false when the file could not be read
  std::string name;
  Verdict verdict = Verdict::kError;
  std::vector<attn::OutputCheck> outputs;  // in the case's order; empty for an error
  double max_abs_error = 0;                // the largest of the outputs'
  std::string worst_output;                // the output holding it
  std::string message;  // the first problem (failed) or why nothing was compared (error)
};

// Reads, runs and compares one case file (attn::CheckCase's verdicts, the case computed once);
// whatever goes wrong inside (even an exception) is this file's verdict.
CaseVerdict CheckFile(const char* path, const CaseCommand& cmd) {
  CaseVerdict v;
  v.file = path;
  try {
    attn::Case c;
    const attn::Status status = attn::ReadCaseFile(path, &c, cmd.limits);
    if (!status.ok()) {
      v.message = status.ToString();
      return v;
    }
    v.has_name = true;
    v.name = c.name;
    attn::CaseCheck check = attn::CheckCase(c, cmd.kernel, cmd.limits);
    v.message = std::move(check.message);
    if (check.outputs.empty()) return v;  // nothing compared: the case did not run, or lists no outputs
    v.verdict = check.passed ? Verdict::kPassed : Verdict::kFailed;
    v.max_abs_error = check.max_abs_error;
    v.worst_output = std::move(check.worst_output);
    v.outputs = std::move(check.outputs);
  } catch (const std::exception& e) {
    v.verdict = Verdict::kError;
    v.outputs.clear();
    v.message = std::string("resource_exhausted: ") + e.what();
  }
  return v;
}

// What a verdict line calls the case: its name, or the file when it has none.
std::string ShownName(const CaseVerdict& v) {
  return CutText(v.has_name && !v.name.empty() ? v.name : v.file, kMaxNameBytes);
}

// "PASS name  max_abs_err 1.19e-07 (Y)", "FAIL ... why", "ERROR name  why": one line, whatever
// the file or its path says (control characters become '?').
std::string TextLine(const CaseVerdict& v) {
  std::string line;
  if (v.verdict == Verdict::kError) {
    line = "ERROR " + ShownName(v) + "  " + v.message;
  } else {
    line = (v.verdict == Verdict::kPassed ? "PASS " : "FAIL ") + ShownName(v);
    char error[64];
    std::snprintf(error, sizeof(error), "  max_abs_err %.3g", v.max_abs_error);
    line += error;
    if (!v.worst_output.empty()) line += " (" + v.worst_output + ")";
    if (v.verdict == Verdict::kFailed) line += "  " + v.message;
  }
  for (char& ch : line) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  }
  return line;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPassed: return "passed";
    case Verdict::kFailed: return "failed";
    case Verdict::kError: return "error";
  }
  return "error";
}

std::string JsonMessage(const std::string& message) {
  return message.empty() ? "null" : JsonString(message);
}

// {"name":…,"file":…,"status":…,"outputs":[…],"message":…} on one line.
std::string JsonLine(const CaseVerdict& v) {
  std::string line =
      "{\"name\":" + (v.has_name ? JsonString(CutText(v.name, kMaxNameBytes)) : "null") +
      ",\"file\":" + JsonString(v.file) + ",\"status\":\"" + VerdictName(v.verdict) +
      "\",\"outputs\":[";
  for (size_t i = 0; i < v.outputs.size(); ++i) {
    const attn::OutputCheck& out = v.outputs[i];
    line += std::string(i ? "," : "") + "{\"name\":" + JsonString(out.name) +
            ",\"passed\":" + (out.passed ? "true" : "false") +
            ",\"max_abs_error\":" + JsonNumber(out.max_abs_error) +
            ",\"rtol\":" + JsonNumber(out.tolerance.rtol) +
            ",\"atol\":" + JsonNumber(out.tolerance.atol) +
            ",\"message\":" + JsonMessage(out.message) + "}";
  }
  return line + "],\"message\":" + JsonMessage(v.message) + "}";
}

// "float32: rtol 0.001, atol 1e-05": the tolerance of each dtype, for the help.
std::string ToleranceText(attn::DType dtype) {
  const attn::Tolerance tol = attn::ToleranceFor(dtype);
  return std::string(attn::DTypeName(dtype)) + " rtol " + JsonNumber(tol.rtol) + ", atol " +
         JsonNumber(tol.atol);
}

}  // namespace

int Run(int argc, char** argv) {
  CaseCommand cmd;
  if (!ParseCaseCommand("run", argc, argv, &cmd)) return kExitBadInput;
  if (cmd.files.size() != 1)
    return UsageError("run", "invalid_argument: expected one case file, got " + std::to_string(cmd.files.size()));
  attn::Case c;
  attn::Status status = attn::ReadCaseFile(cmd.files[0], &c, cmd.limits);
  attn::TensorMap outputs;
  if (status.ok()) status = attn::RunCase(c, &outputs, cmd.kernel, cmd.limits);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab: %s\n", status.ToString().c_str());
    return kExitBadInput;
  }
  if (!c.outputs.empty()) {
    for (auto it = outputs.begin(); it != outputs.end();) {
      it = c.outputs.count(it->first) ? std::next(it) : outputs.erase(it);
    }
  }
  std::printf("%s\n", attn::OutputsToJson(outputs).c_str());
  return kExitOk;
}

std::string RunHelp() {
  return "usage: attnlab run [--kernel K] [--max-input-mb N] [--max-elements N] CASE.json\n"
         "\n"
         "Computes one case: an ONNX Attention or a torch MultiheadAttention call with its inputs\n"
         "(format: tests/data/onnx-attention/README.md). Prints the outputs the case lists (every\n"
         "output when it lists none) on one line: {\"outputs\": {\"Y\": {\"dims\", \"dtype\", "
         "\"data\"}}}.\n"
         "\n"
         "flags:\n" +
         CaseFlagsHelp() +
         HelpExitCodes(
             "the outputs are printed", "",
             "bad input or usage, the reason on stderr: \"attnlab: shape_mismatch: ...\", a case\n"
             "     over a limit \"attnlab: resource_exhausted: ... (max_elements)\"") +
         HelpExample("attnlab run tests/data/onnx-attention/test_attention_4d_causal.json");
}

int Check(int argc, char** argv) {
  CaseCommand cmd;
  if (!ParseCaseCommand("check", argc, argv, &cmd)) return kExitBadInput;
  int counts[3] = {0, 0, 0};  // by Verdict
  for (const char* path : cmd.files) {
    const CaseVerdict v = CheckFile(path, cmd);
    counts[static_cast<int>(v.verdict)] += 1;
    std::printf("%s\n", (cmd.json ? JsonLine(v) : TextLine(v)).c_str());
    std::fflush(stdout);  // each verdict is out before the next case can go wrong
  }
  const int passed = counts[0], failed = counts[1], errors = counts[2];
  if (cmd.json) {
    std::printf("{\"passed\":%d,\"failed\":%d,\"errors\":%d}\n", passed, failed, errors);
  } else if (errors) {
    std::printf("%d passed, %d failed, %d error%s\n", passed, failed, errors,
                errors == 1 ? "" : "s");
  } else {
    std::printf("%d passed, %d failed\n", passed, failed);
  }
  return errors ? kExitBadInput : failed ? kExitFailed : kExitOk;
}

std::string CheckHelp() {
  return "usage: attnlab check [--json] [--kernel K] [--max-input-mb N] [--max-elements N] "
         "CASE.json...\n"
         "\n"
         "Computes each case as attnlab run does and compares every output it lists with the "
         "expected\n"
         "values: |actual - expected| <= atol + rtol |expected|, with\n"
         "  " +
         ToleranceText(attn::DType::kFloat32) +
         "\n"
         "  " +
         ToleranceText(attn::DType::kFloat16) +
         " (the result rounded to float16 first)\n"
         "  bool and int64 exact; +-inf must match exactly, NaN only NaN.\n"
         "Prints one line per case as soon as it is known, then the counts:\n"
         "  PASS NAME  max_abs_err 1.19e-07 (Y)\n"
         "  FAIL NAME  max_abs_err 0.5 (Y)  Y[3]: 0.25 vs expected 0.75 (rtol 0.001, atol 1e-05)\n"
         "  ERROR NAME  parse_error: ...      the file could not be read or run\n"
         "  N passed, M failed                with \", K errors\" when there are some\n"
         "NAME is the case's \"name\" (the file when it has none), one line of at most 200 bytes.\n"
         "\n"
         "flags:\n" +
         HelpFlag("--json", "one JSON object per line instead, for scripts (below)") +
         CaseFlagsHelp() +
         "\n"
         "--json prints per case (\"name\" is null when the file could not be read; \"message\" "
         "says\n"
         "why a case or an output failed, or null):\n"
         "  {\"name\":\"...\",\"file\":\"...\",\"status\":\"passed\"|\"failed\"|\"error\",\n"
         "   "
         "\"outputs\":[{\"name\":\"Y\",\"passed\":true,\"max_abs_error\":1.2e-07,\"rtol\":0.001,\n"
         "   \"atol\":1e-05,\"message\":null}],\"message\":null}\n"
         "and last {\"passed\":N,\"failed\":M,\"errors\":K}.\n" +
         HelpExitCodes(
             "every case passed", "a case failed: an output differs beyond its tolerance",
             "bad input or usage (the reason on stderr), or a case file that cannot be read or\n"
             "     run: \"error\" (every other case is still checked)") +
         HelpExample(
             "attnlab check --json tests/data/onnx-attention/*.json tests/data/torch-mha/*.json");
}

}  // namespace attnlab_cli
