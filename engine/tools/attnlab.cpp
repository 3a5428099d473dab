// attnlab: the engine from the command line. `attnlab help` lists the commands; each command's
// help (`attnlab help COMMAND`, `attnlab COMMAND --help`) gives its flags, defaults, exit codes and
// an example:
//   run       one case file, its outputs as case JSON             (case_commands.h)
//   check     case files against their expected outputs           (case_commands.h)
//   attend    view 1's self-attention over a sentence              (attend_command.h)
//   train     a small transformer on a toy task                    (train_commands.h)
//   datasize  a transformer's and a CNN's accuracy per data size   (train_commands.h)
//   generate  the language model continues a prompt                (lm_commands.h)
//   lm-eval   the language model's held-out perplexity             (lm_commands.h)
//   lm        a safetensors checkpoint on token ids                (lm_commands.h)
// Help and --version go to stdout with exit 0. Exit codes (cli_support.h): 0 done / every case
// passed, 1 a case failed (check) or training failed, 2 bad input or usage, with the reason on
// stderr (a usage error adds "see attnlab help COMMAND"). Nothing escapes main: an exception
// (std::bad_alloc included) is reported as resource_exhausted, exit 2.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "attend_command.h"
#include "attn/version.h"
#include "case_commands.h"
#include "cli_support.h"
#include "lm_commands.h"
#include "train_commands.h"

namespace attnlab_cli {
namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // the arguments after the command's name
  std::string (*help)();
};

constexpr Command kCommands[] = {
    {"run", "compute one case file, print its outputs as case JSON", Run, RunHelp},
    {"check", "compute case files, compare each with its expected outputs (--json for scripts)",
     Check, CheckHelp},
    {"attend", "self-attention over a sentence: tokens, weights, outputs", Attend, AttendHelp},
    {"train", "train a small transformer on a toy task; loss, accuracy and each head's role", Train,
     TrainHelp},
    {"datasize", "held-out accuracy of a transformer and a CNN per training-set size", DataSize,
     DataSizeHelp},
    {"generate", "the language model trained on the Brown corpus continues a prompt", Generate, GenerateHelp},
    {"lm-eval", "the language model's held-out perplexity against unigram and bigram baselines", LmEval,
     LmEvalHelp},
    {"lm", "a GPT-2 / nanoGPT safetensors checkpoint (or the asset) on token ids: next tokens, greedy", Lm, LmHelp},
};

const Command* FindCommand(const char* name) {
  for (const Command& command : kCommands) {
    if (!std::strcmp(command.name, name)) return &command;
  }
  return nullptr;
}

std::string Overview() {
  std::string text =
      std::string("attnlab ") + attn::Version() +
      ": the attention engine from the command line\n"
      "\n"
      "usage: attnlab COMMAND [ARGS...]\n"
      "       attnlab help [COMMAND]   this text, or a command's flags, defaults and an example\n"
      "       attnlab COMMAND --help   the same\n"
      "       attnlab --version        the version, \"attnlab MAJOR.MINOR.PATCH\"\n"
      "\n"
      "commands:\n";
  for (const Command& command : kCommands) text += HelpFlag(command.name, command.summary);
  return text +
         "\n"
         "exit codes (every command):\n"
         "  0  done; check: every case passed\n"
         "  1  check: a case failed; train, datasize: training failed\n"
         "  2  bad input or usage: the reason on stderr, then \"see attnlab help COMMAND\" for a "
         "usage error\n" +
         HelpExample("attnlab check tests/data/onnx-attention/*.json");
}

int PrintOut(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

int Dispatch(int argc, char** argv) {
  if (argc < 2) return UsageError("", "invalid_argument: expected a command");
  const char* first = argv[1];
  if (!std::strcmp(first, "--version")) {
    if (argc > 2) return UsageError("", "invalid_argument: --version: expected nothing after it, got '" + Excerpt(argv[2]) + "'");
    return PrintOut(std::string("attnlab ") + attn::Version() + "\n");
  }
  if (!std::strcmp(first, "help") || !std::strcmp(first, "--help") || !std::strcmp(first, "-h")) {
    if (argc < 3 || (argc == 3 && !std::strcmp(argv[2], "help"))) return PrintOut(Overview());  // `help help`
    const Command* command = FindCommand(argv[2]);
    if (!command) return UsageError("", "unknown_option: help: unknown command '" + Excerpt(argv[2]) + "'");
    if (argc > 3)
      return UsageError("", "help: expected one command, got " + std::to_string(argc - 2));
    return PrintOut(command->help());
  }
  const Command* command = FindCommand(first);
  if (!command) return UsageError("", "unknown_option: unknown command '" + Excerpt(first) + "'");
  if (AsksForHelp(argc - 2, argv + 2)) return PrintOut(command->help());
  try {
    return command->run(argc - 2, argv + 2);
  } catch (const std::bad_alloc&) {  // what no estimate foresaw: for train and datasize, a failed run
    if (command->run != Train && command->run != DataSize) throw;
    std::fflush(stdout);
    std::fprintf(stderr, "attnlab %s: resource_exhausted: out of memory while training\n", command->name);
    return kExitFailed;
  }
}

}  // namespace
}  // namespace attnlab_cli

// The engine returns statuses, but the C++ library under it may still throw (std::bad_alloc when
// a size within the limits still does not fit this machine): report it, never abort.
int main(int argc, char** argv) {
  try {
    return attnlab_cli::Dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "attnlab: resource_exhausted: %s\n", e.what());
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "attnlab: resource_exhausted: unknown exception\n");
  }
  return attnlab_cli::kExitBadInput;
}
